/**
 * The ConsumerRunningInfo a push consumer answers GET_CONSUMER_RUNNING_INFO with, put together as
 * upstream's DefaultMQPushConsumerImpl.consumerRunningInfo and MQClientInstance.consumerRunningInfo
 * do it:
 *  - properties: the consumer's own settings (MixAll.object2Properties of DefaultMQPushConsumer:
 *    that class's declared non-static fields, not ClientConfig's, each non-null one as its
 *    toString), then PROP_CONSUMEORDERLY, PROP_THREADPOOL_CORE_SIZE, PROP_CONSUMER_START_TIMESTAMP,
 *    then the instance's PROP_NAMESERVER_ADDR (each address followed by `;`), PROP_CONSUME_TYPE and
 *    PROP_CLIENT_VERSION;
 *  - subscriptionSet: the consumer's subscriptions (the `%RETRY%` one included);
 *  - mqTable: a ProcessQueueInfo per queue of the rebalance's process queue table;
 *  - statusTable: the ConsumeStatus of each subscribed topic from the instance's stats;
 *  - jstack: only when asked for (upstream puts a thread dump there).
 */
import { CURRENT_VERSION, mqVersionName } from '../../../common/constants.js';
import { formatJavaDouble } from '../../../common/fastjson/index.js';
import type { MessageQueue } from '../../../common/message/message-queue.js';
import type { ConsumeStatus } from '../../../common/protocol/consume-status.js';
import {
  type ConsumerRunningInfo,
  ConsumerRunningInfoProp,
} from '../../../common/protocol/consumer-running-info.js';
import type { ConsumeType } from '../../../common/protocol/heartbeat-data.js';
import type { ProcessQueueInfo } from '../../../common/protocol/process-queue-info.js';
import type { SubscriptionData } from '../../../common/protocol/subscription-data.js';
import { fillProcessQueueInfo, type ProcessQueueState } from './process-queue-info.js';

/** A setting's value as object2Properties sees it: null and undefined are left out. */
export type ConsumerPropertyValue = string | number | bigint | boolean | null | undefined;

/**
 * The fields of upstream's DefaultMQPushConsumer (4.9.8) that carry settings, in declaration order:
 * the names object2Properties writes. Its other declared fields (log, defaultMQPushConsumerImpl,
 * allocateMessageQueueStrategy, subscription, messageListener, offsetStore, traceDispatcher) hold
 * objects whose Java toString is a class name and identity hash; a caller may give a description.
 */
export const PUSH_CONSUMER_PROPERTY_FIELDS = [
  'consumerGroup',
  'messageModel',
  'consumeFromWhere',
  'consumeTimestamp',
  'consumeThreadMin',
  'consumeThreadMax',
  'adjustThreadPoolNumsThreshold',
  'consumeConcurrentlyMaxSpan',
  'pullThresholdForQueue',
  'pullThresholdSizeForQueue',
  'pullThresholdForTopic',
  'pullThresholdSizeForTopic',
  'pullInterval',
  'consumeMessageBatchMaxSize',
  'pullBatchSize',
  'postSubscriptionWhenPull',
  'unitMode',
  'maxReconsumeTimes',
  'suspendCurrentQueueTimeMillis',
  'consumeTimeout',
  'awaitTerminationMillisWhenShutdown',
] as const;

export interface ConsumerRunningInfoInput {
  /**
   * The consumer's settings under upstream's field names (PUSH_CONSUMER_PROPERTY_FIELDS), in the
   * order to write them.
   */
  readonly consumerFields:
    | Iterable<readonly [string, ConsumerPropertyValue]>
    | Readonly<Record<string, ConsumerPropertyValue>>;
  readonly consumeOrderly: boolean;
  /** The consume service's core pool size (upstream getCorePoolSize: consumeConcurrency here). */
  readonly threadPoolCoreSize: number;
  /** When start() ran (ms). */
  readonly consumerStartTimestamp: number;
  /** The name server addresses the instance's remoting client holds. */
  readonly namesrvAddrList: readonly string[];
  readonly consumeType: ConsumeType;
  /** Default: the version this client speaks (MQVersion.getVersionDesc(CURRENT_VERSION), `V4_9_8`). */
  readonly clientVersion?: string;
  readonly subscriptions: readonly SubscriptionData[];
  readonly processQueueTable: Iterable<readonly [MessageQueue, ProcessQueueState]>;
  /**
   * The offset store's offset of a queue (upstream: readOffset MEMORY_FIRST_THEN_STORE; -1 when
   * unknown).
   */
  readonly commitOffset: (mq: MessageQueue) => bigint;
  /** ConsumerStatsManager.consumeStatus bound to the consumer's group. */
  readonly consumeStatus: (topic: string) => ConsumeStatus;
  /** Set only when the request asked for it (jstackEnable). */
  readonly jstack?: string;
}

/** Java `toString` of a setting's value. */
function propertyText(v: Exclude<ConsumerPropertyValue, null | undefined>): string {
  if (typeof v === 'number' && !Number.isInteger(v)) return formatJavaDouble(v);
  return String(v);
}

function fieldEntries(
  fields: ConsumerRunningInfoInput['consumerFields'],
): Iterable<readonly [string, ConsumerPropertyValue]> {
  return Symbol.iterator in fields
    ? (fields as Iterable<readonly [string, ConsumerPropertyValue]>)
    : Object.entries(fields as Readonly<Record<string, ConsumerPropertyValue>>);
}

export function buildConsumerRunningInfo(input: ConsumerRunningInfoInput): ConsumerRunningInfo {
  const properties = new Map<string, string>();
  for (const [name, value] of fieldEntries(input.consumerFields)) {
    if (value !== null && value !== undefined) properties.set(name, propertyText(value));
  }
  const P = ConsumerRunningInfoProp;
  properties.set(P.PROP_CONSUME_ORDERLY, String(input.consumeOrderly));
  properties.set(P.PROP_THREADPOOL_CORE_SIZE, String(input.threadPoolCoreSize));
  properties.set(P.PROP_CONSUMER_START_TIMESTAMP, String(Math.trunc(input.consumerStartTimestamp)));
  properties.set(P.PROP_NAMESERVER_ADDR, input.namesrvAddrList.map((addr) => `${addr};`).join(''));
  properties.set(P.PROP_CONSUME_TYPE, input.consumeType);
  properties.set(P.PROP_CLIENT_VERSION, input.clientVersion ?? mqVersionName(CURRENT_VERSION) ?? '');

  const mqTable: Array<[MessageQueue, ProcessQueueInfo]> = [];
  for (const [mq, pq] of input.processQueueTable) {
    mqTable.push([mq, fillProcessQueueInfo(pq, input.commitOffset(mq))]);
  }
  const statusTable = new Map<string, ConsumeStatus>();
  for (const sd of input.subscriptions) statusTable.set(sd.topic, input.consumeStatus(sd.topic));

  return {
    properties,
    subscriptionSet: [...input.subscriptions],
    mqTable,
    statusTable,
    jstack: input.jstack,
  };
}
