/**
 * Broker SIGKILL and restart under load, with ASYNC_FLUSH and with SYNC_FLUSH. A process crash
 * leaves the page cache to the kernel, so in either mode nothing acknowledged may be lost, and the
 * group consumes everything after the restart (abnormal recovery rebuilds the consume queues).
 */
import { join } from 'node:path';
import { Cluster, type FlushDiskType } from '../cluster.js';
import { runTrial } from '../trial.js';
import type { Scenario, ScenarioContext, Verdict } from '../types.js';

export const BROKER_KILL_SETTINGS = {
  short: { cycles: 3, acksBetweenKills: 60 },
  long: { cycles: 50, acksBetweenKills: 300 },
} as const;
export const FLUSH_MODES: readonly FlushDiskType[] = ['ASYNC_FLUSH', 'SYNC_FLUSH'];
/** Sending loops and their pause: about 4 × 50 sends/s offered. */
export const LOOPS = 4;
export const INTERVAL_MS = 20;
/**
 * The consumers' heartbeatBrokerInterval: upstream's 30 s in both forms, so consumeRecoveryMs shows
 * what a restart costs a consumer with default settings (a client that waits for its next heartbeat
 * resumes up to 30 s late; ours heartbeats as soon as it reconnects).
 */
export const CONSUMER_HEARTBEAT_INTERVAL_MS = 30_000;
/** After a restart, the first acknowledged send must come within this. */
export const RECOVERY_TIMEOUT_MS = 30_000;
/** Acknowledged sends the load needs between two kills, at most this long. */
export const LOAD_TIMEOUT_MS = 30_000;

async function run(ctx: ScenarioContext): Promise<Verdict[]> {
  const settings = ctx.long ? BROKER_KILL_SETTINGS.long : BROKER_KILL_SETTINGS.short;
  const verdicts: Verdict[] = [];
  for (const flushDiskType of FLUSH_MODES) {
    const cluster = await Cluster.start({
      dir: join(ctx.workDir, `broker-kill-${flushDiskType}`),
      flushDiskType,
    });
    try {
      for (const side of ctx.clients) {
        verdicts.push(
          await runTrial(
            ctx,
            {
              scenario: 'broker-kill',
              mode: `${flushDiskType}, ${side}`,
              side,
              namesrvAddr: cluster.namesrvAddr,
              loops: LOOPS,
              intervalMs: INTERVAL_MS,
              ordered: false,
              consumers: 1,
              orderly: false,
              heartbeatBrokerInterval: CONSUMER_HEARTBEAT_INTERVAL_MS,
            },
            async (trial) => {
              let restartMs = 0;
              for (let cycle = 0; cycle < settings.cycles; cycle++) {
                await trial.moreAcks(settings.acksBetweenKills, LOAD_TIMEOUT_MS);
                trial.fault('kill', 'broker');
                await cluster.kill('broker');
                const started = Date.now();
                await cluster.restart('broker');
                restartMs = Math.max(restartMs, Date.now() - started);
                const healed = trial.fault('restart', 'broker');
                await trial.ackAfter(healed, RECOVERY_TIMEOUT_MS);
              }
              return { cycles: settings.cycles, figures: { flushDiskType, maxBrokerBootMs: restartMs } };
            },
          ),
        );
      }
    } finally {
      await cluster.close();
    }
  }
  return verdicts;
}

export const brokerKill: Scenario = {
  name: 'broker-kill',
  description: 'broker SIGKILL + restart under load (ASYNC_FLUSH, SYNC_FLUSH): 0 acknowledged lost',
  needsJava: false,
  run,
};
