import { existsSync } from 'node:fs';
import { mqVersionName } from '../../common/constants.js';
import { javaHashMapOrder } from '../../common/fastjson/index.js';
import { humanReadableByteCount } from '../../common/java-format.js';
import { encodeKVTable } from '../../common/protocol/kv-table.js';
import { createResponse } from '../../remoting/protocol/command.js';
import { ResponseCode } from '../../remoting/protocol/response-code.js';
import { DefaultMessageStore } from '../../store/default-message-store.js';
import { diskSpace } from '../../store/disk-usage.js';
import type { ScheduleMessageService } from '../../store/schedule/schedule-message-service.js';
import { StoreStats } from '../../store/store-stats.js';
import type { BrokerContext, BrokerRequestHandler } from './broker-context.js';

/** MQVersion.CURRENT_VERSION of upstream 4.9.8, which the broker reports as its own. */
const BROKER_VERSION = 409;

/**
 * Upstream's thread-pool queue capacities (BrokerConfig defaults). Requests here are not queued for
 * a pool, so the queue sizes and their head wait times are always 0.
 */
const SEND_QUEUE_CAPACITY = 10000;
const PULL_QUEUE_CAPACITY = 100000;
const QUERY_QUEUE_CAPACITY = 20000;
const END_TRANSACTION_QUEUE_CAPACITY = 100000;
/** TransientStorePool.availableBufferNums when the pool is off (always, here): Integer.MAX_VALUE. */
const NO_TRANSIENT_STORE_POOL = 2147483647;

/**
 * The schedule service's `scheduleMessageOffset_<level>` keys, where upstream's store puts them:
 * before commitLogMinOffset and commitLogMaxOffset (the put order decides the HashMap order on ties).
 */
function putScheduleStats(info: Map<string, string>, schedule: ScheduleMessageService): void {
  const tail: Array<[string, string]> = [];
  for (const key of ['commitLogMinOffset', 'commitLogMaxOffset']) {
    const value = info.get(key);
    if (value === undefined) continue;
    tail.push([key, value]);
    info.delete(key);
  }
  schedule.buildRunningStats(info);
  for (const [key, value] of tail) info.set(key, value);
}

/**
 * Upstream AdminBrokerProcessor.prepareRuntimeInfo: the store's runtime info, then the broker's own
 * figures, in upstream's put order (the encoder replays that order into Java's HashMap order).
 */
export function prepareRuntimeInfo(broker: BrokerContext): Map<string, string> {
  const store = broker.messageStore;
  const own = store instanceof DefaultMessageStore ? store : undefined;
  let info: Map<string, string>;
  if (own !== undefined) {
    info = own.getRuntimeInfo();
    const schedule = broker.scheduleMessageService;
    if (schedule !== undefined) putScheduleStats(info, schedule);
  } else {
    // A store of another kind has no stats service: report an idle one.
    const idle = new StoreStats();
    idle.bootTimestamp = broker.clock.now();
    info = idle.getRuntimeInfo(broker.clock.now());
    info.set('commitLogMinOffset', String(store.getMinPhyOffset()));
    info.set('commitLogMaxOffset', String(store.getMaxPhyOffset()));
  }
  const stats = broker.brokerStats;
  const put = (key: string, value: string | number | bigint): void => {
    info.set(key, String(value));
  };
  put('brokerVersionDesc', mqVersionName(BROKER_VERSION) ?? 'V4_9_8');
  put('brokerVersion', BROKER_VERSION);
  put('msgPutTotalYesterdayMorning', stats.msgPutTotalYesterdayMorning);
  put('msgPutTotalTodayMorning', stats.msgPutTotalTodayMorning);
  put('msgPutTotalTodayNow', stats.msgPutTotalTodayNow);
  put('msgGetTotalYesterdayMorning', stats.msgGetTotalYesterdayMorning);
  put('msgGetTotalTodayMorning', stats.msgGetTotalTodayMorning);
  put('msgGetTotalTodayNow', stats.msgGetTotalTodayNow);
  put('sendThreadPoolQueueSize', 0);
  put('sendThreadPoolQueueCapacity', SEND_QUEUE_CAPACITY);
  put('pullThreadPoolQueueSize', 0);
  put('pullThreadPoolQueueCapacity', PULL_QUEUE_CAPACITY);
  put('queryThreadPoolQueueSize', 0);
  put('queryThreadPoolQueueCapacity', QUERY_QUEUE_CAPACITY);
  put('EndTransactionQueueSize', 0);
  put('EndTransactionThreadPoolQueueCapacity', END_TRANSACTION_QUEUE_CAPACITY);
  put('dispatchBehindBytes', own?.dispatchBehindBytes() ?? 0n);
  put('pageCacheLockTimeMills', own?.lockTimeMills() ?? 0);
  put('sendThreadPoolQueueHeadWaitTimeMills', 0);
  put('pullThreadPoolQueueHeadWaitTimeMills', 0);
  put('queryThreadPoolQueueHeadWaitTimeMills', 0);
  put('earliestMessageTimeStamp', own?.getEarliestMessageTime() ?? -1n);
  // Upstream BrokerConfig.startAcceptSendRequestTimeStamp [0]: sends are accepted from the start.
  put('startAcceptSendRequestTimeStamp', 0);
  if (own !== undefined) {
    put('remainTransientStoreBufferNumbs', NO_TRANSIENT_STORE_POOL);
    put('remainHowManyDataToFlush', humanReadableByteCount(own.remainHowManyDataToFlush(), false));
  }
  const root = broker.storeConfig.storePathRootDir;
  const space = existsSync(root) ? diskSpace(root) : undefined;
  if (space !== undefined) {
    const total = humanReadableByteCount(space.total, false);
    const free = humanReadableByteCount(space.usable, false);
    put('commitLogDirCapacity', `Total : ${total}, Free : ${free}.`);
  }
  return info;
}

/**
 * GET_BROKER_RUNTIME_INFO (28, `mqadmin brokerStatus` and `clusterList`): the runtime figures as a
 * KVTable, written in the order Java's HashMap (`new HashMap<>(64)`, filled in upstream's order)
 * iterates them.
 */
export const getBrokerRuntimeInfo: BrokerRequestHandler = (broker, _ctx, request) => {
  const info = prepareRuntimeInfo(broker);
  const table = new Map<string, string>();
  for (const key of javaHashMapOrder([...info.keys()], { initialCapacity: 64 })) {
    table.set(key, info.get(key) ?? '');
  }
  return createResponse(request, ResponseCode.SUCCESS, { body: encodeKVTable(table) });
};
