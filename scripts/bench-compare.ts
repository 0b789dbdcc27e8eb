/**
 * `npm run bench:compare` (issue 13): the official 4.9.x broker and ours, one after the other on this
 * machine, each fresh on an empty store with the same settings for every scenario, driven by the Java
 * load generator (official 4.9.8 client) and by `rmq bench`. Prints one markdown table (TPS, RT,
 * broker CPU per 100k messages, broker peak RSS, start-up) with ours/official per scenario and
 * generator, and writes it with date, versions and machine to docs/benchmarks.md.
 *
 *   node <build>/scripts/bench-compare.js [--quick] [--warmup S] [--duration S] [--backlog N] [--broker-warmup S]
 *     [--scenarios p128x64,...,timer] [--only ours|official] [--generators java,rmq] [--queues 8] [--no-write]
 *     [--timer-messages N] [--timer-spread S] [--timer-precision-ms 1000]
 *
 * The timer scenario (1 M timer messages due over 60 s, lateness and broker CPU) compares ours with
 * the official 5.5.0 broker (bench-compare-timer.ts); RMQ_BENCH_TIMER_MESSAGES sets its count too.
 *
 * Full form: 10 s warm-up and 30 s measured per run, a backlog of 10 M messages; --quick: 2 s, 5 s,
 * 300 k (a full run takes about half an hour, a quick one seven minutes). Which broker and which generator goes first alternates between scenarios, so drift on a
 * shared machine does not always favour one side. Broker CPU is utime + stime from /proc over the
 * generator's measured window; RSS is sampled every 100 ms over the generator's whole run. Ours is
 * `rmq start`, whose process also holds the name server; the official broker is measured alone.
 * Needs Java and the interop build (`node scripts/interop-prepare.mjs`).
 */
import { BrokerAdmin } from './bench-admin.js';
import {
  type BenchBroker,
  type FlushDiskType,
  OFFICIAL_BROKER_JVM,
  ProcSampler,
  startBenchBroker,
} from './bench-compare-brokers.js';
import { GENERATORS, type Generator, type Role, runLoad, summaryNumber } from './bench-compare-load.js';
import { POP_SCENARIO, popSection } from './bench-compare-pop.js';
import { type Row, setting, table, writeDoc } from './bench-compare-report.js';
import { runTimerScenario, type TimerRow, timerTable } from './bench-compare-timer.js';
import { arg, BROKER_KINDS, type BrokerKind, choices, flag, loadText, tempDir } from './bench-support.js';

interface Scenario {
  readonly name: string;
  readonly label: string;
  readonly role: Role;
  readonly flush: FlushDiskType;
  readonly threads: number;
  readonly size: number;
  readonly batch: number;
}

const produce = (name: string, label: string, threads: number, size: number, batch = 1): Scenario => ({
  name,
  label,
  role: 'producer',
  flush: 'ASYNC_FLUSH',
  threads,
  size,
  batch,
});

/** Upstream's benchmark Consumer's thread count; the backlog is filled with BatchProducer-style sends. */
const CONSUME_THREADS = 20;
const FILL_THREADS = 8;
const FILL_BATCH = 128;
const BACKLOG_BODY = 128;

const SCENARIOS: readonly Scenario[] = [
  produce('p128x64', 'produce 128 B, 64 senders', 64, 128),
  produce('p1kx64', 'produce 1 KiB, 64 senders', 64, 1024),
  produce('p1kx8', 'produce 1 KiB, 8 senders', 8, 1024),
  produce('batch16', 'batch 16 × 128 B, 8 senders', 8, 128, 16),
  produce('batch128', 'batch 128 × 128 B, 8 senders', 8, 128, 128),
  {
    name: 'consume',
    label: 'push consume of a backlog',
    role: 'consumer',
    flush: 'ASYNC_FLUSH',
    threads: CONSUME_THREADS,
    size: BACKLOG_BODY,
    batch: 1,
  },
  { ...produce('sync1kx64', 'produce 1 KiB, 64 senders, SYNC_FLUSH', 64, 1024), flush: 'SYNC_FLUSH' },
];

const KNOWN_FLAGS = [
  'quick',
  'warmup',
  'duration',
  'backlog',
  'broker-warmup',
  'scenarios',
  'only',
  'generators',
  'queues',
  'no-write',
  'timer-messages',
  'timer-spread',
  'timer-precision-ms',
];
for (const a of process.argv.slice(2)) {
  if (a.startsWith('--') && !KNOWN_FLAGS.includes(a.slice(2))) {
    process.stderr.write(`bench-compare: unknown flag ${a}; known: --${KNOWN_FLAGS.join(', --')}\n`);
    process.exit(2);
  }
}

function numberArg(name: string, fallback: number, min: number): number {
  const v = Number(arg(name, String(fallback)));
  if (!Number.isFinite(v) || v < min) throw new Error(`--${name} takes a number >= ${min}`);
  return v;
}

const QUICK = flag('quick');
const WARMUP_S = numberArg('warmup', QUICK ? 2 : 10, 0);
const DURATION_S = numberArg('duration', QUICK ? 5 : 30, 1);
/**
 * Unmeasured load on each fresh broker before its first measured run, so that the JIT of neither
 * broker is still compiling in the first generator's window (which would favour the one that runs
 * second).
 */
const BROKER_WARMUP_S = numberArg('broker-warmup', QUICK ? 5 : 10, 0);
const BACKLOG = Math.round(numberArg('backlog', QUICK ? 300_000 : 10_000_000, 1000));
const QUEUES = Math.round(numberArg('queues', 8, 1));
const WRITE_DOC = !flag('no-write');
/** The timer scenario (issue 27) runs the official 5.5.0 broker, not 4.9.x: see bench-compare-timer.ts. */
const TIMER = 'timer';
const PICKED = choices('scenarios', [...SCENARIOS.map((s) => s.name), POP_SCENARIO, TIMER].join(','), [
  ...SCENARIOS.map((s) => s.name),
  POP_SCENARIO,
  TIMER,
]);
/** Timer messages per broker: --timer-messages, else RMQ_BENCH_TIMER_MESSAGES, else 1 M (100 k quick). */
const TIMER_MESSAGES = Math.round(
  numberArg(
    'timer-messages',
    Number(process.env.RMQ_BENCH_TIMER_MESSAGES ?? (QUICK ? 100_000 : 1_000_000)),
    1,
  ),
);
const TIMER_SPREAD_MS = numberArg('timer-spread', 60, 1) * 1000;
/** timerPrecisionMs on both brokers (upstream's default 1000; it alone makes a message up to that late). */
const TIMER_PRECISION_MS = numberArg('timer-precision-ms', 1000, 100);
const KINDS: readonly BrokerKind[] = flag('only')
  ? choices('only', 'ours', BROKER_KINDS)
  : ['official', 'ours'];
const GENS = choices('generators', GENERATORS.join(','), GENERATORS);
/**
 * A quick backlog drains in a second or two, less than a warm-up: the quick consume run measures the
 * whole drain instead. The full backlog outlasts the warm-up.
 */
const CONSUME_WARMUP_S = QUICK ? 0 : WARMUP_S;
/** Not upstream's BenchmarkTest: that is a system topic the broker creates with 1024 queues. */
const TOPIC = 'BenchCompare';
/** Headroom over a run's own length for start-up (a JVM, routes, rebalance) and shutdown. */
const RUN_SLACK_MS = 120_000;
/** The slowest fill rate the fill's deadline allows for, messages/s. */
const MIN_FILL_RATE = 5000;
/** How long the official broker may take to dispatch the filled backlog into its consume queues. */
const DISPATCH_WAIT_MS = 120_000;

const workDir = tempDir('rmq-bench-compare-');

function log(text: string): void {
  process.stderr.write(`${new Date().toISOString().slice(11, 19)} ${text}\n`);
}

/** `until`: when the run ends (-q, --duration) and what it does not count (--warmup). */
function producerArgs(s: Scenario, ns: string, group: string, until: readonly string[]): string[] {
  return [
    ...['-n', ns, '-t', TOPIC, '-w', String(s.threads), '-s', String(s.size)],
    ...(s.batch > 1 ? ['-b', String(s.batch)] : []),
    ...until,
    ...['--group', group],
  ];
}

/** Fills the topic with BACKLOG messages in batch sends; resolves with what the broker holds. */
async function fill(broker: BenchBroker, admin: BrokerAdmin): Promise<number> {
  const filler: Generator = GENS.includes('rmq') ? 'rmq' : 'java';
  const s = produce('fill', 'fill', FILL_THREADS, BACKLOG_BODY, FILL_BATCH);
  const started = Date.now();
  await runLoad(
    filler,
    'producer',
    producerArgs(s, broker.namesrvAddr, 'bench_fill', ['-q', String(BACKLOG)]),
    {
      dir: workDir,
      warmupS: 0,
      timeoutMs: (BACKLOG / MIN_FILL_RATE) * 1000 + RUN_SLACK_MS,
    },
  );
  // The official broker dispatches to its consume queues behind the commit log: wait until it is done.
  const deadline = Date.now() + DISPATCH_WAIT_MS;
  let stored = await admin.storedMessages(TOPIC);
  for (;;) {
    await new Promise((r) => setTimeout(r, 500));
    const now = await admin.storedMessages(TOPIC);
    if (now === stored || Date.now() > deadline) break;
    stored = now;
  }
  log(`  backlog: ${stored} messages stored in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  if (stored < BACKLOG) throw new Error(`backlog: ${stored} of ${BACKLOG} messages stored`);
  return stored;
}

/** The scenario's load for BROKER_WARMUP_S, not measured (a consume from the start of the backlog). */
async function warmUp(s: Scenario, broker: BenchBroker): Promise<void> {
  const g: Generator = GENS.includes('rmq') ? 'rmq' : 'java';
  const ns = broker.namesrvAddr;
  const until = ['--duration', String(BROKER_WARMUP_S)];
  const args =
    s.role === 'producer'
      ? producerArgs(s, ns, 'bench_warmup', until)
      : ['-n', ns, '-t', TOPIC, '-w', String(s.threads), '-g', 'bench_warmup', '--from', 'first', ...until];
  const r = await runLoad(g, s.role, args, {
    dir: workDir,
    warmupS: 0,
    timeoutMs: BROKER_WARMUP_S * 1000 + RUN_SLACK_MS,
  });
  log(`  broker warm-up: ${summaryNumber(r, 'messages')} messages in ${BROKER_WARMUP_S} s (${g})`);
}

function loadArgs(s: Scenario, g: Generator, ns: string, backlog: number): string[] {
  if (s.role === 'producer')
    return producerArgs(s, ns, `bench_${g}_producer`, [
      ...['--warmup', String(WARMUP_S), '--duration', String(DURATION_S)],
    ]);
  return [
    ...['-n', ns, '-t', TOPIC, '-w', String(s.threads), '-g', `bench_${g}_consumer`],
    ...['--from', 'first', '--count', String(backlog)],
    ...['--warmup', String(CONSUME_WARMUP_S), '--duration', String(DURATION_S)],
  ];
}

async function runOne(
  s: Scenario,
  g: Generator,
  broker: BenchBroker,
  admin: BrokerAdmin,
  sampler: ProcSampler,
  backlog: number,
): Promise<Row> {
  const base = { scenario: s.label, generator: g, broker: broker.kind, startMs: broker.startMs };
  const warmupS = s.role === 'producer' ? WARMUP_S : CONSUME_WARMUP_S;
  try {
    const storedBefore = s.role === 'producer' ? await admin.storedMessages(TOPIC) : 0;
    const r = await runLoad(g, s.role, loadArgs(s, g, broker.namesrvAddr, backlog), {
      dir: workDir,
      warmupS,
      timeoutMs: (warmupS + DURATION_S) * 1000 + RUN_SLACK_MS,
    });
    sampler.sample();
    const messages = summaryNumber(r, 'messages');
    const cpu = sampler.cpuSecondsBetween(r.from, r.to);
    const rss = sampler.peakRssMiB(r.spawnedAt, r.exitedAt);
    const row: Row = {
      ...base,
      tps: summaryNumber(r, 'tps'),
      avgMs: summaryNumber(r, s.role === 'producer' ? 'avgRtMs' : 'avgS2CMs'),
      p99Ms: summaryNumber(r, s.role === 'producer' ? 'p99Ms' : 'p99S2CMs'),
      maxMs: summaryNumber(r, s.role === 'producer' ? 'maxRtMs' : 'maxS2CMs'),
      cpuPer100k: messages > 0 ? (cpu / messages) * 100_000 : Number.NaN,
      peakRssMiB: rss.rss,
      peakAnonMiB: rss.anon,
    };
    const stored =
      s.role === 'producer' ? `, ${(await admin.storedMessages(TOPIC)) - storedBefore} stored in all` : '';
    log(
      `  ${g}: ${messages} messages in ${summaryNumber(r, 'measuredMs')} ms measured${stored}, ` +
        `${row.tps?.toFixed(0)}/s, broker ${cpu.toFixed(2)} CPU s, peak RSS ${rss.rss.toFixed(0)} MiB (${rss.anon.toFixed(0)} anon)`,
    );
    return row;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    log(`  ${g}: FAILED ${message}`);
    return { ...base, error: message };
  }
}

async function runScenario(s: Scenario, kind: BrokerKind, gens: readonly Generator[]): Promise<Row[]> {
  log(`${s.name} (${s.label}) on ${kind} [${loadText()}]`);
  let broker: BenchBroker;
  try {
    broker = await startBenchBroker(kind, s.flush);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    log(`  broker start FAILED: ${message}`);
    return gens.map((g) => ({ scenario: s.label, generator: g, broker: kind, error: message }));
  }
  log(`  broker accepting after ${broker.startMs.toFixed(0)} ms (pid ${broker.pid})`);
  const sampler = new ProcSampler(broker.pid);
  const admin = new BrokerAdmin(broker.namesrvAddr, broker.brokerAddr);
  const rows: Row[] = [];
  try {
    await admin.createTopic(TOPIC, QUEUES);
    const backlog = s.role === 'consumer' ? await fill(broker, admin) : 0;
    if (BROKER_WARMUP_S > 0) await warmUp(s, broker);
    for (const g of gens) rows.push(await runOne(s, g, broker, admin, sampler, backlog));
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    log(`  FAILED: ${message}`);
    for (const g of gens)
      if (!rows.some((r) => r.generator === g))
        rows.push({ scenario: s.label, generator: g, broker: kind, error: message });
  } finally {
    sampler.stop();
    await admin.close();
    await broker.close();
  }
  return rows;
}

const command = `npm run bench:compare${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(' ')}` : ''}`;
const scenarios = SCENARIOS.filter((s) => PICKED.includes(s.name));
const started = new Date();
const rows: Row[] = [];
for (const [i, s] of scenarios.entries()) {
  const flip = <T>(list: readonly T[]): readonly T[] => (i % 2 === 0 ? list : [...list].reverse());
  for (const kind of flip(KINDS)) rows.push(...(await runScenario(s, kind, flip(GENS))));
}
// POP (issue 27): the official 5.5.0 push consumer in POP mode, official 5.5.0 broker vs ours.
const popReport = PICKED.includes(POP_SCENARIO) ? await popSection({ quick: QUICK, kinds: KINDS }) : '';

const timerRows: TimerRow[] = [];
if (PICKED.includes(TIMER)) {
  for (const kind of KINDS)
    timerRows.push(
      await runTimerScenario(kind, TIMER_MESSAGES, TIMER_SPREAD_MS, QUEUES, TIMER_PRECISION_MS, log),
    );
}

const report = [
  `## ${QUICK ? 'Quick run' : 'Run'} of ${started.toISOString().slice(0, 16).replace('T', ' ')} UTC`,
  '',
  `- command: \`${command}\``,
  ...setting(),
  `- official broker JVM: ${OFFICIAL_BROKER_JVM.join(' ')}, default GC, full JIT; ours: node, default flags`,
  `- both brokers: fresh name server and broker per scenario on an empty temp store; ASYNC_FLUSH unless the scenario says SYNC_FLUSH; topic ${TOPIC} created with ${QUEUES} read/write queues; commit log files 1 GiB, upstream's index and consume-queue defaults`,
  `- order: one scenario after the other; which broker and which generator goes first alternates between scenarios (the first: ${KINDS[0]} before ${KINDS[1] ?? '–'}, ${GENS[0]} before ${GENS[1] ?? '–'})`,
  `- before the first measured run on each fresh broker: ${BROKER_WARMUP_S} s of the scenario's load, not measured`,
  `- each run: ${WARMUP_S} s warm-up, then ${DURATION_S} s measured; the backlog: ${BACKLOG.toLocaleString('en-US')} × ${BACKLOG_BODY} B filled with batch sends of ${FILL_BATCH}, consumed by each generator with its own new group from the first offset until drained or ${DURATION_S} s${CONSUME_WARMUP_S === 0 ? ' (no warm-up)' : ` after a ${CONSUME_WARMUP_S} s warm-up`}, ${CONSUME_THREADS} consume threads`,
  '- TPS: messages per second; RT: send call to result (consume: store to consume); broker CPU: utime + stime over the measured window; RSS: peak VmRSS over the run, in brackets peak RssAnon (VmRSS also counts the pages of mapped store files in memory); ours includes the name server, which runs in the same process',
  '',
  ...(rows.length > 0 ? [table(rows), ''] : []),
  ...(popReport !== '' ? [popReport, ''] : []),
  ...(timerRows.length > 0
    ? [timerTable(timerRows, TIMER_MESSAGES, TIMER_SPREAD_MS, TIMER_PRECISION_MS), '']
    : []),
].join('\n');
process.stdout.write(`\n${report}`);
if (WRITE_DOC) log(`wrote ${writeDoc(report)}`);
process.exit([...rows, ...timerRows].some((r) => r.error !== undefined) ? 1 : 0);
