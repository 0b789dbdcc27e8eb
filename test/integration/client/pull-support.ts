/**
 * What the lite pull and pull consumer integration tests share on top of support.ts: consumers with
 * short intervals and their own client instance, their inner parts (assigned queues, pull tasks),
 * a poll loop with a deadline, and a watch on the broker's PULL_MESSAGE requests (when each arrives
 * and when it is answered), so a test knows which queues are being pulled without sleeping.
 */
import assert from 'node:assert/strict';
import type { BrokerController } from '../../../src/broker/broker-controller.js';
import type { AssignedMessageQueue } from '../../../src/client/consumer/lite/assigned-message-queue.js';
import type { DefaultLitePullConsumerImpl } from '../../../src/client/consumer/lite/default-lite-pull-consumer-impl.js';
import {
  createLitePullConsumer,
  createPullConsumer,
  type LitePullConsumer,
  type LitePullConsumerOptions,
  type PullConsumer,
  type PullConsumerOptions,
} from '../../../src/client/index.js';
import type { MessageExt } from '../../../src/common/message/message.js';
import { MessageQueue } from '../../../src/common/message/message-queue.js';
import { RequestCode } from '../../../src/remoting/protocol/request-code.js';
import { quiet, type TestCluster, uniqueName, wrapHandler } from './support.js';

/** Route poll, heartbeat and rebalance every second; offsets persisted every 200 ms; long polls held 1 s. */
const CLIENT_FAST = {
  rebalanceWaitInterval: 1000,
  pollNameServerInterval: 1000,
  heartbeatBrokerInterval: 1000,
  persistConsumerOffsetInterval: 200,
  pullTimeDelayMillsWhenException: 100,
} as const;

export const LITE_FAST: Partial<LitePullConsumerOptions> = {
  ...CLIENT_FAST,
  brokerSuspendMaxTimeMillis: 1000,
  consumerTimeoutMillisWhenSuspend: 3000,
  pullTimeDelayMillsWhenPause: 50,
  pullTimeDelayMillsOnException: 100,
  pollTimeoutMillis: 1000,
  consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
};

export const PULL_FAST: Partial<PullConsumerOptions> = {
  ...CLIENT_FAST,
  brokerSuspendMaxTimeMillis: 1000,
  consumerTimeoutMillisWhenSuspend: 3000,
};

const started: Array<{ shutdown(): Promise<void> }> = [];

/** A lite pull consumer of a fresh group (unless given) with its own client instance. */
export function newLite(
  cluster: TestCluster,
  options: Partial<LitePullConsumerOptions> = {},
): LitePullConsumer {
  const consumer = createLitePullConsumer({
    namesrvAddr: cluster.namesrvAddr,
    consumerGroup: uniqueName('lp'),
    instanceName: uniqueName('inst'),
    clientIP: '127.0.0.1',
    logger: quiet,
    ...LITE_FAST,
    ...options,
  });
  started.push(consumer);
  return consumer;
}

/** A pull consumer of a fresh group (unless given) with its own client instance. */
export function newPull(cluster: TestCluster, options: Partial<PullConsumerOptions> = {}): PullConsumer {
  const consumer = createPullConsumer({
    namesrvAddr: cluster.namesrvAddr,
    consumerGroup: uniqueName('pc'),
    instanceName: uniqueName('inst'),
    clientIP: '127.0.0.1',
    logger: quiet,
    ...PULL_FAST,
    ...options,
  });
  started.push(consumer);
  return consumer;
}

/** Shuts down every consumer this file made (errors ignored: some were shut down by their test). */
export async function shutdownConsumers(): Promise<void> {
  await Promise.all(started.splice(0).map((c) => c.shutdown().catch(() => undefined)));
}

interface LiteInner {
  readonly impl: DefaultLitePullConsumerImpl;
}

export function liteImplOf(consumer: LitePullConsumer): DefaultLitePullConsumerImpl {
  return (consumer as unknown as LiteInner).impl;
}

/** The consumer's assigned queues with their ProcessQueues and offsets. */
export function assignedOf(consumer: LitePullConsumer): AssignedMessageQueue {
  return (liteImplOf(consumer) as unknown as { assigned: AssignedMessageQueue }).assigned;
}

/** How many times a pull task met a flow-control threshold. */
export function flowControlTimesOf(consumer: LitePullConsumer): number {
  const impl = liteImplOf(consumer) as unknown as { pullTasks: { flowControlTimes: number } };
  return impl.pullTasks.flowControlTimes;
}

/** Polls (timeoutMs each) until `count` messages came; fails after `deadlineMs`. */
export async function pollAll(
  consumer: LitePullConsumer,
  count: number,
  what: string,
  deadlineMs = 10_000,
): Promise<MessageExt[]> {
  const out: MessageExt[] = [];
  const deadline = Date.now() + deadlineMs;
  while (out.length < count) {
    if (Date.now() > deadline)
      assert.fail(`${what}: ${out.length} of ${count} messages within ${deadlineMs} ms`);
    out.push(...(await consumer.poll({ timeoutMs: 200 })));
  }
  return out;
}

export function offsetsOf(msgs: readonly MessageExt[]): number[] {
  return msgs.map((m) => Number(m.queueOffset));
}

export function mqOf(topic: string, queueId: number, brokerName = 'broker-a'): MessageQueue {
  return new MessageQueue(topic, brokerName, queueId);
}

/** Pulls of one queue as the broker saw them. */
export interface QueuePulls {
  arrived: number;
  answered: number;
}

/** Watches the broker's PULL_MESSAGE requests: arrivals and answers, by `topic:queueId`. */
export class PullWatch {
  private readonly byQueue = new Map<string, QueuePulls>();

  constructor(broker: BrokerController) {
    wrapHandler(broker, RequestCode.PULL_MESSAGE, (real) => async (b, ctx, request) => {
      const key = `${request.extFields?.topic}:${request.extFields?.queueId}`;
      const pulls = this.of(key);
      pulls.arrived += 1;
      try {
        return await real(b, ctx, request);
      } finally {
        pulls.answered += 1;
      }
    });
  }

  private of(key: string): QueuePulls {
    let pulls = this.byQueue.get(key);
    if (pulls === undefined) {
      pulls = { arrived: 0, answered: 0 };
      this.byQueue.set(key, pulls);
    }
    return pulls;
  }

  /** Pull requests of `topic` (a queue, or all of them). */
  arrived(topic: string, queueId?: number): number {
    if (queueId !== undefined) return this.of(`${topic}:${queueId}`).arrived;
    let n = 0;
    for (const [key, p] of this.byQueue) if (key.startsWith(`${topic}:`)) n += p.arrived;
    return n;
  }

  /** No pull of the queue is held or running at the broker. */
  idle(topic: string, queueId: number): boolean {
    const p = this.of(`${topic}:${queueId}`);
    return p.arrived === p.answered;
  }
}
