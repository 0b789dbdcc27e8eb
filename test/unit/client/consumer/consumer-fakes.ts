/**
 * Stand-ins the consumer unit tests share: messages, a logger that keeps its lines, an offset store
 * and stats recorder that remember their calls, a broker lock table behind a fake MQClientAPI (real
 * LOCK_BATCH_MQ / UNLOCK_BATCH_MQ codecs, no network), the RebalanceHost around it, and a poll-until
 * with a deadline for what async code does after a ManualClock tick.
 */
import type { OffsetStore, ReadOffsetType } from '../../../../src/client/consumer/offset/offset-store.js';
import {
  type PushConsumerOptions,
  type ResolvedPushConsumerOptions,
  resolvePushConsumerOptions,
} from '../../../../src/client/consumer/push/push-consumer-options.js';
import type { RebalanceHost } from '../../../../src/client/consumer/rebalance/rebalance-impl.js';
import type { ConsumerStatsRecorder } from '../../../../src/client/consumer/stats/consumer-stats-recorder.js';
import type { MQClientAPI } from '../../../../src/client/instance/mq-client-api.js';
import { createLogger, type Logger, type LogRecord } from '../../../../src/common/logger.js';
import { MessageExt } from '../../../../src/common/message/message.js';
import { MessageQueue } from '../../../../src/common/message/message-queue.js';
import {
  decodeLockBatchRequestBody,
  decodeUnlockBatchRequestBody,
  encodeLockBatchResponseBody,
} from '../../../../src/common/protocol/lock-batch-body.js';
import { createResponse, type RemotingCommand } from '../../../../src/remoting/protocol/command.js';
import { RequestCode } from '../../../../src/remoting/protocol/request-code.js';
import { ResponseCode } from '../../../../src/remoting/protocol/response-code.js';

export interface MsgInit {
  topic?: string;
  queueId?: number;
  body?: string | Buffer;
  tags?: string;
  reconsumeTimes?: number;
  properties?: Record<string, string>;
}

/** A pulled message at `offset`. */
export function msgAt(offset: number, init: MsgInit = {}): MessageExt {
  const m = new MessageExt();
  m.topic = init.topic ?? 'T';
  m.queueId = init.queueId ?? 0;
  m.queueOffset = BigInt(offset);
  m.body = typeof init.body === 'string' ? Buffer.from(init.body) : (init.body ?? Buffer.from(`m${offset}`));
  if (init.tags !== undefined) m.tags = init.tags;
  m.reconsumeTimes = init.reconsumeTimes ?? 0;
  for (const [k, v] of Object.entries(init.properties ?? {})) m.properties.set(k, v);
  m.properties.set('UNIQ_KEY', `ID-${m.topic}-${m.queueId}-${offset}`);
  return m;
}

export function offsets(msgs: readonly MessageExt[]): number[] {
  return msgs.map((m) => Number(m.queueOffset));
}

export interface CapturedLogger {
  logger: Logger;
  records: LogRecord[];
  lines(level: LogRecord['level']): LogRecord[];
}

export function captureLogger(): CapturedLogger {
  const records: LogRecord[] = [];
  const logger = createLogger('test', { level: 'debug', sink: (r) => records.push(r) });
  return { logger, records, lines: (level) => records.filter((r) => r.level === level) };
}

export function resolved(
  overrides: Omit<Partial<PushConsumerOptions>, 'consumerGroup'> = {},
  now = 1_700_000_000_000,
): ResolvedPushConsumerOptions {
  return resolvePushConsumerOptions({ consumerGroup: 'cg', ...overrides }, now);
}

/** An offset store in memory that records what it was asked. */
export class RecordingOffsetStore implements OffsetStore {
  readonly table = new Map<string, bigint>();
  readonly updates: Array<{ mq: string; offset: bigint; increaseOnly: boolean }> = [];
  readonly persisted: string[] = [];
  readonly removed: string[] = [];
  /** What READ_FROM_STORE answers per queue key (-1n when absent). */
  readonly stored = new Map<string, bigint>();
  readonly reads: ReadOffsetType[] = [];

  async load(): Promise<void> {}
  updateOffset(mq: MessageQueue, offset: bigint, increaseOnly: boolean): void {
    this.updates.push({ mq: mq.key, offset, increaseOnly });
    const old = this.table.get(mq.key);
    if (old === undefined || !increaseOnly || offset > old) this.table.set(mq.key, offset);
  }
  updateAndFreezeOffset(mq: MessageQueue, offset: bigint): void {
    this.table.set(mq.key, offset);
  }
  readOffsetInMemory(mq: MessageQueue): bigint {
    return this.table.get(mq.key) ?? -1n;
  }
  async readOffset(mq: MessageQueue, type: ReadOffsetType): Promise<bigint> {
    this.reads.push(type);
    return this.stored.get(mq.key) ?? -1n;
  }
  async persistAll(): Promise<void> {}
  async persist(mq: MessageQueue): Promise<void> {
    this.persisted.push(mq.key);
  }
  removeOffset(mq: MessageQueue): void {
    this.removed.push(mq.key);
    this.table.delete(mq.key);
  }
  cloneOffsetTable(): Array<[MessageQueue, bigint]> {
    return [];
  }
  async updateConsumeOffsetToBroker(): Promise<void> {}
}

export class RecordingStats implements ConsumerStatsRecorder {
  readonly calls: Array<[string, string, string, number]> = [];
  incPullRT(group: string, topic: string, rt: number): void {
    this.calls.push(['pullRT', group, topic, rt]);
  }
  incPullTPS(group: string, topic: string, msgs: number): void {
    this.calls.push(['pullTPS', group, topic, msgs]);
  }
  incConsumeRT(group: string, topic: string, rt: number): void {
    this.calls.push(['consumeRT', group, topic, rt]);
  }
  incConsumeOKTPS(group: string, topic: string, msgs: number): void {
    this.calls.push(['okTPS', group, topic, msgs]);
  }
  incConsumeFailedTPS(group: string, topic: string, msgs: number): void {
    this.calls.push(['failedTPS', group, topic, msgs]);
  }
  sum(kind: string): number {
    return this.calls.filter((c) => c[0] === kind).reduce((s, c) => s + c[3], 0);
  }
}

/**
 * A master's queue lock table behind a fake MQClientAPI: LOCK_BATCH_MQ grants the queues nobody
 * else holds, UNLOCK_BATCH_MQ frees the caller's. `others` holds queues of other members;
 * `failNext` makes the next call throw (a dead broker).
 */
export class FakeLockBroker {
  readonly holders = new Map<string, string>();
  readonly others = new Set<string>();
  readonly calls: Array<{ code: number; oneway: boolean; mqs: string[] }> = [];
  failNext = 0;

  readonly api = {
    invoke: async (_addr: string, request: RemotingCommand): Promise<RemotingCommand> =>
      this.handle(request, false),
    remoting: {
      invokeOneway: async (_addr: string, request: RemotingCommand): Promise<void> => {
        this.handle(request, true);
      },
    },
  } as unknown as MQClientAPI;

  private handle(request: RemotingCommand, oneway: boolean): RemotingCommand {
    if (this.failNext > 0) {
      this.failNext--;
      throw new Error('connection refused');
    }
    if (request.code === RequestCode.LOCK_BATCH_MQ) {
      const body = decodeLockBatchRequestBody(request.body);
      this.calls.push({ code: request.code, oneway, mqs: body.mqSet.map((m) => m.key) });
      const ok: MessageQueue[] = [];
      for (const mq of body.mqSet) {
        const holder = this.holders.get(mq.key);
        if (this.others.has(mq.key) || (holder !== undefined && holder !== body.clientId)) continue;
        this.holders.set(mq.key, body.clientId);
        ok.push(mq);
      }
      return createResponse(request, ResponseCode.SUCCESS, {
        body: encodeLockBatchResponseBody({ lockOKMQSet: ok }),
      });
    }
    if (request.code === RequestCode.UNLOCK_BATCH_MQ) {
      const body = decodeUnlockBatchRequestBody(request.body);
      this.calls.push({ code: request.code, oneway, mqs: body.mqSet.map((m) => m.key) });
      for (const mq of body.mqSet) {
        if (this.holders.get(mq.key) === body.clientId) this.holders.delete(mq.key);
      }
      return createResponse(request, ResponseCode.SUCCESS);
    }
    throw new Error(`unexpected request ${request.code}`);
  }
}

export interface FakeRebalanceHost extends RebalanceHost {
  /** What findConsumerIdList answers (undefined: the broker could not be asked). */
  cidAll: string[] | undefined;
  readonly brokers: Set<string>;
}

export function fakeRebalanceHost(lockBroker: FakeLockBroker, clientId = 'c1'): FakeRebalanceHost {
  const host: FakeRebalanceHost = {
    clientId,
    api: lockBroker.api,
    cidAll: [clientId],
    brokers: new Set(['broker-a', 'broker-b']),
    findBrokerAddressInSubscribe(brokerName) {
      return host.brokers.has(brokerName)
        ? { brokerAddr: `${brokerName}:10911`, slave: false, brokerVersion: 0 }
        : undefined;
    },
    async findConsumerIdList() {
      return host.cidAll === undefined ? undefined : [...host.cidAll];
    },
    async findBrokerAddrByTopic() {
      return 'broker-a:10911';
    },
  };
  return host;
}

export function queues(topic: string, brokerName: string, count: number): MessageQueue[] {
  return Array.from({ length: count }, (_, i) => new MessageQueue(topic, brokerName, i));
}

/** Lets pending promise callbacks and immediates run until `cond` holds; fails after `ms` of real time. */
export async function until(cond: () => boolean, what = 'condition', ms = 2000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** Runs every callback already queued (promise jobs and immediates), a few rounds deep. */
export async function drain(rounds = 20): Promise<void> {
  for (let i = 0; i < rounds; i++) await new Promise((resolve) => setImmediate(resolve));
}

/** A promise with its resolve at hand. */
export function deferred<T = void>(): { promise: Promise<T>; resolve: (v: T) => void } {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}
