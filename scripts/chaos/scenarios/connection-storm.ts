/**
 * Connection storm: a thousand client connections, each a consumer (HEART_BEAT) holding ten
 * long-polling pulls at the end of a queue, ten thousand held at once, against a broker in a child
 * process. While they are held the broker still answers an ordinary send and pull within bounds and
 * its RSS stays under a stated bound; once they close, the held-pull table, the connections and the
 * consumer tables return to where they were and the heap after a collection to its size before.
 */
import { join } from 'node:path';
import { createProducer, createPullConsumer } from '../../../src/client/index.js';
import { ResponseCode } from '../../../src/remoting/protocol/response-code.js';
import type { ProbeStats } from '../probe-broker.js';
import { mib, ProbeBroker, percentile, quietClientLogger, resourceVerdict } from '../solo-broker.js';
import { Storm } from '../storm-clients.js';
import type { Scenario, ScenarioContext, Verdict } from '../types.js';

const NAME = 'connection-storm';
const STORM_TOPIC = 'ChaosStormHeld';
const NORMAL_TOPIC = 'ChaosStormNormal';
/** Long enough that every pull is still held while the storm is measured; released by messages after. */
const SUSPEND_MS = 60_000;
/** The ordinary traffic during the storm: this many sends and pulls, one at a time. */
const PROBES = 30;
/**
 * Bounds (measured on a 2-core machine shared with other work, then given margin): p99 of an
 * ordinary send or pull while 10,000 pulls are held, and the broker's RSS growth over its idle size.
 */
const SEND_P99_BOUND_MS = 500;
const PULL_P99_BOUND_MS = 500;
const RSS_GROWTH_BOUND_BYTES = 160 * 1024 * 1024;
/** After the clients go: heap (after GC) within this of its size before the storm. */
const HEAP_LEAK_BOUND_BYTES = 8 * 1024 * 1024;
const SETTLE_DEADLINE_MS = 30_000;
/** The storm's consumer groups are `<prefix><n>`; the ordinary clients' groups are not. */
const STORM_GROUP_PREFIX = 'chaos-storm-';

/** Consumer groups and channels of the storm's groups. */
function stormTables(s: ProbeStats): { groups: number; channels: number } {
  let groups = 0;
  let channels = 0;
  for (const [group, n] of Object.entries(s.consumerChannelsByGroup)) {
    if (!group.startsWith(STORM_GROUP_PREFIX)) continue;
    groups++;
    channels += n;
  }
  return { groups, channels };
}
const RSS_SAMPLE_MS = 100;

interface Size {
  connections: number;
  pullsPerConnection: number;
  groups: number;
  rounds: number;
}

const SIZES: Record<'short' | 'long', Size> = {
  short: { connections: 1_000, pullsPerConnection: 10, groups: 100, rounds: 1 },
  long: { connections: 1_000, pullsPerConnection: 10, groups: 100, rounds: 5 },
};

async function until<T>(probe: () => Promise<T>, done: (v: T) => boolean, deadlineMs: number): Promise<T> {
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    const v = await probe();
    if (done(v) || Date.now() > deadline) return v;
    await new Promise((r) => setTimeout(r, 200));
  }
}

export const scenario: Scenario = {
  name: NAME,
  description:
    '1,000 connections holding 10,000 long-polling pulls: ordinary sends and pulls answered, RSS bounded, tables back to baseline after',
  needsJava: false,
  async run(ctx: ScenarioContext): Promise<Verdict[]> {
    const size = ctx.long ? SIZES.long : SIZES.short;
    const failures: string[] = [];
    const figures: Record<string, number | string> = {};
    const broker = await ProbeBroker.start(join(ctx.workDir, NAME));
    const producer = createProducer({
      logger: quietClientLogger(),
      namesrvAddr: broker.namesrvAddr,
      producerGroup: 'chaos-normal-p',
    });
    const consumer = createPullConsumer({
      logger: quietClientLogger(),
      namesrvAddr: broker.namesrvAddr,
      consumerGroup: 'chaos-normal-c',
    });
    let sendAttempts = 0;
    let acknowledged = 0;
    try {
      await producer.start();
      await consumer.start();
      await producer.send({ topic: STORM_TOPIC, body: 'create' });
      for (let i = 0; i < PROBES; i++) await producer.send({ topic: NORMAL_TOPIC, body: `n${i}` });
      const stormQueues = await consumer.fetchSubscribeMessageQueues(STORM_TOPIC);
      const normalQueue = (await consumer.fetchSubscribeMessageQueues(NORMAL_TOPIC))[0]!;

      /** One ordinary send and one pull (of what is there), timed. */
      const ordinary = async (): Promise<{ send: number[]; pull: number[] }> => {
        const send: number[] = [];
        const pull: number[] = [];
        for (let i = 0; i < PROBES; i++) {
          let t = performance.now();
          sendAttempts++;
          await producer.send({ topic: NORMAL_TOPIC, body: `probe-${i}` });
          acknowledged++;
          send.push(performance.now() - t);
          t = performance.now();
          const r = await consumer.pull(normalQueue, '*', BigInt(i % 4), 32);
          if (r.msgFoundList.length === 0) failures.push('an ordinary pull found nothing during the storm');
          pull.push(performance.now() - t);
        }
        return { send, pull };
      };
      const idle = await ordinary();
      figures.idleSendP99Ms = Math.round(percentile(idle.send, 99));
      figures.idlePullP99Ms = Math.round(percentile(idle.pull, 99));
      const before = await broker.stats(true);
      figures.idleRssMiB = mib(broker.rss());
      figures.idleHeapMiB = mib(before.heapUsed);

      let worstSend = 0;
      let worstPull = 0;
      let rssPeak = 0;
      let heldPeak = 0;
      let cleanupMs = 0;
      let heapAfter = 0;
      for (let round = 0; round < size.rounds; round++) {
        const queues = await Promise.all(
          stormQueues.map(async (mq) => ({ queueId: mq.queueId, offset: await consumer.maxOffset(mq) })),
        );
        let sampling = true;
        const sampler = (async () => {
          while (sampling) {
            rssPeak = Math.max(rssPeak, broker.rss());
            await new Promise((r) => setTimeout(r, RSS_SAMPLE_MS));
          }
        })();
        const openedAt = Date.now();
        const storm = await Storm.start({
          brokerAddr: broker.brokerAddr,
          connections: size.connections,
          pullsPerConnection: size.pullsPerConnection,
          topic: STORM_TOPIC,
          queues,
          groups: size.groups,
          suspendTimeoutMillis: SUSPEND_MS,
        });
        const expected = size.connections * size.pullsPerConnection;
        const during = await until(
          () => broker.stats(),
          (s) => s.heldPulls >= expected && stormTables(s).channels >= size.connections,
          SETTLE_DEADLINE_MS,
        );
        figures.stormSetupMs = Date.now() - openedAt;
        heldPeak = Math.max(heldPeak, during.heldPulls);
        figures.heldPulls = during.heldPulls;
        figures.stormConnections = during.connections;
        figures.stormConsumerChannels = stormTables(during).channels;
        figures.stormConsumerGroups = stormTables(during).groups;
        figures.heartbeatsAnswered = storm.answered(ResponseCode.SUCCESS);
        if (during.heldPulls < expected) failures.push(`only ${during.heldPulls} of ${expected} pulls held`);
        const load = await ordinary();
        worstSend = Math.max(worstSend, percentile(load.send, 99));
        worstPull = Math.max(worstPull, percentile(load.pull, 99));
        rssPeak = Math.max(rssPeak, broker.rss());

        await storm.close();
        // Wake every held pull: each answers into a closed connection and leaves the table.
        for (let i = 0; i < stormQueues.length * 2; i++) {
          sendAttempts++;
          await producer.send({ topic: STORM_TOPIC, body: `wake-${i}` });
          acknowledged++;
        }
        const closedAt = Date.now();
        // Connections of the storm gone: the ordinary clients' two (remoting and VIP) may come and go.
        const after = await until(
          () => broker.stats(),
          (s) =>
            s.heldPulls === before.heldPulls &&
            s.connections <= before.connections + 2 &&
            stormTables(s).groups === 0 &&
            stormTables(s).channels === 0,
          SETTLE_DEADLINE_MS,
        );
        cleanupMs = Math.max(cleanupMs, Date.now() - closedAt);
        sampling = false;
        await sampler;
        figures.heldPullsAfter = after.heldPulls;
        figures.connectionsAfter = after.connections;
        figures.stormConsumerChannelsAfter = stormTables(after).channels;
        figures.stormConsumerGroupsAfter = stormTables(after).groups;
        if (after.heldPulls !== before.heldPulls)
          failures.push(`${after.heldPulls} pulls still held after the storm closed (round ${round + 1})`);
        if (after.connections > before.connections + 2)
          failures.push(
            `${after.connections} connections after the storm closed, ${before.connections} before`,
          );
        if (stormTables(after).channels > 0 || stormTables(after).groups > 0)
          failures.push(
            `${stormTables(after).channels} consumer channels in ${stormTables(after).groups} storm groups left after the storm closed`,
          );
        heapAfter = (await broker.stats(true)).heapUsed;
      }
      figures.stormSendP99Ms = Math.round(worstSend);
      figures.stormPullP99Ms = Math.round(worstPull);
      figures.rssPeakMiB = mib(rssPeak);
      figures.rssGrowthMiB = mib(rssPeak - before.rss);
      figures.rssBoundMiB = mib(RSS_GROWTH_BOUND_BYTES);
      figures.cleanupMs = cleanupMs;
      figures.heapAfterMiB = mib(heapAfter);
      figures.rssAfterMiB = mib(broker.rss());
      if (worstSend > SEND_P99_BOUND_MS)
        failures.push(`send p99 ${Math.round(worstSend)} ms during the storm, bound ${SEND_P99_BOUND_MS} ms`);
      if (worstPull > PULL_P99_BOUND_MS)
        failures.push(`pull p99 ${Math.round(worstPull)} ms during the storm, bound ${PULL_P99_BOUND_MS} ms`);
      if (rssPeak - before.rss > RSS_GROWTH_BOUND_BYTES)
        failures.push(`RSS grew ${mib(rssPeak - before.rss)} MiB, bound ${mib(RSS_GROWTH_BOUND_BYTES)} MiB`);
      if (heapAfter - before.heapUsed > HEAP_LEAK_BOUND_BYTES)
        failures.push(
          `heap ${mib(heapAfter)} MiB after the storm, ${mib(before.heapUsed)} MiB before: more than ${mib(HEAP_LEAK_BOUND_BYTES)} MiB kept`,
        );
      figures.heldPeak = heldPeak;
    } finally {
      await consumer.shutdown();
      await producer.shutdown();
      await broker.stop();
    }
    return [
      resourceVerdict({
        scenario: NAME,
        mode: `${size.connections} connections, ${size.connections * size.pullsPerConnection} held pulls, ours`,
        cycles: size.rounds,
        sendAttempts,
        acknowledged,
        figures,
        failures,
      }),
    ];
  },
};
