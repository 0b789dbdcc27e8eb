/**
 * A ConsumeHost for the consume service tests: the real RebalanceImpl (its lock calls answered by
 * FakeLockBroker), an offset store, stats and hooks that record, a send-back and an inner producer
 * that record what they were given and fail on demand, all on a ManualClock.
 */
import type { ConsumeMessageHook } from '../../../../src/client/consumer/consume/consume-hooks.js';
import type { OrderlyConsumeHost } from '../../../../src/client/consumer/consume/consume-message-orderly-service.js';
import { ProcessQueue } from '../../../../src/client/consumer/process-queue.js';
import type { PushConsumerOptions } from '../../../../src/client/consumer/push/push-consumer-options.js';
import { AllocateMessageQueueAveragely } from '../../../../src/client/consumer/rebalance/allocate/averagely.js';
import { RebalanceImpl } from '../../../../src/client/consumer/rebalance/rebalance-impl.js';
import type { InnerProducer } from '../../../../src/client/instance/inner.js';
import type { SendResult } from '../../../../src/client/instance/requests/send-message.js';
import { ManualClock } from '../../../../src/common/clock.js';
import { MixAll } from '../../../../src/common/constants.js';
import type { Message, MessageExt } from '../../../../src/common/message/message.js';
import { MessageConst } from '../../../../src/common/message/message-const.js';
import { MessageQueue } from '../../../../src/common/message/message-queue.js';
import { ConsumeType } from '../../../../src/common/protocol/heartbeat-data.js';
import {
  type CapturedLogger,
  captureLogger,
  FakeLockBroker,
  fakeRebalanceHost,
  RecordingOffsetStore,
  RecordingStats,
  resolved,
} from './consumer-fakes.js';

export interface SentBack {
  offset: number;
  topic: string;
  delayLevel: number;
  brokerName: string | undefined;
  reconsumeTimes: number;
}

export interface FakeConsumeHost extends OrderlyConsumeHost {
  readonly clock: ManualClock;
  readonly offsetStore: RecordingOffsetStore;
  readonly stats: RecordingStats;
  readonly hooks: ConsumeMessageHook[];
  readonly log: CapturedLogger;
  readonly broker: FakeLockBroker;
  readonly sentBack: SentBack[];
  /** Offsets whose send-back fails (a broker that refuses, and the inner producer too). */
  readonly sendBackFails: Set<number>;
  readonly dlq: Message[];
  dlqFails: boolean;
  /** Adds a queue to the rebalance table (as a rebalance would), locked on the fake broker. */
  hold(queueId: number, topic?: string): { mq: MessageQueue; pq: ProcessQueue };
}

export function fakeConsumeHost(
  overrides: Omit<Partial<PushConsumerOptions>, 'consumerGroup'> = {},
  orderly = false,
): FakeConsumeHost {
  const clock = new ManualClock();
  const log = captureLogger();
  const options = resolved(overrides, clock.now());
  const broker = new FakeLockBroker();
  const rebalance = new RebalanceImpl(
    {
      consumerGroup: 'cg',
      messageModel: options.messageModel,
      strategy: new AllocateMessageQueueAveragely(),
      processQueue: { lockMaxLiveTime: options.lockMaxLiveTime, pullMaxIdleTime: options.pullMaxIdleTime },
    },
    fakeRebalanceHost(broker),
    {
      consumeType: () => ConsumeType.CONSUME_PASSIVELY,
      messageQueueChanged: () => {},
      removeUnnecessaryMessageQueue: async () => true,
      removeDirtyOffset: () => {},
      computePullFromWhere: async () => 0n,
      dispatchPullRequest: () => {},
    },
    clock,
    log.logger,
  );
  const sentBack: SentBack[] = [];
  const sendBackFails = new Set<number>();
  const dlq: Message[] = [];
  const producer: InnerProducer = {
    async sendInner(msg: Message): Promise<SendResult> {
      if (host.dlqFails) throw new Error('DLQ send failed');
      dlq.push(msg);
      return {} as SendResult;
    },
    async shutdownInner(): Promise<void> {},
  };
  const host: FakeConsumeHost = {
    consumerGroup: 'cg',
    options,
    offsetStore: new RecordingOffsetStore(),
    rebalance,
    stats: new RecordingStats(),
    hooks: [],
    namespace: undefined,
    clock,
    logger: log.logger,
    log,
    broker,
    sentBack,
    sendBackFails,
    dlq,
    dlqFails: false,
    maxReconsumeTimes() {
      const max = options.maxReconsumeTimes;
      if (max !== -1) return max;
      return orderly ? 2147483647 : 16;
    },
    async sendMessageBack(msg: MessageExt, delayLevel: number, brokerName: string | undefined) {
      const offset = Number(msg.queueOffset);
      if (sendBackFails.has(offset)) throw new Error(`send back of ${offset} refused`);
      sentBack.push({ offset, topic: msg.topic, delayLevel, brokerName, reconsumeTimes: msg.reconsumeTimes });
    },
    resetRetryAndNamespace(msgs: readonly MessageExt[]) {
      const retryTopic = MixAll.getRetryTopic('cg');
      for (const m of msgs) {
        const real = m.properties.get(MessageConst.PROPERTY_RETRY_TOPIC);
        if (real !== undefined && m.topic === retryTopic) m.topic = real;
      }
    },
    isRunning: () => true,
    innerProducerForDLQ: async () => producer,
    hold(queueId: number, topic = 'T') {
      const mq = new MessageQueue(topic, 'broker-a', queueId);
      const pq = new ProcessQueue(clock, {
        lockMaxLiveTime: options.lockMaxLiveTime,
        pullMaxIdleTime: options.pullMaxIdleTime,
      });
      pq.locked = true;
      broker.holders.set(mq.key, 'c1');
      rebalance.processQueueTable.set(mq.key, { mq, pq });
      return { mq, pq };
    },
  };
  return host;
}

/** A hook that records what it saw; optionally throws from both phases. */
export function recordingHook(throws = false) {
  const seen: Array<{ phase: string; offsets: number[]; status?: string; success?: boolean; type?: string }> =
    [];
  const hook: ConsumeMessageHook = {
    hookName: () => (throws ? 'throwing' : 'recording'),
    consumeMessageBefore(ctx) {
      seen.push({ phase: 'before', offsets: ctx.msgList.map((m) => Number(m.queueOffset)) });
      if (throws) throw new Error('hook before failed');
    },
    consumeMessageAfter(ctx) {
      const entry: { phase: string; offsets: number[]; status?: string; success?: boolean; type?: string } = {
        phase: 'after',
        offsets: ctx.msgList.map((m) => Number(m.queueOffset)),
      };
      if (ctx.status !== undefined) entry.status = ctx.status;
      if (ctx.success !== undefined) entry.success = ctx.success;
      const type = ctx.props.get('ConsumeContextType');
      if (type !== undefined) entry.type = type;
      seen.push(entry);
      if (throws) throw new Error('hook after failed');
    },
  };
  return { hook, seen };
}
