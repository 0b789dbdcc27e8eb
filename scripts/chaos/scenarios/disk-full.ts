/**
 * Disk full: the broker runs out of space mid-write and gets it back. The fault is a file-size limit
 * (RLIMIT_FSIZE) lowered on the running broker process with `prlimit --pid`, unprivileged: past the
 * limit a write stores part of its bytes and fails with EFBIG (Node ignores SIGXFSZ), as a write to a
 * full disk fails with ENOSPC. The limit sits just past the commit log's write position, under every
 * other file's reach (small index files, consume queues written far below it), so it is the commit log
 * that runs out, as it would on a full disk. Upstream answers appends on a full disk with
 * SERVICE_NOT_AVAILABLE (14) and the remark naming the disk; so must we, with one log line naming the
 * cause, every acknowledged message intact after, also across a restart, and service back once space is.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { createProducer, MQBrokerError } from '../../../src/client/index.js';
import { decodeOffsetMsgId } from '../../../src/common/message/message-id.js';
import { type LogLine, quietClientLogger, readBack, resourceVerdict, SoloBroker } from '../solo-broker.js';
import type { Scenario, ScenarioContext, Verdict } from '../types.js';

const NAME = 'disk-full';
const TOPIC = 'ChaosDiskFull';
/** SERVICE_NOT_AVAILABLE: upstream's answer when the store is not writeable (disk full among others). */
const SERVICE_NOT_AVAILABLE = 14;
const BODY_BYTES = 1024;
/** Bytes the limit leaves past the write position: a few more sends fit, then one does not. */
const LIMIT_MARGIN = 48 * 1024;
/** The broker re-checks after a failed write this often (cleanResourceInterval); short for the run. */
const RETRY_INTERVAL_MS = 1_000;
/** How long service may take to come back once the limit is lifted. */
const RECOVERY_DEADLINE_MS = 30_000;
const SEND_TIMEOUT_MS = 5_000;

interface Sizes {
  before: number;
  during: number;
  after: number;
}

const SIZES: Record<'short' | 'long', Sizes> = {
  short: { before: 300, during: 150, after: 100 },
  long: { before: 5_000, during: 1_000, after: 2_000 },
};

function bodyOf(key: string): Buffer {
  const seed = createHash('sha256').update(key).digest();
  const body = Buffer.alloc(BODY_BYTES);
  for (let i = 0; i < BODY_BYTES; i++) body[i] = seed[i % seed.length] as number;
  return body;
}

function brokerError(error: unknown): MQBrokerError | undefined {
  for (let e = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++)
    if (e instanceof MQBrokerError) return e;
  return undefined;
}

function prlimit(pid: number, fsize: string): void {
  const r = spawnSync('prlimit', ['--pid', String(pid), `--fsize=${fsize}`], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`prlimit --fsize=${fsize} failed: ${r.stderr || r.error?.message}`);
}

function prlimitAvailable(): boolean {
  const r = spawnSync('prlimit', ['--version'], { encoding: 'utf8' });
  return r.status === 0;
}

export const scenario: Scenario = {
  name: NAME,
  description:
    'a file-size limit stops the commit log mid-write: sends refused with SERVICE_NOT_AVAILABLE and one log line, nothing acknowledged damaged, service back when space is',
  needsJava: false,
  async run(ctx: ScenarioContext): Promise<Verdict[]> {
    const failures: string[] = [];
    const figures: Record<string, number | string> = {};
    if (!prlimitAvailable()) {
      return [
        resourceVerdict({
          scenario: NAME,
          mode: 'file-size limit',
          figures: { skipped: 'prlimit (util-linux) not found' },
          failures: ['prlimit (util-linux) is needed to lower the broker process file-size limit'],
        }),
      ];
    }
    const sizes = ctx.long ? SIZES.long : SIZES.short;
    const dataDir = join(ctx.workDir, NAME);
    const config = {
      // One small commit-log file and a small index, so that only the commit log reaches the limit.
      mappedFileSizeCommitLog: 64 * 1024 * 1024,
      maxHashSlotNum: 1_000,
      maxIndexNum: 4_000,
      cleanResourceInterval: RETRY_INTERVAL_MS,
    };
    let broker = await SoloBroker.start({ dataDir, config });
    const acked = new Map<string, number>();
    const refused: string[] = [];
    let sendAttempts = 0;
    let recoveryTimeMs = -1;
    let maxUnavailableMs = 0;
    const producer = createProducer({
      logger: quietClientLogger(),
      namesrvAddr: broker.namesrvAddr,
      producerGroup: 'chaos-disk-full',
      // Each refusal is the broker's own answer, not a retry's.
      retryTimesWhenSendFailed: 0,
      sendMsgTimeout: SEND_TIMEOUT_MS,
    });
    await producer.start();
    let endOffset = 0;
    const refusals = new Map<string, number>();
    let remark = '';
    const send = async (key: string): Promise<boolean> => {
      sendAttempts++;
      try {
        const r = await producer.send({ topic: TOPIC, body: bodyOf(key), keys: key });
        acked.set(key, Date.now());
        const at = Number(decodeOffsetMsgId(r.offsetMsgId).offset) + BODY_BYTES + 256;
        endOffset = Math.max(endOffset, at);
        return true;
      } catch (error) {
        refused.push(key);
        // The producer reports a broker's refusal after its retries as a client error caused by it.
        const broker = brokerError(error);
        const code = broker === undefined ? (error as Error).name : String(broker.responseCode);
        refusals.set(code, (refusals.get(code) ?? 0) + 1);
        if (broker?.responseCode === SERVICE_NOT_AVAILABLE) remark = broker.remark ?? '';
        return false;
      }
    };
    try {
      let refusedBefore = 0;
      for (let i = 0; i < sizes.before && !ctx.signal.aborted; i++)
        if (!(await send(`before-${i}`))) refusedBefore++;
      if (refusedBefore > 0) failures.push(`${refusedBefore} sends refused before the fault`);
      const errorsBefore = broker.logs.filter((l) => l.level === 'error').length;
      const limit = endOffset + LIMIT_MARGIN;
      prlimit(broker.pid, `${limit}:unlimited`);
      ctx.log(`${NAME}: file-size limit ${limit} bytes on pid ${broker.pid}`);
      const faultAt = Date.now();
      let lastAck = faultAt;
      let okDuring = 0;
      for (let i = 0; i < sizes.during; i++) {
        if (await send(`during-${i}`)) {
          okDuring++;
          lastAck = Date.now();
        }
      }
      figures.sentUnderLimit = sizes.during;
      figures.acknowledgedUnderLimit = okDuring;
      figures.refusedUnderLimit = sizes.during - okDuring;
      figures.refusalCodes = [...refusals].map(([c, n]) => `${c}x${n}`).join(' ');
      const codes = [...refusals.keys()];
      if (refusals.size === 0) failures.push('no send was refused under the file-size limit');
      else if (codes.some((c) => c !== String(SERVICE_NOT_AVAILABLE)))
        failures.push(`refusals other than SERVICE_NOT_AVAILABLE: ${figures.refusalCodes}`);
      if (!/service not available now/.test(remark) || !/disk is full/.test(remark))
        failures.push(`the refusal's remark does not name the disk: "${remark}"`);
      figures.remark = remark.slice(0, 120);

      // Space returns.
      prlimit(broker.pid, 'unlimited:unlimited');
      const healedAt = Date.now();
      const errorLines = broker.logs.filter((l) => l.level === 'error').slice(errorsBefore);
      const diskLines = errorLines.filter((l: LogLine) => /disk full|space/i.test(l.msg));
      figures.errorLogLines = errorLines.length;
      figures.logLine =
        diskLines[0] === undefined ? '' : `${diskLines[0].msg} (${String(diskLines[0].error ?? '')})`;
      if (diskLines.length !== 1 || errorLines.length !== 1)
        failures.push(
          `expected one error log line naming the disk, got ${errorLines.length}: ${errorLines.map((l) => l.msg).join(' | ')}`,
        );
      for (let i = 0; ; i++) {
        if (await send(`recover-${i}`)) {
          recoveryTimeMs = Date.now() - healedAt;
          maxUnavailableMs = Date.now() - lastAck;
          break;
        }
        if (Date.now() - healedAt > RECOVERY_DEADLINE_MS || ctx.signal.aborted) {
          failures.push(`no send acknowledged within ${RECOVERY_DEADLINE_MS} ms after space returned`);
          break;
        }
        // Refusals come back at once; the broker tries again after its retry interval.
        await new Promise((r) => setTimeout(r, 100));
      }
      let refusedAfter = 0;
      for (let i = 0; i < sizes.after; i++) if (!(await send(`after-${i}`))) refusedAfter++;
      if (refusedAfter > 0)
        failures.push(`${refusedAfter} of ${sizes.after} sends refused after space returned`);
    } finally {
      await producer.shutdown();
    }

    const judge = (stored: Map<string, Buffer>, when: string): void => {
      let missing = 0;
      let damaged = 0;
      for (const key of acked.keys()) {
        const body = stored.get(key);
        if (body === undefined) missing++;
        else if (!body.equals(bodyOf(key))) damaged++;
      }
      const phantoms = refused.filter((k) => stored.has(k)).length;
      figures[`missing${when}`] = missing;
      figures[`damaged${when}`] = damaged;
      figures[`refusedButStored${when}`] = phantoms;
      if (missing > 0) failures.push(`${missing} acknowledged messages missing ${when}`);
      if (damaged > 0) failures.push(`${damaged} acknowledged messages damaged ${when}`);
      if (phantoms > 0) failures.push(`${phantoms} refused messages stored ${when}`);
    };
    let lost = 0;
    try {
      const live = await readBack(broker.namesrvAddr, TOPIC, 'chaos-disk-full-check');
      judge(live, 'Live');
      await broker.stop();
      broker = await SoloBroker.start({ dataDir, config });
      const restarted = await readBack(broker.namesrvAddr, TOPIC, 'chaos-disk-full-check-2');
      judge(restarted, 'AfterRestart');
      lost = [...acked.keys()].filter((k) => !restarted.has(k)).length;
    } finally {
      await broker.stop();
    }
    return [
      resourceVerdict({
        scenario: NAME,
        mode: 'file-size limit, ours',
        sendAttempts,
        acknowledged: acked.size,
        consumed: acked.size - lost,
        lostMessageCount: lost,
        maxUnavailableMs,
        recoveryTimeMs: Math.max(0, recoveryTimeMs),
        figures,
        failures,
      }),
    ];
  },
};
