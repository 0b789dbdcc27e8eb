/**
 * What the resource scenarios (slow consumer, connection storm, disk full) share: our name server and
 * broker as one `rmq start` child process whose memory, file-size limit and log lines they watch, a
 * read-back of every stored message, and a verdict row with no workload history behind it.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createPullConsumer } from '../../src/client/index.js';
import { createLogger, type Logger } from '../../src/common/logger.js';
import { LineChild, rmqCommand, spawnTracked, stopped } from '../bench-support.js';
import type { ProbeStats } from './probe-broker.js';
import type { Verdict } from './types.js';

/** How long `rmq start` may take to print its addresses. */
export const SOLO_BOOT_TIMEOUT_MS = 30_000;
/** SIGTERM grace before SIGKILL. */
export const SOLO_STOP_GRACE_MS = 15_000;

/** One structured log line the broker wrote to stderr. */
export interface LogLine {
  level: string;
  component: string;
  msg: string;
  [field: string]: string | number | boolean;
}

export interface SoloBrokerOptions {
  /** The data dir (kept between restarts); broker.conf goes beside it. */
  dataDir: string;
  /** broker.conf lines. */
  config?: Readonly<Record<string, string | number | boolean>>;
  /** Flags for the child's node, e.g. `--expose-gc`. */
  nodeFlags?: readonly string[];
}

export class SoloBroker {
  private constructor(
    private readonly child: ChildProcess,
    readonly namesrvAddr: string,
    readonly brokerAddr: string,
    /** Its log lines so far; more arrive while it runs. */
    readonly logs: LogLine[],
  ) {}

  get pid(): number {
    return this.child.pid ?? -1;
  }

  static async start(options: SoloBrokerOptions): Promise<SoloBroker> {
    const conf = `${options.dataDir}.conf`;
    mkdirSync(dirname(conf), { recursive: true });
    writeFileSync(
      conf,
      Object.entries({ brokerIP1: '127.0.0.1', autoCreateTopicEnable: true, ...options.config })
        .map(([k, v]) => `${k}=${String(v)}\n`)
        .join(''),
    );
    const child = spawnTracked(
      process.execPath,
      [
        ...(options.nodeFlags ?? []),
        ...rmqCommand(),
        'start',
        '-c',
        conf,
        '-d',
        options.dataDir,
        '--namesrv-port',
        '0',
        '--broker-port',
        '0',
        '--host',
        '127.0.0.1',
        '--broker-ip',
        '127.0.0.1',
        // rmq start serves the dashboard and /metrics on 8080 by default: any free port here.
        '--dashboard-port',
        '0',
      ],
      'ignore',
    );
    const logs: LogLine[] = [];
    let stderr = '';
    let partial = '';
    child.stderr?.setEncoding('utf8').on('data', (d: string) => {
      stderr = (stderr + d).slice(-4000);
      const lines = (partial + d).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) {
        if (!line.startsWith('{')) continue;
        try {
          logs.push(JSON.parse(line) as LogLine);
        } catch {
          // not one of ours
        }
      }
    });
    try {
      const [namesrvAddr, brokerAddr] = await new Promise<[string, string]>((resolve, reject) => {
        let out = '';
        const timer = setTimeout(
          () => reject(new Error(`rmq start: no addresses in ${SOLO_BOOT_TIMEOUT_MS} ms`)),
          SOLO_BOOT_TIMEOUT_MS,
        );
        child.stdout?.setEncoding('utf8').on('data', (d: string) => {
          out += d;
          const ns = /name server\s+(\S+)/.exec(out)?.[1];
          const broker = /broker\s+(\d+\.\d+\.\d+\.\d+:\d+)/.exec(out)?.[1];
          if (ns !== undefined && broker !== undefined) {
            clearTimeout(timer);
            resolve([ns, broker]);
          }
        });
        child.once('exit', (code, signal) => {
          clearTimeout(timer);
          reject(new Error(`rmq start exited (${code ?? signal})\n${stderr}`));
        });
      });
      return new SoloBroker(child, namesrvAddr, brokerAddr, logs);
    } catch (error) {
      child.kill('SIGKILL');
      await stopped(child, SOLO_STOP_GRACE_MS);
      throw error;
    }
  }

  get exited(): boolean {
    return this.child.exitCode !== null || this.child.signalCode !== null;
  }

  /** Resident memory of the broker process, bytes (VmRSS), -1 when it is gone. */
  rss(): number {
    return rssOf(this.pid);
  }

  /** Graceful stop (flush, persist, unregister). */
  async stop(): Promise<void> {
    this.child.kill('SIGCONT');
    this.child.kill('SIGTERM');
    await stopped(this.child, SOLO_STOP_GRACE_MS);
  }
}

/** VmRSS of a process in bytes, from /proc; -1 when unknown. */
export function rssOf(pid: number): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = /VmRSS:\s+(\d+)\s+kB/.exec(status)?.[1];
    return kb === undefined ? -1 : Number(kb) * 1024;
  } catch {
    return -1;
  }
}

export function mib(bytes: number): number {
  return Math.round((bytes / (1024 * 1024)) * 10) / 10;
}

/** The p-th percentile (0..100) of `values`, nearest rank; 0 for none. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank] as number;
}

/** A verdict row for a scenario judged by figures rather than a consume history. */
export function resourceVerdict(
  row: Pick<Verdict, 'scenario' | 'mode' | 'figures' | 'failures'> & Partial<Verdict>,
): Verdict {
  return {
    cycles: 1,
    sendAttempts: 0,
    acknowledged: 0,
    consumed: 0,
    lostMessageCount: 0,
    duplicateMessageCount: 0,
    orderInversions: 0,
    atLeastOnce: (row.lostMessageCount ?? 0) === 0,
    maxUnavailableMs: 0,
    recoveryTimeMs: 0,
    ...row,
  };
}

/** How long read-back may go without progress before it gives up. */
export const READ_BACK_TIMEOUT_MS = 30_000;

/**
 * Every message of `topic` from the start of each queue, keyed by its key: what the store holds,
 * read with a group of its own so that nothing else's offsets move.
 */
export async function readBack(
  namesrvAddr: string,
  topic: string,
  group: string,
): Promise<Map<string, Buffer>> {
  const consumer = createPullConsumer({ namesrvAddr, consumerGroup: group, logger: quietClientLogger() });
  await consumer.start();
  const found = new Map<string, Buffer>();
  try {
    for (const mq of await consumer.fetchSubscribeMessageQueues(topic)) {
      let offset = await consumer.minOffset(mq);
      const max = await consumer.maxOffset(mq);
      const deadline = Date.now() + READ_BACK_TIMEOUT_MS;
      while (offset < max) {
        if (Date.now() > deadline) throw new Error(`read-back of ${topic} stuck at ${offset} of ${max}`);
        const r = await consumer.pull(mq, '*', offset, 32);
        for (const m of r.msgFoundList) if (m.keys !== undefined) found.set(m.keys, Buffer.from(m.body));
        if (r.nextBeginOffset <= offset) break;
        offset = r.nextBeginOffset;
      }
    }
  } finally {
    await consumer.shutdown();
  }
  return found;
}

/**
 * The scenarios' clients log only errors: their refused sends and vanished routes are the fault
 * at work, and the verdict counts them.
 */
export function quietClientLogger(): Logger {
  return createLogger('chaos-client', { level: 'error' });
}

/** The data dir of a scenario's broker. */
export function dataDirIn(workDir: string, name: string): string {
  return join(workDir, name);
}

/** A broker in a child process that also reports its tables (probe-broker.ts). */
export class ProbeBroker {
  private constructor(
    private readonly child: LineChild,
    readonly namesrvAddr: string,
    readonly brokerAddr: string,
  ) {}

  static async start(
    dataDir: string,
    settings: Readonly<Record<string, unknown>> = {},
  ): Promise<ProbeBroker> {
    mkdirSync(dataDir, { recursive: true });
    const script = fileURLToPath(new URL('./probe-broker.js', import.meta.url));
    const proc = spawnTracked(
      process.execPath,
      ['--expose-gc', script, dataDir, JSON.stringify(settings)],
      'pipe',
    );
    const child = new LineChild('probe-broker', proc, undefined);
    try {
      const ready = await child.next(SOLO_BOOT_TIMEOUT_MS);
      return new ProbeBroker(child, String(ready.namesrvAddr), String(ready.brokerAddr));
    } catch (error) {
      await child.close(1_000);
      throw error;
    }
  }

  get pid(): number {
    return this.child.pid ?? -1;
  }

  rss(): number {
    return rssOf(this.pid);
  }

  async stats(collect = false): Promise<ProbeStats> {
    return (await this.child.call(collect ? 'gc' : 'stats', 30_000)) as unknown as ProbeStats;
  }

  async stop(): Promise<void> {
    await this.child.close(SOLO_STOP_GRACE_MS);
  }
}
