/**
 * The brokers bench-compare measures, each started fresh on an empty temp store with the same store
 * settings: ours (`rmq start` in a child process, name server and broker in that one process) and the
 * official 4.9.x name server and broker (test/interop/harness.ts) on a JVM sized for throughput.
 * Start-up is timed from spawn to the first TCP connect the broker port accepts. A sampler reads the
 * broker's CPU time and RSS from /proc every 100 ms.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { freeBrokerPorts, startBroker, startNamesrv, tcpConnectOnce } from '../test/interop/harness.js';
import {
  type BrokerKind,
  processCpuNs,
  removeOnExit,
  removeTempDir,
  rmqCommand,
  spawnTracked,
  stopped,
  tempDir,
} from './bench-support.js';

export type FlushDiskType = 'ASYNC_FLUSH' | 'SYNC_FLUSH';

/**
 * The official broker's JVM for a throughput run: a fixed 2 GiB heap (no growth during the run), the
 * default collector (G1 on JDK 17) and full JIT, in place of the harness's start-up-tuned set.
 */
export const OFFICIAL_BROKER_JVM: readonly string[] = [
  '-server',
  '-Xms2g',
  '-Xmx2g',
  '-XX:MaxDirectMemorySize=2g',
];

/**
 * Store settings written into both brokers' broker.conf: upstream's defaults (the harness shrinks
 * the files for tests), so both map and index the same way.
 */
export function storeSettings(
  flushDiskType: FlushDiskType,
  extra: Readonly<Record<string, string | number>> = {},
): Record<string, string | number> {
  return {
    ...extra,
    flushDiskType,
    mappedFileSizeCommitLog: 1024 * 1024 * 1024,
    mappedFileSizeConsumeQueue: 300_000 * 20,
    maxHashSlotNum: 5_000_000,
    maxIndexNum: 20_000_000,
  };
}

/** Upper bound for a broker to start and accept connections. */
const START_TIMEOUT_MS = 120_000;
/** How often start-up polls the broker port. */
const ACCEPT_POLL_MS = 5;
/** Our broker's graceful stop (flush, persist, unregister) before SIGKILL. */
const STOP_GRACE_MS = 30_000;

export interface BenchBroker {
  readonly kind: BrokerKind;
  readonly namesrvAddr: string;
  readonly brokerAddr: string;
  readonly pid: number;
  /** spawn to the first accepted TCP connection on the broker port */
  readonly startMs: number;
  close(): Promise<void>;
}

/**
 * Resolves with ms from `spawnedAt` to the first accepted connection on 127.0.0.1:port; NaN once
 * `gaveUp()` says the start failed meanwhile.
 */
async function acceptingAfter(
  port: number,
  spawnedAt: number,
  deadline: number,
  gaveUp: () => boolean,
): Promise<number> {
  for (;;) {
    try {
      await tcpConnectOnce(port, Math.max(1, deadline - Date.now()));
      return performance.now() - spawnedAt;
    } catch (error) {
      if (gaveUp()) return Number.NaN;
      if (Date.now() > deadline) throw error;
      await new Promise((r) => setTimeout(r, ACCEPT_POLL_MS));
    }
  }
}

/**
 * `upstream`: which official line runs for kind 'official' (4.9.x unless a scenario needs 5.x);
 * `extra`: further broker settings, the same for both (e.g. timerPrecisionMs).
 */
export function startBenchBroker(
  kind: BrokerKind,
  flush: FlushDiskType,
  upstream: 4 | 5 = 4,
  extra: Readonly<Record<string, string | number>> = {},
): Promise<BenchBroker> {
  return kind === 'ours' ? startOursBench(flush, extra) : startOfficialBench(flush, upstream, extra);
}

async function startOursBench(
  flush: FlushDiskType,
  extra: Readonly<Record<string, string | number>>,
): Promise<BenchBroker> {
  const dir = tempDir('rmq-bench-compare-ours-');
  const conf = join(dir, 'broker.conf');
  writeFileSync(
    conf,
    Object.entries(storeSettings(flush, extra))
      .map(([k, v]) => `${k}=${v}\n`)
      .join(''),
  );
  const { port } = await freeBrokerPorts();
  const deadline = Date.now() + START_TIMEOUT_MS;
  const child = spawnTracked(
    process.execPath,
    [
      // e.g. RMQ_BENCH_NODE_ARGS='--cpu-prof --cpu-prof-dir=/tmp/prof' to profile our broker under load.
      ...(process.env.RMQ_BENCH_NODE_ARGS?.split(/\s+/).filter((a) => a !== '') ?? []),
      ...rmqCommand(),
      'start',
      '-c',
      conf,
      '-d',
      join(dir, 'data'),
      '--namesrv-port',
      '0',
      '--broker-port',
      String(port),
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
  const spawnedAt = performance.now();
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (d: string) => {
    stderr = (stderr + d).slice(-4000);
  });
  const gone = () => child.exitCode !== null || child.signalCode !== null;
  try {
    const announced = new Promise<string>((resolvePromise, reject) => {
      if (child.stdout === null) throw new Error('rmq start: no stdout');
      createInterface({ input: child.stdout }).on('line', (line) => {
        const ns = /name server\s+(\S+)/.exec(line)?.[1];
        if (ns !== undefined) resolvePromise(ns);
      });
      child.once('exit', (code) => reject(new Error(`rmq start exited ${code}\n${stderr}`)));
    });
    // An early exit must not count as an unhandled rejection while the port is being polled.
    announced.catch(() => {});
    const startMs = await acceptingAfter(port, spawnedAt, deadline, gone);
    const namesrvAddr = await announced;
    return {
      kind: 'ours',
      namesrvAddr,
      brokerAddr: `127.0.0.1:${port}`,
      pid: child.pid ?? -1,
      startMs,
      close: async () => {
        child.kill('SIGTERM');
        await stopped(child, STOP_GRACE_MS);
        removeTempDir(dir);
      },
    };
  } catch (error) {
    child.kill('SIGKILL');
    await stopped(child, STOP_GRACE_MS);
    removeTempDir(dir);
    throw error;
  }
}

async function startOfficialBench(
  flush: FlushDiskType,
  upstream: 4 | 5,
  extra: Readonly<Record<string, string | number>>,
): Promise<BenchBroker> {
  const ns = await startNamesrv({ upstream });
  removeOnExit(ns.homeDir);
  try {
    let accepting: Promise<number> | undefined;
    let failed = false;
    const broker = await startBroker({
      namesrvAddr: ns.addr,
      upstream,
      timeoutMs: START_TIMEOUT_MS,
      jvmArgs: OFFICIAL_BROKER_JVM,
      config: storeSettings(flush, extra),
      onSpawn: ({ port }) => {
        accepting = acceptingAfter(port, performance.now(), Date.now() + START_TIMEOUT_MS, () => failed);
        accepting.catch(() => {});
      },
    }).catch((error: unknown) => {
      failed = true;
      throw error;
    });
    removeOnExit(broker.homeDir);
    const startMs = await (accepting ?? Promise.resolve(Number.NaN));
    return {
      kind: 'official',
      namesrvAddr: ns.addr,
      brokerAddr: broker.addr,
      pid: broker.pid,
      startMs,
      close: async () => {
        await broker.close();
        await ns.close();
      },
    };
  } catch (error) {
    await ns.close();
    throw error;
  }
}

// ---------------------------------------------------------------------------------------------
// /proc sampling

/** How often the broker's CPU time and RSS are read. */
const SAMPLE_INTERVAL_MS = 100;

interface Sample {
  /** epoch ms, the clock the load generators' `Current Time` uses */
  t: number;
  cpuNs: number;
  rssKiB: number;
  /** the anonymous part of the RSS (heap, stacks), without mapped files the kernel can drop */
  anonKiB: number;
}

/** VmRSS and RssAnon of a process, KiB; -1 when it is gone. */
function rssKiB(pid: number): [number, number] {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    return [
      Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? -1),
      Number(/RssAnon:\s+(\d+) kB/.exec(status)?.[1] ?? -1),
    ];
  } catch {
    return [-1, -1];
  }
}

/** The broker's CPU time (utime + stime, all threads) and RSS every 100 ms, from /proc. */
export class ProcSampler {
  private readonly samples: Sample[] = [];
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly pid: number) {
    this.sample();
    this.timer = setInterval(() => this.sample(), SAMPLE_INTERVAL_MS);
  }

  sample(): void {
    const cpuNs = processCpuNs(this.pid);
    const [rss, anon] = rssKiB(this.pid);
    if (cpuNs >= 0 && rss >= 0) this.samples.push({ t: Date.now(), cpuNs, rssKiB: rss, anonKiB: anon });
  }

  /** CPU time at epoch ms `t`, interpolated between the samples around it. */
  private cpuAt(t: number): number {
    const s = this.samples;
    if (s.length === 0) return Number.NaN;
    const first = s[0] as Sample;
    const last = s[s.length - 1] as Sample;
    if (t <= first.t) return first.cpuNs;
    if (t >= last.t) return last.cpuNs;
    let i = s.length - 1;
    while (i > 0 && (s[i - 1] as Sample).t > t) i--;
    const a = s[i - 1] as Sample;
    const b = s[i] as Sample;
    return a.cpuNs + ((b.cpuNs - a.cpuNs) * (t - a.t)) / Math.max(1, b.t - a.t);
  }

  /** CPU seconds the broker used between two epoch ms. */
  cpuSecondsBetween(from: number, to: number): number {
    return (this.cpuAt(to) - this.cpuAt(from)) / 1e9;
  }

  /** Highest RSS, and highest anonymous RSS, seen between two epoch ms; MiB. */
  peakRssMiB(from: number, to: number): { rss: number; anon: number } {
    let rss = 0;
    let anon = 0;
    for (const s of this.samples) {
      if (s.t < from || s.t > to) continue;
      rss = Math.max(rss, s.rssKiB);
      anon = Math.max(anon, s.anonKiB);
    }
    return { rss: rss / 1024, anon: anon / 1024 };
  }

  stop(): void {
    clearInterval(this.timer);
  }
}
