/**
 * Pieces of the HA fault tests (and scripts/bench-ha.ts, and the interop pairings' own brokers): our
 * broker as a child process (`rmq broker -c <conf>` from the build this file belongs to), so that a
 * test can SIGKILL, SIGSTOP and restart it on the same store dir; the temp dir, name server and
 * producers of a fault test file; senders that keep a producer busy and record every answer; and
 * reads of a commit log from its files.
 */
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import {
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after } from 'node:test';
import { rmqCommand, spawnTracked, stopped } from '../../../scripts/bench-support.js';
import {
  createProducer,
  createPullConsumer,
  type Producer,
  type PullResult,
  PullStatus,
  type SendResult,
  SendStatus,
} from '../../../src/client/index.js';
import { decodeOffsetMsgId } from '../../../src/common/message/message-id.js';
import { quiet } from '../../unit/broker/helpers.js';
import { startLoopbackNamesrv } from './slave-support.js';

/** How long a child broker may take to print "boot success". */
export const CHILD_BOOT_TIMEOUT_MS = 30_000;
/** SIGTERM grace before SIGKILL when a child broker is stopped. */
export const CHILD_STOP_GRACE_MS = 15_000;
/** How much of a child broker's stderr logTail() gives. */
const LOG_TAIL_CHARS = 6000;

export type ConfValue = string | number | boolean;

export interface ChildBrokerOptions {
  namesrvAddr: string;
  /** storePathRootDir; kept between restarts. */
  storeDir: string;
  /** broker.conf lines (upstream key names); listenPort must be among them. */
  config: Readonly<Record<string, ConfValue>>;
  /** Flags for the child's node. */
  nodeFlags?: readonly string[];
  /** All it writes to stderr kept for logText(), for checks on its log; else only the tail. */
  keepLog?: boolean;
  /** SIGTERM grace before SIGKILL on stop() [CHILD_STOP_GRACE_MS]. */
  stopGraceMs?: number;
}

export class ChildBroker {
  private stderr = '';

  private constructor(
    private readonly child: ChildProcess,
    readonly addr: string,
    readonly options: ChildBrokerOptions,
  ) {
    child.stderr?.setEncoding('utf8').on('data', (d: string) => {
      this.stderr = options.keepLog ? this.stderr + d : (this.stderr + d).slice(-LOG_TAIL_CHARS);
    });
  }

  get pid(): number {
    return this.child.pid ?? -1;
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** What the broker wrote to stderr (warnings and errors, the default level); see keepLog. */
  logText(): string {
    return this.stderr;
  }

  /** The last lines the broker wrote to stderr, for failure messages. */
  logTail(): string {
    return this.stderr.slice(-LOG_TAIL_CHARS);
  }

  static async start(options: ChildBrokerOptions): Promise<ChildBroker> {
    const conf = `${options.storeDir}.conf`;
    mkdirSync(dirname(conf), { recursive: true });
    writeFileSync(
      conf,
      Object.entries({ brokerIP1: '127.0.0.1', brokerIP2: '127.0.0.1', ...options.config })
        .map(([k, v]) => `${k}=${String(v)}\n`)
        .join(''),
    );
    const child = spawnTracked(
      process.execPath,
      [
        ...(options.nodeFlags ?? []),
        ...rmqCommand(),
        'broker',
        '-c',
        conf,
        '-n',
        options.namesrvAddr,
        '-d',
        options.storeDir,
        '--host',
        '127.0.0.1',
      ],
      'ignore',
    );
    const broker = new ChildBroker(child, `127.0.0.1:${String(options.config.listenPort)}`, options);
    try {
      await new Promise<void>((resolve, reject) => {
        let out = '';
        const timer = setTimeout(
          () =>
            reject(
              new Error(`rmq broker: no "boot success" in ${CHILD_BOOT_TIMEOUT_MS} ms\n${broker.logTail()}`),
            ),
          CHILD_BOOT_TIMEOUT_MS,
        );
        child.stdout?.setEncoding('utf8').on('data', (d: string) => {
          out += d;
          if (out.includes('boot success')) {
            clearTimeout(timer);
            resolve();
          }
        });
        child.once('exit', (code, signal) => {
          clearTimeout(timer);
          reject(new Error(`rmq broker exited (${code ?? signal})\n${broker.logTail()}`));
        });
      });
    } catch (error) {
      child.kill('SIGKILL');
      await stopped(child, broker.stopGraceMs);
      throw error;
    }
    return broker;
  }

  private get stopGraceMs(): number {
    return this.options.stopGraceMs ?? CHILD_STOP_GRACE_MS;
  }

  /** The same broker again, on the same store dir and ports. */
  restart(): Promise<ChildBroker> {
    return ChildBroker.start(this.options);
  }

  signal(signal: NodeJS.Signals): void {
    this.child.kill(signal);
  }

  /** Resolves once the process has exited. */
  exited(): Promise<void> {
    return stopped(this.child, 2 ** 31 - 1);
  }

  /** SIGKILL: no flush, no unregister; resolves once the process is gone. */
  async kill(): Promise<void> {
    this.child.kill('SIGKILL');
    await this.exited();
  }

  /** SIGTERM (a clean shutdown), SIGKILL after the grace. A stopped process is woken first. */
  async stop(): Promise<void> {
    if (!this.running) return;
    this.child.kill('SIGCONT');
    this.child.kill('SIGTERM');
    await stopped(this.child, this.stopGraceMs);
  }
}

/**
 * What a fault test file sets up: a temp dir, and the teardown steps its tests register, run after
 * the file in reverse order (a failing one does not stop the rest), the dir removed last.
 */
export class FaultScene {
  readonly dir: string;
  private readonly cleanups: Array<() => Promise<void>> = [];

  constructor(prefix: string) {
    this.dir = mkdtempSync(join(tmpdir(), prefix));
    after(() => this.close());
  }

  onClose(cleanup: () => Promise<void>): void {
    this.cleanups.push(cleanup);
  }

  private async close(): Promise<void> {
    for (const c of this.cleanups.splice(0).reverse()) {
      try {
        await c();
      } catch {
        // Tearing down: the failure that matters was reported by the test.
      }
    }
    rmSync(this.dir, { recursive: true, force: true });
  }

  /** Our name server, shut down with the scene; resolves with its address. */
  async namesrv(name: string): Promise<string> {
    const { namesrv, addr } = await startLoopbackNamesrv(join(this.dir, name));
    this.onClose(() => namesrv.shutdown());
    return addr;
  }

  /**
   * A started producer of group `group`-<pid>, shut down with the scene. One try per message: an
   * answer is about the broker it went to, and a dead master fails fast.
   */
  async producer(namesrvAddr: string, group: string, sendMsgTimeout?: number): Promise<Producer> {
    const producer = createProducer({
      producerGroup: `${group}-${process.pid}`,
      namesrvAddr,
      logger: quiet,
      retryTimesWhenSendFailed: 0,
      ...(sendMsgTimeout === undefined ? {} : { sendMsgTimeout }),
    });
    this.onClose(() => producer.shutdown());
    await producer.start();
    return producer;
  }
}

/**
 * Sends until one is SEND_OK and `slaveHasTopic` says the slave has the topic: the topic is made on
 * the master by the first send, then reaches the slave by metadata sync; a SYNC_MASTER answers
 * SEND_OK once the slave follows.
 */
export async function untilSlaveFollows(
  producer: Producer,
  topic: string,
  slaveHasTopic: () => boolean,
  timeoutMs: number,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (let i = 0; ; i++) {
    const r = await producer.send({ topic, body: faultBody(-1 - i, 50) });
    if (r.sendStatus === SendStatus.SEND_OK && slaveHasTopic()) return;
    assert.ok(
      Date.now() < deadline,
      `no SEND_OK and topic on the slave within ${timeoutMs} ms (last: ${r.sendStatus})`,
    );
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * Every message of `topic` a pull consumer of `group` gets from queue offset 0 of each of its queues,
 * and how many queues the route gave it.
 */
export async function pullEveryQueue(
  namesrvAddr: string,
  group: string,
  topic: string,
): Promise<{ queues: number; messages: PullResult['msgFoundList'] }> {
  const consumer = createPullConsumer({
    consumerGroup: `${group}-${process.pid}`,
    namesrvAddr,
    logger: quiet,
  });
  await consumer.start();
  try {
    const queues = await consumer.fetchSubscribeMessageQueues(topic);
    const messages: PullResult['msgFoundList'] = [];
    for (const mq of queues) {
      let offset = 0n;
      for (;;) {
        const result = await consumer.pull(mq, '*', offset, 32, { timeoutMs: 10_000 });
        if (result.pullStatus !== PullStatus.FOUND) break;
        messages.push(...result.msgFoundList);
        offset = result.nextBeginOffset;
      }
    }
    return { queues: queues.length, messages };
  } finally {
    await consumer.shutdown();
  }
}

/** One answer of a sender: the send's start time, and its status or error. */
export interface SendRecord {
  index: number;
  startedAt: number;
  endedAt: number;
  status: string | undefined;
  msgId: string | undefined;
  offsetMsgId: string | undefined;
  queueId: number | undefined;
  queueOffset: bigint | undefined;
  error: string | undefined;
}

/** The record of a send answered with `r`. */
export function sendRecord(index: number, startedAt: number, r: SendResult): SendRecord {
  return {
    index,
    startedAt,
    endedAt: Date.now(),
    status: r.sendStatus,
    msgId: r.msgId,
    offsetMsgId: r.offsetMsgId,
    queueId: r.messageQueue.queueId,
    queueOffset: r.queueOffset,
    error: undefined,
  };
}

/** "index (queue q offset o, commit log c)" for the first `n` records, for failure messages. */
export function describeRecords(records: readonly SendRecord[], n = 20): string {
  const shown = records
    .slice(0, n)
    .map(
      (r) => `#${r.index} (queue ${r.queueId} offset ${r.queueOffset}, msgId ${r.msgId}, ${r.offsetMsgId})`,
    );
  return `${records.length}: ${shown.join('; ')}${records.length > n ? '; ...' : ''}`;
}

/** The commit-log offset an offsetMsgId names. */
export function commitLogOffsetOf(record: SendRecord): bigint {
  if (record.offsetMsgId === undefined) throw new Error(`message ${record.index} has no offsetMsgId`);
  return decodeOffsetMsgId(record.offsetMsgId).offset;
}

/** The body of message `index`: its number first, so that a stored body tells which send it was. */
export function faultBody(index: number, size: number): Buffer {
  const out = Buffer.alloc(Math.max(size, 16), 0x61);
  out.write(`m-${index};`);
  return out;
}

/**
 * `senders` loops each sending one message after another through `producer` until stop() is called;
 * every answer lands in `records`. stop() resolves once every loop has ended.
 */
export class SenderPool {
  readonly records: SendRecord[] = [];
  private running = true;
  private next = 0;
  private readonly loops: Promise<void>[] = [];

  constructor(
    private readonly producer: Producer,
    private readonly topic: string,
    senders: number,
    private readonly bodySize = 200,
  ) {
    for (let i = 0; i < senders; i++) this.loops.push(this.loop());
  }

  private async loop(): Promise<void> {
    while (this.running) {
      const index = this.next++;
      const startedAt = Date.now();
      try {
        const r = await this.producer.send({ topic: this.topic, body: faultBody(index, this.bodySize) });
        this.records.push(sendRecord(index, startedAt, r));
      } catch (error) {
        this.records.push({
          index,
          startedAt,
          endedAt: Date.now(),
          status: undefined,
          msgId: undefined,
          offsetMsgId: undefined,
          queueId: undefined,
          queueOffset: undefined,
          error: error instanceof Error ? error.message : String(error),
        });
      }
    }
  }

  count(status: string, startedAfter = 0): number {
    let n = 0;
    for (const r of this.records) if (r.status === status && r.startedAt > startedAfter) n++;
    return n;
  }

  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.loops);
  }
}

/** How many answers of each status (errors as `error`), for failure messages. */
export function tally(records: readonly SendRecord[]): string {
  const counts = new Map<string, number>();
  for (const r of records) {
    const k = r.status ?? 'error';
    counts.set(k, (counts.get(k) ?? 0) + 1);
  }
  return [...counts].map(([k, v]) => `${k} ${v}`).join(', ');
}

/** Bytes [from, to) of the commit log under `storeDir`, read from its files of `fileSize`. */
export function commitLogFileBytes(storeDir: string, fileSize: number, from: number, to: number): Buffer {
  const out = Buffer.alloc(to - from);
  for (let at = from; at < to; ) {
    const fileStart = at - (at % fileSize);
    const path = join(storeDir, 'commitlog', String(fileStart).padStart(20, '0'));
    const len = Math.min(to, fileStart + fileSize) - at;
    if (!existsSync(path)) throw new Error(`no commit-log file ${path} for offset ${at}`);
    const fd = openSync(path, 'r');
    try {
      const n = readSync(fd, out, at - from, len, at - fileStart);
      if (n !== len)
        throw new Error(`commit-log file ${path}: ${n} bytes at ${at - fileStart}, wanted ${len}`);
    } finally {
      closeSync(fd);
    }
    at += len;
  }
  return out;
}

/** The offset the first commit-log file under `storeDir` starts at. */
export function firstCommitLogFile(storeDir: string): number {
  const names = readdirSync(join(storeDir, 'commitlog'))
    .filter((n) => /^\d{20}$/.test(n))
    .sort();
  if (names[0] === undefined) throw new Error(`no commit-log files under ${storeDir}`);
  return Number(names[0]);
}

/** The first offset where `a` and `b` differ, or -1. */
export function firstDifference(a: Buffer, b: Buffer): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return i;
  return a.length === b.length ? -1 : n;
}
