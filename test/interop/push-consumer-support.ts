/**
 * What the push consumer interop suites share: our consumer with the client's periods shortened as the
 * Java members' are (ConsumerGroupProbe), a record of what each of our members consumed, and the
 * queue sets tests compare.
 */
import { createLogger } from '../../src/common/logger.js';
import type { MessageExt } from '../../src/common/message/message.js';
import type { MessageQueue } from '../../src/common/message/message-queue.js';
import { createPushConsumer, type PushConsumer, type PushConsumerOptions } from '../../src/index.js';

/**
 * The client's periods, short so a group settles in seconds (upstream: rebalance 20 s, name server
 * poll 30 s, offset persist 5 s, heartbeat 30 s); the Java members run with the same.
 */
export const FAST_CLIENT = {
  rebalanceWaitInterval: 1000,
  pollNameServerInterval: 1000,
  persistConsumerOffsetInterval: 1000,
  heartbeatBrokerInterval: 1000,
} as const;

/** One delivery to one of our listeners. */
export interface OurDelivery {
  /** Which of the test's members (and which run of it) got it. */
  readonly member: string;
  readonly msgId: string;
  readonly topic: string;
  readonly queueId: number;
  readonly queueOffset: number;
  readonly reconsumeTimes: number;
  readonly keys: string | null;
  readonly key: string | null;
  readonly seq: string | null;
  readonly body: string;
  /** When the listener got it. */
  readonly receivedAt: number;
  /** When the listener was done with it (recorded then). */
  readonly doneAt: number;
}

/** Recorded when the listener is done; `receivedAt` when it started, if it took a while. */
export function deliveryOf(member: string, msg: MessageExt, receivedAt = Date.now()): OurDelivery {
  return {
    member,
    msgId: msg.msgId,
    topic: msg.topic,
    queueId: msg.queueId,
    queueOffset: Number(msg.queueOffset),
    reconsumeTimes: msg.reconsumeTimes,
    keys: msg.keys ?? null,
    key: msg.getUserProperty('key') ?? null,
    seq: msg.getUserProperty('seq') ?? null,
    body: msg.body.toString('utf8'),
    receivedAt,
    doneAt: Date.now(),
  };
}

export type OurConsumerOptions = Omit<PushConsumerOptions, 'namesrvAddr' | 'consumerGroup'>;

/** Our push consumer from the first offset, with FAST_CLIENT periods and only error lines logged. */
export function ourConsumer(
  namesrvAddr: string,
  consumerGroup: string,
  options: OurConsumerOptions = {},
): PushConsumer {
  return createPushConsumer({
    namesrvAddr,
    consumerGroup,
    consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
    ...FAST_CLIENT,
    logger: createLogger(`consumer-${options.instanceName ?? consumerGroup}`, { level: 'error' }),
    ...options,
  });
}

/** Queue ids of `topic` among `mqs`, sorted. */
export function queueIdsOf(mqs: Iterable<MessageQueue>, topic: string): number[] {
  return [...mqs]
    .filter((mq) => mq.topic === topic)
    .map((mq) => mq.queueId)
    .sort((a, b) => a - b);
}

/** undefined unless the sets are disjoint and together hold exactly 0..queues-1. */
export function partitionOf(
  sets: ReadonlyArray<readonly number[] | undefined>,
  queues: number,
): true | undefined {
  const seen = new Set<number>();
  for (const set of sets) {
    if (set === undefined) return undefined;
    for (const q of set) {
      if (seen.has(q)) return undefined;
      seen.add(q);
    }
  }
  return seen.size === queues && [...seen].every((q) => q >= 0 && q < queues) ? true : undefined;
}
