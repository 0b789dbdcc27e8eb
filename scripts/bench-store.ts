/**
 * Commit-log rates against the raw disk of this machine, measured in the same run: appends of 1 KiB
 * messages with ASYNC_FLUSH and SYNC_FLUSH from 1, 16 and 64 concurrent appenders, and the
 * abnormal-recovery scan rate (as configured by default, and without the CRC worker thread for
 * comparison). Prints figures; it is not a test.
 *
 * The raw disk is measured right before and after each case doing the I/O the commit log has to do,
 * so the ratio is the store's own cost (this machine's disk and page cache swing several-fold between
 * minutes); the faster of the two raw runs counts:
 * - ASYNC_FLUSH: the rate of acknowledged appends (an ASYNC_FLUSH broker acks once the write ended)
 *   against the same bytes written with the commit log's write size (one append per appender per
 *   turn; the run prints the size counted at the file layer) and one fdatasync at the end. The acks
 *   wait for no fdatasync, so this ratio moves with the disk's flush speed: each line prints the
 *   fdatasync's share of the raw time (the rest is the kernel's copy into the page cache, which the
 *   store pays too, on top of its CPU work: body CRC, encoding, acknowledgements);
 * - SYNC_FLUSH: against a loop writing what one group commit covers (one append per appender) and
 *   fdatasyncing each, for the same time.
 * Every case also shows the ratio to sequential 1 MiB writes with one fdatasync (the old reference:
 * no store reaches it with 1 KiB messages from at most 64 waiting appenders, whose writes are at most
 * 64 records, and under SYNC_FLUSH at most 64 records per fdatasync).
 *
 *   node <build>/scripts/bench-store.js [--mib N] [--sync-seconds S] [--rounds R] [--write-mode sync|async]
 *     [--dir D] [--cases async,sync,pull] [--official]
 *   (the recovery scans read the store of the last ASYNC 64 run)
 *
 * --official also runs the official 4.9.x DefaultMessageStore (interop StoreBench, one JVM per run) on
 * the same messages right after each ASYNC and SYNC run of ours, with the same appenders (threads
 * calling the synchronous putMessage, the broker's send path) and size, prints
 * `official <msgs/s> <MB/s> -> ours/official <ratio>` under the case, and the medians in the summary.
 * That store runs as in a broker, so its reput thread also builds the consume queues and the index
 * while it appends; it is compared with our whole DefaultMessageStore under the same load (run just
 * before it), not with the bare commit log of the line above. It needs Java and the interop build
 * (`node scripts/interop-prepare.mjs`); without them the run says so in one line and skips it.
 *
 * The pull case stores 16 MiB in 8 queues and reads all of it back 32 messages per pull, as a consumer
 * that keeps up does, with the commit log's tail cache on (the default) and off, in the same run.
 */
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { HostAddress } from '../src/common/message/host.js';
import { storedRecordSize } from '../src/common/message/stored-format.js';
import { tagsString2tagsCode } from '../src/common/message/tag-hash.js';
import { CommitLog, type MessageExtBrokerInner } from '../src/store/commit-log.js';
import { type FlushDiskType, messageStoreConfig } from '../src/store/config.js';
import { DefaultMessageStore } from '../src/store/default-message-store.js';
import type { DispatchRequest } from '../src/store/dispatch-request.js';
import { type FileIO, nodeFileIO } from '../src/store/file-io.js';
import { GetMessageStatus } from '../src/store/message-store.js';
import type { PutMessageResult } from '../src/store/put-message-result.js';
import { javaSetup } from '../test/interop/harness.js';

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? (process.argv[i + 1] ?? fallback) : fallback;
}

const TOTAL_MIB = Number(arg('mib', '256'));
const SYNC_SECONDS = Number(arg('sync-seconds', '3'));
const ROUNDS = Math.max(1, Number(arg('rounds', '2')));
const WRITE_MODE = arg('write-mode', 'sync') === 'async' ? 'async' : 'sync';
const BASE_DIR = arg('dir', tmpdir());
const CASES = new Set(arg('cases', 'async,sync,pull').split(','));
const OFFICIAL = process.argv.includes('--official');

const STORE_HOST: HostAddress = { address: '10.0.0.1', port: 10911 };
const BORN_HOST: HostAddress = { address: '10.0.0.2', port: 50000 };
const BODY = Buffer.alloc(1024, 0x61);
const PROPS = 'TAGS\u0001TagA\u0002KEYS\u0001key\u0002UNIQ_KEY\u00017F0000010001000000000000000000';
const TAGS_CODE = tagsString2tagsCode('TagA');
const RECORD_SIZE = storedRecordSize(
  0,
  BODY.length,
  Buffer.byteLength('BenchTopic'),
  Buffer.byteLength(PROPS),
);

function message(queueId: number): MessageExtBrokerInner {
  return {
    topic: 'BenchTopic',
    queueId,
    flag: 0,
    body: BODY,
    propertiesString: PROPS,
    tagsCode: TAGS_CODE,
    sysFlag: 0,
    bornTimestamp: 1_700_000_000_000n,
    bornHost: BORN_HOST,
    storeHost: STORE_HOST,
    reconsumeTimes: 0,
    preparedTransactionOffset: 0n,
  };
}

function freshDir(name: string): string {
  return fs.mkdtempSync(join(BASE_DIR, `rmq-bench-${name}-`));
}

/** The store's file calls, counting the writes (a turn's write is one call unless it is short). */
class CountingIO implements FileIO {
  writes = 0;
  openSync = nodeFileIO.openSync;
  closeSync = nodeFileIO.closeSync;
  ftruncateSync = nodeFileIO.ftruncateSync;
  fsyncSync = nodeFileIO.fsyncSync;
  fdatasyncSync = nodeFileIO.fdatasyncSync;
  fdatasync = nodeFileIO.fdatasync;
  readSync = nodeFileIO.readSync;
  fstatSync = nodeFileIO.fstatSync;
  unlinkSync = nodeFileIO.unlinkSync;
  writeSync(fd: number, buffer: Buffer, offset: number, length: number, position: number): number {
    this.writes++;
    return nodeFileIO.writeSync(fd, buffer, offset, length, position);
  }
  write(...args: Parameters<FileIO['write']>): void {
    this.writes++;
    nodeFileIO.write(...args);
  }
}

interface Figures {
  bytes: number;
  seconds: number;
  /** Of `seconds`, the final fdatasync (raw runs). */
  syncSeconds?: number;
}

const mbps = (f: Figures): number => f.bytes / 1e6 / f.seconds;

/** `totalBytes` written sequentially in writes of `chunk` bytes, then one fdatasync. */
function rawDisk(totalBytes: number, chunk: number): Figures {
  const dir = freshDir('raw');
  const fd = fs.openSync(join(dir, 'raw'), 'w');
  const buf = Buffer.alloc(chunk, 0x62);
  const started = performance.now();
  for (let written = 0; written < totalBytes; written += chunk) {
    fs.writeSync(fd, buf, 0, Math.min(chunk, totalBytes - written), written);
  }
  const syncStarted = performance.now();
  fs.fdatasyncSync(fd);
  const ended = performance.now();
  fs.closeSync(fd);
  fs.rmSync(dir, { recursive: true, force: true });
  return { bytes: totalBytes, seconds: (ended - started) / 1000, syncSeconds: (ended - syncStarted) / 1000 };
}

/** Writes `chunk` bytes + fdatasync in a loop for `seconds`: the disk when every write must be durable. */
function rawSyncLoop(chunk: number, seconds: number): Figures & { syncs: number } {
  const dir = freshDir('rawsync');
  const fd = fs.openSync(join(dir, 'raw'), 'w');
  const buf = Buffer.alloc(chunk, 0x63);
  let bytes = 0;
  let syncs = 0;
  const started = performance.now();
  while (performance.now() - started < seconds * 1000) {
    fs.writeSync(fd, buf, 0, chunk, bytes);
    fs.fdatasyncSync(fd);
    bytes += chunk;
    syncs++;
  }
  const elapsed = (performance.now() - started) / 1000;
  fs.closeSync(fd);
  fs.rmSync(dir, { recursive: true, force: true });
  return { bytes, seconds: elapsed, syncs };
}

interface StoreRun {
  msgs: number;
  /** Until the last acknowledgement. */
  acked: Figures;
  /** Until a flush after the last acknowledgement ended. */
  durable: Figures;
  writes: number;
  syncs: number;
  dir: string;
}

/** `concurrency` appenders putting up to `perAppender` messages each, each waiting for its ack. */
async function timedAppends(
  put: (m: MessageExtBrokerInner) => Promise<PutMessageResult>,
  concurrency: number,
  perAppender: number,
  maxSeconds: number,
): Promise<{ msgs: number; bytes: number }> {
  let msgs = 0;
  let bytes = 0;
  const deadline = performance.now() + maxSeconds * 1000;
  const loop = async (id: number): Promise<void> => {
    const m = message(id % 8);
    for (let i = 0; i < perAppender; i++) {
      // A fresh object per message, as the broker builds one per request.
      const r = await put({ ...m });
      if (r.putMessageStatus !== 'PUT_OK') throw new Error(`append failed: ${r.putMessageStatus}`);
      msgs++;
      bytes += r.appendMessageResult?.wroteBytes ?? 0;
      if ((i & 63) === 0 && performance.now() > deadline) break;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, (_, i) => loop(i)));
  return { msgs, bytes };
}

/**
 * Our whole store (commit log, consume queues and index built as each write ends) under the same load:
 * what the official DefaultMessageStore does in StoreBench, so the two compare like for like. msgs/s.
 */
async function wholeStoreRate(
  flushDiskType: FlushDiskType,
  concurrency: number,
  totalBytes: number,
  maxSeconds: number,
): Promise<number> {
  const dir = freshDir('whole');
  const store = new DefaultMessageStore(messageStoreConfig({ storePathRootDir: dir, flushDiskType }));
  await store.load();
  await store.start();
  // Warm-up, as StoreBench does.
  await timedAppends((m) => store.putMessage(m), concurrency, Math.ceil(10_000 / concurrency), 2);
  const started = performance.now();
  const perAppender = Math.ceil(totalBytes / RECORD_SIZE / concurrency);
  const { msgs } = await timedAppends((m) => store.putMessage(m), concurrency, perAppender, maxSeconds);
  const seconds = (performance.now() - started) / 1000;
  await store.shutdown();
  fs.rmSync(dir, { recursive: true, force: true });
  return msgs / seconds;
}

async function appenders(
  flushDiskType: FlushDiskType,
  concurrency: number,
  totalBytes: number,
  maxSeconds: number,
  keep: boolean,
): Promise<StoreRun> {
  const dir = freshDir(flushDiskType === 'SYNC_FLUSH' ? 'sync' : 'async');
  const io = new CountingIO();
  const cl = new CommitLog(messageStoreConfig({ storePathRootDir: dir, flushDiskType }), {
    writeMode: WRITE_MODE,
    io,
  });
  cl.recoverNormally();
  cl.start();
  const recordSize = (await cl.putMessage(message(0))).appendMessageResult?.wroteBytes ?? 1;
  await cl.flush();
  const writesBefore = io.writes;
  const syncsBefore = cl.groupCommitSyncCount;
  const perAppender = Math.ceil(totalBytes / recordSize / concurrency);
  const started = performance.now();
  const { msgs, bytes } = await timedAppends((m) => cl.putMessage(m), concurrency, perAppender, maxSeconds);
  const ackedAt = performance.now();
  await cl.flush();
  const durableAt = performance.now();
  const writes = io.writes - writesBefore;
  const syncs = cl.groupCommitSyncCount - syncsBefore;
  await cl.shutdown();
  if (!keep) fs.rmSync(dir, { recursive: true, force: true });
  return {
    msgs,
    acked: { bytes, seconds: (ackedAt - started) / 1000 },
    durable: { bytes, seconds: (durableAt - started) / 1000 },
    writes,
    syncs,
    dir,
  };
}

/** Best of three scans: abnormal recovery with a (no-op) dispatcher, or normal recovery's validate-only scan. */
async function recoveryScan(
  dir: string,
  dispatch: boolean,
  crcWorker: boolean,
): Promise<{ bytes: number; seconds: number; records: number; runs: number[] }> {
  let best = { bytes: 0, seconds: Number.POSITIVE_INFINITY, records: 0 };
  const runs: number[] = [];
  for (let round = 0; round < 3; round++) {
    const cl = new CommitLog(
      messageStoreConfig({ storePathRootDir: dir }),
      crcWorker ? {} : { parallelCrcMinBytes: Number.POSITIVE_INFINITY },
    );
    let records = 0;
    if (dispatch) {
      cl.addDispatcher({
        dispatch(_r: DispatchRequest) {
          records++;
        },
      });
    }
    cl.load();
    const started = performance.now();
    // Normal recovery scans the last three files; with one file both scan all of it.
    const result = dispatch ? cl.recoverAbnormally() : cl.recoverNormally();
    const seconds = (performance.now() - started) / 1000;
    await cl.shutdown({ flush: false });
    runs.push(result.scannedBytes / 1e9 / seconds);
    if (seconds < best.seconds) best = { bytes: result.scannedBytes, seconds, records };
  }
  return { ...best, runs };
}

/** Pulls of 32 over the newest 16 MiB of 8 queues: msgs/s, best of three passes. */
async function pullRate(tailCacheBytes: number): Promise<{ msgsPerSecond: number; mbps: number }> {
  const dir = freshDir('pull');
  const store = new DefaultMessageStore(
    messageStoreConfig({ storePathRootDir: dir, commitLogTailCacheBytes: tailCacheBytes }),
  );
  await store.load();
  await store.start();
  const total = 16 * 1024;
  // A consumer that keeps up reads the newest messages: its first read wakes the tail cache, which
  // holds nothing that nobody reads (that first message comes from the file).
  await store.putMessage(message(0));
  store.getMessageSync('BenchGroup', 'BenchTopic', 0, 0n, 1);
  const puts: Promise<unknown>[] = [];
  for (let i = 1; i < total; i++) {
    puts.push(store.putMessage(message(i % 8)));
    if (puts.length === 64) await Promise.all(puts.splice(0));
  }
  await Promise.all(puts);
  while (store.getMaxOffsetInQueue('BenchTopic', 7) < BigInt(total / 8)) await new Promise(setImmediate);
  let best = { msgsPerSecond: 0, mbps: 0 };
  for (let pass = 0; pass < 3; pass++) {
    let msgs = 0;
    let bytes = 0;
    const started = performance.now();
    for (let q = 0; q < 8; q++) {
      let offset = 0n;
      for (;;) {
        const r = store.getMessageSync('BenchGroup', 'BenchTopic', q, offset, 32);
        if (r.status !== GetMessageStatus.FOUND) break;
        msgs += r.messages.length;
        bytes += r.bufferTotalSize;
        offset = r.nextBeginOffset;
      }
    }
    const seconds = (performance.now() - started) / 1000;
    if (msgs / seconds > best.msgsPerSecond)
      best = { msgsPerSecond: msgs / seconds, mbps: bytes / 1e6 / seconds };
  }
  await store.shutdown();
  fs.rmSync(dir, { recursive: true, force: true });
  return best;
}

const fmt = (n: number, digits = 1, width = 7): string => n.toFixed(digits).padStart(width);
const ratio = (a: Figures, b: Figures): string => (mbps(a) / mbps(b)).toFixed(2);
const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  // An even count takes the mean of the middle two (the lower one alone made 2 rounds report their minimum).
  return s.length % 2 === 1 ? s[mid]! : s.length === 0 ? Number.NaN : (s[mid - 1]! + s[mid]!) / 2;
};
/** The share of a raw run spent in its final fdatasync: the disk, where the rest is the CPU's copy. */
const syncShare = (f: Figures): string => `${Math.round((100 * (f.syncSeconds ?? 0)) / f.seconds)} %`;

// Upstream runbroker.sh's G1 settings with the heap cut to 1 GiB (fixed, pre-touched, so heap growth is
// not timed), and the harness's disk-use ratios so a fuller disk does not make the store refuse appends.
// Full JIT (no TieredStopAtLevel=1 as in the interop tests): this measures a rate.
const OFFICIAL_JVM = [
  '-server',
  '-Xms1g',
  '-Xmx1g',
  '-XX:MaxDirectMemorySize=1g',
  '-XX:+UseG1GC',
  '-XX:G1HeapRegionSize=16m',
  '-XX:G1ReservePercent=25',
  '-XX:InitiatingHeapOccupancyPercent=30',
  '-XX:SoftRefLRUPolicyMSPerMB=0',
  '-XX:-OmitStackTraceInFastThrow',
  '-XX:+AlwaysPreTouch',
  '-Drocketmq.broker.diskSpaceWarningLevelRatio=0.99',
  '-Drocketmq.broker.diskSpaceCleanForciblyRatio=0.99',
];

/** The java command line up to StoreBench's arguments, or why the official store cannot run here. */
function officialCommand(): string[] | string {
  const probe = spawnSync('java', ['-version'], { stdio: 'ignore' });
  if (probe.error !== undefined || probe.status !== 0) return 'no working `java` on PATH';
  let setup: ReturnType<typeof javaSetup>;
  try {
    setup = javaSetup();
  } catch {
    return 'interop/target is not built';
  }
  const classes = setup.classpath.split(':')[0] ?? '';
  if (!fs.existsSync(join(classes, 'org', 'rocketmqts', 'interop', 'StoreBench.class')))
    return 'interop/target was built before StoreBench existed';
  // ParentWatchdog ends the JVM (its shutdown hook removes the store) if this process dies mid-run.
  return [
    ...setup.javaOpts,
    ...OFFICIAL_JVM,
    '-cp',
    setup.classpath,
    'org.rocketmqts.interop.ParentWatchdog',
    'org.rocketmqts.interop.StoreBench',
  ];
}

interface OfficialRun {
  msgs: number;
  seconds: number;
  msgsPerSecond: number;
  mbPerSecond: number;
  busyRetries?: number;
}

function isOfficialRun(v: unknown): v is OfficialRun {
  if (typeof v !== 'object' || v === null) return false;
  const o = v as Record<string, unknown>;
  return ['msgs', 'seconds', 'msgsPerSecond', 'mbPerSecond'].every((k) => typeof o[k] === 'number');
}

/** One StoreBench JVM: `amount` is MiB for async, seconds for sync. */
function runOfficial(
  command: string[],
  mode: 'async' | 'sync',
  concurrency: number,
  amount: number,
): Promise<OfficialRun> {
  const child = spawn('java', [...command, mode, String(concurrency), String(amount), BASE_DIR], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => {
    stdout += d;
  });
  child.stderr.setEncoding('utf8').on('data', (d: string) => {
    stderr = (stderr + d).slice(-4000);
  });
  // JVM start, warm-up and the store's shutdown (a fixed 1 s pause) come on top of the timed part.
  const timeoutMs = ((mode === 'async' ? 60 : amount) + 120) * 1000;
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  return new Promise((resolve, reject) => {
    child.once('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      const line = stdout.split('\n').find((l) => l.startsWith('{'));
      let parsed: unknown;
      try {
        parsed = line === undefined ? undefined : JSON.parse(line);
      } catch {
        parsed = undefined;
      }
      if (code === 0 && isOfficialRun(parsed)) resolve(parsed);
      else
        reject(
          new Error(`StoreBench exit ${code ?? signal}: ${stderr.trim().split('\n').slice(-3).join(' | ')}`),
        );
    });
  });
}

/**
 * Our whole store, then the official one, under the same load: their line, and ours / official in
 * msgs/s (NaN if the official run failed).
 */
async function compareOfficial(
  command: string[] | undefined,
  mode: 'async' | 'sync',
  concurrency: number,
  amount: number,
): Promise<{ ratio: number; line: string } | undefined> {
  if (command === undefined) return undefined;
  const ourMsgsPerSecond = await wholeStoreRate(
    mode === 'async' ? 'ASYNC_FLUSH' : 'SYNC_FLUSH',
    concurrency,
    mode === 'async' ? amount * 1024 * 1024 : Number.POSITIVE_INFINITY,
    mode === 'async' ? 60 : amount,
  );
  try {
    const o = await runOfficial(command, mode, concurrency, amount);
    const ratio = ourMsgsPerSecond / o.msgsPerSecond;
    const busy = o.busyRetries === undefined ? '' : ` (${o.busyRetries} OS_PAGECACHE_BUSY retried)`;
    return {
      ratio,
      line:
        `  whole store (commit log + consume queues + index): ours ${fmt(ourMsgsPerSecond, 0, 9)} msgs/s, ` +
        `official 4.9.x ${fmt(o.msgsPerSecond, 0, 9)} msgs/s ${fmt(o.mbPerSecond)} MB/s -> ours/official ` +
        `${ratio.toFixed(2)}${busy}`,
    };
  } catch (e) {
    return { ratio: Number.NaN, line: `  official failed: ${e instanceof Error ? e.message : String(e)}` };
  }
}

async function main(): Promise<void> {
  const total = TOTAL_MIB * 1024 * 1024;
  console.log(
    `commit log bench: 1 KiB bodies, ${TOTAL_MIB} MiB per ASYNC run, SYNC runs ${SYNC_SECONDS} s, ${ROUNDS} round(s) ` +
      `per case, write mode ${WRITE_MODE}, dir ${BASE_DIR}`,
  );
  const seqRuns = [0, 1, 2].map(() => rawDisk(total, 1024 * 1024));
  const seq = [...seqRuns].sort((a, b) => a.seconds - b.seconds)[1]!;
  console.log(
    `raw sequential (1 MiB writes, one fdatasync at the end), median of 3: ${fmt(mbps(seq))} MB/s ` +
      `(runs ${seqRuns.map((r) => mbps(r).toFixed(0)).join(', ')})`,
  );
  const summary: string[] = [];
  let official: string[] | undefined;
  if (OFFICIAL) {
    const command = officialCommand();
    if (typeof command === 'string') {
      console.log(
        `--official skipped: ${command}; prepare it with \`node scripts/interop-prepare.mjs\` ` +
          '(needs Java 8+ and Maven; downloads the 4.9.x jars into interop/.m2)',
      );
    } else {
      official = command;
      console.log(`official: 4.9.x DefaultMessageStore, java ${OFFICIAL_JVM.join(' ')}`);
    }
  }
  let scanDir: string | undefined;
  // With every appender waiting for its ack, a turn holds one append per appender: the commit log's
  // write size is `appenders x record` (the run prints the size it measured). The raw runs use that size
  // and are measured right before and right after each store run; the ratio is to the faster of the two.
  for (const c of CASES.has('async') ? [1, 16, 64] : []) {
    const ratios: number[] = [];
    const officialRatios: number[] = [];
    const chunk = c * RECORD_SIZE;
    const rawBytes = Math.floor(total / chunk) * chunk;
    for (let round = 0; round < ROUNDS; round++) {
      const keep = c === 64 && round === ROUNDS - 1;
      const before = rawDisk(rawBytes, chunk);
      const r = await appenders('ASYNC_FLUSH', c, total, 60, keep);
      const o = await compareOfficial(official, 'async', c, TOTAL_MIB);
      const after = rawDisk(rawBytes, chunk);
      if (keep) scanDir = r.dir;
      const raw = mbps(before) > mbps(after) ? before : after;
      ratios.push(mbps(r.acked) / mbps(raw));
      console.log(
        `ASYNC_FLUSH ${String(c).padStart(2)} appender(s) #${round + 1}: ${fmt(r.msgs / r.acked.seconds, 0, 9)} msgs/s acked ` +
          `${fmt(mbps(r.acked))} MB/s in ${fmt(r.acked.bytes / Math.max(1, r.writes) / 1024, 1, 5)} KiB writes | ` +
          `raw ${fmt(chunk / 1024, 1, 5)} KiB writes + fdatasync ${fmt(mbps(before), 0, 5)} / ${fmt(mbps(after), 0, 5)} MB/s ` +
          `(fdatasync ${syncShare(raw)}) ` +
          `-> ${ratio(r.acked, raw)} x | ${ratio(r.acked, seq)} x raw 1 MiB | incl. final flush ${fmt(mbps(r.durable), 0, 5)} MB/s`,
      );
      if (o !== undefined) {
        console.log(o.line);
        if (Number.isFinite(o.ratio)) officialRatios.push(o.ratio);
      }
    }
    summary.push(
      `ASYNC_FLUSH ${String(c).padStart(2)}: ${median(ratios).toFixed(2)} x raw (same write size), target 0.8`,
    );
    if (officialRatios.length > 0)
      summary.push(
        `ASYNC_FLUSH ${String(c).padStart(2)}: ${median(officialRatios).toFixed(2)} x official 4.9.x (whole stores, msgs/s)`,
      );
  }
  for (const c of CASES.has('sync') ? [1, 16, 64] : []) {
    const ratios: number[] = [];
    const officialRatios: number[] = [];
    const chunk = c * RECORD_SIZE;
    for (let round = 0; round < ROUNDS; round++) {
      const before = rawSyncLoop(chunk, SYNC_SECONDS);
      const r = await appenders('SYNC_FLUSH', c, total, SYNC_SECONDS, false);
      const o = await compareOfficial(official, 'sync', c, SYNC_SECONDS);
      const after = rawSyncLoop(chunk, SYNC_SECONDS);
      const raw = mbps(before) > mbps(after) ? before : after;
      ratios.push(mbps(r.acked) / mbps(raw));
      console.log(
        `SYNC_FLUSH  ${String(c).padStart(2)} appender(s) #${round + 1}: ${fmt(r.msgs / r.acked.seconds, 0, 9)} msgs/s ` +
          `${fmt(mbps(r.acked))} MB/s, ${Math.round(r.syncs / r.acked.seconds)} fdatasyncs/s of ` +
          `${(r.msgs / Math.max(1, r.syncs)).toFixed(1)} msgs | raw ${fmt(chunk / 1024, 1, 5)} KiB write+fdatasync loop ` +
          `${fmt(mbps(before))} / ${fmt(mbps(after))} MB/s (${Math.round(raw.syncs / raw.seconds)} syncs/s) ` +
          `-> ${ratio(r.acked, raw)} x | ${ratio(r.acked, seq)} x raw 1 MiB`,
      );
      if (o !== undefined) {
        console.log(o.line);
        if (Number.isFinite(o.ratio)) officialRatios.push(o.ratio);
      }
    }
    summary.push(
      `SYNC_FLUSH  ${String(c).padStart(2)}: ${median(ratios).toFixed(2)} x raw (same bytes per fdatasync)${c === 64 ? ', target 0.5' : ''}`,
    );
    if (officialRatios.length > 0)
      summary.push(
        `SYNC_FLUSH  ${String(c).padStart(2)}: ${median(officialRatios).toFixed(2)} x official 4.9.x (whole stores, msgs/s)`,
      );
  }
  if (CASES.has('pull')) {
    const on = await pullRate(messageStoreConfig({ storePathRootDir: '' }).commitLogTailCacheBytes);
    const off = await pullRate(0);
    console.log(
      `pull 32 at a time over the newest 16 MiB of 8 queues: tail cache on ${fmt(on.msgsPerSecond, 0, 9)} msgs/s ` +
        `(${fmt(on.mbps, 0, 5)} MB/s), off ${fmt(off.msgsPerSecond, 0, 9)} msgs/s (${fmt(off.mbps, 0, 5)} MB/s) ` +
        `-> ${(on.msgsPerSecond / off.msgsPerSecond).toFixed(2)} x`,
    );
    summary.push(
      `pull from the tail cache: ${(on.msgsPerSecond / off.msgsPerSecond).toFixed(2)} x reading the files`,
    );
  }
  const seqAgain = rawDisk(total, 1024 * 1024);
  console.log(`raw sequential again: ${fmt(mbps(seqAgain))} MB/s`);
  if (scanDir !== undefined) {
    const scans = [
      { name: 'abnormal recovery scan (CRC + dispatch)', dispatch: true, crcWorker: true },
      { name: 'the same without the CRC worker thread', dispatch: true, crcWorker: false },
      { name: 'normal recovery scan (CRC, no dispatch)', dispatch: false, crcWorker: true },
    ];
    for (const { name, dispatch, crcWorker } of scans) {
      const s = await recoveryScan(scanDir, dispatch, crcWorker);
      const line =
        `${name}: ` +
        `${(s.bytes / 1e9 / s.seconds).toFixed(2)} GB/s best of 3 (runs ${s.runs.map((x) => x.toFixed(2)).join(', ')}; ` +
        `${(s.bytes / 1e6).toFixed(0)} MB, ${s.records.toLocaleString('en-US')} records dispatched, page cache warm)`;
      console.log(line);
      if (dispatch && crcWorker)
        summary.push(`abnormal recovery: ${(s.bytes / 1e9 / s.seconds).toFixed(2)} GB/s, target 1`);
    }
    fs.rmSync(scanDir, { recursive: true, force: true });
  }
  console.log('summary (median over rounds):');
  for (const s of summary) console.log(`  ${s}`);
}

await main();
