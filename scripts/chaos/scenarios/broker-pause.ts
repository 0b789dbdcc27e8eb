/**
 * Broker SIGSTOP for longer than the clients' timeouts (upstream's send timeout is 3 s), then
 * SIGCONT: sends in the pause fail or complete late, nothing acknowledged is lost, and producers
 * and consumers carry on by themselves.
 */
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Cluster } from '../cluster.js';
import { runTrial } from '../trial.js';
import type { Scenario, ScenarioContext, Verdict } from '../types.js';
import { INTERVAL_MS, LOAD_TIMEOUT_MS, LOOPS, RECOVERY_TIMEOUT_MS } from './broker-kill.js';

export const BROKER_PAUSE_SETTINGS = {
  short: { cycles: 1, pauseMs: 5000, acksBetweenPauses: 60 },
  long: { cycles: 10, pauseMs: 10_000, acksBetweenPauses: 300 },
} as const;

async function run(ctx: ScenarioContext): Promise<Verdict[]> {
  const settings = ctx.long ? BROKER_PAUSE_SETTINGS.long : BROKER_PAUSE_SETTINGS.short;
  const verdicts: Verdict[] = [];
  const cluster = await Cluster.start({
    dir: join(ctx.workDir, 'broker-pause'),
    flushDiskType: 'ASYNC_FLUSH',
  });
  try {
    for (const side of ctx.clients) {
      verdicts.push(
        await runTrial(
          ctx,
          {
            scenario: 'broker-pause',
            mode: `ASYNC_FLUSH, ${side}`,
            side,
            namesrvAddr: cluster.namesrvAddr,
            loops: LOOPS,
            intervalMs: INTERVAL_MS,
            ordered: false,
            consumers: 1,
            orderly: false,
          },
          async (trial) => {
            for (let cycle = 0; cycle < settings.cycles; cycle++) {
              await trial.moreAcks(settings.acksBetweenPauses, LOAD_TIMEOUT_MS);
              trial.fault('pause', 'broker');
              cluster.pause('broker');
              // The fault is a duration: the broker stays stopped this long whatever the clients do.
              await sleep(settings.pauseMs, undefined, { signal: ctx.signal });
              cluster.resume('broker');
              const healed = trial.fault('resume', 'broker');
              await trial.ackAfter(healed, RECOVERY_TIMEOUT_MS);
            }
            return { cycles: settings.cycles, figures: { pauseMs: settings.pauseMs } };
          },
        ),
      );
    }
  } finally {
    await cluster.close();
  }
  return verdicts;
}

export const brokerPause: Scenario = {
  name: 'broker-pause',
  description: 'broker SIGSTOP longer than the client timeouts, then SIGCONT: no loss, clients recover',
  needsJava: false,
  run,
};
