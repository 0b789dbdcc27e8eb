/**
 * The broker's pull path under the official 4.9.8 push consumer reading a backlog (issue 13, "push
 * consume, backlog of N × 128 B"): our broker next to the official 4.9.x broker, both up at once,
 * measured in turns in one run. Prints figures and ratios; it is not a test.
 *
 * Each broker gets a topic of --queues queues filled with --messages bodies of --size bytes by our
 * producer: batch sends of --fill-batch, --fill-in-flight of them outstanding; --fill-batch 1 makes
 * plain sends, so that each queue's records lie apart in the commit log, as upstream's benchmark
 * Producer leaves them. Then, per run, a fresh group of the official DefaultMQPushConsumer (interop
 * ConsumerBench `push-window`: client defaults, an empty concurrent listener,
 * CONSUME_FROM_FIRST_OFFSET) reads the backlog; after its first message and --warmup-seconds more, a
 * window of --window-seconds is measured: consume TPS and, over the same window, the broker process's
 * CPU time, read and write system calls and bytes (/proc/<pid>/io), and its RSS (now and peak,
 * /proc/<pid>/status). The order of the brokers rotates from run to run; the summary takes medians.
 * --warmup-runs runs come first and are not counted: the official broker and the consumer's JVM reach
 * their steady speed only once their JIT has compiled the pull path.
 *
 * --ours-variants runs our broker in several configurations on the same filled store, in the same
 * run (for before / after figures of a change behind a setting): `name:key=value;key=value,name2:`
 * (broker.conf keys; an empty list is the defaults). With more than one variant our broker is
 * restarted on its store (same ports) before each of its windows, in the variant's configuration;
 * with one, --restart or --cpu-prof restart it once after the fill. --cpu-prof runs it under
 * `node --cpu-prof` and prints each variant's top self-time functions from restart to stop (so the
 * store's recovery is in them too).
 *
 *   node <build>/scripts/bench-pull.js [--messages 2000000] [--size 128] [--queues 8]
 *     [--brokers ours,official] [--ours-variants ours:] [--repeat 2] [--warmup-runs 1]
 *     [--warmup-seconds 1] [--window-seconds 5] [--fill-batch 128] [--fill-in-flight 8]
 *     [--stall-seconds 20] [--restart] [--cpu-prof] [--cpu-prof-dir D] [--top 25]
 *     [--node-flags '--trace-gc ...'] [--broker-log FILE] [--ours-store DIR]
 *
 * --ours-store keeps our store in DIR (not removed at the end) and skips the fill when its topic
 * already holds the backlog: for repeated profiling runs of ours alone.
 *
 * A window that ran out of backlog ends early and is marked "drained" (use more --messages). Needs
 * Java and the interop build (`node scripts/interop-prepare.mjs`); children and temp dirs are removed
 * at the end, on an error and on SIGINT.
 */
import type { ChildProcess } from 'node:child_process';
import { appendFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { cpus, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createProducer, type Producer } from '../src/client/index.js';
import { Message } from '../src/common/message/message.js';
import { BrokerAdmin } from './bench-admin.js';
import {
  arg,
  BROKER_KINDS,
  type Broker,
  choices,
  flag,
  integer,
  javaVersion,
  type LineChild,
  loadText,
  positive,
  processCpuNs,
  rmqCommand,
  spawnTracked,
  startJavaHelper,
  startOfficial,
  stopped,
  tempDir,
} from './bench-support.js';
import { type CpuProfile, summarizeProfile } from './cpu-profile.js';

const TOPIC = 'BenchPull';

const MESSAGES = integer('messages', '2000000');
const SIZE = integer('size', '128');
const QUEUES = integer('queues', '8');
const BROKERS = choices('brokers', 'ours,official', BROKER_KINDS);
const REPEAT = integer('repeat', '2');
const WARMUP_RUNS = integer('warmup-runs', '1', 0);
const WARMUP_MS = positive('warmup-seconds', '1') * 1000;
const WINDOW_MS = positive('window-seconds', '5') * 1000;
const FILL_BATCH = integer('fill-batch', '128');
const FILL_IN_FLIGHT = integer('fill-in-flight', '8');
const STALL_MS = positive('stall-seconds', '20') * 1000;
const CPU_PROF = flag('cpu-prof');
const TOP = integer('top', '25');
/** Extra node flags for our broker (e.g. --trace-gc), space-separated. */
const NODE_FLAGS = arg('node-flags', '')
  .split(' ')
  .filter((f) => f !== '');
/** Where our broker's output goes (for --node-flags --trace-gc and the like). */
const BROKER_LOG = arg('broker-log', '');
/** A store dir of ours kept between runs: filled once, reused while it holds the backlog. */
const OURS_STORE = arg('ours-store', '') === '' ? '' : resolve(arg('ours-store', ''));
/** Time for the JVM's consumer to start, rebalance and shut down around its window. */
const JAVA_SLACK_MS = 60_000;

interface Variant {
  name: string;
  /** broker.conf lines */
  conf: string[];
}

function variants(): Variant[] {
  const list = arg('ours-variants', 'ours:')
    .split(',')
    .map((v) => {
      const colon = v.indexOf(':');
      const name = colon < 0 ? v : v.slice(0, colon);
      const conf = colon < 0 ? [] : v.slice(colon + 1).split(';');
      if (!/^[\w.-]+$/.test(name)) throw new Error(`--ours-variants: bad name ${JSON.stringify(name)}`);
      for (const line of conf.filter((l) => l !== ''))
        if (!/^\w+=[^=]*$/.test(line)) throw new Error(`--ours-variants ${name}: not key=value: ${line}`);
      return { name, conf: conf.filter((l) => l !== '') };
    });
  if (new Set(list.map((v) => v.name)).size !== list.length) throw new Error('--ours-variants: names repeat');
  return list;
}

const VARIANTS = variants();
const RESTART = CPU_PROF || flag('restart') || VARIANTS.length > 1;

// ---------------------------------------------------------------------------------------------
// /proc figures of the broker process

interface IoFigures {
  cpuNs: number;
  /** of which in the kernel */
  sysNs: number;
  syscr: number;
  syscw: number;
  rchar: number;
  wchar: number;
}

/** Kernel CPU time of a process so far (stime, /proc/<pid>/stat field 15), -1 when unknown. */
function processSysNs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const ticks = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[12]);
    // processCpuNs (user + system) in the same unit: ns per tick from its own reading is not exposed.
    return Number.isFinite(ticks) ? ticks * NS_PER_TICK : -1;
  } catch {
    return -1;
  }
}

/** Linux reports /proc times in USER_HZ, 100 on every common build. */
const NS_PER_TICK = 1e7;

function procIo(pid: number | undefined): IoFigures {
  const out: IoFigures = { cpuNs: processCpuNs(pid), sysNs: -1, syscr: -1, rchar: -1, syscw: -1, wchar: -1 };
  if (pid === undefined) return out;
  out.sysNs = processSysNs(pid);
  try {
    for (const line of readFileSync(`/proc/${pid}/io`, 'utf8').split('\n')) {
      const [key, value] = line.split(':');
      if (key === 'syscr' || key === 'syscw' || key === 'rchar' || key === 'wchar') out[key] = Number(value);
    }
  } catch {
    // not Linux, or gone: unknown
  }
  return out;
}

function delta(a: IoFigures, b: IoFigures): IoFigures {
  const d = (k: keyof IoFigures): number => (a[k] < 0 || b[k] < 0 ? -1 : b[k] - a[k]);
  return {
    cpuNs: d('cpuNs'),
    sysNs: d('sysNs'),
    syscr: d('syscr'),
    syscw: d('syscw'),
    rchar: d('rchar'),
    wchar: d('wchar'),
  };
}

/** VmRSS and VmHWM (peak) in bytes, -1 when unknown. */
function procRss(pid: number | undefined): { rss: number; peak: number } {
  const out = { rss: -1, peak: -1 };
  if (pid === undefined) return out;
  try {
    for (const line of readFileSync(`/proc/${pid}/status`, 'utf8').split('\n')) {
      const kb = Number(line.replace(/[^0-9]/g, '')) * 1024;
      if (line.startsWith('VmRSS:')) out.rss = kb;
      else if (line.startsWith('VmHWM:')) out.peak = kb;
    }
  } catch {
    // unknown
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// our broker on one store, restartable on the same ports

function portFree(port: number): Promise<boolean> {
  return new Promise((done) => {
    const server = createServer();
    server.once('error', () => done(false));
    server.listen(port, '127.0.0.1', () => server.close(() => done(true)));
  });
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const address = server.address();
  await new Promise<void>((done) => server.close(() => done()));
  if (address === null || typeof address === 'string') throw new Error('no free port');
  return address.port;
}

/** Ports for our name server and broker; the broker also opens port - 2 (its VIP channel). */
async function ourPorts(): Promise<{ namesrv: number; broker: number }> {
  for (let i = 0; i < 50; i++) {
    const namesrv = await freePort();
    const broker = await freePort();
    if (broker > 1026 && Math.abs(broker - 2 - namesrv) > 0 && (await portFree(broker - 2)))
      return { namesrv, broker };
  }
  throw new Error('no free ports for our broker');
}

class OurBroker implements Broker {
  readonly name = 'rocketmq-ts';
  readonly namesrvAddr: string;
  readonly brokerAddr: string;
  private readonly dataDir = OURS_STORE === '' ? tempDir('rmq-bench-pull-') : OURS_STORE;
  private readonly confDir = tempDir('rmq-bench-pull-conf-');
  private child: ChildProcess | undefined;
  /** The variant running now. */
  variant: Variant | undefined;
  readonly profileDirs = new Map<string, string>();

  constructor(private readonly ports: { namesrv: number; broker: number }) {
    this.namesrvAddr = `127.0.0.1:${ports.namesrv}`;
    this.brokerAddr = `127.0.0.1:${ports.broker}`;
  }

  get brokerPid(): number | undefined {
    return this.child?.pid;
  }

  async start(variant: Variant, profileDir: string | undefined): Promise<number> {
    await this.close();
    const started = performance.now();
    const conf = join(this.confDir, `${variant.name}.conf`);
    writeFileSync(conf, `${variant.conf.join('\n')}\n`);
    const child = spawnTracked(
      process.execPath,
      [
        ...NODE_FLAGS,
        ...(profileDir === undefined ? [] : ['--cpu-prof', '--cpu-prof-dir', profileDir]),
        ...rmqCommand(),
        'start',
        '-c',
        conf,
        '-d',
        this.dataDir,
        '--namesrv-port',
        String(this.ports.namesrv),
        '--broker-port',
        String(this.ports.broker),
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
    this.child = child;
    this.variant = variant;
    let stderr = '';
    child.stderr?.setEncoding('utf8').on('data', (d: string) => {
      stderr = (stderr + d).slice(-4000);
      if (BROKER_LOG !== '') appendFileSync(BROKER_LOG, d);
    });
    await new Promise<void>((done, fail) => {
      let out: string | undefined = '';
      child.stdout?.setEncoding('utf8').on('data', (d: string) => {
        if (BROKER_LOG !== '') appendFileSync(BROKER_LOG, d);
        if (out === undefined) return;
        out += d;
        if (/name server\s+\S+/.test(out) && /broker\s+\d+\.\d+\.\d+\.\d+:\d+/.test(out)) {
          out = undefined;
          done();
        }
      });
      child.once('exit', (code) => fail(new Error(`rmq start exited ${code}\n${stderr}`)));
    });
    return performance.now() - started;
  }

  async close(): Promise<void> {
    const child = this.child;
    if (child === undefined) return;
    this.child = undefined;
    child.kill('SIGTERM');
    await stopped(child, 30_000);
  }
}

// ---------------------------------------------------------------------------------------------
// the backlog

async function fill(producer: Producer): Promise<{ ms: number; retries: number; counts: bigint[] }> {
  const body = Buffer.alloc(SIZE, 0x61);
  let next = 0;
  let retries = 0;
  const started = performance.now();
  const worker = async (): Promise<void> => {
    while (next < MESSAGES) {
      const n = Math.min(FILL_BATCH, MESSAGES - next);
      next += n;
      const batch = Array.from({ length: n }, () => new Message(TOPIC, body));
      for (let attempt = 1; ; attempt++) {
        try {
          await (n === 1 ? producer.send(batch[0] as Message) : producer.send(batch));
          break;
        } catch (error) {
          retries++;
          if (attempt >= 5) throw error;
        }
      }
    }
  };
  await Promise.all(Array.from({ length: FILL_IN_FLIGHT }, worker));
  const ms = performance.now() - started;
  // Consume queues are built after the commit log is written; wait until they hold everything.
  const queues = await producer.fetchPublishMessageQueues(TOPIC);
  const deadline = Date.now() + 60_000;
  for (;;) {
    const counts = await Promise.all(queues.map((mq) => producer.maxOffset(mq)));
    if (counts.reduce((a, b) => a + b, 0n) >= BigInt(MESSAGES)) return { ms, retries, counts };
    if (Date.now() > deadline) throw new Error(`backlog: the queues hold ${counts.join(', ')} messages`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function prepare(broker: Broker): Promise<void> {
  const admin = new BrokerAdmin(broker.namesrvAddr, broker.brokerAddr);
  const producer = createProducer({ namesrvAddr: broker.namesrvAddr, producerGroup: 'bench_pull_fill' });
  try {
    await producer.start();
    await admin.createTopic(TOPIC, QUEUES);
    const queues = await producer.fetchPublishMessageQueues(TOPIC);
    const held = (await Promise.all(queues.map((mq) => producer.maxOffset(mq)))).reduce((a, b) => a + b, 0n);
    if (held >= BigInt(MESSAGES)) {
      console.log(`${broker.name}: reusing the ${held} messages of ${TOPIC} in its store`);
      return;
    }
    if (held > 0n) throw new Error(`${broker.name}: ${TOPIC} holds ${held} messages, not ${MESSAGES}`);
    const f = await fill(producer);
    console.log(
      `${broker.name}: ${MESSAGES} x ${SIZE} B in ${QUEUES} queues (${f.counts.join(' ')}), filled in ` +
        `${(f.ms / 1000).toFixed(1)} s (${((MESSAGES * 1000) / f.ms).toFixed(0)} msg/s, ` +
        `${FILL_BATCH === 1 ? 'plain sends' : `batches of ${FILL_BATCH}`}, ${FILL_IN_FLIGHT} in flight` +
        `${f.retries > 0 ? `, ${f.retries} retried` : ''})`,
    );
  } finally {
    await producer.shutdown();
    await admin.close();
  }
}

// ---------------------------------------------------------------------------------------------
// windows

/** One thing measured: the official broker, or ours in one variant. */
interface Side {
  label: string;
  broker: Broker;
  java: LineChild;
  /** Makes this side's broker the one running (ours: restarts it in the variant when needed). */
  activate(): Promise<void>;
}

interface Window {
  side: string;
  run: number;
  consumed: number;
  elapsedNs: number;
  consumerCpuNs: number;
  failure: string | null;
  broker: IoFigures;
  rss: number;
  peak: number;
}

const tps = (w: Window): number => (w.consumed * 1e9) / Math.max(1, w.elapsedNs);
const per100k = (v: number, w: Window): number =>
  v < 0 ? Number.NaN : (v * 100_000) / Math.max(1, w.consumed);
const mib = (bytes: number): string => (bytes < 0 ? '?' : (bytes / 1048576).toFixed(0));

function windowText(w: Window): string {
  const b = w.broker;
  return (
    `${tps(w).toFixed(0)} msg/s (${w.consumed} in ${(w.elapsedNs / 1e9).toFixed(2)} s${w.failure === null ? '' : ` ${w.failure.toUpperCase()}`}); ` +
    `broker CPU ${(per100k(b.cpuNs, w) / 1e6).toFixed(0)} ms/100k msgs (${(per100k(b.sysNs, w) / 1e6).toFixed(0)} in the kernel), ` +
    `read calls ${per100k(b.syscr, w).toFixed(0)}/100k (${(per100k(b.rchar, w) / 1048576).toFixed(1)} MiB), ` +
    `write calls ${per100k(b.syscw, w).toFixed(0)}/100k (${(per100k(b.wchar, w) / 1048576).toFixed(1)} MiB); ` +
    `RSS ${mib(w.rss)} MiB (peak ${mib(w.peak)}); consumer CPU ${(w.consumerCpuNs / 1000 / Math.max(1, w.consumed)).toFixed(1)} us/msg`
  );
}

async function consumeWindow(side: Side, run: number, group: string): Promise<Window> {
  const java = side.java;
  java.send(`push-window ${TOPIC} ${group} ${MESSAGES} ${WARMUP_MS} ${WINDOW_MS} ${STALL_MS}`);
  await java.next(STALL_MS + WARMUP_MS + JAVA_SLACK_MS);
  const pid = side.broker.brokerPid;
  const before = procIo(pid);
  const r = await java.next(WINDOW_MS + STALL_MS + JAVA_SLACK_MS);
  const used = delta(before, procIo(pid));
  const { rss, peak } = procRss(pid);
  const num = (k: string): number => {
    const v = r[k];
    if (typeof v !== 'number') throw new Error(`ConsumerBench printed ${JSON.stringify(r)}`);
    return v;
  };
  return {
    side: side.label,
    run,
    consumed: num('consumed'),
    elapsedNs: num('elapsedNs'),
    consumerCpuNs: num('cpuNs'),
    failure: typeof r.failure === 'string' ? r.failure : null,
    broker: used,
    rss,
    peak,
  };
}

function median(values: readonly number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  if (s.length === 0) return Number.NaN;
  return s.length % 2 === 1 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
}

function summary(windows: readonly Window[], labels: readonly string[]): string[] {
  const figures: [string, (w: Window) => number, number][] = [
    ['consume TPS', tps, 0],
    ['broker CPU ms / 100k msgs', (w) => per100k(w.broker.cpuNs, w) / 1e6, 0],
    ['  of which kernel', (w) => per100k(w.broker.sysNs, w) / 1e6, 0],
    ['broker read calls / 100k msgs', (w) => per100k(w.broker.syscr, w), 0],
    ['broker read MiB / 100k msgs', (w) => per100k(w.broker.rchar, w) / 1048576, 1],
    ['broker write calls / 100k msgs', (w) => per100k(w.broker.syscw, w), 0],
    ['broker RSS peak MiB', (w) => w.peak / 1048576, 0],
    ['consumer CPU us / msg', (w) => w.consumerCpuNs / 1000 / Math.max(1, w.consumed), 1],
  ];
  const official = labels.includes('official') ? 'official' : undefined;
  const ours = labels.filter((l) => l !== 'official');
  const head = ['figure', ...labels];
  if (official !== undefined) head.push(...ours.map((o) => `${o}/official`));
  if (ours.length > 1) head.push(...ours.slice(1).map((o) => `${o}/${ours[0]}`));
  const rows: string[][] = [head];
  for (const [name, f, digits] of figures) {
    const m = new Map(labels.map((l) => [l, median(windows.filter((w) => w.side === l).map(f))]));
    const ratio = (a: string, b: string): string => {
      const x = m.get(a) ?? Number.NaN;
      const y = m.get(b) ?? Number.NaN;
      return Number.isNaN(x) || Number.isNaN(y) || y === 0 ? '-' : (x / y).toFixed(2);
    };
    const row = [
      name,
      ...labels.map((l) =>
        Number.isNaN(m.get(l) ?? Number.NaN) ? '-' : (m.get(l) as number).toFixed(digits),
      ),
    ];
    if (official !== undefined) row.push(...ours.map((o) => ratio(o, official)));
    if (ours.length > 1) row.push(...ours.slice(1).map((o) => ratio(o, ours[0] as string)));
    rows.push(row);
  }
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length))) ?? [];
  return rows.map((r) =>
    r.map((c, i) => (i === 0 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join('  '),
  );
}

/** The profiles in `dir`, one after the other, as one (ids renumbered). */
function mergedProfile(dir: string): CpuProfile | undefined {
  const files = readdirSync(dir).filter((f) => f.endsWith('.cpuprofile'));
  if (files.length === 0) return undefined;
  const merged: CpuProfile = { nodes: [], samples: [], timeDeltas: [], startTime: 0, endTime: 0 };
  let base = 0;
  for (const file of files) {
    const p = JSON.parse(readFileSync(join(dir, file), 'utf8')) as CpuProfile;
    let max = 0;
    for (const n of p.nodes) {
      merged.nodes.push({ ...n, id: n.id + base });
      max = Math.max(max, n.id);
    }
    merged.samples?.push(...(p.samples ?? []).map((s) => s + base));
    merged.timeDeltas?.push(...(p.timeDeltas ?? []));
    base += max + 1;
  }
  return merged;
}

async function main(): Promise<void> {
  const ourLabels = VARIANTS.length === 1 ? ['ours'] : VARIANTS.map((v) => v.name);
  console.log(
    `pull bench: node ${process.version}, ${javaVersion()}, ${cpus().length} cores, ${loadText()}; ` +
      `${MESSAGES} x ${SIZE} B, ${QUEUES} queues, brokers ${BROKERS.join(', ')}, ${REPEAT} run(s) of ` +
      `${WINDOW_MS / 1000} s after ${WARMUP_MS / 1000} s warm-up (+${WARMUP_RUNS} warm-up run(s)); ` +
      `official DefaultMQPushConsumer (defaults)` +
      `${BROKERS.includes('ours') ? `; ours: ${VARIANTS.map((v) => `${v.name} [${v.conf.join('; ')}]`).join(', ')}` : ''}` +
      `${CPU_PROF ? ', profiled' : RESTART ? ', restarted before each window' : ''}`,
  );
  const sides: Side[] = [];
  const windows: Window[] = [];
  const javas: LineChild[] = [];
  let ours: OurBroker | undefined;
  let official: Broker | undefined;
  let errors = 0;
  let profRoot: string | undefined;
  let restartedOnce = !RESTART;
  try {
    for (const kind of BROKERS) {
      const started = performance.now();
      let broker: Broker;
      if (kind === 'ours') {
        ours = new OurBroker(await ourPorts());
        await ours.start(VARIANTS[0] as Variant, undefined);
        broker = ours;
      } else {
        official = await startOfficial();
        broker = official;
      }
      console.log(
        `${broker.name}: name server ${broker.namesrvAddr}, broker ${broker.brokerAddr}, up in ${(performance.now() - started).toFixed(0)} ms`,
      );
      await prepare(broker);
      const java = await startJavaHelper('ConsumerBench', [broker.namesrvAddr]);
      javas.push(java);
      if (kind === 'official') {
        sides.push({ label: 'official', broker, java, activate: async () => {} });
        continue;
      }
      const host = ours as OurBroker;
      if (CPU_PROF) {
        const given = arg('cpu-prof-dir', '');
        // Kept after the run, for reading (not one of the temp dirs removed at exit).
        profRoot = given === '' ? mkdtempSync(join(tmpdir(), 'rmq-bench-pull-prof-')) : resolve(given);
        for (const v of VARIANTS) {
          const dir = join(profRoot, v.name);
          mkdirSync(dir, { recursive: true });
          host.profileDirs.set(v.name, dir);
        }
      }
      VARIANTS.forEach((variant, i) => {
        sides.push({
          label: ourLabels[i] as string,
          broker: host,
          java,
          activate: async () => {
            // Several variants take turns on the store; one is restarted (profiled) once, not per window.
            if (host.variant === variant && (VARIANTS.length === 1 ? restartedOnce : !RESTART)) return;
            restartedOnce = true;
            const ms = await host.start(variant, host.profileDirs.get(variant.name));
            // The name server restarted too: a consumer started before it routes the topic stalls.
            const admin = new BrokerAdmin(host.namesrvAddr, host.brokerAddr);
            try {
              await admin.createTopic(TOPIC, QUEUES);
            } finally {
              await admin.close();
            }
            console.log(`  (ours restarted as ${variant.name} in ${ms.toFixed(0)} ms)`);
          },
        });
      });
    }
    const labels = sides.map((s) => s.label);
    let group = 0;
    for (let run = 1 - WARMUP_RUNS; run <= REPEAT; run++) {
      const shift = (((run - 1) % sides.length) + sides.length) % sides.length;
      const order = [...sides.slice(shift), ...sides.slice(0, shift)];
      const label = run < 1 ? `warm-up run ${run + WARMUP_RUNS}` : `run ${run}`;
      for (const side of order) {
        try {
          await side.activate();
          const w = await consumeWindow(side, run, `bench_pull_${process.pid}_${++group}`);
          if (run >= 1) windows.push(w);
          console.log(`${label}, ${side.label}: ${windowText(w)}`);
        } catch (error) {
          errors++;
          console.log(
            `${label}, ${side.label}: ERROR ${error instanceof Error ? error.message.split('\n').slice(0, 4).join(' | ') : String(error)}`,
          );
        }
      }
    }
    console.log('');
    console.log(`medians over ${REPEAT} run(s) (${loadText()} now):`);
    for (const line of summary(windows, labels)) console.log(line);
    console.log(
      'targets (issue 13): consume TPS ours/official >= 1.0 (aim 1.5), broker CPU per message <= official, RSS <= 150 MB',
    );
  } finally {
    for (const java of javas) await java.close();
    await ours?.close();
    await official?.close();
  }
  if (profRoot !== undefined) {
    for (const v of VARIANTS) {
      const dir = join(profRoot, v.name);
      const profile = mergedProfile(dir);
      if (profile === undefined) continue;
      console.log('');
      console.log(`our broker as ${v.name}, restart to stop of each window (${dir}):`);
      for (const line of summarizeProfile(profile, TOP)) console.log(`  ${line}`);
    }
  }
  if (errors > 0) process.exitCode = 1;
}

await main();
