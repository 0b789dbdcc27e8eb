/**
 * Consumer churn: members of a clustering push-consumer group SIGKILLed and started again (same
 * instance name, so the same client id) at random while keyed, sharded messages flow. Nothing
 * acknowledged may be lost; an orderly group may not invert any shard (first deliveries); duplicates
 * are counted and held to what upstream's design allows: a killed member's consumption since its
 * last offset commit (persistConsumerOffsetInterval, 5 s) is delivered again, plus what a queue
 * handover can deliver twice (one pull batch per queue).
 */
import { join } from 'node:path';
import { Cluster } from '../cluster.js';
import { runTrial } from '../trial.js';
import type { Scenario, ScenarioContext, Verdict } from '../types.js';
import { until } from '../workload.js';
import { LOAD_TIMEOUT_MS } from './broker-kill.js';

export const CONSUMER_CHURN_SETTINGS = {
  short: { kills: 3, acksBetweenKills: 100, acksWhileDown: 40, listeners: ['orderly'] },
  long: { kills: 50, acksBetweenKills: 300, acksWhileDown: 100, listeners: ['concurrently', 'orderly'] },
} as const;
export const MEMBERS = 3;
/** Shards (one sending loop each) and their pause: about 8 × 25 sends/s offered. */
export const SHARDS = 8;
export const INTERVAL_MS = 40;
/** Upstream's client defaults the bound is derived from. */
export const PERSIST_CONSUMER_OFFSET_INTERVAL_MS = 5000;
export const PULL_BATCH_SIZE = 32;
/** Queues a topic created on first send gets (the producer's defaultTopicQueueNums). */
export const TOPIC_QUEUES = 4;
/** Added to the commit interval: a killed member's last listener calls and the rebalance that follows. */
export const REBALANCE_SLACK_MS = 1000;
/**
 * Before the first kill every member must have consumed: then each holds its queues' locks. A member
 * killed while it still holds locks of queues the group has moved away (upstream's client unlocks a
 * removed orderly queue up to 20 s late) leaves them to the broker's 60 s lock expiry.
 */
export const SETTLE_TIMEOUT_MS = 90_000;

/** How many duplicates `kills` kills may cause at `ratePerSec` acknowledged sends per second. */
export function duplicateBound(kills: number, ratePerSec: number): number {
  const perKill =
    Math.ceil((ratePerSec * (PERSIST_CONSUMER_OFFSET_INTERVAL_MS + REBALANCE_SLACK_MS)) / 1000) +
    PULL_BATCH_SIZE * TOPIC_QUEUES;
  return kills * perKill;
}

async function run(ctx: ScenarioContext): Promise<Verdict[]> {
  const settings = ctx.long ? CONSUMER_CHURN_SETTINGS.long : CONSUMER_CHURN_SETTINGS.short;
  const verdicts: Verdict[] = [];
  const cluster = await Cluster.start({
    dir: join(ctx.workDir, 'consumer-churn'),
    flushDiskType: 'ASYNC_FLUSH',
  });
  try {
    for (const listener of settings.listeners) {
      for (const side of ctx.clients) {
        const orderly = listener === 'orderly';
        let ratePerSec = 0;
        const verdict = await runTrial(
          ctx,
          {
            scenario: 'consumer-churn',
            mode: `${listener}, ${side}`,
            side,
            namesrvAddr: cluster.namesrvAddr,
            loops: SHARDS,
            intervalMs: INTERVAL_MS,
            ordered: true,
            consumers: MEMBERS,
            orderly,
          },
          async (trial) => {
            await until(
              () => trial.consumers.every((c) => (trial.tally.deliveriesBy.get(c.name) ?? 0) > 0),
              SETTLE_TIMEOUT_MS,
              'a delivery to every member',
              ctx.signal,
            );
            const started = Date.now();
            const ackedAtStart = trial.tally.acked.size;
            for (let kill = 0; kill < settings.kills; kill++) {
              await trial.moreAcks(settings.acksBetweenKills, LOAD_TIMEOUT_MS);
              const victim = trial.consumers[Math.floor(Math.random() * trial.consumers.length)];
              if (victim === undefined) throw new Error('no consumer to kill');
              trial.fault('kill', victim.name);
              await victim.kill();
              await trial.moreAcks(settings.acksWhileDown, LOAD_TIMEOUT_MS);
              trial.fault('start', victim.name);
              await victim.start(ctx.signal);
            }
            ratePerSec = ((trial.tally.acked.size - ackedAtStart) * 1000) / Math.max(1, Date.now() - started);
            return { cycles: settings.kills };
          },
        );
        if (verdict.cycles > 0) {
          const bound = duplicateBound(verdict.cycles, ratePerSec);
          verdict.figures.duplicateBound = bound;
          verdict.figures.ackedPerSec = Math.round(ratePerSec);
          if (verdict.duplicateMessageCount > bound)
            verdict.failures.push(
              `${verdict.duplicateMessageCount} duplicates, more than the bound ${bound}`,
            );
        }
        verdicts.push(verdict);
      }
    }
  } finally {
    await cluster.close();
  }
  return verdicts;
}

export const consumerChurn: Scenario = {
  name: 'consumer-churn',
  description:
    'clustering group members SIGKILLed and restarted at random: 0 lost, 0 orderly inversions, bounded duplicates',
  needsJava: false,
  run,
};
