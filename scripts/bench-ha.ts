/**
 * HA figures (issue 17): for each pairing, master and slave in their own processes on loopback, our
 * name server in this process and our producer sending from it:
 * - replication lag, bytes and ms (p50/p99), ASYNC_MASTER at 1k and 10k msgs/s and at the most 64
 *   senders manage;
 * - SYNC_MASTER vs ASYNC_MASTER send latency and throughput at 1, 16 and 64 senders;
 * - the catch-up rate of a slave restarted `--behind-mib` MiB behind;
 * - the master's CPU and RSS at the same paced load with 1 slave and with none.
 * Pairings: `ours` (our master, our slave) and `official` (official 4.9.x master and slave, the
 * reference). Lag comes from both brokers' commitLogMaxOffset (GET_BROKER_RUNTIME_INFO) polled
 * together every `--sample-ms`: bytes = master - slave; ms = how long ago the master reached the
 * slave's offset (linear between the master's samples), so its resolution is the sample period.
 *
 * npm run bench:ha -- [--pairs ours,official] [--phase-ms 4000] [--behind-mib 64] [--body 512]
 *   [--file-mib 64] [--sample-ms 20]
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { build, type Histogram } from 'hdr-histogram-js';
import { createAdmin } from '../src/admin/index.js';
import type { MQAdminExt } from '../src/admin/mq-admin-ext.js';
import { LatencyHistogram } from '../src/cli/bench/histogram.js';
import { createProducer, type Producer, SendStatus } from '../src/client/index.js';
import { createLogger } from '../src/common/logger.js';
import { createNamesrv } from '../src/namesrv/namesrv-controller.js';
import { ChildBroker } from '../test/integration/broker/ha-fault-support.js';
import { freeBrokerPort } from '../test/integration/broker/slave-support.js';
import { type BrokerHandle, startBroker } from '../test/interop/harness.js';
import { choices, integer, loadText, processCpuNs, removeOnExit, tempDir } from './bench-support.js';

const PAIRS = choices('pairs', 'ours,official', ['ours', 'official'] as const);
const PHASE_MS = integer('phase-ms', '4000', 500);
const BEHIND_MIB = integer('behind-mib', '64');
const BODY = integer('body', '512', 16);
const FILE_MIB = integer('file-mib', '64');
const SAMPLE_MS = integer('sample-ms', '20');
/** Paced rates of the lag phases, msgs/s. */
const LAG_RATES = [1000, 10_000];
const SENDERS = [1, 16, 64];
/** Senders of the paced phases. */
const PACED_SENDERS = 16;
/** Senders and body size of the fill before the catch-up (below the producer's 4 KiB compression). */
const FILL_SENDERS = 32;
const FILL_BODY = 4000;
const WARMUP_MS = 1500;
/** The official brokers' JVM: fixed heap, full JIT (the harness's set is tuned for start-up). */
const OFFICIAL_JVM = ['-server', '-Xms1g', '-Xmx1g', '-XX:MaxDirectMemorySize=1g'];
const CATCH_UP_TIMEOUT_MS = 300_000;

const quiet = createLogger('bench-ha', { level: 'silent' });
const root = tempDir('rmq-bench-ha-');

type Kind = (typeof PAIRS)[number];
type Role = 'ASYNC_MASTER' | 'SYNC_MASTER' | 'SLAVE';

interface Node {
  kind: Kind;
  addr: string;
  pid: number;
  storeDir: string;
  close(): Promise<void>;
}

function storeConfig(brokerName: string, role: Role): Record<string, string | number | boolean> {
  return {
    brokerName,
    brokerRole: role,
    brokerId: role === 'SLAVE' ? 1 : 0,
    // Read by ours only: an ASYNC_MASTER opens its HA port when it expects slaves.
    totalReplicas: 2,
    mappedFileSizeCommitLog: FILE_MIB * 1024 * 1024,
    mappedFileSizeConsumeQueue: 300_000 * 20,
    autoCreateTopicEnable: true,
  };
}

async function startNode(
  kind: Kind,
  namesrvAddr: string,
  brokerName: string,
  role: Role,
  storeDir: string,
  onPort?: (addr: string) => void,
): Promise<Node> {
  if (kind === 'ours') {
    const listenPort = await freeBrokerPort();
    onPort?.(`127.0.0.1:${listenPort}`);
    const b = await ChildBroker.start({
      namesrvAddr,
      storeDir,
      config: { ...storeConfig(brokerName, role), listenPort },
    });
    return { kind, addr: b.addr, pid: b.pid, storeDir, close: () => b.stop() };
  }
  const b: BrokerHandle = await startBroker({
    namesrvAddr,
    brokerName,
    storeDir,
    config: storeConfig(brokerName, role),
    jvmArgs: OFFICIAL_JVM,
    gracefulStopMs: 10_000,
    onSpawn: ({ port }) => onPort?.(`127.0.0.1:${port}`),
  });
  removeOnExit(b.homeDir);
  return { kind, addr: b.addr, pid: b.pid, storeDir, close: () => b.close() };
}

async function maxOffset(admin: MQAdminExt, addr: string, timeoutMs = 2000): Promise<number> {
  const info = await admin.fetchBrokerRuntimeStats(addr, { timeoutMs });
  return Number(info.get('commitLogMaxOffset') ?? Number.NaN);
}

function rssMiB(pid: number): number {
  try {
    const kib = Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? -1);
    return kib < 0 ? -1 : kib / 1024;
  } catch {
    return -1;
  }
}

function newHistogram(): Histogram {
  return build({
    bitBucketSize: 64,
    numberOfSignificantValueDigits: 3,
    autoResize: true,
    useWebAssembly: false,
  });
}

// ---------------------------------------------------------------------------------------------
// load

interface LoadResult {
  sent: number;
  statuses: Map<string, number>;
  elapsedMs: number;
  latency: LatencyHistogram;
}

/** `senders` loops for `durationMs`, each send paced to `rate` msgs/s overall when given. */
async function runLoad(
  producer: Producer,
  topic: string,
  senders: number,
  durationMs: number,
  body: Buffer,
  rate?: number,
): Promise<LoadResult> {
  const latency = new LatencyHistogram();
  const statuses = new Map<string, number>();
  const started = performance.now();
  const end = started + durationMs;
  let slot = 0;
  let sent = 0;
  const loop = async (): Promise<void> => {
    for (;;) {
      if (rate !== undefined) {
        const due = started + (slot++ * 1000) / rate;
        if (due >= end) return;
        const wait = due - performance.now();
        if (wait > 1) await new Promise((r) => setTimeout(r, wait));
      } else if (performance.now() >= end) return;
      const t0 = performance.now();
      let status: string;
      try {
        status = (await producer.send({ topic, body })).sendStatus;
        latency.recordMicros((performance.now() - t0) * 1000);
      } catch {
        status = 'error';
      }
      sent++;
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
    }
  };
  await Promise.all(Array.from({ length: senders }, loop));
  return { sent, statuses, elapsedMs: performance.now() - started, latency };
}

function statusText(r: LoadResult): string {
  const other = [...r.statuses].filter(([k]) => k !== SendStatus.SEND_OK);
  return other.length === 0 ? '' : ` [${other.map(([k, v]) => `${k} ${v}`).join(', ')}]`;
}

function loadRow(r: LoadResult): string {
  const tps = (r.sent * 1000) / r.elapsedMs;
  const ms = (p: number) => r.latency.percentileMs(p).toFixed(2);
  return `${tps.toFixed(0).padStart(7)} msg/s  RT p50 ${ms(50)} p99 ${ms(99)} p99.9 ${ms(99.9)} ms${statusText(r)}`;
}

// ---------------------------------------------------------------------------------------------
// lag

interface Sample {
  t: number;
  offset: number;
}

/**
 * Polls both brokers' commit-log end together every SAMPLE_MS until stop(); the master's samples
 * are kept for the whole run so that a slave far behind is still placed in time.
 */
class LagSampler {
  readonly master: Sample[] = [];
  readonly slave: Sample[] = [];
  private running = true;
  private readonly done: Promise<void>;

  constructor(
    private readonly admin: MQAdminExt,
    private readonly masterAddr: string,
    private readonly slaveAddr: string,
  ) {
    this.done = this.loop();
  }

  private async loop(): Promise<void> {
    while (this.running) {
      const next = performance.now() + SAMPLE_MS;
      const t0 = performance.now();
      try {
        const [m, s] = await Promise.all([
          maxOffset(this.admin, this.masterAddr),
          maxOffset(this.admin, this.slaveAddr),
        ]);
        const t = (t0 + performance.now()) / 2;
        this.master.push({ t, offset: m });
        this.slave.push({ t, offset: s });
      } catch {
        // A slow or refused answer (the official broker fails it until its stats have a sample).
      }
      const wait = next - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    }
  }

  /** Resolves once the slave's end has reached the master's (both sampled together). */
  async caughtUp(timeoutMs: number): Promise<void> {
    const deadline = performance.now() + timeoutMs;
    for (;;) {
      const m = this.master[this.master.length - 1];
      const s = this.slave[this.slave.length - 1];
      if (m !== undefined && s !== undefined && s.offset >= m.offset) return;
      if (performance.now() > deadline) throw new Error(`slave not caught up within ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, SAMPLE_MS));
    }
  }

  /** Where the next phase's samples start. */
  mark(): number {
    return this.slave.length;
  }

  /** When the master's end first reached `offset`, linear between its samples; undefined if never. */
  private reached(offset: number): number | undefined {
    let prev: Sample | undefined;
    for (const m of this.master) {
      if (m.offset >= offset) {
        if (prev === undefined) return undefined;
        if (m.offset === prev.offset) return m.t;
        return prev.t + ((offset - prev.offset) / (m.offset - prev.offset)) * (m.t - prev.t);
      }
      prev = m;
    }
    return undefined;
  }

  /** Lag over the samples since `from` (a mark()). */
  report(from: number): string {
    const bytes = newHistogram();
    const micros = newHistogram();
    for (let i = from; i < this.slave.length; i++) {
      const s = this.slave[i] as Sample;
      const m = this.master[i] as Sample;
      bytes.recordValue(Math.max(0, m.offset - s.offset));
      const at = s.offset >= m.offset ? s.t : this.reached(s.offset + 1);
      if (at !== undefined) micros.recordValue(Math.max(0, Math.round((s.t - at) * 1000)));
    }
    const kb = (p: number) => (bytes.getValueAtPercentile(p) / 1024).toFixed(1);
    const ms = (p: number) => (micros.getValueAtPercentile(p) / 1000).toFixed(1);
    return `lag p50 ${kb(50)} KiB / ${ms(50)} ms, p99 ${kb(99)} KiB / ${ms(99)} ms (${this.slave.length - from} samples)`;
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.done;
  }
}

// ---------------------------------------------------------------------------------------------
// the phases of one pairing

function print(line: string): void {
  process.stdout.write(`${line}\n`);
}

async function newProducer(namesrvAddr: string, name: string): Promise<Producer> {
  const p = createProducer({
    producerGroup: `bench-ha-${name}`,
    namesrvAddr,
    logger: quiet,
    retryTimesWhenSendFailed: 0,
  });
  await p.start();
  return p;
}

/** Sends until one send is SEND_OK (SYNC_MASTER: the slave follows; the topic exists). */
async function waitForSendOk(producer: Producer, topic: string, body: Buffer): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      if ((await producer.send({ topic, body })).sendStatus === SendStatus.SEND_OK) return;
    } catch {
      // not routed yet
    }
    if (Date.now() > deadline) throw new Error(`${topic}: no SEND_OK within 60 s`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function pairing(kind: Kind, namesrvAddr: string, admin: MQAdminExt): Promise<void> {
  const body = randomBytes(BODY);
  print(`\n## ${kind === 'ours' ? 'ours -> ours' : 'official 4.9.x -> official 4.9.x (reference)'}`);

  // ASYNC_MASTER: lag, send figures, CPU with 1 and 0 slaves, catch-up.
  const asyncName = `ha-bench-${kind}-async`;
  const masterDir = join(root, `${kind}-async-master`);
  const slaveDir = join(root, `${kind}-async-slave`);
  const master = await startNode(kind, namesrvAddr, asyncName, 'ASYNC_MASTER', masterDir);
  let slave = await startNode(kind, namesrvAddr, asyncName, 'SLAVE', slaveDir);
  const producer = await newProducer(namesrvAddr, `${kind}-async`);
  const topic = `BenchHaAsync_${kind}`;
  try {
    await waitForSendOk(producer, topic, body);
    await runLoad(producer, topic, 16, WARMUP_MS, body);
    // The official slave connects only after its first registration tells it the master (and its
    // HAClient then waits its 5 s retry): measure from a slave that follows.
    const lag = new LagSampler(admin, master.addr, slave.addr);
    const cpu: Array<{ what: string; result: LoadResult; cpuMs: number; rss: number }> = [];
    try {
      await lag.caughtUp(60_000);
      print('ASYNC_MASTER, 1 slave:');
      for (const rate of LAG_RATES) {
        const from = lag.mark();
        const cpu0 = processCpuNs(master.pid);
        const r = await runLoad(producer, topic, PACED_SENDERS, PHASE_MS, body, rate);
        const cpuMs = (processCpuNs(master.pid) - cpu0) / 1e6;
        print(`  paced ${String(rate).padStart(6)}/s: ${loadRow(r)}; ${lag.report(from)}`);
        cpu.push({ what: `${rate}/s, 1 slave`, result: r, cpuMs, rss: rssMiB(master.pid) });
      }
      for (const senders of SENDERS) {
        const from = lag.mark();
        const r = await runLoad(producer, topic, senders, PHASE_MS, body);
        print(`  ${String(senders).padStart(2)} senders: ${loadRow(r)}; ${lag.report(from)}`);
      }
    } finally {
      await lag.stop();
    }

    // No slave: the same paced load, then the fill the slave will have to catch up on.
    const slaveEnd = await maxOffset(admin, slave.addr);
    await slave.close();
    const paced = LAG_RATES[LAG_RATES.length - 1] as number;
    const cpu0 = processCpuNs(master.pid);
    const r0 = await runLoad(producer, topic, PACED_SENDERS, PHASE_MS, body, paced);
    cpu.push({
      what: `${paced}/s, 0 slaves`,
      result: r0,
      cpuMs: (processCpuNs(master.pid) - cpu0) / 1e6,
      rss: rssMiB(master.pid),
    });
    print('master CPU / RSS at the same paced load:');
    for (const c of cpu) {
      const perSec = c.cpuMs / (c.result.elapsedMs / 1000);
      const per1k = (c.cpuMs / c.result.sent) * 1000;
      print(
        `  ${c.what.padEnd(18)} ${((c.result.sent * 1000) / c.result.elapsedMs).toFixed(0).padStart(6)} msg/s  CPU ${(perSec / 10).toFixed(1)} % (${per1k.toFixed(0)} ms per 1k msgs)  RSS ${c.rss.toFixed(0)} MiB`,
      );
    }

    const target = slaveEnd + BEHIND_MIB * 1024 * 1024;
    const fillBody = randomBytes(FILL_BODY);
    const fillStarted = performance.now();
    while ((await maxOffset(admin, master.addr)) < target) {
      await runLoad(producer, topic, FILL_SENDERS, 250, fillBody);
    }
    const fillMs = performance.now() - fillStarted;
    const masterEnd = await maxOffset(admin, master.addr);
    const behind = masterEnd - slaveEnd;

    // Catch-up: from the first sample that shows progress to the master's end.
    let slaveAddr: string | undefined;
    let base: number | undefined;
    let baseSeen = 0;
    let first: Sample | undefined;
    let done: number | undefined;
    const spawned = performance.now();
    let polling = true;
    const poller = (async () => {
      while (polling && done === undefined) {
        if (slaveAddr !== undefined) {
          try {
            const offset = await maxOffset(admin, slaveAddr, 1000);
            const t = performance.now();
            // Progress counts from the offset the restarted slave recovered to (the first answer).
            // The clock starts at the last answer still at that offset.
            base ??= offset;
            if (offset === base) baseSeen = t;
            else if (first === undefined) first = { t: baseSeen, offset: base };
            if (offset >= masterEnd) done = t;
          } catch {
            // not up yet
          }
        }
        await new Promise((res) => setTimeout(res, 50));
      }
    })();
    slave = await startNode(kind, namesrvAddr, asyncName, 'SLAVE', slaveDir, (addr) => {
      slaveAddr = addr;
    });
    const catchUpDeadline = performance.now() + CATCH_UP_TIMEOUT_MS;
    while (done === undefined && performance.now() < catchUpDeadline)
      await new Promise((r) => setTimeout(r, 50));
    polling = false;
    await poller;
    const mib = behind / 1024 / 1024;
    if (done === undefined || first === undefined) {
      print(`catch-up: ${mib.toFixed(0)} MiB behind, not caught up within ${CATCH_UP_TIMEOUT_MS / 1000} s`);
    } else {
      const moved = (masterEnd - first.offset) / 1024 / 1024;
      const secs = (done - first.t) / 1000;
      print(
        `catch-up: ${mib.toFixed(0)} MiB behind (filled in ${(fillMs / 1000).toFixed(1)} s): ${moved.toFixed(0)} MiB in ${secs.toFixed(2)} s from the first progress seen = ${(moved / secs).toFixed(0)} MiB/s; caught up ${((done - spawned) / 1000).toFixed(1)} s after the slave's spawn`,
      );
    }
  } finally {
    await producer.shutdown();
    await slave.close();
    await master.close();
  }

  // SYNC_MASTER on a fresh pair.
  const syncName = `ha-bench-${kind}-sync`;
  const syncMaster = await startNode(
    kind,
    namesrvAddr,
    syncName,
    'SYNC_MASTER',
    join(root, `${kind}-sync-master`),
  );
  const syncSlave = await startNode(kind, namesrvAddr, syncName, 'SLAVE', join(root, `${kind}-sync-slave`));
  const syncProducer = await newProducer(namesrvAddr, `${kind}-sync`);
  const syncTopic = `BenchHaSync_${kind}`;
  try {
    await waitForSendOk(syncProducer, syncTopic, body);
    await runLoad(syncProducer, syncTopic, 16, WARMUP_MS, body);
    print('SYNC_MASTER, 1 slave:');
    for (const senders of SENDERS) {
      const r = await runLoad(syncProducer, syncTopic, senders, PHASE_MS, body);
      print(`  ${String(senders).padStart(2)} senders: ${loadRow(r)}`);
    }
  } finally {
    await syncProducer.shutdown();
    await syncSlave.close();
    await syncMaster.close();
  }
}

async function main(): Promise<void> {
  const started = Date.now();
  const namesrv = createNamesrv({
    listenPort: 0,
    kvConfigPath: join(root, 'ns', 'kvConfig.json'),
    logger: quiet,
    settings: { listenHost: '127.0.0.1' },
  });
  const bound = await namesrv.start();
  const namesrvAddr = `127.0.0.1:${bound.port}`;
  const admin = createAdmin({ namesrvAddr, logger: quiet });
  await admin.start();
  print(
    `# HA bench: body ${BODY} B, phases ${PHASE_MS} ms, ${FILE_MIB} MiB commit-log files, lag sampled every ${SAMPLE_MS} ms; ${loadText()}`,
  );
  try {
    for (const kind of PAIRS) await pairing(kind, namesrvAddr, admin);
  } finally {
    await admin.shutdown();
    await namesrv.shutdown();
  }
  print(`\n(${((Date.now() - started) / 1000).toFixed(0)} s; ${loadText()})`);
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
