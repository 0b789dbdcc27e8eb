/**
 * What the push consumer integration tests share on top of support.ts: consumers with short
 * intervals and their own instance, a recorder of what a listener saw, sends in parallel, the
 * consumer's inner parts (process queues, offset store) for the flow-control and offset checks,
 * requests an admin sends to a broker, and a clock that runs in real time but can jump ahead.
 */
import assert from 'node:assert/strict';
import type { BrokerConfigOverrides } from '../../../src/broker/broker-config.js';
import type { BrokerController } from '../../../src/broker/broker-controller.js';
import type { ProcessQueue } from '../../../src/client/consumer/process-queue.js';
import type { DefaultMQPushConsumerImpl } from '../../../src/client/consumer/push/default-mq-push-consumer-impl.js';
import {
  ConsumeConcurrentlyStatus,
  createPushConsumer,
  type MessageInput,
  type Producer,
  type PushConsumer,
  type PushConsumerOptions,
  type SendResult,
} from '../../../src/client/index.js';
import type { Clock, TimerHandle } from '../../../src/common/clock.js';
import type { Logger, LogRecord } from '../../../src/common/logger.js';
import type { MessageExt } from '../../../src/common/message/message.js';
import { createRequest, type RemotingCommand } from '../../../src/remoting/protocol/command.js';
import { RemotingClient } from '../../../src/remoting/transport/remoting-client.js';
import { quiet, type TestCluster, uniqueName } from './support.js';

/**
 * Intervals short enough for tests: rebalance, route poll and heartbeat every second, offsets
 * persisted every 200 ms, long polls held 1 s, a failed pull retried after 100 ms.
 */
export const FAST: Partial<PushConsumerOptions> = {
  rebalanceWaitInterval: 1000,
  pollNameServerInterval: 1000,
  heartbeatBrokerInterval: 1000,
  persistConsumerOffsetInterval: 200,
  brokerSuspendMaxTimeMillis: 1000,
  consumerTimeoutMillisWhenSuspend: 3000,
  pullTimeDelayMillsWhenException: 100,
  lockInterval: 1000,
  lockRetryInterval: 200,
  suspendCurrentQueueTimeMillis: 50,
  consumeRetryDelayWhenSendBackFailed: 300,
  consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
};

/**
 * Broker settings for consumer tests: held pulls are checked every 100 ms instead of 5 s, so a long
 * poll shortened by brokerSuspendMaxTimeMillis ends on time.
 */
export const BROKER_FAST: BrokerConfigOverrides = { longPollingCheckInterval: 100 };

/** Level 3 (upstream's 10 s, the first retry) is 2 s here; every other level 1 s. */
export const LEVEL_3_MS = 2000;
/** Delay levels of brokers whose tests wait for retries: upstream's 18 levels, shortened. */
export const FAST_DELAY_LEVELS = ['1s', '1s', '2s', ...Array.from({ length: 15 }, () => '1s')].join(' ');

/** Every consumer a test file started, shut down by `shutdownAll`. */
const started: PushConsumer[] = [];

/** A push consumer of `consumerGroup` (a fresh one by default) with FAST settings and its own instance. */
export function newConsumer(cluster: TestCluster, options: Partial<PushConsumerOptions> = {}): PushConsumer {
  const consumer = createPushConsumer({
    namesrvAddr: cluster.namesrvAddr,
    consumerGroup: uniqueName('cg'),
    instanceName: uniqueName('inst'),
    clientIP: '127.0.0.1',
    logger: quiet,
    ...FAST,
    ...options,
  });
  started.push(consumer);
  return consumer;
}

export async function shutdownAll(): Promise<void> {
  await Promise.all(started.splice(0).map((c) => c.shutdown().catch(() => undefined)));
}

/** The consumer's implementation behind the facade (process queues, offset store, rebalance). */
export function implOf(consumer: PushConsumer): DefaultMQPushConsumerImpl {
  return (consumer as unknown as { impl: DefaultMQPushConsumerImpl }).impl;
}

/** The process queues the consumer holds, by `topic:queueId` (retry topics left out). */
export function processQueues(consumer: PushConsumer, topic: string): Map<number, ProcessQueue> {
  const out = new Map<number, ProcessQueue>();
  for (const { mq, pq } of implOf(consumer).rebalance.processQueueTable.values()) {
    if (mq.topic === topic) out.set(mq.queueId, pq);
  }
  return out;
}

/** Queue ids of `topic` the consumer holds, sorted. */
export function heldQueueIds(consumer: PushConsumer, topic: string): number[] {
  return [...processQueues(consumer, topic).keys()].sort((a, b) => a - b);
}

/** The consumer's offset in memory of `topic:queueId`, -1 when it does not hold the queue. */
export function offsetInMemory(consumer: PushConsumer, topic: string, queueId: number): bigint {
  const impl = implOf(consumer);
  for (const { mq } of impl.rebalance.processQueueTable.values()) {
    if (mq.topic === topic && mq.queueId === queueId) return impl.offsetStore.readOffsetInMemory(mq);
  }
  return -1n;
}

/** Every queue of `topic` on `broker` has its end committed, in the consumers' memory or on the broker. */
export function caughtUp(
  broker: BrokerController,
  topic: string,
  queues: number,
  where: { consumers: readonly PushConsumer[] } | { group: string },
): boolean {
  for (let q = 0; q < queues; q++) {
    const max = broker.messageStore.getMaxOffsetInQueue(topic, q);
    let at = -1n;
    if ('group' in where) at = brokerOffset(broker, where.group, topic, q);
    else {
      // The queue's holder has the offset; the others report -1.
      for (const c of where.consumers) {
        const o = offsetInMemory(c, topic, q);
        if (o > at) at = o;
      }
    }
    if (at !== max) return false;
  }
  return true;
}

/** One message as a listener saw it (copied: the consumer may reuse the object). */
export interface Seen {
  readonly consumer: string;
  readonly msgId: string;
  readonly body: string;
  readonly topic: string;
  readonly tags: string | undefined;
  readonly keys: string | undefined;
  readonly queueId: number;
  readonly queueOffset: bigint;
  readonly reconsumeTimes: number;
  readonly properties: ReadonlyMap<string, string>;
  readonly at: number;
}

export function seenOf(consumer: string, msg: MessageExt): Seen {
  return {
    consumer,
    msgId: msg.msgId,
    body: msg.body.toString('utf8'),
    topic: msg.topic,
    tags: msg.tags,
    keys: msg.keys,
    queueId: msg.queueId,
    queueOffset: msg.queueOffset,
    reconsumeTimes: msg.reconsumeTimes,
    properties: new Map(msg.properties),
    at: Date.now(),
  };
}

/** Registers a concurrent listener that records every message and answers `answer(msg)` [success]. */
export function recordConcurrently(
  consumer: PushConsumer,
  name: string,
  seen: Seen[],
  answer: (msg: MessageExt) => ConsumeConcurrentlyStatus | Promise<ConsumeConcurrentlyStatus> = () =>
    ConsumeConcurrentlyStatus.CONSUME_SUCCESS,
): void {
  consumer.registerMessageListener({
    type: 'concurrently',
    async consumeMessage(msgs) {
      let status: ConsumeConcurrentlyStatus = ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
      for (const msg of msgs) {
        seen.push(seenOf(name, msg));
        const s = await answer(msg);
        if (s !== ConsumeConcurrentlyStatus.CONSUME_SUCCESS) status = s;
      }
      return status;
    },
  });
}

/** Sends `count` messages made by `make(i)`, `inFlight` at a time; results in index order. */
export async function sendMany(
  producer: Producer,
  count: number,
  make: (i: number) => MessageInput,
  inFlight = 64,
): Promise<SendResult[]> {
  const results: SendResult[] = new Array(count);
  let next = 0;
  const worker = async () => {
    for (;;) {
      const i = next++;
      if (i >= count) return;
      results[i] = await producer.send(make(i));
    }
  };
  await Promise.all(Array.from({ length: Math.min(inFlight, count) }, worker));
  return results;
}

/** Distinct values, with how many times each occurred beyond the first. */
export function duplicates<T>(values: Iterable<T>): Map<T, number> {
  const counts = new Map<T, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  const out = new Map<T, number>();
  for (const [v, n] of counts) if (n > 1) out.set(v, n - 1);
  return out;
}

/** The broker's committed offset of a group's queue, -1 when none. */
export function brokerOffset(
  broker: BrokerController,
  group: string,
  topic: string,
  queueId: number,
): bigint {
  return broker.consumerOffsetManager.queryOffset(group, topic, queueId);
}

/** Records of `records` at warn level or above whose message matches. */
export function warnings(records: readonly LogRecord[], pattern: RegExp): LogRecord[] {
  return records.filter((r) => (r.level === 'warn' || r.level === 'error') && pattern.test(r.msg));
}

/** A client that sends admin requests to brokers (as mqadmin does). */
export class AdminClient {
  private readonly remoting = new RemotingClient({}, { logger: quiet as Logger });

  invoke(
    broker: BrokerController,
    code: number,
    extFields: Record<string, string>,
  ): Promise<RemotingCommand> {
    return this.remoting.invoke(broker.brokerAddr, createRequest(code, { extFields }), { timeoutMs: 5000 });
  }

  close(): Promise<void> {
    return this.remoting.close();
  }
}

/**
 * The real clock, with timers that keep the process alive as the client's own do, that a test can
 * move ahead by `jump(ms)`: now() leaps, and timers falling due in the leap fire at once. What the
 * client times in minutes (consumeTimeout) is tested without waiting minutes.
 */
export class JumpClock implements Clock {
  private skew = 0;
  private readonly timers = new Set<JumpTimer>();

  now(): number {
    return Date.now() + this.skew;
  }

  setTimeout(fn: () => void, ms: number): TimerHandle {
    const timer: JumpTimer = { at: this.now() + Math.max(0, ms), fn, real: undefined };
    this.arm(timer);
    this.timers.add(timer);
    return {
      cancel: () => {
        clearTimeout(timer.real);
        this.timers.delete(timer);
      },
    };
  }

  /** Moves time ahead by `ms`; timers now due fire on the next turns. */
  jump(ms: number): void {
    this.skew += ms;
    for (const timer of this.timers) {
      clearTimeout(timer.real);
      this.arm(timer);
    }
  }

  private arm(timer: JumpTimer): void {
    timer.real = setTimeout(
      () => {
        this.timers.delete(timer);
        timer.fn();
      },
      Math.max(0, timer.at - this.now()),
    );
  }
}

interface JumpTimer {
  readonly at: number;
  readonly fn: () => void;
  real: NodeJS.Timeout | undefined;
}

/** Asserts `values` is strictly increasing. */
export function assertIncreasing(values: readonly bigint[], what: string): void {
  for (let i = 1; i < values.length; i++) {
    assert.ok(
      (values[i] as bigint) > (values[i - 1] as bigint),
      `${what}: ${values[i]} after ${values[i - 1]} at ${i}`,
    );
  }
}
