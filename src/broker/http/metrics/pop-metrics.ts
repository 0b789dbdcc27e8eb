/**
 * POP and timer figures, read at scrape time from the counters the POP and timer sides keep. Names
 * are upstream 5.x's OpenTelemetry names where one exists (`rocketmq_consumer_inflight_messages`,
 * `rocketmq_timing_messages`, `rocketmq_timer_dequeue_total`), else `rocketmq_pop_*` in the style of
 * the other series here. Counters count since the broker started, as the stats objects do.
 *
 * The POP_MESSAGE side's counters (PopStats, `broker.pop.popStats`) are read through a structural
 * view: the broker gains them with the POP processor, and until then those series are simply absent.
 */
import { MessageRequestMode } from '../../../common/protocol/message-request-mode.js';
import { TOPIC_GROUP_SEPARATOR } from '../../offset/consumer-offset-manager.js';
import type { BrokerContext } from '../../processor/broker-context.js';
import { collectedCounter, collectedGauge, type Emit, type MetricsKit } from './metrics-kit.js';
import { perScrape } from './per-scrape.js';

/** What is read of the POP_MESSAGE side's counters (pop-broker's PopStats). */
interface PopCountsRead {
  readonly pops: number;
  readonly messages: number;
}

interface PopStatsRead {
  entries(): Iterable<[string, Readonly<PopCountsRead>]>;
}

/** `broker.pop.popStats` when the broker has the POP processor's side, else undefined. */
function popStatsOf(broker: BrokerContext): PopStatsRead | undefined {
  const pop = (broker as { readonly pop?: { readonly popStats?: PopStatsRead } }).pop;
  return pop?.popStats;
}

/** PopStats keys are `group@topic`; a group name has no `@` (upstream's group name check). */
function splitGroupTopic(key: string): [string, string] | undefined {
  const at = key.indexOf('@');
  return at > 0 && at < key.length - 1 ? [key.slice(0, at), key.slice(at + 1)] : undefined;
}

interface InflightFigure {
  readonly group: string;
  readonly topic: string;
  readonly inflight: number;
}

/**
 * In-flight messages (popped, neither acked nor revived yet) per group and topic: every pair with
 * offsets here whose group pops it (POP mode, a pop counted, or messages in flight now or at an
 * earlier scrape: `seen`), so a POP group's series stays at 0 instead of vanishing when it has
 * nothing in flight.
 */
function inflightFigures(broker: BrokerContext, seen: Set<string>): InflightFigure[] {
  const pops = new Set<string>();
  for (const [key] of popStatsOf(broker)?.entries() ?? []) pops.add(key);
  const counter = broker.popRevive.inflight;
  const out: InflightFigure[] = [];
  for (const key of broker.consumerOffsetManager.offsetTable.keys()) {
    const at = key.indexOf(TOPIC_GROUP_SEPARATOR);
    if (at <= 0 || at >= key.length - 1) continue;
    const topic = key.slice(0, at);
    const group = key.slice(at + 1);
    const inflight = counter.getTopicGroupInFlightMessageNum(topic, group);
    const popMode =
      broker.messageRequestModeManager.getMessageRequestMode(topic, group)?.mode === MessageRequestMode.POP;
    if (inflight > 0) seen.add(key);
    if (seen.has(key) || popMode || pops.has(`${group}@${topic}`)) out.push({ group, topic, inflight });
  }
  return out;
}

const GROUP_TOPIC = ['group', 'topic'] as const;

export function registerPopMetrics(kit: MetricsKit, broker: BrokerContext): void {
  const seen = new Set<string>();
  const inflight = perScrape(() => inflightFigures(broker, seen));
  collectedGauge(
    kit,
    'rocketmq_consumer_inflight_messages',
    'Messages the group popped from the topic and has neither acked nor had revived yet',
    GROUP_TOPIC,
    (emit) => {
      for (const f of inflight()) emit({ group: f.group, topic: f.topic }, f.inflight);
    },
  );
  const popCounts = (read: (c: Readonly<PopCountsRead>) => number) => (emit: Emit) => {
    for (const [key, c] of popStatsOf(broker)?.entries() ?? []) {
      const gt = splitGroupTopic(key);
      if (gt !== undefined) emit({ group: gt[0], topic: gt[1] }, read(c));
    }
  };
  collectedCounter(
    kit,
    'rocketmq_pop_requests_total',
    'POP_MESSAGE requests of the group on the topic answered with messages',
    GROUP_TOPIC,
    popCounts((c) => c.pops),
  );
  collectedCounter(
    kit,
    'rocketmq_pop_messages_total',
    'Messages POP_MESSAGE handed to the group from the topic',
    GROUP_TOPIC,
    popCounts((c) => c.messages),
  );
  const stats = broker.popRevive.stats;
  const broker1 = (name: string, help: string, read: () => number) =>
    collectedCounter(kit, name, help, [], (emit) => emit({}, read()));
  broker1(
    'rocketmq_pop_ack_messages_total',
    'Messages ACK_MESSAGE and BATCH_ACK_MESSAGE requests acknowledged',
    () => stats.ackRequests,
  );
  broker1(
    'rocketmq_pop_acked_messages_total',
    'Popped messages the revive service settled from ack records',
    () => stats.acked,
  );
  broker1(
    'rocketmq_pop_unmatched_acks_total',
    'Acks matching no pending checkpoint (after the revive, repeated or never popped)',
    () => stats.lateOrUnknownAcks,
  );
  broker1(
    'rocketmq_pop_change_invisible_time_total',
    'CHANGE_MESSAGE_INVISIBLETIME requests that moved a message to a new invisible time',
    () => stats.changeInvisibleTimes,
  );
  broker1(
    'rocketmq_pop_checkpoints_total',
    'Checkpoints the revive services read from the revive topic',
    () => stats.checkPoints,
  );
  collectedCounter(
    kit,
    'rocketmq_pop_revive_messages_total',
    'Un-acked messages revived after their invisible time: to the retry topic, or to the DLQ after retryMaxTimes',
    ['destination'],
    (emit) => {
      emit({ destination: 'retry' }, stats.revived);
      emit({ destination: 'dlq' }, stats.deadLettered);
    },
  );
  broker1(
    'rocketmq_pop_revive_failures_total',
    'Revive re-puts the store refused (tried again at the next round)',
    () => stats.reviveFailures,
  );
  broker1(
    'rocketmq_pop_revive_dropped_total',
    'Un-acked messages not revived: their original was deleted, or their topic or group is gone',
    () => stats.reviveMissing + stats.reviveSkipped,
  );
  const timer = broker.timerMessageStore;
  if (timer !== undefined) {
    collectedGauge(kit, 'rocketmq_timing_messages', 'Timer messages waiting for their time', [], (emit) =>
      emit({}, timer.pending),
    );
    collectedCounter(
      kit,
      'rocketmq_timer_dequeue_total',
      'Timer messages put into their real topic since the broker started',
      [],
      (emit) => emit({}, timer.deliveredCount),
    );
  }
}
