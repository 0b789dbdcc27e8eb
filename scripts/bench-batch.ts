/**
 * The batch send path of our broker next to the official 4.9.x broker under the same load (issue 13,
 * "batch produce, 128 msgs of 128 B per send, 8 threads"): the official 4.9.8 Java producer
 * (interop BatchProducerBench: N threads, each sending a fresh batch with send(Collection) and
 * waiting for it, as upstream's benchmark BatchProducer) against ours (`rmq start` in a child
 * process) and the official broker on a JVM sized for throughput, both with upstream's store defaults
 * (bench-compare-brokers.ts), one after the other, in one run. Prints messages per second,
 * the broker's CPU seconds per 100k messages (from /proc over the measured window), the client's,
 * and ours / official. It is the focused tool for this one path; `npm run bench:compare` covers the
 * rest.
 *
 *   node <build>/scripts/bench-batch.js [--seconds 10] [--warmup-seconds 3] [--batch 128] [--size 128]
 *     [--threads 8] [--rounds 1] [--brokers ours,official] [--serialize ROCKETMQ|JSON]
 *     [--cpu-prof] [--cpu-prof-dir D]
 *
 * --serialize: the request headers the producer sends [ROCKETMQ, as upstream's BatchProducer].
 * --rounds N repeats the pair, alternating which broker goes first, and prints the median ratio.
 * --cpu-prof starts our broker under `node --cpu-prof` (`rmq start` with its defaults, which are
 * upstream's store defaults; its figures then include the profiler's overhead) and prints the top
 * self-time functions of its profile, which covers its whole life, warm-up included. Needs Java and
 * the interop build (`node scripts/interop-prepare.mjs`).
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startBenchBroker } from './bench-compare-brokers.js';
import {
  arg,
  BROKER_KINDS,
  type BrokerKind,
  choices,
  flag,
  integer,
  javaVersion,
  loadText,
  positive,
  processCpuNs,
  startJavaHelper,
  startOurs,
} from './bench-support.js';
import { type CpuProfile, summarizeProfile } from './cpu-profile.js';

const MEASURE_MS = positive('seconds', '10') * 1000;
const WARMUP_MS = positive('warmup-seconds', '3') * 1000;
const BATCH = integer('batch', '128');
const SIZE = integer('size', '128');
const THREADS = integer('threads', '8');
const ROUNDS = integer('rounds', '1');
const BROKERS = choices('brokers', 'ours,official', BROKER_KINDS);
const CPU_PROF = flag('cpu-prof');
const SERIALIZE = choices('serialize', 'ROCKETMQ', ['ROCKETMQ', 'JSON'] as const)[0] ?? 'ROCKETMQ';
const TOPIC = 'BenchBatch';
/** Time for a case: the warm-up and measured run, plus the JVM draining its last sends. */
const CASE_TIMEOUT_MS = WARMUP_MS + MEASURE_MS + 60_000;

interface Figures {
  broker: BrokerKind;
  messages: number;
  errors: number;
  tps: number;
  /** Broker CPU seconds per 100k messages over the measured run. */
  brokerCpuPer100k: number;
  clientCpuPer100k: number;
  p50Ms: number;
  p99Ms: number;
  /** Share of the broker's CPU time spent in the kernel. */
  systemShare: number;
  firstError: unknown;
}

let profDir: string | undefined;
function profileDir(): string {
  if (profDir === undefined) {
    const given = arg('cpu-prof-dir', '');
    profDir = given === '' ? mkdtempSync(join(tmpdir(), 'rmq-bench-batch-prof-')) : resolve(given);
    mkdirSync(profDir, { recursive: true });
  }
  return profDir;
}

/** A started broker as this bench uses it. */
interface Started {
  namesrvAddr: string;
  pid: number | undefined;
  close(): Promise<void>;
}

async function startBroker(kind: BrokerKind): Promise<{ broker: Started; profileLines: () => string[] }> {
  if (kind === 'official' || !CPU_PROF) {
    const b = await startBenchBroker(kind, 'ASYNC_FLUSH');
    return {
      broker: { namesrvAddr: b.namesrvAddr, pid: b.pid, close: () => b.close() },
      profileLines: () => [],
    };
  }
  const before = new Set(readdirSync(profileDir()));
  const b = await startOurs({
    dirPrefix: 'rmq-bench-batch-',
    nodeFlags: ['--cpu-prof', `--cpu-prof-dir=${profileDir()}`],
  });
  return {
    broker: { namesrvAddr: b.namesrvAddr, pid: b.brokerPid, close: () => b.close() },
    profileLines: () => {
      const file = readdirSync(profileDir()).find((f) => f.endsWith('.cpuprofile') && !before.has(f));
      if (file === undefined) return ['our broker: no profile written'];
      const path = join(profileDir(), file);
      const profile = JSON.parse(readFileSync(path, 'utf8')) as CpuProfile;
      return [`our broker, its whole life (${path}):`, ...summarizeProfile(profile, 25).map((l) => `  ${l}`)];
    },
  };
}

/** User and system CPU ticks of a process (/proc/<pid>/stat fields 14 and 15); undefined when unknown. */
function cpuTicks(pid: number | undefined): [number, number] | undefined {
  if (pid === undefined) return undefined;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return [Number(fields[11]), Number(fields[12])];
  } catch {
    return undefined;
  }
}

function num(v: unknown): number {
  return typeof v === 'number' ? v : Number(v);
}

async function runOne(kind: BrokerKind): Promise<Figures> {
  const { broker, profileLines } = await startBroker(kind);
  let figures: Figures;
  try {
    const java = await startJavaHelper('BatchProducerBench', [
      broker.namesrvAddr,
      TOPIC,
      `bench_batch_${kind}`,
      SERIALIZE,
    ]);
    try {
      java.send(`${BATCH} ${SIZE} ${THREADS} ${WARMUP_MS} ${MEASURE_MS}`);
      await java.next(CASE_TIMEOUT_MS);
      const cpuBefore = processCpuNs(broker.pid);
      const ticksBefore = cpuTicks(broker.pid);
      const r = await java.next(CASE_TIMEOUT_MS);
      const cpuAfter = processCpuNs(broker.pid);
      const ticksAfter = cpuTicks(broker.pid);
      const messages = num(r.messages);
      const per100k = (ns: number): number =>
        messages > 0 && ns >= 0 ? ns / 1e9 / (messages / 1e5) : Number.NaN;
      figures = {
        broker: kind,
        messages,
        errors: num(r.errors),
        tps: messages / (num(r.elapsedNs) / 1e9),
        brokerCpuPer100k: cpuBefore < 0 || cpuAfter < 0 ? Number.NaN : per100k(cpuAfter - cpuBefore),
        clientCpuPer100k: per100k(num(r.cpuNs)),
        p50Ms: num(r.p50Ns) / 1e6,
        p99Ms: num(r.p99Ns) / 1e6,
        systemShare:
          ticksBefore === undefined || ticksAfter === undefined
            ? Number.NaN
            : (ticksAfter[1] - ticksBefore[1]) /
              Math.max(1, ticksAfter[0] - ticksBefore[0] + ticksAfter[1] - ticksBefore[1]),
        firstError: r.firstError,
      };
    } finally {
      await java.close();
    }
  } finally {
    await broker.close();
  }
  for (const line of profileLines()) console.log(line);
  return figures;
}

function row(f: Figures): string {
  const fixed = (v: number, d: number): string => (Number.isFinite(v) ? v.toFixed(d) : '?');
  return (
    `| ${f.broker} | ${Math.round(f.tps).toLocaleString('en-US')} | ${fixed(f.brokerCpuPer100k, 3)} ` +
    `(${fixed(100 * f.systemShare, 0)} % sys) | ` +
    `${fixed(f.clientCpuPer100k, 3)} | ${fixed(f.p50Ms, 2)} | ${fixed(f.p99Ms, 2)} | ${f.errors}` +
    `${f.firstError === null || f.firstError === undefined ? '' : ` (${String(f.firstError)})`} |`
  );
}

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
}

async function main(): Promise<void> {
  console.log(
    `bench-batch: ${BATCH} msgs of ${SIZE} B per send, ${THREADS} threads, ${SERIALIZE} headers, ` +
      `${WARMUP_MS / 1000} s warm-up + ` +
      `${MEASURE_MS / 1000} s per broker, ${ROUNDS} round(s); ${cpus().length} cpus, ${javaVersion()}, ` +
      `node ${process.version}${CPU_PROF ? ', our broker under --cpu-prof' : ''}; ${loadText()}`,
  );
  const tpsRatios: number[] = [];
  const cpuRatios: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? BROKERS : [...BROKERS].reverse();
    const results = new Map<BrokerKind, Figures>();
    for (const kind of order) results.set(kind, await runOne(kind));
    console.log(`\nround ${round + 1} (${loadText()})`);
    console.log(
      '| broker | msgs/s | broker CPU s / 100k msgs | client CPU s / 100k | p50 ms | p99 ms | errors |',
    );
    console.log('|---|---|---|---|---|---|---|');
    for (const kind of BROKERS) {
      const f = results.get(kind);
      if (f !== undefined) console.log(row(f));
    }
    const ours = results.get('ours');
    const official = results.get('official');
    if (ours !== undefined && official !== undefined) {
      const tps = ours.tps / official.tps;
      const cpu = ours.brokerCpuPer100k / official.brokerCpuPer100k;
      tpsRatios.push(tps);
      cpuRatios.push(cpu);
      console.log(`ours/official: TPS ${tps.toFixed(2)}x, broker CPU per message ${cpu.toFixed(2)}x`);
    }
  }
  if (tpsRatios.length > 1) {
    console.log(
      `\nmedian over ${tpsRatios.length} rounds: TPS ${median(tpsRatios).toFixed(2)}x, ` +
        `broker CPU per message ${median(cpuRatios).toFixed(2)}x`,
    );
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? (error.stack ?? error.message) : error);
  process.exitCode = 1;
});
