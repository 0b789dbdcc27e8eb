/**
 * `rmq bench producer`: -w senders, each sending and awaiting its send in a loop like one of
 * upstream's benchmark threads, with at most --in-flight sends outstanding in all; -y: one sender
 * that does not await (upstream's async mode). Ends on -q, --duration or a signal; the sends still
 * outstanding are awaited, then [Complete], the summary and --json.
 */
import { writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { createProducer, MQBrokerError, type SendOptions, SendStatus } from '../../client/index.js';
import { RocketMQError } from '../../common/errors.js';
import type { Message } from '../../common/message/message.js';
import {
  RemotingConnectError,
  RemotingConnectionClosedError,
  RemotingTimeoutError,
  RemotingTooMuchRequestError,
} from '../../remoting/transport/errors.js';
import { benchSerializeType } from './flags.js';
import { MessageBuilder, randomBody } from './message-builder.js';
import type { ProducerSettings } from './producer-settings.js';
import { ProducerStats, type SendFailure } from './producer-stats.js';
import { producerCompleteLine, producerIntervalLine, producerSummaryText, progressLine } from './report.js';
import { type BenchContext, pause, scheduleRun } from './run-schedule.js';

/**
 * Upstream's benchmark threads sleep 3 s after a transport failure or a broker's error answer, so a
 * sick broker is not hammered; the client's own give-ups (retries used up) are counted without a pause.
 */
export const FAILURE_PAUSE_MS = 3000;
/** Upstream's setCompressMsgBodyOverHowmuch(Integer.MAX_VALUE): the bench never compresses. */
const NEVER_COMPRESS = 2_147_483_647;

/** Hands out permits for outstanding sends; waiters are served in order. */
class Permits {
  private readonly waiters: Array<() => void> = [];

  constructor(private free: number) {}

  acquire(): Promise<void> | undefined {
    if (this.free > 0) {
      this.free--;
      return undefined;
    }
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  release(): void {
    const next = this.waiters.shift();
    if (next !== undefined) next();
    else this.free++;
  }
}

/** The messages left to send under -q (unlimited when 0). */
class Quota {
  constructor(private remaining: number) {}

  /** Up to `wanted` messages, 0 when -q is used up. */
  claim(wanted: number): number {
    if (this.remaining === Number.POSITIVE_INFINITY) return wanted;
    const n = Math.min(wanted, this.remaining);
    this.remaining -= n;
    return n;
  }
}

function failureKind(error: unknown): SendFailure {
  return error instanceof MQBrokerError ? 'response' : 'send';
}

/** Upstream pauses after RemotingException and MQBrokerException, not after MQClientException. */
function pausesAfter(error: unknown): boolean {
  return (
    error instanceof MQBrokerError ||
    error instanceof RemotingTimeoutError ||
    error instanceof RemotingConnectError ||
    error instanceof RemotingConnectionClosedError ||
    error instanceof RemotingTooMuchRequestError
  );
}

export function producerHeader(s: ProducerSettings): string {
  // Upstream's start-up lines (Producer's, or BatchProducer's for -b > 1), then ours.
  const upstream =
    s.batchSize > 1
      ? `topic: ${s.topic} threadCount: ${s.threadCount} messageSize: ${s.messageSize} batchSize: ${s.batchSize} ` +
        `keyEnable: ${s.keyEnable} propertySize: ${s.propertySize} tagCount: ${s.tagCount} traceEnable: false aclEnable: ${s.credentials !== undefined}\n`
      : `topic: ${s.topic} threadCount: ${s.threadCount} messageSize: ${s.messageSize} keyEnable: ${s.keyEnable} ` +
        `propertySize: ${s.propertySize} tagCount: ${s.tagCount} traceEnable: false aclEnable: ${s.credentials !== undefined} ` +
        `messageQuantity: ${s.messageQuantity}\ndelayEnable: ${s.delayEnable} delayLevel: ${s.delayLevel}\n` +
        `asyncEnable: ${s.asyncEnable}\n`;
  return (
    `${upstream}inFlight: ${s.inFlight} duration: ${s.durationS} warmup: ${s.warmupS} ` +
    `reportInterval: ${s.reportIntervalS} group: ${s.group} namesrv: ${s.namesrvAddr}\n`
  );
}

/** Runs the benchmark; resolves with the exit code (1 when not one send succeeded). */
export async function runProducerBench(s: ProducerSettings, ctx: BenchContext): Promise<number> {
  const { terminal } = ctx;
  terminal.line(producerHeader(s));
  const builder = new MessageBuilder({
    topic: s.topic,
    body: randomBody(s.messageSize),
    keyEnable: s.keyEnable,
    tagCount: s.tagCount,
    delayLevel: s.delayEnable ? s.delayLevel : 0,
    propertySize: s.propertySize,
  });
  const producer = createProducer({
    namesrvAddr: s.namesrvAddr,
    producerGroup: s.group,
    credentials: s.credentials,
    serializeType: benchSerializeType(),
    // As upstream: an instance of its own, whatever else runs in this process.
    instanceName: String(Date.now()),
    compressMsgBodyOverHowmuch: NEVER_COMPRESS,
    logger: ctx.clientLogger,
  });
  await producer.start();
  // Each sender has one send outstanding, so fewer senders is the cap; async: one that never waits.
  const senders = s.asyncEnable ? 1 : Math.min(s.threadCount, s.inFlight);
  const sendOptions: SendOptions = { communicationMode: s.asyncEnable ? 'ASYNC' : 'SYNC' };
  const stats = new ProducerStats(performance.now(), { ...s, threadCount: senders });
  const permits = new Permits(s.inFlight);
  const quota = new Quota(s.messageQuantity > 0 ? s.messageQuantity : Number.POSITIVE_INFINITY);
  const outstanding = new Set<Promise<boolean>>();
  const failuresSeen = new Set<string>();

  const schedule = scheduleRun({
    signal: ctx.signal,
    warmupS: s.warmupS,
    durationS: s.durationS,
    reportIntervalS: s.reportIntervalS,
    showProgress: terminal.isTTY,
    onMeasureStart: (at) => stats.startMeasuring(at),
    onReport: () => terminal.line(producerIntervalLine(stats.interval(performance.now(), Date.now()))),
    onProgress: () => terminal.progress(progressLine('producer', stats.progress(performance.now()))),
  });
  const stopped = schedule.stopped;

  const noteFailure = (error: unknown): void => {
    const kind = error instanceof RocketMQError ? `${error.name} ${error.responseCode}` : String(error);
    if (failuresSeen.has(kind)) return;
    failuresSeen.add(kind);
    ctx.warn(
      `send failed (further ones of this kind are only counted): ${error instanceof Error ? error.message : String(error)}`,
    );
  };

  /** One send call of `count` messages; resolves true when upstream would pause after it. */
  const sendOnce = async (count: number): Promise<boolean> => {
    let began = performance.now();
    try {
      // Built inside the try: a message the client refuses to build counts as a failed send.
      const nowMs = Date.now();
      const batch = s.batchSize > 1 ? builder.batch(count, nowMs) : undefined;
      const single = batch === undefined ? builder.single(nowMs) : undefined;
      began = performance.now();
      const result =
        batch !== undefined
          ? await producer.send(batch, sendOptions)
          : await producer.send(single as Message, sendOptions);
      if (result.sendStatus === SendStatus.SEND_OK) {
        stats.recordSuccess(began, (performance.now() - began) * 1000, count);
      } else {
        // Stored, but not as asked (FLUSH_DISK_TIMEOUT...): BatchProducer counts it failed, the broker answered.
        stats.recordFailure(began, 'response', count);
        noteFailure(`send status ${result.sendStatus}`);
      }
      return false;
    } catch (error) {
      stats.recordFailure(began, failureKind(error), count);
      noteFailure(error);
      return pausesAfter(error);
    } finally {
      permits.release();
    }
  };

  const sender = async (): Promise<void> => {
    while (!stopped.aborted) {
      await permits.acquire();
      const count = stopped.aborted ? 0 : quota.claim(s.batchSize);
      if (count === 0) {
        permits.release();
        return;
      }
      const sent = sendOnce(count);
      if (s.asyncEnable) {
        outstanding.add(sent);
        void sent.finally(() => outstanding.delete(sent));
      } else if (await sent) {
        await pause(FAILURE_PAUSE_MS, stopped);
      }
    }
  };

  let endedAt: number;
  try {
    await Promise.all(Array.from({ length: senders }, sender));
    await Promise.all(outstanding);
    endedAt = performance.now();
  } finally {
    schedule.dispose();
    terminal.clearProgress();
    await producer.shutdown();
  }
  const summary = stats.summary(endedAt);
  terminal.line(producerCompleteLine(summary, stats.measuredFailedMessages));
  terminal.line(producerSummaryText(summary, s.warmupS));
  if (s.jsonFile !== undefined) writeFileSync(s.jsonFile, `${JSON.stringify(summary, null, 2)}\n`);
  if (stats.sends === 0) {
    ctx.warn('nothing could be sent');
    return 1;
  }
  return 0;
}
