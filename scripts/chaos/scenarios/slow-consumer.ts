/**
 * Slow consumer and large backlog: while producers keep sending, one consumer works through a large
 * backlog slowly, and another asks for the backlog (and holds long-polling pulls at the end of the
 * producers' topic) but never reads its socket. The broker's memory stays bounded: what it queues for
 * a reader that does not read is capped by the write-buffer water marks (reading from that connection
 * pauses above writeBufferHighWaterMark, upstream leans on Netty's channel writability), the held pulls
 * answer once each, and the producers keep their latency: p99 with the slow consumers next to p99
 * without them.
 */
import type { Socket } from 'node:net';
import { join } from 'node:path';
import { createProducer, createPullConsumer, createPushConsumer } from '../../../src/client/index.js';
import { mib, ProbeBroker, percentile, quietClientLogger, resourceVerdict } from '../solo-broker.js';
import { startSlowReader } from '../storm-clients.js';
import type { Scenario, ScenarioContext, Verdict } from '../types.js';

const NAME = 'slow-consumer';
const BACKLOG_TOPIC = 'ChaosSlowBacklog';
const LOAD_TOPIC = 'ChaosSlowLoad';
const BODY = Buffer.alloc(1024, 0x61);
/** Sends in flight while the backlog is written. */
const FILL_CONCURRENCY = 64;
/** The producers' steady load: sends in flight. */
const LOAD_CONCURRENCY = 4;
/** The slow consumer's time per message. */
const SLOW_CONSUME_MS = 20;
const SUSPEND_MS = 60_000;
const SAMPLE_MS = 100;
/**
 * Bounds, measured on a 2-core machine shared with other work and given margin: RSS growth of the
 * broker over its size after the backlog was written, the bytes its write buffers hold for readers,
 * and the producers' p99 with the slow consumers (a multiple of p99 without them, or that plus a
 * small constant when p99 is a few ms and the multiple is noise).
 */
const RSS_GROWTH_BOUND_BYTES = 192 * 1024 * 1024;
const WRITE_BUFFERED_BOUND_BYTES = 64 * 1024 * 1024;
const P99_RATIO_BOUND = 3;
const P99_SLACK_MS = 25;
const SETTLE_DEADLINE_MS = 30_000;

interface Size {
  backlog: number;
  phaseMs: number;
  readers: number;
  readerBacklogPulls: number;
  readerHeldPulls: number;
}

const SIZES: Record<'short' | 'long', Size> = {
  short: { backlog: 20_000, phaseMs: 5_000, readers: 1, readerBacklogPulls: 2_000, readerHeldPulls: 200 },
  long: { backlog: 200_000, phaseMs: 60_000, readers: 4, readerBacklogPulls: 20_000, readerHeldPulls: 2_000 },
};

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

export const scenario: Scenario = {
  name: NAME,
  description:
    'a slow consumer over a large backlog and one that never reads its socket: broker memory bounded, producer p99 kept',
  needsJava: false,
  async run(ctx: ScenarioContext): Promise<Verdict[]> {
    const size = ctx.long ? SIZES.long : SIZES.short;
    const failures: string[] = [];
    const figures: Record<string, number | string> = {};
    const broker = await ProbeBroker.start(join(ctx.workDir, NAME));
    const producer = createProducer({
      logger: quietClientLogger(),
      namesrvAddr: broker.namesrvAddr,
      producerGroup: 'chaos-slow-p',
    });
    const admin = createPullConsumer({
      logger: quietClientLogger(),
      namesrvAddr: broker.namesrvAddr,
      consumerGroup: 'chaos-slow-admin',
    });
    const push = createPushConsumer({
      logger: quietClientLogger(),
      namesrvAddr: broker.namesrvAddr,
      consumerGroup: 'chaos-slow-push',
      consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
      consumeConcurrency: 1,
    });
    const readers: Socket[] = [];
    let sendAttempts = 0;
    let acknowledged = 0;
    let failedSends = 0;
    /** Sends at LOAD_CONCURRENCY for `ms`; the latency of each. */
    const load = async (ms: number): Promise<number[]> => {
      const latencies: number[] = [];
      const end = Date.now() + ms;
      await Promise.all(
        Array.from({ length: LOAD_CONCURRENCY }, async () => {
          while (Date.now() < end && !ctx.signal.aborted) {
            const t = performance.now();
            sendAttempts++;
            try {
              await producer.send({ topic: LOAD_TOPIC, body: BODY });
              acknowledged++;
              latencies.push(performance.now() - t);
            } catch {
              failedSends++;
            }
          }
        }),
      );
      return latencies;
    };
    try {
      await producer.start();
      await admin.start();
      // The backlog.
      let next = 0;
      await Promise.all(
        Array.from({ length: FILL_CONCURRENCY }, async () => {
          while (next < size.backlog) {
            next++;
            await producer.send({ topic: BACKLOG_TOPIC, body: BODY });
          }
        }),
      );
      await producer.send({ topic: LOAD_TOPIC, body: BODY });
      figures.backlogMessages = size.backlog;
      const before = await broker.stats(true);
      figures.rssAfterBacklogMiB = mib(before.rss);

      const alone = await load(size.phaseMs);
      const p99Alone = percentile(alone, 99);
      figures.sendsAlone = alone.length;
      figures.p99AloneMs = Math.round(p99Alone * 10) / 10;

      // The slow consumers.
      let consumed = 0;
      push.subscribe(BACKLOG_TOPIC, '*');
      push.registerMessageListener({
        type: 'concurrently',
        async consumeMessage(msgs) {
          await sleep(SLOW_CONSUME_MS * msgs.length);
          consumed += msgs.length;
          return 'CONSUME_SUCCESS';
        },
      });
      await push.start();
      const backlogQueues = await admin.fetchSubscribeMessageQueues(BACKLOG_TOPIC);
      const loadQueues = await admin.fetchSubscribeMessageQueues(LOAD_TOPIC);
      for (let r = 0; r < size.readers; r++) {
        readers.push(
          await startSlowReader({
            brokerAddr: broker.brokerAddr,
            group: `chaos-slow-reader-${r}`,
            backlog: {
              topic: BACKLOG_TOPIC,
              queues: backlogQueues.map((mq) => ({ queueId: mq.queueId, from: 0n })),
              pulls: size.readerBacklogPulls,
            },
            held: {
              topic: LOAD_TOPIC,
              queues: await Promise.all(
                loadQueues.map(async (mq) => ({ queueId: mq.queueId, offset: await admin.maxOffset(mq) })),
              ),
              pulls: size.readerHeldPulls,
            },
            suspendTimeoutMillis: SUSPEND_MS,
          }),
        );
      }
      let sampling = true;
      let rssPeak = before.rss;
      let bufferedPeak = 0;
      let pausedPeak = 0;
      let heldPeak = 0;
      const sampler = (async () => {
        while (sampling) {
          const s = await broker.stats();
          rssPeak = Math.max(rssPeak, broker.rss(), s.rss);
          bufferedPeak = Math.max(bufferedPeak, s.writeBuffered);
          pausedPeak = Math.max(pausedPeak, s.readPausedConnections);
          heldPeak = Math.max(heldPeak, s.heldPulls);
          await sleep(SAMPLE_MS);
        }
      })();
      const slowed = await load(size.phaseMs);
      sampling = false;
      await sampler;
      const p99Slowed = percentile(slowed, 99);
      figures.sendsWithSlow = slowed.length;
      figures.p99WithSlowMs = Math.round(p99Slowed * 10) / 10;
      figures.p99Ratio = p99Alone > 0 ? Math.round((p99Slowed / p99Alone) * 100) / 100 : 0;
      figures.slowConsumed = consumed;
      figures.rssPeakMiB = mib(rssPeak);
      figures.rssGrowthMiB = mib(rssPeak - before.rss);
      figures.rssBoundMiB = mib(RSS_GROWTH_BOUND_BYTES);
      figures.writeBufferedPeakMiB = mib(bufferedPeak);
      figures.readPausedConnections = pausedPeak;
      figures.heldPullsPeak = heldPeak;
      figures.failedSends = failedSends;
      const p99Bound = Math.max(P99_RATIO_BOUND * p99Alone, p99Alone + P99_SLACK_MS);
      if (p99Slowed > p99Bound)
        failures.push(
          `producer p99 ${figures.p99WithSlowMs} ms with the slow consumers, ${figures.p99AloneMs} ms without (bound ${Math.round(p99Bound)} ms)`,
        );
      if (rssPeak - before.rss > RSS_GROWTH_BOUND_BYTES)
        failures.push(
          `broker RSS grew ${mib(rssPeak - before.rss)} MiB, bound ${mib(RSS_GROWTH_BOUND_BYTES)} MiB`,
        );
      if (bufferedPeak > WRITE_BUFFERED_BOUND_BYTES)
        failures.push(
          `${mib(bufferedPeak)} MiB waited in write buffers, bound ${mib(WRITE_BUFFERED_BOUND_BYTES)} MiB`,
        );
      if (pausedPeak < size.readers)
        failures.push('the reader that does not read never paused its connection');
      if (failedSends > 0) failures.push(`${failedSends} sends failed`);
      if (consumed === 0) failures.push('the slow consumer consumed nothing');

      for (const s of readers) s.destroy();
      await push.shutdown();
      const settleEnd = Date.now() + SETTLE_DEADLINE_MS;
      let after = await broker.stats();
      while ((after.writeBuffered > 0 || after.readPausedConnections > 0) && Date.now() < settleEnd) {
        await sleep(200);
        after = await broker.stats();
      }
      figures.writeBufferedAfter = after.writeBuffered;
      if (after.writeBuffered > 0 || after.readPausedConnections > 0)
        failures.push(`${after.writeBuffered} bytes still buffered for closed readers`);
    } finally {
      for (const s of readers) s.destroy();
      await push.shutdown();
      await admin.shutdown();
      await producer.shutdown();
      await broker.stop();
    }
    return [
      resourceVerdict({
        scenario: NAME,
        mode: `backlog ${size.backlog}, ${size.readers} non-reading, ours`,
        sendAttempts,
        acknowledged,
        figures,
        failures,
      }),
    ];
  },
};
