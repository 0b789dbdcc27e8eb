/**
 * `rmq bench consumer`: our push consumer (clustering, a concurrent listener) as upstream's
 * benchmark Consumer runs the official one. The listener only counts: latencies of every message,
 * and -r of the calls answered RECONSUME_LATER. Ends on --count, --duration or a signal; then the
 * summary and --json.
 */
import { writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import {
  ConsumeConcurrentlyStatus,
  ConsumeFromWhere,
  createPushConsumer,
  MessageModel,
} from '../../client/index.js';
import type { ConsumerSettings } from './consumer-settings.js';
import { ConsumerStats } from './consumer-stats.js';
import { benchSerializeType } from './flags.js';
import { consumerIntervalLine, consumerSummaryText, progressLine } from './report.js';
import { type BenchContext, scheduleRun } from './run-schedule.js';

export function consumerHeader(s: ConsumerSettings): string {
  // Upstream's start-up line (null where it prints a missing option as null), then ours.
  return (
    `topic: ${s.topic}, threadCount ${s.threadCount}, group: ${s.group}, suffix: ${s.suffixEnable}, ` +
    `filterType: ${s.filterType ?? 'null'}, expression: ${s.expression ?? 'null'}, msgTraceEnable: false, aclEnable: ${s.credentials !== undefined}\n` +
    `from: ${s.from} count: ${s.count} failRate: ${s.failRate} batchMaxSize: ${s.batchMaxSize} ` +
    `pullBatchSize: ${s.pullBatchSize} duration: ${s.durationS} warmup: ${s.warmupS} ` +
    `reportInterval: ${s.reportIntervalS} namesrv: ${s.namesrvAddr}\n`
  );
}

/** Runs the benchmark; resolves with the exit code (1 when not one message arrived). */
export async function runConsumerBench(s: ConsumerSettings, ctx: BenchContext): Promise<number> {
  const { terminal } = ctx;
  terminal.line(consumerHeader(s));
  if (s.expression !== undefined) terminal.line(`Expression: ${s.expression}`);
  const consumer = createPushConsumer({
    namesrvAddr: s.namesrvAddr,
    consumerGroup: s.group,
    credentials: s.credentials,
    serializeType: benchSerializeType(),
    messageModel: MessageModel.CLUSTERING,
    // As upstream: an instance of its own, whatever else runs in this process.
    instanceName: String(Date.now()),
    consumeConcurrency: s.threadCount,
    consumeFromWhere:
      s.from === 'first'
        ? ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET
        : ConsumeFromWhere.CONSUME_FROM_LAST_OFFSET,
    consumeMessageBatchMaxSize: s.batchMaxSize,
    pullBatchSize: s.pullBatchSize,
    logger: ctx.clientLogger,
  });
  consumer.subscribe(
    s.topic,
    s.filterType === undefined || s.expression === undefined
      ? '*'
      : { type: s.filterType, expression: s.expression },
  );
  const stats = new ConsumerStats(performance.now(), s);
  // The schedule starts before start(): a backlog's first messages can arrive while start() runs.
  const schedule = scheduleRun({
    signal: ctx.signal,
    warmupS: s.warmupS,
    durationS: s.durationS,
    reportIntervalS: s.reportIntervalS,
    showProgress: terminal.isTTY,
    onMeasureStart: (at) => stats.startMeasuring(at),
    onReport: () => terminal.line(consumerIntervalLine(stats.interval(performance.now(), Date.now()))),
    onProgress: () => terminal.progress(progressLine('consumer', stats.progress(performance.now()))),
  });
  const stopped = schedule.stopped;
  let endedAt: number | undefined;
  const ended = new Promise<void>((resolve) => {
    const end = (): void => {
      endedAt ??= performance.now();
      resolve();
    };
    if (stopped.aborted) end();
    else stopped.addEventListener('abort', end, { once: true });
  });

  consumer.registerMessageListener({
    type: 'concurrently',
    async consumeMessage(msgs) {
      // After the end nothing is counted; answering success lets shutdown go without send-backs.
      if (stopped.aborted) return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
      const at = performance.now();
      const nowMs = Date.now();
      for (const msg of msgs) {
        stats.recordMessage(at, nowMs, Number(msg.bornTimestamp), Number(msg.storeTimestamp));
      }
      if (s.failRate > 0 && Math.random() < s.failRate) {
        stats.recordFailed(at, msgs.length);
        return ConsumeConcurrentlyStatus.RECONSUME_LATER;
      }
      stats.succeeded += msgs.length;
      if (s.count > 0 && stats.succeeded >= s.count) {
        endedAt ??= at;
        schedule.stop();
      }
      return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
    },
  });

  try {
    await consumer.start();
  } catch (error) {
    schedule.dispose();
    // The start's error is the one to report; a shutdown failing after it would only hide it.
    await consumer.shutdown().catch(() => undefined);
    throw error;
  }
  terminal.line('Consumer Started.');
  try {
    await ended;
  } finally {
    schedule.dispose();
    terminal.clearProgress();
    await consumer.shutdown();
  }
  const summary = stats.summary(endedAt ?? performance.now());
  terminal.line(consumerSummaryText(summary, s.warmupS));
  if (s.jsonFile !== undefined) writeFileSync(s.jsonFile, `${JSON.stringify(summary, null, 2)}\n`);
  if (stats.messages === 0) {
    ctx.warn('nothing was consumed');
    return 1;
  }
  return 0;
}
