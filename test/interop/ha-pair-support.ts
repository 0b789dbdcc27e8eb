/**
 * What the HA interop pairings share: a broker of either kind (ours as `rmq broker -c broker.conf` in a
 * child process, the official 4.9.8 one through the harness) in a master/slave role with the same
 * small commit-log files, stopped cleanly or with SIGKILL and started again on its store; the loads
 * sent to the master; and the checks, all read from the files on disk so that every pairing is
 * judged the same way: commit-log bytes over the slave's range and consume-queue entries by queue
 * offset. Also the frame-by-frame comparison of a slave's refusals with the official slave's.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, readSync } from 'node:fs';
import { join } from 'node:path';
import type { MQAdminExt } from '../../src/admin/index.js';
import type { Producer } from '../../src/client/index.js';
import type { RemotingCommand } from '../../src/remoting/protocol/command.js';
import { ChildBroker, commitLogFileBytes } from '../integration/broker/ha-fault-support.js';
import type { Refusal } from '../integration/broker/slave-support.js';
import { type BrokerHandle, freeBrokerPorts, startBroker } from './harness.js';

/**
 * The same on both sides: records and each file's closing BLANK are laid out for one file size
 * (upstream's slave does not check it; ours refuses bytes laid out for another).
 */
export const FILE_SIZE = 1024 * 1024;
export const CQ_FILE_SIZE = 30_000 * 20;
const CQ_UNIT = 20;
/** Upstream ConsumeQueue.fillPreBlank's filler size: entries before a queue's first one on this store. */
const CQ_BLANK_SIZE = 0x7fffffff;
/** How long a clean stop may take before SIGKILL (upstream's shutdown alone pauses 3 s). */
const STOP_GRACE_MS = 30_000;
/** How long a broker may take to appear in the name server after its start. */
const REGISTRATION_TIMEOUT_MS = 30_000;
/** How long a broker's runtime info may fail after its start. */
const RUNTIME_INFO_TIMEOUT_MS = 10_000;
/** Poll period of every wait here. */
const POLL_MS = 100;

export type BrokerKind = 'ours' | 'official';
export type HaRole = 'ASYNC_MASTER' | 'SLAVE';

export interface HaBrokerSpec {
  kind: BrokerKind;
  role: HaRole;
  brokerName: string;
  namesrvAddr: string;
  storeDir: string;
}

/** One broker process of a pairing. */
export interface HaBroker {
  readonly spec: HaBrokerSpec;
  readonly addr: string;
  /** What it has logged (the official broker.log, our stderr lines). */
  logText(): string;
  /** The last lines of its logs, for failure messages. */
  logTail(): string;
  /** SIGKILL; resolves once it is gone. */
  kill(): Promise<void>;
  /** A clean shutdown (SIGTERM: flush, checkpoint, unregister), SIGKILL after a grace. */
  stop(): Promise<void>;
}

function haConfig(spec: HaBrokerSpec): Record<string, string | number | boolean> {
  return {
    brokerRole: spec.role,
    brokerId: spec.role === 'SLAVE' ? 1 : 0,
    mappedFileSizeCommitLog: FILE_SIZE,
    mappedFileSizeConsumeQueue: CQ_FILE_SIZE,
    // The official slave reports once per heartbeat interval (also its first report); 1 s makes
    // catch-up visible sooner. Ours reports at once and after each append, whatever this says.
    haSendHeartbeatInterval: 1000,
    // Every read counts as behind (ratio 0): the master sends consumers to the slave, which keeps them.
    slaveReadEnable: true,
    accessMessageInMemoryMaxRatio: 0,
  };
}

/** Starts a broker of `spec.kind` on fresh ports and waits until the name server lists it. */
export async function startHaBroker(spec: HaBrokerSpec, admin: MQAdminExt): Promise<HaBroker> {
  const broker = spec.kind === 'official' ? await startOfficial(spec) : await startOurs(spec);
  const deadline = Date.now() + REGISTRATION_TIMEOUT_MS;
  for (;;) {
    try {
      const info = await admin.examineBrokerClusterInfo();
      const ids = info.brokerAddrTable.get(spec.brokerName)?.brokerAddrs;
      if (ids !== undefined && [...ids.values()].includes(broker.addr)) return broker;
    } catch {
      // The name server answers once the first broker has registered.
    }
    if (Date.now() > deadline) {
      await broker.kill();
      assert.fail(`${spec.kind} ${spec.role} ${broker.addr} never registered\n${broker.logTail()}`);
    }
    await pause();
  }
}

async function startOfficial(spec: HaBrokerSpec): Promise<HaBroker> {
  mkdirSync(spec.storeDir, { recursive: true });
  const handle: BrokerHandle = await startBroker({
    namesrvAddr: spec.namesrvAddr,
    brokerName: spec.brokerName,
    storeDir: spec.storeDir,
    gracefulStopMs: STOP_GRACE_MS,
    config: haConfig(spec),
  });
  // The harness's logback file for 4.9.x: everything at INFO.
  const logFile = join(handle.homeDir, 'logs', 'broker.log');
  return {
    spec,
    addr: handle.addr,
    logText: () => (existsSync(logFile) ? readFileSync(logFile, 'utf8') : ''),
    logTail: () => handle.logTail(60),
    kill: async () => {
      try {
        // The JVM leads its own process group (the harness starts it detached).
        process.kill(-handle.pid, 'SIGKILL');
      } catch {
        // already gone
      }
      await handle.close();
    },
    stop: () => handle.close(),
  };
}

async function startOurs(spec: HaBrokerSpec): Promise<HaBroker> {
  const { port } = await freeBrokerPorts();
  const broker = await ChildBroker.start({
    namesrvAddr: spec.namesrvAddr,
    storeDir: spec.storeDir,
    config: {
      brokerClusterName: 'DefaultCluster',
      brokerName: spec.brokerName,
      listenPort: port,
      autoCreateTopicEnable: true,
      ...haConfig(spec),
      // Ours only (the official broker has neither key): an ASYNC_MASTER expecting a slave, and
      // upstream's unsigned HA wire, which official slaves and masters speak.
      totalReplicas: 2,
      haAuthMode: 'plain',
    },
    // The checks read the whole log: a "Sync... Exception" is an error line.
    keepLog: true,
    stopGraceMs: STOP_GRACE_MS,
  });
  return {
    spec,
    addr: broker.addr,
    logText: () => broker.logText(),
    logTail: () => broker.logTail(),
    kill: () => broker.kill(),
    stop: () => broker.stop(),
  };
}

// ---------------------------------------------------------------------------------------------
// waits

export function pause(ms = POLL_MS): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Polls `probe` until it holds; fails with `what()` after `timeoutMs`. */
export async function waitFor(
  probe: () => boolean | Promise<boolean>,
  what: () => string,
  timeoutMs: number,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    let ok = false;
    try {
      ok = await probe();
    } catch {
      // A file or a broker not there yet: try again until the deadline.
    }
    if (ok) return;
    if (Date.now() > deadline) assert.fail(`not within ${timeoutMs} ms: ${what()}`);
    await pause();
  }
}

// ---------------------------------------------------------------------------------------------
// what a broker holds

export interface PhyRange {
  /** First commit-log offset (-1 for none). */
  min: number;
  max: number;
}

/**
 * The commit log's range as the broker reports it (GET_BROKER_RUNTIME_INFO). The official broker
 * answers with an error (NoSuchElementException) until its stats service has taken its first sample,
 * a second or so after start: asked again until RUNTIME_INFO_TIMEOUT_MS.
 */
export async function phyRange(admin: MQAdminExt, addr: string): Promise<PhyRange> {
  const deadline = Date.now() + RUNTIME_INFO_TIMEOUT_MS;
  for (;;) {
    try {
      const stats = await admin.fetchBrokerRuntimeStats(addr);
      return {
        min: Number(stats.get('commitLogMinOffset') ?? Number.NaN),
        max: Number(stats.get('commitLogMaxOffset') ?? Number.NaN),
      };
    } catch (error) {
      if (Date.now() > deadline) throw error;
    }
    await pause();
  }
}

/** Bytes [from, to) of the commit log in `storeDir`, read from its files. */
export function diskBytes(storeDir: string, from: number, to: number): Buffer {
  return commitLogFileBytes(storeDir, FILE_SIZE, from, to);
}

export interface CqEntry {
  commitLogOffset: bigint;
  size: number;
  tagsCode: bigint;
}

/** The entries of a consume queue on disk by queue offset, without the blanks before its first. */
export function diskQueue(storeDir: string, topic: string, queueId: number): Map<number, CqEntry> {
  const qdir = join(storeDir, 'consumequeue', topic, String(queueId));
  const entries = new Map<number, CqEntry>();
  if (!existsSync(qdir)) return entries;
  for (const name of readdirSync(qdir).sort()) {
    const base = Number(name);
    const buf = Buffer.alloc(CQ_FILE_SIZE);
    const fd = openSync(join(qdir, name), 'r');
    let n: number;
    try {
      n = readSync(fd, buf, 0, buf.length, 0);
    } finally {
      closeSync(fd);
    }
    for (let p = 0; p + CQ_UNIT <= n; p += CQ_UNIT) {
      const commitLogOffset = buf.readBigInt64BE(p);
      const size = buf.readInt32BE(p + 8);
      if (size === 0 && commitLogOffset === 0n) return entries;
      if (size === CQ_BLANK_SIZE && commitLogOffset === 0n) continue;
      entries.set((base + p) / CQ_UNIT, { commitLogOffset, size, tagsCode: buf.readBigInt64BE(p + 12) });
    }
  }
  return entries;
}

/** Every queue's entries of `topic` on disk. */
export function diskQueues(storeDir: string, topic: string, queues: number): Array<Map<number, CqEntry>> {
  return Array.from({ length: queues }, (_, q) => diskQueue(storeDir, topic, q));
}

// ---------------------------------------------------------------------------------------------
// loads

/** A body of `size` bytes: random, so that equal bytes are not an accident of the filler. */
function body(size: number): Buffer {
  return randomBytes(size);
}

/**
 * Step `i` of the mixed load: a batch of three small bodies every sixth step, else one body, above
 * one 32 KiB HA frame on even steps. Resolves with the number of messages stored.
 */
async function mixedStep(producer: Producer, topic: string, i: number): Promise<number> {
  if (i % 6 === 5) {
    await producer.send([
      { topic, body: body(300), keys: [`b${i}`] },
      { topic, body: body(500) },
      { topic, body: body(700) },
    ]);
    return 3;
  }
  await producer.send({ topic, body: body(i % 2 === 0 ? 48 * 1024 : 900), keys: [`k${i}`] });
  return 1;
}

/** `steps` steps of the mixed load, one after another; resolves with the number of messages stored. */
export async function mixedLoad(producer: Producer, topic: string, steps: number): Promise<number> {
  let count = 0;
  for (let i = 0; i < steps; i++) count += await mixedStep(producer, topic, i);
  return count;
}

/**
 * The mixed load kept going in the background at a steady pace until stop(): a slave restarted
 * meanwhile has a stream to rejoin, and the commit log does not fill the disk while a JVM starts.
 */
export class BackgroundLoad {
  /** ms between steps: about 0.5 MiB/s with the mixed sizes. */
  static readonly PACE_MS = 40;
  /** Messages acknowledged. */
  sent = 0;
  /** Sends that failed (the replication checks read the master's files, not this count). */
  failed = 0;
  private running = true;
  private readonly loop: Promise<void>;

  constructor(
    private readonly producer: Producer,
    private readonly topic: string,
  ) {
    this.loop = this.run();
  }

  private async run(): Promise<void> {
    for (let i = 0; this.running; i++) {
      try {
        this.sent += await mixedStep(this.producer, this.topic, i);
      } catch {
        this.failed++;
      }
      await pause(BackgroundLoad.PACE_MS);
    }
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.loop;
  }
}

// ---------------------------------------------------------------------------------------------
// refusals

/**
 * A slave's refusal against the official slave's for the same request: code, header fields, body and
 * remark (exact, or both matching the pattern where the text holds a figure of the host).
 */
export function assertSameRefusal(refusal: Refusal, official: RemotingCommand, ours: RemotingCommand): void {
  assert.equal(official.code, refusal.code, `${refusal.what}: official ${official.remark}`);
  assert.equal(ours.code, official.code, refusal.what);
  assert.deepEqual(ours.extFields ?? {}, official.extFields ?? {}, `${refusal.what}: header fields`);
  assert.equal(ours.body, official.body, `${refusal.what}: no body`);
  if (refusal.remark instanceof RegExp) {
    assert.match(official.remark ?? '', refusal.remark, refusal.what);
    assert.match(ours.remark ?? '', refusal.remark, refusal.what);
  } else {
    assert.equal(official.remark ?? null, refusal.remark, refusal.what);
    assert.equal(ours.remark ?? null, official.remark ?? null, refusal.what);
  }
}
