/**
 * Per consumer group and topic, under rocketmq-exporter's names: the lag (`rocketmq_group_diff`,
 * the broker's max offset less the group's offset summed over the read queues, as
 * GET_CONSUME_STATS and `mqadmin consumerProgress` compute it; retry topics in
 * `rocketmq_group_retrydiff`), the group's offsets, its get TPS and bytes per second over the last
 * minute and its send-backs (those three only for pairs that saw a get or a send-back, as the
 * exporter), how old the oldest unconsumed message is, and the members online.
 * The pairs are those with offsets on this broker plus the online members' subscriptions; a topic
 * this broker does not have, or one an online group no longer subscribes to, is left out (as
 * consumerProgress leaves it out).
 */
import { MixAll } from '../../../common/constants.js';
import type { StatsItem } from '../../../common/stats/stats-item.js';
import { TOPIC_GROUP_SEPARATOR } from '../../offset/consumer-offset-manager.js';
import type { BrokerContext } from '../../processor/broker-context.js';
import { buildStatsKey } from '../../stats/broker-stats-manager.js';
import { Stats } from '../../stats/stats-names.js';
import { collectedCounter, collectedGauge, type Emit, type MetricsKit } from './metrics-kit.js';
import { perScrape } from './per-scrape.js';

interface GroupTopicFigures {
  readonly group: string;
  readonly topic: string;
  readonly diff: number;
  readonly consumerOffset: number;
  /** ms since the store time of the oldest message not consumed yet; 0 when none waits. */
  readonly latency: number;
  readonly getNums: StatsItem | undefined;
  readonly getSize: StatsItem | undefined;
  readonly sendBack: StatsItem | undefined;
}

function pairsOf(broker: BrokerContext): Array<[string, string]> {
  const seen = new Set<string>();
  const out: Array<[string, string]> = [];
  const add = (topic: string, group: string): void => {
    const key = topic + TOPIC_GROUP_SEPARATOR + group;
    if (seen.has(key)) return;
    seen.add(key);
    out.push([group, topic]);
  };
  for (const key of broker.consumerOffsetManager.offsetTable.keys()) {
    const at = key.indexOf(TOPIC_GROUP_SEPARATOR);
    if (at > 0 && at < key.length - 1) add(key.slice(0, at), key.slice(at + 1));
  }
  for (const [group, info] of broker.consumerManager.consumerTable) {
    for (const topic of info.subscriptionTable.keys()) add(topic, group);
  }
  return out;
}

function groupFigures(broker: BrokerContext): GroupTopicFigures[] {
  const store = broker.messageStore;
  const stats = broker.brokerStatsManager;
  const now = broker.clock.now();
  const out: GroupTopicFigures[] = [];
  for (const [group, topic] of pairsOf(broker)) {
    const config = broker.topicConfigManager.selectTopicConfig(topic);
    if (config === undefined) continue;
    const online = broker.consumerManager.getConsumerGroupInfo(group);
    if (online !== undefined && online.subscriptionTable.size > 0 && !online.subscriptionTable.has(topic))
      continue;
    const offsets = broker.consumerOffsetManager.queryOffsets(group, topic);
    let diff = 0n;
    let consumed = 0n;
    let oldest = Number.POSITIVE_INFINITY;
    for (let q = 0; q < config.readQueueNums; q++) {
      let brokerOffset = store.getMaxOffsetInQueue(topic, q);
      if (brokerOffset < 0n) brokerOffset = 0n;
      let consumerOffset = offsets?.get(q) ?? 0n;
      if (consumerOffset < 0n) consumerOffset = 0n;
      diff += brokerOffset - consumerOffset;
      consumed += consumerOffset;
      if (brokerOffset > consumerOffset) {
        const stored = store.getMessageStoreTimeStamp(topic, q, consumerOffset);
        if (stored > 0n && Number(stored) < oldest) oldest = Number(stored);
      }
    }
    const key = buildStatsKey(topic, group);
    out.push({
      group,
      topic,
      diff: Number(diff),
      consumerOffset: Number(consumed),
      latency: Number.isFinite(oldest) ? Math.max(0, now - oldest) : 0,
      getNums: stats.getStatsItem(Stats.GROUP_GET_NUMS, key),
      getSize: stats.getStatsItem(Stats.GROUP_GET_SIZE, key),
      sendBack: stats.getStatsItem(Stats.SNDBCK_PUT_NUMS, key),
    });
  }
  return out;
}

const GROUP_TOPIC = ['group', 'topic'] as const;

export function registerGroupMetrics(kit: MetricsKit, broker: BrokerContext): void {
  const figures = perScrape(() => groupFigures(broker));
  const each = (read: (f: GroupTopicFigures, emit: Emit) => void) => (emit: Emit) => {
    for (const f of figures()) read(f, emit);
  };
  const isRetry = (topic: string) => topic.startsWith(MixAll.RETRY_GROUP_TOPIC_PREFIX);
  collectedGauge(
    kit,
    'rocketmq_group_diff',
    "Messages the group has yet to consume in the topic (broker offset less the group's, summed over the queues)",
    GROUP_TOPIC,
    each((f, emit) => {
      if (!isRetry(f.topic)) emit({ group: f.group, topic: f.topic }, f.diff);
    }),
  );
  collectedGauge(
    kit,
    'rocketmq_group_retrydiff',
    'Messages the group has yet to consume in its retry topic',
    GROUP_TOPIC,
    each((f, emit) => {
      if (isRetry(f.topic)) emit({ group: f.group, topic: f.topic }, f.diff);
    }),
  );
  collectedGauge(
    kit,
    'rocketmq_consumer_offset',
    "The group's offsets in the topic, summed over the queues",
    GROUP_TOPIC,
    each((f, emit) => emit({ group: f.group, topic: f.topic }, f.consumerOffset)),
  );
  collectedGauge(
    kit,
    'rocketmq_group_get_latency_by_storetime',
    'How long the oldest message the group has not consumed has been stored, ms (0 when caught up)',
    GROUP_TOPIC,
    each((f, emit) => emit({ group: f.group, topic: f.topic }, f.latency)),
  );
  collectedGauge(
    kit,
    'rocketmq_consumer_tps',
    'Messages the group got from the topic per second over the last minute',
    GROUP_TOPIC,
    each((f, emit) => {
      if (f.getNums !== undefined)
        emit({ group: f.group, topic: f.topic }, f.getNums.getStatsDataInMinute().tps);
    }),
  );
  collectedGauge(
    kit,
    'rocketmq_consumer_message_size',
    'Bytes the group got from the topic per second over the last minute',
    GROUP_TOPIC,
    each((f, emit) => {
      if (f.getSize !== undefined)
        emit({ group: f.group, topic: f.topic }, f.getSize.getStatsDataInMinute().tps);
    }),
  );
  collectedGauge(
    kit,
    'rocketmq_send_back_nums',
    'Messages the group sent back for a retry over the last minute',
    GROUP_TOPIC,
    each((f, emit) => {
      if (f.sendBack !== undefined)
        emit({ group: f.group, topic: f.topic }, f.sendBack.getStatsDataInMinute().sum);
    }),
  );
  collectedCounter(
    kit,
    'rocketmq_consumer_get_messages_total',
    'Messages the group got from the topic (since the broker started)',
    GROUP_TOPIC,
    each((f, emit) => emit({ group: f.group, topic: f.topic }, f.getNums?.value ?? 0)),
  );
  collectedCounter(
    kit,
    'rocketmq_consumer_get_bytes_total',
    'Bytes the group got from the topic (since the broker started)',
    GROUP_TOPIC,
    each((f, emit) => emit({ group: f.group, topic: f.topic }, f.getSize?.value ?? 0)),
  );
  collectedGauge(
    kit,
    'rocketmq_group_count',
    "The group's consumers connected to this broker",
    ['group'],
    (emit) => {
      for (const [group, info] of broker.consumerManager.consumerTable)
        emit({ group }, info.channelInfoTable.size);
    },
  );
  collectedGauge(
    kit,
    'rocketmq_producer_count',
    "The group's producers connected to this broker",
    ['group'],
    (emit) => {
      for (const [group, channels] of broker.producerManager.groupChannelTable)
        emit({ group }, channels.size);
    },
  );
}
