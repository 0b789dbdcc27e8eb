/**
 * The client's figures for the application's own Prometheus registry:
 *
 *   import { Registry } from 'prom-client';
 *   const registry = new Registry();
 *   const metrics = registerClientMetrics(registry); // later: metrics.unregister()
 *
 * Consumers: what each running consumer of this process records (its ConsumerStatsManager, the
 * figures GET_CONSUMER_RUNNING_INFO reports), read at scrape time, under rocketmq-exporter's
 * `rocketmq_client_*` names plus running totals as counters. Producers: every send, counted from the
 * `rocketmq-ts:producer:send` diagnostics channel (so sends cost nothing extra until this is called).
 * prom-client is loaded when this is called, never when the client is imported.
 */
import { createRequire } from 'node:module';
import type * as PromClient from 'prom-client';
import { type ConsumerStatsManager, runningConsumerStats } from '../consumer/stats/consumer-stats-manager.js';
import { retryChannel, type SendRetryEvent, type SendTraceContext, sendChannel } from '../diagnostics.js';

type Prom = typeof PromClient;

export interface ClientMetrics {
  /** Removes the metrics from the registry and stops counting sends. */
  unregister(): void;
}

/** What the consumers of one `topic@group` recorded, summed over the consumers running it. */
interface GroupTopicTotals {
  pullTps: number;
  pullRtSum: number;
  pullRtTimes: number;
  okTps: number;
  failedTps: number;
  failedInHour: number;
  consumeRtSum: number;
  consumeRtTimes: number;
  consumeRtHourSum: number;
  consumeRtHourTimes: number;
  pulled: number;
  consumedOk: number;
  consumedFailed: number;
}

function emptyTotals(): GroupTopicTotals {
  return {
    pullTps: 0,
    pullRtSum: 0,
    pullRtTimes: 0,
    okTps: 0,
    failedTps: 0,
    failedInHour: 0,
    consumeRtSum: 0,
    consumeRtTimes: 0,
    consumeRtHourSum: 0,
    consumeRtHourTimes: 0,
    pulled: 0,
    consumedOk: 0,
    consumedFailed: 0,
  };
}

function addManager(out: Map<string, GroupTopicTotals>, m: ConsumerStatsManager): void {
  const keys = new Set<string>();
  for (const set of [m.topicAndGroupPullTPS, m.topicAndGroupConsumeOKTPS, m.topicAndGroupConsumeFailedTPS]) {
    for (const key of set.keys()) keys.add(key);
  }
  for (const key of keys) {
    let t = out.get(key);
    if (t === undefined) {
      t = emptyTotals();
      out.set(key, t);
    }
    const pullRt = m.topicAndGroupPullRT.getStatsDataInMinute(key);
    const rt = m.topicAndGroupConsumeRT.getStatsDataInMinute(key);
    const rtHour = m.topicAndGroupConsumeRT.getStatsDataInHour(key);
    t.pullTps += m.topicAndGroupPullTPS.getStatsDataInMinute(key).tps;
    t.pullRtSum += pullRt.sum;
    t.pullRtTimes += pullRt.times;
    t.okTps += m.topicAndGroupConsumeOKTPS.getStatsDataInMinute(key).tps;
    t.failedTps += m.topicAndGroupConsumeFailedTPS.getStatsDataInMinute(key).tps;
    t.failedInHour += m.topicAndGroupConsumeFailedTPS.getStatsDataInHour(key).sum;
    t.consumeRtSum += rt.sum;
    t.consumeRtTimes += rt.times;
    t.consumeRtHourSum += rtHour.sum;
    t.consumeRtHourTimes += rtHour.times;
    t.pulled += m.topicAndGroupPullTPS.getStatsItem(key)?.value ?? 0;
    t.consumedOk += m.topicAndGroupConsumeOKTPS.getStatsItem(key)?.value ?? 0;
    t.consumedFailed += m.topicAndGroupConsumeFailedTPS.getStatsItem(key)?.value ?? 0;
  }
}

/** `topic@group` -> labels (a topic has no `@`). */
function labelsOf(key: string): { group: string; topic: string } {
  const at = key.indexOf('@');
  return { topic: key.slice(0, at), group: key.slice(at + 1) };
}

function ratio(sum: number, times: number): number {
  return times > 0 ? sum / times : 0;
}

function loadPromClient(): Prom {
  return createRequire(import.meta.url)('prom-client') as Prom;
}

/** Registers the client's consumer and producer metrics into `registry` (see the module comment). */
export function registerClientMetrics(registry: PromClient.Registry): ClientMetrics {
  const prom = loadPromClient();
  const names: string[] = [];
  let snapshot: Map<string, GroupTopicTotals> | undefined;
  // One pass over the consumers serves every metric of a scrape (collects run in one synchronous pass).
  const totals = (): Map<string, GroupTopicTotals> => {
    if (snapshot === undefined) {
      const out = new Map<string, GroupTopicTotals>();
      for (const m of runningConsumerStats()) addManager(out, m);
      snapshot = out;
      queueMicrotask(() => {
        snapshot = undefined;
      });
    }
    return snapshot;
  };
  const consumerGauge = (name: string, help: string, value: (t: GroupTopicTotals) => number): void => {
    names.push(name);
    new prom.Gauge({
      name,
      help,
      labelNames: ['group', 'topic'],
      registers: [registry],
      collect() {
        this.reset();
        for (const [key, t] of totals()) this.set(labelsOf(key), value(t));
      },
    });
  };
  consumerGauge(
    'rocketmq_client_consumer_pull_tps',
    'Messages pulled per second over the last minute',
    (t) => t.pullTps,
  );
  consumerGauge('rocketmq_client_consumer_pull_rt', 'Average ms per pull over the last minute', (t) =>
    ratio(t.pullRtSum, t.pullRtTimes),
  );
  consumerGauge(
    'rocketmq_client_consume_ok_msg_tps',
    'Messages consumed successfully per second over the last minute',
    (t) => t.okTps,
  );
  consumerGauge(
    'rocketmq_client_consume_fail_msg_tps',
    'Messages whose consumption failed per second over the last minute',
    (t) => t.failedTps,
  );
  consumerGauge(
    'rocketmq_client_consume_fail_msg_count',
    'Messages whose consumption failed over the last hour',
    (t) => t.failedInHour,
  );
  consumerGauge(
    'rocketmq_client_consume_rt',
    'Average ms per listener call over the last minute (the last hour when the minute saw none)',
    (t) =>
      t.consumeRtSum === 0
        ? ratio(t.consumeRtHourSum, t.consumeRtHourTimes)
        : ratio(t.consumeRtSum, t.consumeRtTimes),
  );
  names.push(
    'rocketmq_client_consumer_pulled_messages_total',
    'rocketmq_client_consumer_consumed_messages_total',
  );
  new prom.Counter({
    name: 'rocketmq_client_consumer_pulled_messages_total',
    help: 'Messages pulled by the running consumers',
    labelNames: ['group', 'topic'],
    registers: [registry],
    collect() {
      this.reset();
      for (const [key, t] of totals()) this.inc(labelsOf(key), t.pulled);
    },
  });
  new prom.Counter({
    name: 'rocketmq_client_consumer_consumed_messages_total',
    help: 'Messages the listeners of the running consumers consumed, by result (success or failure)',
    labelNames: ['group', 'topic', 'result'],
    registers: [registry],
    collect() {
      this.reset();
      for (const [key, t] of totals()) {
        this.inc({ ...labelsOf(key), result: 'success' }, t.consumedOk);
        this.inc({ ...labelsOf(key), result: 'failure' }, t.consumedFailed);
      }
    },
  });

  const sends = new prom.Counter({
    name: 'rocketmq_client_producer_sends_total',
    help: 'Send calls (retries included in one call), by result: the send status, ONEWAY or ERROR',
    labelNames: ['group', 'topic', 'result'],
    registers: [registry],
  });
  const messages = new prom.Counter({
    name: 'rocketmq_client_producer_messages_total',
    help: 'Messages in the send calls (a batch counts each of its messages), by result',
    labelNames: ['group', 'topic', 'result'],
    registers: [registry],
  });
  const duration = new prom.Histogram({
    name: 'rocketmq_client_producer_send_duration_seconds',
    help: 'Time from a send call to its result, retries included',
    labelNames: ['group', 'topic'],
    registers: [registry],
  });
  const retries = new prom.Counter({
    name: 'rocketmq_client_producer_retries_total',
    help: 'Send attempts that failed and were tried again',
    labelNames: ['group', 'topic'],
    registers: [registry],
  });
  names.push(
    'rocketmq_client_producer_sends_total',
    'rocketmq_client_producer_messages_total',
    'rocketmq_client_producer_send_duration_seconds',
    'rocketmq_client_producer_retries_total',
  );
  const began = new WeakMap<object, number>();
  const handlers = {
    start(context: SendTraceContext) {
      began.set(context, performance.now());
    },
    asyncEnd(context: SendTraceContext) {
      const result = context.error !== undefined ? 'ERROR' : (context.result?.sendStatus ?? 'ONEWAY');
      const labels = { group: context.producerGroup, topic: context.topic };
      sends.inc({ ...labels, result });
      messages.inc({ ...labels, result }, Array.isArray(context.message) ? context.message.length : 1);
      const start = began.get(context);
      if (start !== undefined) duration.observe(labels, (performance.now() - start) / 1000);
    },
    end() {},
    asyncStart() {},
    error() {},
  };
  const onRetry = (event: unknown): void => {
    const e = event as SendRetryEvent;
    retries.inc({ group: e.producerGroup, topic: e.topic });
  };
  sendChannel.subscribe(handlers);
  retryChannel.subscribe(onRetry);
  let active = true;
  return {
    unregister() {
      if (!active) return;
      active = false;
      sendChannel.unsubscribe(handlers);
      retryChannel.unsubscribe(onRetry);
      for (const name of names) registry.removeSingleMetric(name);
    },
  };
}
