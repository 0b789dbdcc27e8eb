/**
 * One row of a verdict table in the making: a producer and a consumer group of one client side on
 * a fresh topic, a history file, the faults the scenario records, and the judgement at the end
 * (stop sending, let the group drain, check the history read back from its file).
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { check, healTimesOf } from './checker.js';
import { History, readHistory } from './history.js';
import type { ScenarioContext, Verdict } from './types.js';
import { Tally, until, WorkloadProcess } from './workload.js';
import type { ClientSide } from './workload-spec.js';

/** How long the group may take to consume every acknowledged message once sending stopped. */
export const DRAIN_TIMEOUT_MS = 90_000;
/** The first acknowledged send (topic auto-created, routes known) must come within this. */
export const FIRST_ACK_TIMEOUT_MS = 30_000;
/** Fault actions that heal a fault; recovery is measured from them. */
export const HEAL_ACTIONS = ['restart', 'resume'] as const;
/**
 * The consumers' heartbeatBrokerInterval: upstream's 30 s in the long form; the short one shortens
 * it, since a restarted broker serves a group's pulls only after its next heartbeat.
 */
export const HEARTBEAT_BROKER_INTERVAL_MS = { short: 5000, long: 30_000 } as const;

/** The clients' pollNameServerInterval unless a scenario says otherwise: upstream's 30 s. */
export const POLL_NAME_SERVER_INTERVAL_MS = 30_000;

export interface TrialSpec {
  scenario: string;
  mode: string;
  side: ClientSide;
  namesrvAddr: string;
  /** Sending loops (shards when ordered) and their pause between sends. */
  loops: number;
  intervalMs: number;
  ordered: boolean;
  consumers: number;
  orderly: boolean;
  /** Both clients' pollNameServerInterval [POLL_NAME_SERVER_INTERVAL_MS]. */
  pollNameServerInterval?: number;
  /** The consumers' heartbeatBrokerInterval [HEARTBEAT_BROKER_INTERVAL_MS of the form]. */
  heartbeatBrokerInterval?: number;
}

export interface Judgement {
  cycles: number;
  figures?: Record<string, number | string>;
  /** Broken promises the scenario found itself. */
  failures?: string[];
}

function slug(text: string): string {
  return text.replace(/[^A-Za-z0-9]+/g, '_');
}

export class Trial {
  readonly tally = new Tally();
  readonly history: History;
  readonly producer: WorkloadProcess;
  readonly consumers: WorkloadProcess[];
  readonly topic: string;

  constructor(
    private readonly ctx: ScenarioContext,
    readonly spec: TrialSpec,
  ) {
    const id = slug(`${spec.scenario}_${spec.mode}`);
    const dir = join(ctx.workDir, 'histories');
    mkdirSync(dir, { recursive: true });
    this.history = new History(join(dir, `${id}.jsonl`));
    this.topic = `Chaos_${id}_${Date.now().toString(36)}`;
    const group = `${this.topic}_group`;
    const home = join(ctx.workDir, 'homes', id);
    this.producer = new WorkloadProcess(
      spec.side,
      {
        role: 'producer',
        namesrvAddr: spec.namesrvAddr,
        topic: this.topic,
        group: `${this.topic}_producer`,
        client: `${spec.side}-producer`,
        loops: spec.loops,
        intervalMs: spec.intervalMs,
        ordered: spec.ordered,
        pollNameServerInterval: spec.pollNameServerInterval ?? POLL_NAME_SERVER_INTERVAL_MS,
      },
      this.history,
      this.tally,
      home,
    );
    this.consumers = Array.from(
      { length: spec.consumers },
      (_, i) =>
        new WorkloadProcess(
          spec.side,
          {
            role: 'consumer',
            namesrvAddr: spec.namesrvAddr,
            topic: this.topic,
            group,
            client: `${spec.side}-consumer-${i + 1}`,
            instanceName: `chaos-consumer-${i + 1}`,
            orderly: spec.orderly,
            heartbeatBrokerInterval:
              spec.heartbeatBrokerInterval ??
              (ctx.long ? HEARTBEAT_BROKER_INTERVAL_MS.long : HEARTBEAT_BROKER_INTERVAL_MS.short),
            pollNameServerInterval: spec.pollNameServerInterval ?? POLL_NAME_SERVER_INTERVAL_MS,
          },
          this.history,
          this.tally,
          home,
        ),
    );
  }

  /** The producer first (its first send creates the topic), then the group once the topic exists. */
  async start(): Promise<void> {
    this.ctx.log(`${this.spec.scenario} [${this.spec.mode}]: starting workload on ${this.topic}`);
    await this.producer.start(this.ctx.signal);
    await until(
      () => this.tally.acked.size > 0,
      FIRST_ACK_TIMEOUT_MS,
      'first acknowledged send',
      this.ctx.signal,
    );
    await Promise.all(this.consumers.map((c) => c.start(this.ctx.signal)));
  }

  fault(action: string, target: string): number {
    const t = Date.now();
    this.history.append({ kind: 'fault', t, action, target });
    this.ctx.log(`${this.spec.scenario} [${this.spec.mode}]: ${action} ${target}`);
    return t;
  }

  /** Waits for an acknowledged send completed at or after `t`. */
  async ackAfter(t: number, timeoutMs: number): Promise<void> {
    await until(
      () => this.tally.lastAckT >= t,
      timeoutMs,
      'acknowledged send after the fault',
      this.ctx.signal,
    );
  }

  /** Waits until `n` more messages are acknowledged than now. */
  async moreAcks(n: number, timeoutMs: number): Promise<void> {
    const target = this.tally.acked.size + n;
    await until(
      () => this.tally.acked.size >= target,
      timeoutMs,
      `${n} more acknowledged sends`,
      this.ctx.signal,
    );
  }

  /** Stops sending, lets the group drain, stops it, and judges the history file. */
  async finish(judgement: Judgement): Promise<Verdict> {
    const failures = [...(judgement.failures ?? [])];
    try {
      await this.producer.stop();
    } catch (error) {
      failures.push(error instanceof Error ? (error.message.split('\n')[0] ?? '') : String(error));
    }
    const drainStart = Date.now();
    try {
      await until(() => this.tally.missing() === 0, DRAIN_TIMEOUT_MS, 'drain', this.ctx.signal);
    } catch {
      // the verdict names what is missing
    }
    const drainMs = Date.now() - drainStart;
    await Promise.all(this.consumers.map((c) => c.stop().catch(() => c.kill())));
    this.history.flush();
    const events = readHistory(this.history.file);
    const r = check(events, { healTimes: healTimesOf(events, HEAL_ACTIONS) });
    if (r.lostMessageCount > 0)
      failures.push(
        `${r.lostMessageCount} acknowledged messages never consumed, e.g. ${r.lostExamples.join(', ')}`,
      );
    // Only an orderly group promises order; a concurrent one's inversions are counted, not failed.
    if (r.orderInversions > 0 && this.spec.orderly)
      failures.push(`${r.orderInversions} order inversions, e.g. ${r.inversionExamples.join('; ')}`);
    if (r.unrecoveredHeals.length > 0)
      failures.push(`no acknowledged send after ${r.unrecoveredHeals.length} healed fault(s)`);
    if (r.acknowledged === 0) failures.push('nothing was acknowledged');
    return {
      scenario: this.spec.scenario,
      mode: this.spec.mode,
      cycles: judgement.cycles,
      sendAttempts: r.sendAttempts,
      acknowledged: r.acknowledged,
      consumed: r.consumed,
      lostMessageCount: r.lostMessageCount,
      duplicateMessageCount: r.duplicateMessageCount,
      orderInversions: r.orderInversions,
      atLeastOnce: r.atLeastOnce,
      maxUnavailableMs: r.maxUnavailableMs,
      recoveryTimeMs: r.recoveryTimeMs,
      figures: {
        failedSends: r.sendAttempts - r.acknowledgedSends,
        ...(r.consumeRecoveryMs === undefined ? {} : { consumeRecoveryMs: r.consumeRecoveryMs }),
        drainMs,
        ...judgement.figures,
      },
      failures,
      historyFile: this.history.file,
    };
  }

  /** Kills whatever still runs (after an error). */
  async abort(): Promise<void> {
    await Promise.all([this.producer, ...this.consumers].map((p) => p.kill()));
    this.history.flush();
  }
}

/** A row that failed before it could be judged: nothing counted, `failure` the reason. */
export function failedVerdict(
  scenario: string,
  mode: string,
  failure: string,
  historyFile?: string,
): Verdict {
  return {
    scenario,
    mode,
    cycles: 0,
    sendAttempts: 0,
    acknowledged: 0,
    consumed: 0,
    lostMessageCount: 0,
    duplicateMessageCount: 0,
    orderInversions: 0,
    atLeastOnce: false,
    maxUnavailableMs: 0,
    recoveryTimeMs: 0,
    figures: {},
    failures: [failure],
    ...(historyFile === undefined ? {} : { historyFile }),
  };
}

/** A row for a trial that could not run to its end. */
export function brokenVerdict(scenario: string, mode: string, error: unknown, historyFile?: string): Verdict {
  const message = error instanceof Error ? error.message : String(error);
  return failedVerdict(
    scenario,
    mode,
    `did not run to its end: ${message.split('\n').slice(0, 3).join(' | ')}`,
    historyFile,
  );
}

/** Runs `body` on a started trial and judges it; any error becomes a failed row. */
export async function runTrial(
  ctx: ScenarioContext,
  spec: TrialSpec,
  body: (trial: Trial) => Promise<Judgement>,
): Promise<Verdict> {
  const trial = new Trial(ctx, spec);
  try {
    await trial.start();
    const judgement = await body(trial);
    return await trial.finish(judgement);
  } catch (error) {
    await trial.abort();
    return brokenVerdict(spec.scenario, spec.mode, error, trial.history.file);
  }
}
