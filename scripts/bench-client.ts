/**
 * Our producer next to the official 4.9.8 Java producer, against the same broker, in one run (issue 10,
 * "Figures for the note"). Prints figures and ours / Java ratios; it is not a test.
 *
 * Brokers: ours (`rmq start`, name server + broker in a separate process, a temp data dir, free ports),
 * then the official 4.9.x name server and broker (test/interop/harness.ts). Against each, for every body
 * size and in-flight count, our producer (createProducer, in this process) and the Java producer
 * (interop ProducerBench, one JVM kept for all cases of a broker) take turns on the same topic:
 * - 1 in flight: one send awaited at a time (Java: one thread doing sync sends);
 * - N in flight: ours keeps N sends outstanding from N async loops on the one event loop. Java's
 *   counterpart of that shape is one thread issuing async sends bounded by a semaphore of N (the
 *   reference row); N threads each doing sync sends is printed too (`--no-java-threads` skips it),
 *   since a Java user could pick either and the target should hold against both.
 * Against each broker, each producer first sends unmeasured for --jit-warmup-seconds (64 in flight,
 * 1 KiB), so that neither JIT's compile time lands in the first case. Each case: a warm-up (dropped),
 * a pause until nothing is in flight, then the measured run: sends are issued for --seconds and the
 * run ends when the last one completes; TPS = sends / elapsed, and every send's latency (call to
 * result) is in an HDR histogram (node's perf_hooks.createHistogram, built on HdrHistogram_c;
 * HdrHistogram on the Java side; both ns, 3 significant digits). The CPU time of each producer's
 * process over the run (all its threads) gives CPU per send, which a busy machine disturbs less than
 * TPS. Which side goes first alternates between cases, so drift on a shared machine does not always
 * favour one. Target (issue 10): at 64 in flight, ours >= 1.0x Java's TPS and p99 no worse.
 *
 *   node <build>/scripts/bench-client.js [--seconds 5] [--warmup-seconds 2] [--sizes 1024,128]
 *     [--in-flight 1,64] [--brokers ours,official] [--no-java-threads] [--jit-warmup-seconds 5]
 *     [--cpu-prof] [--cpu-prof-broker] [--cpu-prof-dir D]
 *
 * --cpu-prof profiles our producer's measured runs (V8 sampling profiler in this process; the figures
 * then include its overhead) and prints each run's top self-time functions; --cpu-prof-broker starts
 * `rmq start` under `node --cpu-prof` and summarises its profile after it stops. Profiles are written
 * to --cpu-prof-dir (default: a new temp dir, printed). Needs Java and the interop build
 * (`node scripts/interop-prepare.mjs`) for the Java producer and the official broker.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createHistogram, type RecordableHistogram } from 'node:perf_hooks';
import { createProducer, type Producer } from '../src/client/index.js';
import { Message } from '../src/common/message/message.js';
import {
  arg,
  BROKER_KINDS,
  type Broker,
  choices,
  flag,
  integers,
  javaVersion,
  type LineChild,
  loadText,
  positive,
  startJavaHelper,
  startOfficial,
  startOurs,
} from './bench-support.js';
import { type CpuProfile, InProcessProfiler, summarizeProfile } from './cpu-profile.js';

const MEASURE_MS = positive('seconds', '5') * 1000;
const WARMUP_MS = positive('warmup-seconds', '2') * 1000;
const JIT_WARMUP_MS = positive('jit-warmup-seconds', '5') * 1000;
const SIZES = integers('sizes', '1024,128');
const IN_FLIGHT = integers('in-flight', '1,64');
const BROKERS = choices('brokers', 'ours,official', BROKER_KINDS);
const JAVA_THREADS = !flag('no-java-threads');
const CPU_PROF = flag('cpu-prof');
const CPU_PROF_BROKER = flag('cpu-prof-broker');
const TOPIC = 'BenchClient';
/** Upper bound of the histograms; a send is never slower than its 3 s timeout. */
const HIGHEST_NS = 60e9;
/** A case whose sends keep failing stops early, as ProducerBench does. */
const MAX_ERRORS = 100;

let profDir: string | undefined;
function profileDir(): string {
  if (profDir === undefined) {
    const given = arg('cpu-prof-dir', '');
    profDir = given === '' ? mkdtempSync(join(tmpdir(), 'rmq-bench-client-prof-')) : resolve(given);
    mkdirSync(profDir, { recursive: true });
  }
  return profDir;
}

// ---------------------------------------------------------------------------------------------
// figures

interface Figures {
  sends: number;
  errors: number;
  elapsedNs: number;
  p50Ns: number;
  p99Ns: number;
  maxNs: number;
  /** CPU time of the whole producer process (all its threads) over the measured run; -1 if unknown. */
  cpuNs: number;
  firstError: string | null;
}

function isFigures(v: unknown): v is Figures {
  if (typeof v !== 'object' || v === null) return false;
  const o = v as Record<string, unknown>;
  return ['sends', 'errors', 'elapsedNs', 'p50Ns', 'p99Ns', 'maxNs', 'cpuNs'].every(
    (k) => typeof o[k] === 'number',
  );
}

const tps = (f: Figures): number => (f.sends * 1e9) / Math.max(1, f.elapsedNs);
const ms = (ns: number): string => (ns / 1e6).toFixed(3);
const cpuPerSend = (f: Figures): string =>
  f.cpuNs < 0 ? '?' : (f.cpuNs / 1000 / Math.max(1, f.sends)).toFixed(1);

// ---------------------------------------------------------------------------------------------
// our producer

interface LoopCount {
  sends: number;
  errors: number;
  firstError: string | null;
}

/**
 * `inFlight` loops, each awaiting one send at a time, issuing until `durationMs` has passed; resolves
 * when the last send completed. Latencies go to `histogram` when given.
 */
async function closedLoop(
  producer: Producer,
  body: Buffer,
  inFlight: number,
  durationMs: number,
  histogram: RecordableHistogram | undefined,
): Promise<LoopCount> {
  const count: LoopCount = { sends: 0, errors: 0, firstError: null };
  const end = performance.now() + durationMs;
  const loop = async (): Promise<void> => {
    while (performance.now() < end && count.errors < MAX_ERRORS) {
      const t0 = process.hrtime.bigint();
      try {
        const r = await producer.send(new Message(TOPIC, body));
        const ns = Number(process.hrtime.bigint() - t0);
        if (r.sendStatus !== 'SEND_OK') {
          count.errors++;
          count.firstError ??= `send status ${r.sendStatus}`;
          continue;
        }
        count.sends++;
        histogram?.record(Math.min(Math.max(1, ns), HIGHEST_NS));
      } catch (error) {
        count.errors++;
        count.firstError ??= error instanceof Error ? `${error.name}: ${error.message}` : String(error);
      }
    }
  };
  await Promise.all(Array.from({ length: inFlight }, loop));
  return count;
}

const profiler = CPU_PROF ? new InProcessProfiler() : undefined;
const profileSummaries: string[] = [];

async function runOurs(producer: Producer, label: string, bodyBytes: number, inFlight: number) {
  const body = Buffer.alloc(bodyBytes, 0x61);
  await closedLoop(producer, body, inFlight, WARMUP_MS, undefined);
  const histogram = createHistogram({ lowest: 1, highest: HIGHEST_NS, figures: 3 });
  if (profiler !== undefined) await profiler.start();
  const cpuBefore = process.cpuUsage();
  const started = process.hrtime.bigint();
  const count = await closedLoop(producer, body, inFlight, MEASURE_MS, histogram);
  const elapsedNs = Number(process.hrtime.bigint() - started);
  const cpu = process.cpuUsage(cpuBefore);
  if (profiler !== undefined) {
    const file = join(profileDir(), `client-${label.replace(/\W+/g, '-')}.cpuprofile`);
    const profile = await profiler.stop(file);
    profileSummaries.push(
      `our producer, ${label} (${file}):`,
      ...summarizeProfile(profile).map((l) => `  ${l}`),
    );
  }
  const figures: Figures = {
    ...count,
    elapsedNs,
    p50Ns: histogram.count === 0 ? 0 : histogram.percentile(50),
    p99Ns: histogram.count === 0 ? 0 : histogram.percentile(99),
    maxNs: histogram.count === 0 ? 0 : histogram.max,
    cpuNs: (cpu.user + cpu.system) * 1000,
  };
  return figures;
}

// ---------------------------------------------------------------------------------------------
// the Java producer (interop ProducerBench): one JVM per broker, cases sent over stdin

type JavaStyle = 'sync' | 'async' | 'threads';

class JavaProducerBench {
  private constructor(private readonly helper: LineChild) {}

  static async start(namesrvAddr: string, group: string): Promise<JavaProducerBench> {
    return new JavaProducerBench(await startJavaHelper('ProducerBench', [namesrvAddr, TOPIC, group]));
  }

  async run(
    bodyBytes: number,
    inFlight: number,
    style: JavaStyle,
    warmupMs = WARMUP_MS,
    measureMs = MEASURE_MS,
  ): Promise<Figures> {
    const r = await this.helper.call(
      `${bodyBytes} ${inFlight} ${style} ${warmupMs} ${measureMs}`,
      warmupMs + measureMs + 120_000,
    );
    if (!isFigures(r)) throw new Error(`ProducerBench printed ${JSON.stringify(r)}`);
    return r;
  }

  close(): Promise<void> {
    return this.helper.close();
  }
}

// ---------------------------------------------------------------------------------------------
// brokers

/** Ours; with --cpu-prof-broker under `node --cpu-prof`, its profile summarised once it stopped. */
async function startOurBroker(): Promise<Broker> {
  if (!CPU_PROF_BROKER) return startOurs({ dirPrefix: 'rmq-bench-client-' });
  const profilesBefore = new Set(readdirSync(profileDir()));
  const broker = await startOurs({
    dirPrefix: 'rmq-bench-client-',
    nodeFlags: ['--cpu-prof', `--cpu-prof-dir=${profileDir()}`],
  });
  return {
    ...broker,
    close: async () => {
      await broker.close();
      const file = readdirSync(profileDir()).find((f) => f.endsWith('.cpuprofile') && !profilesBefore.has(f));
      if (file === undefined) {
        profileSummaries.push('our broker: no profile written (did rmq start exit by a signal?)');
        return;
      }
      const path = join(profileDir(), file);
      const profile = JSON.parse(readFileSync(path, 'utf8')) as CpuProfile;
      profileSummaries.push(
        `our broker, its whole life (${path}):`,
        ...summarizeProfile(profile).map((l) => `  ${l}`),
      );
    },
  };
}

// ---------------------------------------------------------------------------------------------
// the run

interface Row {
  broker: string;
  bodyBytes: number;
  inFlight: number;
  javaStyle: string;
  ours: Figures;
  java: Figures;
}

function caseLine(r: Row): string {
  const problems = [r.ours, r.java]
    .map((f, i) =>
      f.errors > 0 ? ` ${i === 0 ? 'ours' : 'java'}: ${f.errors} errors (${f.firstError})` : '',
    )
    .join('');
  return (
    `${r.broker}, ${r.bodyBytes} B, ${r.inFlight} in flight: ours ${tps(r.ours).toFixed(0)} TPS ` +
    `p50 ${ms(r.ours.p50Ns)} p99 ${ms(r.ours.p99Ns)} ms ${cpuPerSend(r.ours)} us CPU/send | java (${r.javaStyle}) ` +
    `${tps(r.java).toFixed(0)} TPS p50 ${ms(r.java.p50Ns)} p99 ${ms(r.java.p99Ns)} ms ${cpuPerSend(r.java)} us CPU/send${problems}`
  );
}

function table(rows: readonly Row[]): string[] {
  const head = [
    'broker',
    'body',
    'in flight',
    'java style',
    'ours TPS',
    'java TPS',
    'TPS o/j',
    'ours p50/p99 ms',
    'java p50/p99 ms',
    'p99 o/j',
    'CPU us/send o/j',
    'target',
  ];
  const body = rows.map((r) => {
    const tpsRatio = tps(r.ours) / tps(r.java);
    const p99Ratio = r.ours.p99Ns / r.java.p99Ns;
    const clean = r.ours.errors === 0 && r.java.errors === 0;
    const verdict =
      r.inFlight < 64
        ? '-'
        : !clean
          ? 'errors'
          : tpsRatio >= 1 && p99Ratio <= 1
            ? 'met'
            : `MISSED (${[tpsRatio < 1 ? 'TPS' : '', p99Ratio > 1 ? 'p99' : ''].filter(Boolean).join(', ')})`;
    return [
      r.broker,
      r.bodyBytes >= 1024 && r.bodyBytes % 1024 === 0 ? `${r.bodyBytes / 1024} KiB` : `${r.bodyBytes} B`,
      String(r.inFlight),
      r.javaStyle,
      tps(r.ours).toFixed(0),
      tps(r.java).toFixed(0),
      tpsRatio.toFixed(2),
      `${ms(r.ours.p50Ns)} / ${ms(r.ours.p99Ns)}`,
      `${ms(r.java.p50Ns)} / ${ms(r.java.p99Ns)}`,
      p99Ratio.toFixed(2),
      `${cpuPerSend(r.ours)} / ${cpuPerSend(r.java)}`,
      verdict,
    ];
  });
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((row) => (row[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i < 4 || i === 11 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0)))
      .join('  ');
  return [line(head), ...body.map(line)];
}

async function benchBroker(broker: Broker, rows: Row[]): Promise<void> {
  const producer = createProducer({ namesrvAddr: broker.namesrvAddr, producerGroup: 'bench_client_ts' });
  await producer.start();
  let java: JavaProducerBench | undefined;
  try {
    java = await JavaProducerBench.start(broker.namesrvAddr, 'bench_client_java');
    // Both runtimes compile their hot paths in the first seconds (the JVM's C2 takes longest); that
    // belongs to neither case, so each producer first sends for a while unmeasured.
    await closedLoop(producer, Buffer.alloc(1024, 0x61), 64, JIT_WARMUP_MS, undefined);
    await java.run(1024, 64, 'async', JIT_WARMUP_MS, 1);
    let turn = 0;
    for (const bodyBytes of SIZES) {
      for (const inFlight of IN_FLIGHT) {
        const label = `${broker.name} ${bodyBytes}B x${inFlight}`;
        const styles: { style: JavaStyle; name: string }[] =
          inFlight === 1
            ? [{ style: 'sync', name: 'sync' }]
            : [
                { style: 'async', name: `async, ${inFlight} permits` },
                ...(JAVA_THREADS ? [{ style: 'threads' as const, name: `${inFlight} threads` }] : []),
              ];
        const javaRuns = async (): Promise<{ name: string; figures: Figures }[]> => {
          const out: { name: string; figures: Figures }[] = [];
          for (const s of styles)
            out.push({
              name: s.name,
              figures: await (java as JavaProducerBench).run(bodyBytes, inFlight, s.style),
            });
          return out;
        };
        let ours: Figures;
        let javas: { name: string; figures: Figures }[];
        if (turn++ % 2 === 0) {
          ours = await runOurs(producer, label, bodyBytes, inFlight);
          javas = await javaRuns();
        } else {
          javas = await javaRuns();
          ours = await runOurs(producer, label, bodyBytes, inFlight);
        }
        for (const j of javas) {
          const row: Row = {
            broker: broker.name,
            bodyBytes,
            inFlight,
            javaStyle: j.name,
            ours,
            java: j.figures,
          };
          rows.push(row);
          console.log(caseLine(row));
        }
      }
    }
  } finally {
    await producer.shutdown();
    await java?.close();
  }
}

async function main(): Promise<void> {
  console.log(
    `client bench: node ${process.version}, ${javaVersion()}, ${cpus().length} cores, ${loadText()}; JIT warm-up ${JIT_WARMUP_MS / 1000} s, warm-up ${WARMUP_MS / 1000} s + ${MEASURE_MS / 1000} s per case, bodies ${SIZES.join(', ')} B, ` +
      `in flight ${IN_FLIGHT.join(', ')}, brokers ${BROKERS.join(', ')}${CPU_PROF ? ', our producer profiled' : ''}`,
  );
  const rows: Row[] = [];
  for (const which of BROKERS) {
    const started = performance.now();
    const broker = which === 'ours' ? await startOurBroker() : await startOfficial();
    console.log(
      `${broker.name}: name server ${broker.namesrvAddr}, up in ${(performance.now() - started).toFixed(0)} ms`,
    );
    try {
      await benchBroker(broker, rows);
    } finally {
      await broker.close();
    }
  }
  console.log('');
  console.log(`ours / java, same broker, same run (${loadText()} now):`);
  for (const l of table(rows)) console.log(l);
  console.log(
    'target (issue 10): at 64 in flight ours >= 1.0x java TPS and p99 no worse (p99 o/j <= 1.0); ' +
      'TPS = sends / (first issued .. last completed), latency = call .. result, CPU = the producer process (all threads) over the run',
  );
  if (profileSummaries.length > 0) {
    console.log('');
    for (const l of profileSummaries) console.log(l);
  }
  profiler?.close();
  if (profDir !== undefined && statSync(profDir).isDirectory()) console.log(`profiles in ${profDir}`);
}

await main();
