/**
 * Name server SIGKILL and restart: while it is down, sends and consumption carry on from the routes
 * the clients hold; after the restart the broker registers again (within its registration period)
 * and a client that knows nothing (a fresh producer, a new topic) gets routes again.
 */
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { createLogger } from '../../../src/common/logger.js';
import { createProducer } from '../../../src/index.js';
import { Cluster, REGISTER_NAME_SERVER_PERIOD_MS } from '../cluster.js';
import { runTrial } from '../trial.js';
import type { Scenario, ScenarioContext, Verdict } from '../types.js';
import { until } from '../workload.js';
import { INTERVAL_MS, LOAD_TIMEOUT_MS, LOOPS } from './broker-kill.js';

/**
 * The outage lasts at least outageMinMs and spans several of the clients' route polls
 * (pollNameServerInterval: upstream's 30 s in the long form), so that polls fail while it lasts and,
 * after the restart, find the topic missing until the broker registers again: a client must keep the
 * routes it has through both.
 */
export const NAMESRV_KILL_SETTINGS = {
  short: {
    cycles: 1,
    acksBeforeKill: 60,
    acksDuringOutage: 100,
    consumedDuringOutage: 50,
    outageMinMs: 3000,
    pollNameServerInterval: 1000,
  },
  long: {
    cycles: 5,
    acksBeforeKill: 300,
    acksDuringOutage: 1000,
    consumedDuringOutage: 500,
    outageMinMs: 40_000,
    pollNameServerInterval: 30_000,
  },
} as const;
/** The name server is not on the send path: no send may stall longer than upstream's send timeout. */
export const MAX_UNAVAILABLE_MS = 3000;
/** A fresh client must get routes within the broker's registration period and this much more. */
export const ROUTE_SLACK_MS = 20_000;
/** Between two tries of a fresh client's route lookup. */
export const ROUTE_RETRY_MS = 500;

/** Sends one message to a topic nobody used with a fresh producer until it is acknowledged; returns how long it took. */
async function routesBack(namesrvAddr: string, topic: string, signal: AbortSignal): Promise<number> {
  const started = Date.now();
  const deadline = started + REGISTER_NAME_SERVER_PERIOD_MS + ROUTE_SLACK_MS;
  const producer = createProducer({
    namesrvAddr,
    producerGroup: `${topic}_probe`,
    logger: createLogger('chaos-route-probe', { level: 'silent' }),
  });
  await producer.start();
  try {
    for (;;) {
      try {
        await producer.send({ topic, body: 'route probe' });
        return Date.now() - started;
      } catch (error) {
        if (Date.now() > deadline || signal.aborted)
          throw new Error(
            `no route for a new topic ${Date.now() - started} ms after the restart: ${String(error)}`,
          );
      }
      await sleep(ROUTE_RETRY_MS, undefined, { signal });
    }
  } finally {
    await producer.shutdown();
  }
}

async function run(ctx: ScenarioContext): Promise<Verdict[]> {
  const settings = ctx.long ? NAMESRV_KILL_SETTINGS.long : NAMESRV_KILL_SETTINGS.short;
  const verdicts: Verdict[] = [];
  const cluster = await Cluster.start({
    dir: join(ctx.workDir, 'namesrv-kill'),
    flushDiskType: 'ASYNC_FLUSH',
  });
  try {
    for (const side of ctx.clients) {
      const verdict = await runTrial(
        ctx,
        {
          scenario: 'namesrv-kill',
          mode: `ASYNC_FLUSH, ${side}`,
          side,
          namesrvAddr: cluster.namesrvAddr,
          loops: LOOPS,
          intervalMs: INTERVAL_MS,
          ordered: false,
          consumers: 1,
          orderly: false,
          pollNameServerInterval: settings.pollNameServerInterval,
        },
        async (trial) => {
          const failures: string[] = [];
          let routeRecoveryMs = 0;
          let outageMs = 0;
          for (let cycle = 0; cycle < settings.cycles; cycle++) {
            await trial.moreAcks(settings.acksBeforeKill, LOAD_TIMEOUT_MS);
            const down = trial.fault('kill', 'namesrv');
            await cluster.kill('namesrv');
            const acked = trial.tally.acked.size;
            const consumed = trial.tally.consumed.size;
            try {
              await until(
                () =>
                  trial.tally.acked.size >= acked + settings.acksDuringOutage &&
                  trial.tally.consumed.size >= consumed + settings.consumedDuringOutage &&
                  Date.now() >= down + settings.outageMinMs,
                LOAD_TIMEOUT_MS + settings.outageMinMs,
                'sends and consumption with the name server down',
                ctx.signal,
              );
            } catch (error) {
              failures.push(`cycle ${cycle + 1}: ${error instanceof Error ? error.message : String(error)}`);
            }
            await cluster.restart('namesrv');
            const healed = trial.fault('restart', 'namesrv');
            outageMs = Math.max(outageMs, healed - down);
            try {
              const ms = await routesBack(cluster.namesrvAddr, `${trial.topic}_new${cycle}`, ctx.signal);
              routeRecoveryMs = Math.max(routeRecoveryMs, ms);
            } catch (error) {
              failures.push(`cycle ${cycle + 1}: ${error instanceof Error ? error.message : String(error)}`);
            }
          }
          return {
            cycles: settings.cycles,
            figures: {
              outageMs,
              routeRecoveryMs,
              registerNameServerPeriodMs: REGISTER_NAME_SERVER_PERIOD_MS,
            },
            failures,
          };
        },
      );
      const failed = Number(verdict.figures.failedSends ?? 0);
      if (failed > 0) verdict.failures.push(`${failed} sends failed while only the name server was faulty`);
      if (verdict.maxUnavailableMs > MAX_UNAVAILABLE_MS)
        verdict.failures.push(
          `no acknowledged send for ${verdict.maxUnavailableMs} ms (at most ${MAX_UNAVAILABLE_MS})`,
        );
      verdict.figures.pollNameServerIntervalMs = settings.pollNameServerInterval;
      verdicts.push(verdict);
    }
  } finally {
    await cluster.close();
  }
  return verdicts;
}

export const namesrvKill: Scenario = {
  name: 'namesrv-kill',
  description: 'name server SIGKILL + restart: clients carry on from cached routes; routes come back',
  needsJava: false,
  run,
};
