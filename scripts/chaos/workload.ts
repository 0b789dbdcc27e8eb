/**
 * A workload process (ours or the official Java client) seen from the runner: its HistoryEvent
 * lines go to the history and to a tally the scenario waits on; it can be stopped (stdin ends: a
 * producer finishes the sends it began) or killed (SIGKILL) and started again with the same spec.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { spawnTracked, stopped } from '../bench-support.js';
import type { History } from './history.js';
import type { HistoryEvent } from './types.js';
import { type ClientSide, type WorkloadSpec, workloadCommand } from './workload-spec.js';

/** A JVM or node child must print its ready line within this. */
export const READY_TIMEOUT_MS = 60_000;
/** After stdin ends, how long a producer may take to finish its in-flight sends (3 s send timeout each). */
export const STOP_TIMEOUT_MS = 20_000;
/** How often a wait re-checks the tally. */
export const POLL_MS = 50;

/** What the runner knows so far, from the lines of all of a trial's processes. */
export class Tally {
  readonly acked = new Set<string>();
  readonly consumed = new Set<string>();
  /** Deliveries per consumer process name. */
  readonly deliveriesBy = new Map<string, number>();
  lastAckT = 0;
  deliveries = 0;

  add(event: HistoryEvent): void {
    if (event.kind === 'send' && event.ok) {
      this.acked.add(event.key);
      this.lastAckT = Math.max(this.lastAckT, event.t);
    } else if (event.kind === 'consume') {
      this.consumed.add(event.key);
      this.deliveries++;
      this.deliveriesBy.set(event.client, (this.deliveriesBy.get(event.client) ?? 0) + 1);
    }
  }

  /** Acknowledged keys not consumed yet. */
  missing(): number {
    let n = 0;
    for (const k of this.acked) if (!this.consumed.has(k)) n++;
    return n;
  }
}

/** Resolves once `done()` holds; rejects after `timeoutMs` or when `signal` aborts. */
export async function until(
  done: () => boolean,
  timeoutMs: number,
  what: string,
  signal: AbortSignal,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (signal.aborted) throw new Error(`aborted while waiting for ${what}`);
    if (Date.now() > deadline) throw new Error(`no ${what} in ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

export class WorkloadProcess {
  private child: ChildProcess | undefined;
  private stderr = '';
  private ready = false;
  private done = false;
  starts = 0;

  constructor(
    readonly side: ClientSide,
    readonly spec: WorkloadSpec,
    private readonly history: History,
    private readonly tally: Tally,
    private readonly home: string,
  ) {
    mkdirSync(home, { recursive: true });
  }

  get name(): string {
    return this.spec.client;
  }

  get running(): boolean {
    return this.child !== undefined && this.child.exitCode === null && this.child.signalCode === null;
  }

  async start(signal: AbortSignal): Promise<void> {
    const [cmd, args] = workloadCommand(this.side, this.spec, this.home);
    const child = spawnTracked(cmd, args, 'pipe');
    this.child = child;
    this.ready = false;
    this.done = false;
    this.starts++;
    child.stdin?.on('error', () => {
      // the child may be gone (killed) when its stdin is closed
    });
    child.stderr?.setEncoding('utf8').on('data', (d: string) => {
      this.stderr = (this.stderr + d).slice(-4000);
    });
    if (child.stdout !== null) {
      createInterface({ input: child.stdout }).on('line', (line) => this.onLine(line));
    }
    try {
      await until(() => this.ready || !this.running, READY_TIMEOUT_MS, `${this.name} ready`, signal);
    } catch (error) {
      child.kill('SIGKILL');
      throw error;
    }
    if (!this.ready) throw new Error(`${this.name} exited before it was ready\n${this.stderr}`);
  }

  private onLine(line: string): void {
    if (!line.startsWith('{')) return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      return;
    }
    if (typeof parsed !== 'object' || parsed === null) return;
    const o = parsed as Record<string, unknown>;
    if (o.ready === true) this.ready = true;
    else if (o.done === true) this.done = true;
    else if (o.kind === 'send' || o.kind === 'consume') {
      const event = parsed as HistoryEvent;
      this.history.append(event);
      this.tally.add(event);
    }
  }

  /** SIGKILL: no shutdown, no offset persisted. */
  async kill(): Promise<void> {
    const child = this.child;
    if (child === undefined) return;
    child.kill('SIGKILL');
    await stopped(child, STOP_TIMEOUT_MS);
  }

  /** Ends stdin and waits for the exit (a producer first reports its last outcomes). */
  async stop(): Promise<void> {
    const child = this.child;
    if (child === undefined || !this.running) return;
    const exited = new Promise<void>((r) => child.once('exit', () => r()));
    child.stdin?.end();
    await Promise.race([exited, new Promise((r) => setTimeout(r, STOP_TIMEOUT_MS))]);
    await stopped(child, 0);
    if (this.spec.role === 'producer' && !this.done)
      throw new Error(`${this.name} did not finish its sends in ${STOP_TIMEOUT_MS} ms\n${this.stderr}`);
  }

  stderrTail(): string {
    return this.stderr;
  }
}
