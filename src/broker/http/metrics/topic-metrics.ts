/**
 * Per topic, under rocketmq-exporter's names: put TPS and bytes per second over the last minute
 * (TOPIC_PUT_NUMS / TOPIC_PUT_SIZE, as VIEW_BROKER_STATS_DATA gives them; like the exporter, only
 * for topics that saw a put since the broker started, which keeps idle topics cheap), the sum of the write
 * queues' max offsets (retry and dead-letter topics apart, as the exporter splits them), and the
 * running put totals as counters for `rate()`.
 */
import { MixAll } from '../../../common/constants.js';
import type { StatsItem } from '../../../common/stats/stats-item.js';
import type { BrokerContext } from '../../processor/broker-context.js';
import { Stats } from '../../stats/stats-names.js';
import { collectedCounter, collectedGauge, type Emit, type MetricsKit } from './metrics-kit.js';
import { perScrape } from './per-scrape.js';

interface TopicFigures {
  readonly topic: string;
  /** Sum of the write queues' max offsets. */
  readonly maxOffset: number;
  readonly putNums: StatsItem | undefined;
  readonly putSize: StatsItem | undefined;
}

function topicFigures(broker: BrokerContext): TopicFigures[] {
  const store = broker.messageStore;
  const stats = broker.brokerStatsManager;
  const out: TopicFigures[] = [];
  for (const [topic, config] of broker.topicConfigManager.topicConfigTable) {
    let maxOffset = 0n;
    for (let q = 0; q < config.writeQueueNums; q++) {
      const o = store.getMaxOffsetInQueue(topic, q);
      if (o > 0n) maxOffset += o;
    }
    out.push({
      topic,
      maxOffset: Number(maxOffset),
      putNums: stats.getStatsItem(Stats.TOPIC_PUT_NUMS, topic),
      putSize: stats.getStatsItem(Stats.TOPIC_PUT_SIZE, topic),
    });
  }
  return out;
}

export function registerTopicMetrics(kit: MetricsKit, broker: BrokerContext): void {
  const topics = perScrape(() => topicFigures(broker));
  const each = (read: (t: TopicFigures, emit: Emit) => void) => (emit: Emit) => {
    for (const t of topics()) read(t, emit);
  };
  collectedGauge(
    kit,
    'rocketmq_producer_tps',
    'Messages put into the topic per second over the last minute',
    ['topic'],
    each((t, emit) => {
      if (t.putNums !== undefined) emit({ topic: t.topic }, t.putNums.getStatsDataInMinute().tps);
    }),
  );
  collectedGauge(
    kit,
    'rocketmq_producer_message_size',
    'Bytes put into the topic per second over the last minute',
    ['topic'],
    each((t, emit) => {
      if (t.putSize !== undefined) emit({ topic: t.topic }, t.putSize.getStatsDataInMinute().tps);
    }),
  );
  collectedGauge(
    kit,
    'rocketmq_producer_offset',
    "Sum of the topic's write queues' max offsets (retry and dead-letter topics apart)",
    ['topic'],
    each((t, emit) => {
      if (
        !t.topic.startsWith(MixAll.RETRY_GROUP_TOPIC_PREFIX) &&
        !t.topic.startsWith(MixAll.DLQ_GROUP_TOPIC_PREFIX)
      )
        emit({ topic: t.topic }, t.maxOffset);
    }),
  );
  collectedGauge(
    kit,
    'rocketmq_topic_retry_offset',
    "Sum of a retry topic's queues' max offsets",
    ['topic'],
    each((t, emit) => {
      if (t.topic.startsWith(MixAll.RETRY_GROUP_TOPIC_PREFIX)) emit({ topic: t.topic }, t.maxOffset);
    }),
  );
  collectedGauge(
    kit,
    'rocketmq_topic_dlq_offset',
    "Sum of a group's dead-letter topic's queues' max offsets",
    ['group'],
    each((t, emit) => {
      if (t.topic.startsWith(MixAll.DLQ_GROUP_TOPIC_PREFIX))
        emit({ group: t.topic.slice(MixAll.DLQ_GROUP_TOPIC_PREFIX.length) }, t.maxOffset);
    }),
  );
  collectedCounter(
    kit,
    'rocketmq_topic_put_messages_total',
    'Messages put into the topic (since the broker started or the topic was created)',
    ['topic'],
    each((t, emit) => emit({ topic: t.topic }, t.putNums?.value ?? 0)),
  );
  collectedCounter(
    kit,
    'rocketmq_topic_put_bytes_total',
    'Bytes put into the topic (since the broker started or the topic was created)',
    ['topic'],
    each((t, emit) => emit({ topic: t.topic }, t.putSize?.value ?? 0)),
  );
}
