/**
 * The broker's runtime info as rocketmq-exporter's `rocketmq_brokeruntime_*` gauges: the very
 * figures GET_BROKER_RUNTIME_INFO (`mqadmin brokerStatus`) reports, read once per scrape, plus the
 * broker-wide put/get TPS (`rocketmq_broker_tps`, `rocketmq_broker_qps`), held pulls and the byte
 * counts the runtime info only has as human-readable text.
 */
import { existsSync } from 'node:fs';
import { DefaultMessageStore } from '../../../store/default-message-store.js';
import { diskSpace } from '../../../store/disk-usage.js';
import type { BrokerContext } from '../../processor/broker-context.js';
import { prepareRuntimeInfo } from '../../processor/get-broker-runtime-info.js';
import { Stats } from '../../stats/stats-names.js';
import { collectedCounter, collectedGauge, type MetricsKit } from './metrics-kit.js';
import { perScrape } from './per-scrape.js';

type Info = ReadonlyMap<string, string>;
type Read = (info: Info) => number | undefined;

function num(key: string): Read {
  return (info) => {
    const text = info.get(key);
    if (text === undefined || text.trim() === '') return undefined;
    const n = Number(text);
    return Number.isNaN(n) ? undefined : n;
  };
}

/** One of the "10 s, 1 min, 10 min" figures of a TPS key (blank until enough samples exist). */
function tps(key: string, index: 0 | 1 | 2): Read {
  return (info) => {
    const part = info.get(key)?.split(' ')[index];
    if (part === undefined || part === '') return undefined;
    const n = Number(part);
    return Number.isNaN(n) ? undefined : n;
  };
}

/** Upstream's putMessageDistributeTime ranges and the exporter's name for each. */
const DISTRIBUTE_TIME_METRICS: ReadonlyArray<readonly [string, string]> = [
  ['[<=0ms]', '0ms'],
  ['[0~10ms]', '0to10ms'],
  ['[10~50ms]', '10to50ms'],
  ['[50~100ms]', '50to100ms'],
  ['[100~200ms]', '100to200ms'],
  ['[200~500ms]', '200to500ms'],
  ['[500ms~1s]', '500to1s'],
  ['[1~2s]', '1to2s'],
  ['[2~3s]', '2to3s'],
  ['[3~4s]', '3to4s'],
  ['[4~5s]', '4to5s'],
  ['[5~10s]', '5to10s'],
  ['[10s~]', '10stomore'],
];

/** `[<=0ms]:3 [0~10ms]:5 ...` (or `null` before the first minute) -> range -> puts. */
function distributeTimes(info: Info): Map<string, number> {
  const out = new Map<string, number>();
  for (const part of (info.get('putMessageDistributeTime') ?? '').split(' ')) {
    const colon = part.lastIndexOf(':');
    if (colon > 0) out.set(part.slice(0, colon), Number(part.slice(colon + 1)));
  }
  return out;
}

/** rocketmq-exporter's name (without `rocketmq_brokeruntime_`), the runtime-info figure, what it is. */
const RUNTIME_GAUGES: ReadonlyArray<readonly [string, Read, string]> = [
  ['msg_put_total_today_now', num('msgPutTotalTodayNow'), 'Messages put since the store started'],
  ['msg_gettotal_today_now', num('msgGetTotalTodayNow'), 'Messages pulls returned since the store started'],
  [
    'msg_puttotal_todaymorning',
    num('msgPutTotalTodayMorning'),
    'Messages put, as counted at the last midnight',
  ],
  [
    'msg_puttotal_yesterdaymorning',
    num('msgPutTotalYesterdayMorning'),
    'Messages put, as counted at the midnight before',
  ],
  [
    'msg_gettotal_todaymorning',
    num('msgGetTotalTodayMorning'),
    'Messages got, as counted at the last midnight',
  ],
  [
    'msg_gettotal_yesterdaymorning',
    num('msgGetTotalYesterdayMorning'),
    'Messages got, as counted at the midnight before',
  ],
  [
    'dispatch_behind_bytes',
    num('dispatchBehindBytes'),
    'Commit-log bytes not yet dispatched to the consume queues',
  ],
  ['put_message_size_total', num('putMessageSizeTotal'), 'Bytes put since the store started'],
  ['put_message_average_size', num('putMessageAverageSize'), 'Average size of a put message, bytes'],
  ['putmessage_times_total', num('putMessageTimesTotal'), 'Puts since the store started'],
  ['putmessage_entire_time_max', num('putMessageEntireTimeMax'), 'Longest put since the store started, ms'],
  ['getmessage_entire_time_max', num('getMessageEntireTimeMax'), 'Longest get since the store started, ms'],
  [
    'pagecache_lock_time_mills',
    num('pageCacheLockTimeMills'),
    'How long the commit-log write under way has taken, ms',
  ],
  ['commitlog_disk_ratio', num('commitLogDiskRatio'), "Used fraction of the commit log's disk"],
  ['consumequeue_disk_ratio', num('consumeQueueDiskRatio'), "Used fraction of the consume queues' disk"],
  ['commitlog_maxoffset', num('commitLogMaxOffset'), 'Commit-log max physical offset'],
  ['commitlog_minoffset', num('commitLogMinOffset'), 'Commit-log min physical offset'],
  [
    'earliest_message_timestamp',
    num('earliestMessageTimeStamp'),
    'Store time of the oldest message kept, ms since the epoch',
  ],
  [
    'start_accept_sendrequest_time',
    num('startAcceptSendRequestTimeStamp'),
    'When sends started to be accepted, ms since the epoch',
  ],
  ['dispatch_maxbuffer', num('dispatchMaxBuffer'), 'Largest reput buffer (always 0 here)'],
  [
    'remain_transientstore_buffer_numbs',
    num('remainTransientStoreBufferNumbs'),
    'Free transient store buffers',
  ],
  ['put_tps10', tps('putTps', 0), 'Puts per second over the last 10 s'],
  ['put_tps60', tps('putTps', 1), 'Puts per second over the last minute'],
  ['put_tps600', tps('putTps', 2), 'Puts per second over the last 10 minutes'],
  ['getfound_tps10', tps('getFoundTps', 0), 'Gets that found messages per second, last 10 s'],
  ['getfound_tps60', tps('getFoundTps', 1), 'Gets that found messages per second, last minute'],
  ['getfound_tps600', tps('getFoundTps', 2), 'Gets that found messages per second, last 10 minutes'],
  ['getmiss_tps10', tps('getMissTps', 0), 'Gets that found nothing per second, last 10 s'],
  ['getmiss_tps60', tps('getMissTps', 1), 'Gets that found nothing per second, last minute'],
  ['getmiss_tps600', tps('getMissTps', 2), 'Gets that found nothing per second, last 10 minutes'],
  ['gettotal_tps10', tps('getTotalTps', 0), 'Gets per second, last 10 s'],
  ['gettotal_tps60', tps('getTotalTps', 1), 'Gets per second, last minute'],
  ['gettotal_tps600', tps('getTotalTps', 2), 'Gets per second, last 10 minutes'],
  ['gettransfered_tps10', tps('getTransferedTps', 0), 'Messages returned by gets per second, last 10 s'],
  ['gettransfered_tps60', tps('getTransferedTps', 1), 'Messages returned by gets per second, last minute'],
  [
    'gettransfered_tps600',
    tps('getTransferedTps', 2),
    'Messages returned by gets per second, last 10 minutes',
  ],
  ['put_latency_99', num('putLatency99'), "99th percentile of the last minute's put latency, ms"],
  ['put_latency_999', num('putLatency999'), "99.9th percentile of the last minute's put latency, ms"],
  [
    'send_threadpool_queue_size',
    num('sendThreadPoolQueueSize'),
    'Queued send requests (always 0: no pool queue here)',
  ],
  ['send_threadpoolqueue_capacity', num('sendThreadPoolQueueCapacity'), "Upstream's send queue capacity"],
  ['pull_threadpoolqueue_size', num('pullThreadPoolQueueSize'), 'Queued pull requests (always 0)'],
  ['pull_threadpoolqueue_capacity', num('pullThreadPoolQueueCapacity'), "Upstream's pull queue capacity"],
  ['query_threadpoolqueue_size', num('queryThreadPoolQueueSize'), 'Queued query requests (always 0)'],
  ['query_threadpool_queue_capacity', num('queryThreadPoolQueueCapacity'), "Upstream's query queue capacity"],
  [
    'send_threadpoolqueue_headwait_timemills',
    num('sendThreadPoolQueueHeadWaitTimeMills'),
    'Wait of the oldest queued send, ms (always 0)',
  ],
  [
    'pull_threadpoolqueue_headwait_timemills',
    num('pullThreadPoolQueueHeadWaitTimeMills'),
    'Wait of the oldest queued pull, ms (always 0)',
  ],
  [
    'query_threadpoolqueue_headwait_timemills',
    num('queryThreadPoolQueueHeadWaitTimeMills'),
    'Wait of the oldest queued query, ms (always 0)',
  ],
];

/** The exporter's label of broker-wide figures: the broker's address. */
const BROKER_LABELS = ['brokerIP'] as const;

export function registerRuntimeMetrics(kit: MetricsKit, broker: BrokerContext): void {
  const at = () => ({ brokerIP: broker.brokerAddr });
  const info = perScrape(() => prepareRuntimeInfo(broker));
  for (const [suffix, read, help] of RUNTIME_GAUGES) {
    collectedGauge(kit, `rocketmq_brokeruntime_${suffix}`, help, BROKER_LABELS, (emit) => {
      const value = read(info());
      if (value !== undefined) emit(at(), value);
    });
  }
  const times = perScrape(() => distributeTimes(info()));
  for (const [range, suffix] of DISTRIBUTE_TIME_METRICS) {
    collectedGauge(
      kit,
      `rocketmq_brokeruntime_pmdt_${suffix}`,
      `Puts of the last complete minute that took ${range}`,
      BROKER_LABELS,
      (emit) => emit(at(), times().get(range) ?? 0),
    );
  }
  collectedGauge(
    kit,
    'rocketmq_broker_info',
    'The broker version and boot time (value 1)',
    [...BROKER_LABELS, 'des', 'broker_version', 'boottime'],
    (emit) =>
      emit(
        {
          ...at(),
          des: info().get('brokerVersionDesc') ?? '',
          broker_version: info().get('brokerVersion') ?? '',
          boottime: info().get('bootTimestamp') ?? '',
        },
        1,
      ),
  );
  const own = (): DefaultMessageStore | undefined =>
    broker.messageStore instanceof DefaultMessageStore ? broker.messageStore : undefined;
  collectedGauge(
    kit,
    'rocketmq_brokeruntime_remain_howmanydata_toflush',
    'Written commit-log bytes not yet flushed',
    BROKER_LABELS,
    (emit) => emit(at(), own()?.remainHowManyDataToFlush() ?? 0),
  );
  const space = perScrape(() => {
    const root = broker.storeConfig.storePathRootDir;
    return existsSync(root) ? diskSpace(root) : undefined;
  });
  collectedGauge(
    kit,
    'rocketmq_brokeruntime_commitlogdir_capacity_total',
    "Size of the store's disk, bytes",
    BROKER_LABELS,
    (emit) => {
      const s = space();
      if (s !== undefined) emit(at(), s.total);
    },
  );
  collectedGauge(
    kit,
    'rocketmq_brokeruntime_commitlogdir_capacity_free',
    "Free bytes on the store's disk",
    BROKER_LABELS,
    (emit) => {
      const s = space();
      if (s !== undefined) emit(at(), s.usable);
    },
  );
  const stats = broker.brokerStatsManager;
  const cluster = broker.config.brokerClusterName;
  collectedGauge(
    kit,
    'rocketmq_broker_tps',
    'Messages put per second over the last minute',
    BROKER_LABELS,
    (emit) =>
      emit(at(), stats.getStatsItemSet(Stats.BROKER_PUT_NUMS)?.getStatsDataInMinute(cluster).tps ?? 0),
  );
  collectedGauge(
    kit,
    'rocketmq_broker_qps',
    'Messages got per second over the last minute',
    BROKER_LABELS,
    (emit) =>
      emit(at(), stats.getStatsItemSet(Stats.BROKER_GET_NUMS)?.getStatsDataInMinute(cluster).tps ?? 0),
  );
  collectedCounter(
    kit,
    'rocketmq_broker_put_messages_total',
    'Messages put since the broker started',
    BROKER_LABELS,
    (emit) => emit(at(), broker.brokerStats.msgPutTotalTodayNow),
  );
  collectedCounter(
    kit,
    'rocketmq_broker_get_messages_total',
    'Messages pulls returned since the broker started',
    BROKER_LABELS,
    (emit) => emit(at(), broker.brokerStats.msgGetTotalTodayNow),
  );
  collectedGauge(
    kit,
    'rocketmq_broker_held_pulls',
    'Pulls held by long polling until a message arrives',
    BROKER_LABELS,
    (emit) => emit(at(), broker.pullRequestHoldService.heldCount),
  );
  collectedGauge(kit, 'rocketmq_broker_topics', 'Topics this broker has', BROKER_LABELS, (emit) =>
    emit(at(), broker.topicConfigManager.topicConfigTable.size),
  );
  collectedGauge(
    kit,
    'rocketmq_broker_subscription_groups',
    'Subscription groups this broker has',
    BROKER_LABELS,
    (emit) => emit(at(), broker.subscriptionGroupManager.subscriptionGroupTable.size),
  );
}
