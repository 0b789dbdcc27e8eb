/**
 * Crash tests: a child process (crash-child.ts, compiled next to this file) appends under load with
 * several concurrent appenders and reports each acknowledged append; it is SIGKILLed at a random
 * moment after some acknowledgements, the store is reopened with abnormal recovery, and every
 * acknowledged message must be there, intact, at its acknowledged offset and queue offset. The same
 * directory goes through all cycles, so each run also recovers what the previous crashes left.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createLogger } from '../../../src/common/logger.js';
import { decodeMessage } from '../../../src/common/message/stored-format.js';
import { abortFileExists, deleteAbortFile } from '../../../src/store/abort-file.js';
import { CommitLog } from '../../../src/store/commit-log.js';
import type { FlushDiskType } from '../../../src/store/config.js';
import {
  CRASH_QUEUES,
  CRASH_TOPIC,
  crashBody,
  crashStoreConfig,
  rebuildQueueOffsets,
} from './crash-child.js';
import { rng } from './crash-support.js';

const CHILD = join(dirname(fileURLToPath(import.meta.url)), 'crash-child.js');
const CYCLES = Number(process.env.RMQ_CRASH_CYCLES ?? 20);
/** Longest a cycle may take before the test gives up on it (a hung child is a failure). */
const CYCLE_LIMIT_MS = 20_000;

interface Ack {
  id: string;
  offset: number;
  size: number;
  queueId: number;
  queueOffset: number;
  count: number;
  bodyLen: number;
  cycle: number;
}

/** Runs the child until `target` acknowledgements were read, kills it, returns what it acknowledged. */
function crashCycle(
  root: string,
  mode: FlushDiskType,
  seed: number,
  target: number,
  cycle: number,
): Promise<Ack[]> {
  const writeMode = cycle % 2 === 0 ? 'async' : 'sync';
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [CHILD, '--crash-child', root, mode, String(seed), '8', writeMode],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    const acks: Ack[] = [];
    let buffered = '';
    let stderr = '';
    let killed = false;
    const watchdog = setTimeout(() => {
      child.kill('SIGKILL');
      reject(
        new Error(
          `cycle ${cycle}: no ${target} acknowledgements within ${CYCLE_LIMIT_MS} ms; stderr: ${stderr}`,
        ),
      );
    }, CYCLE_LIMIT_MS);
    const kill = (): void => {
      if (killed) return;
      killed = true;
      child.kill('SIGKILL');
    };
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      buffered += chunk;
      let nl = buffered.indexOf('\n');
      while (nl >= 0) {
        const line = buffered.slice(0, nl);
        buffered = buffered.slice(nl + 1);
        nl = buffered.indexOf('\n');
        const f = line.split(' ');
        if (f[0] === 'A' || f[0] === 'B') {
          const batch = f[0] === 'B';
          acks.push({
            id: f[1]!,
            offset: Number(f[2]),
            size: Number(f[3]),
            queueId: Number(f[4]),
            queueOffset: Number(f[5]),
            count: batch ? Number(f[6]) : 1,
            bodyLen: Number(batch ? f[7] : f[6]),
            cycle,
          });
          if (acks.length >= target) kill();
        } else if (f[0] === 'R' && target === 0) {
          kill();
        }
      }
    });
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(watchdog);
      if (signal !== 'SIGKILL') {
        reject(
          new Error(`cycle ${cycle}: child ended with code ${code}, signal ${signal}; stderr: ${stderr}`),
        );
        return;
      }
      resolve(acks);
    });
  });
}

/** Reopens the store as the next start would and checks every acknowledged message. */
async function verify(
  root: string,
  mode: FlushDiskType,
  acks: readonly Ack[],
): Promise<{ lost: string[]; torn: boolean }> {
  assert.ok(abortFileExists(root), 'a killed process leaves the abort file');
  const cl = new CommitLog(crashStoreConfig(root, mode), {
    logger: createLogger('crash', { level: 'silent' }),
  });
  const recovered = cl.recoverAbnormally();
  const lost: string[] = [];
  for (const ack of acks) {
    const bytes = cl.getMessage(ack.offset, ack.size);
    if (bytes === undefined) {
      lost.push(
        `${ack.id} (cycle ${ack.cycle}) at ${ack.offset}: not readable, log ends at ${cl.getMaxOffset()}`,
      );
      continue;
    }
    let p = 0;
    for (let k = 0; k < ack.count; k++) {
      try {
        const m = decodeMessage(bytes, p, { checkCRC: true });
        const expected = crashBody(ack.id, ack.bodyLen, ack.count > 1 ? k : undefined);
        if (
          !m.body.equals(expected) ||
          m.commitLogOffset !== BigInt(ack.offset + p) ||
          m.queueOffset !== BigInt(ack.queueOffset + k) ||
          m.queueId !== ack.queueId ||
          m.topic !== CRASH_TOPIC
        ) {
          lost.push(`${ack.id}#${k} (cycle ${ack.cycle}) at ${ack.offset + p}: record differs`);
        }
        p += m.storeSize;
      } catch (err) {
        lost.push(`${ack.id}#${k} (cycle ${ack.cycle}) at ${ack.offset + p}: ${(err as Error).message}`);
        break;
      }
    }
    if (p !== ack.size && lost.length === 0)
      lost.push(`${ack.id}: acknowledged ${ack.size} bytes, found ${p}`);
  }
  // The queues continue after the highest acknowledged offset (unacknowledged appends may add more).
  rebuildQueueOffsets(cl);
  for (let q = 0; q < CRASH_QUEUES; q++) {
    const acked = acks.filter((a) => a.queueId === q);
    const top = Math.max(-1, ...acked.map((a) => a.queueOffset + a.count - 1));
    assert.ok(cl.getTopicQueueOffset(CRASH_TOPIC, q) > top, `queue ${q} continues after ${top}`);
  }
  await cl.shutdown({ flush: false });
  return { lost, torn: recovered.stoppedAt !== undefined };
}

for (const mode of ['ASYNC_FLUSH', 'SYNC_FLUSH'] as const) {
  test(`SIGKILL under load loses no acknowledged message (${mode}, ${CYCLES} cycles)`, {
    timeout: 110_000,
  }, async (t) => {
    const root = mkdtempSync(join(tmpdir(), `rmq-crash-${mode}-`));
    const rand = rng(mode === 'ASYNC_FLUSH' ? 11 : 22);
    const all: Ack[] = [];
    const perCycle: number[] = [];
    let torn = 0;
    try {
      for (let cycle = 1; cycle <= CYCLES; cycle++) {
        // Mostly a few hundred acknowledgements, sometimes one, sometimes none (killed right after recovery).
        const roll = rand();
        const target = roll < 0.05 ? 0 : roll < 0.15 ? 1 : 20 + Math.floor(rand() * 600);
        const acks = await crashCycle(root, mode, Math.floor(rand() * 1e9), target, cycle);
        all.push(...acks);
        perCycle.push(acks.length);
        const { lost, torn: cut } = await verify(root, mode, all);
        if (cut) torn++;
        assert.deepEqual(lost, [], `cycle ${cycle}: acknowledged messages lost`);
        // Now and then a clean restart: the next child then recovers normally.
        if (cycle % 5 === 0) {
          const cl = new CommitLog(crashStoreConfig(root, mode), {
            logger: createLogger('crash', { level: 'silent' }),
          });
          cl.recoverAbnormally();
          await cl.shutdown();
          deleteAbortFile(root);
        }
      }
      const messages = all.reduce((n, a) => n + a.count, 0);
      t.diagnostic(
        `${mode}: ${CYCLES} kills, ${all.length} acknowledged appends (${messages} messages), 0 lost, ` +
          `${torn} recoveries cut a torn tail; acks per cycle ${perCycle.join(',')}`,
      );
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
}
