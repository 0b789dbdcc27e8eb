/**
 * Crash tests of the whole store: a child process (store-crash-child.ts, compiled next to this file)
 * runs a DefaultMessageStore and puts under load until it is SIGKILLed at a random moment; this
 * process then opens the directory (abnormal recovery: the abort file is left behind) and every
 * acknowledged message must be readable through the consume queue at its acknowledged queue
 * offset, with no hole in any queue, and findable by key through the index. The same directory
 * goes through every cycle; this process shuts the store down cleanly between them, so the child
 * alternates with a normal recovery.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createLogger } from '../../../src/common/logger.js';
import { decodeMessage } from '../../../src/common/message/stored-format.js';
import { DefaultMessageStore } from '../../../src/store/default-message-store.js';
import { GetMessageStatus } from '../../../src/store/message-store.js';
import { removeTempDirs, tempDir } from '../../unit/store/default-message-store-support.js';
import { crashBody } from './crash-support.js';
import { STORE_CRASH_QUEUES, STORE_CRASH_TOPIC, storeCrashConfig } from './store-crash-child.js';

after(removeTempDirs);

const CHILD = join(dirname(fileURLToPath(import.meta.url)), 'store-crash-child.js');
const CYCLES = Number(process.env.RMQ_STORE_CRASH_CYCLES ?? 20);
const CYCLE_LIMIT_MS = 30_000;

interface Ack {
  id: string;
  queueId: number;
  queueOffset: bigint;
  /** undefined: a single message; else the batch size. */
  count: number | undefined;
  bodyLen: number;
}

function crashCycle(root: string, seed: number, target: number): Promise<Ack[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CHILD, '--store-crash-child', root, String(seed), '8'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const acks: Ack[] = [];
    let buffered = '';
    let stderr = '';
    let killed = false;
    const watchdog = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`no ${target} acknowledgements within ${CYCLE_LIMIT_MS} ms; stderr: ${stderr}`));
    }, CYCLE_LIMIT_MS);
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      buffered += chunk;
      for (let nl = buffered.indexOf('\n'); nl >= 0; nl = buffered.indexOf('\n')) {
        const f = buffered.slice(0, nl).split(' ');
        buffered = buffered.slice(nl + 1);
        if (f[0] === 'A' || f[0] === 'B') {
          const batch = f[0] === 'B';
          acks.push({
            id: f[1] ?? '',
            queueId: Number(f[2]),
            queueOffset: BigInt(f[3] ?? '-1'),
            count: batch ? Number(f[4]) : undefined,
            bodyLen: Number(batch ? f[5] : f[4]),
          });
          if (acks.length >= target && !killed) {
            killed = true;
            child.kill('SIGKILL');
          }
        }
      }
    });
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      clearTimeout(watchdog);
      if (signal === 'SIGKILL' && killed) resolve(acks);
      else reject(new Error(`child exited (${code ?? signal}) before being killed: ${stderr}`));
    });
  });
}

test(`the store keeps every acknowledged message over ${CYCLES} SIGKILL cycles`, {
  timeout: 600_000,
}, async () => {
  const root = tempDir('rmq-store-crash-');
  const all: Ack[] = [];
  let seed = 7;
  for (let cycle = 0; cycle < CYCLES; cycle++) {
    seed = (seed * 1103515245 + 12345) >>> 0;
    const target = 50 + (seed % 400);
    all.push(...(await crashCycle(root, seed, target)));

    const store = new DefaultMessageStore(storeCrashConfig(root), {
      logger: createLogger('store-crash', { level: 'error' }),
    });
    await store.load();
    assert.equal(store.lastShutdownWasClean, false, `cycle ${cycle}: the crash left the abort file`);
    await store.start();
    try {
      for (const ack of all) {
        const count = ack.count ?? 1;
        // A batch may cross a consume-queue file, where one pull ends.
        const records: Buffer[] = [];
        for (let offset = ack.queueOffset; records.length < count; ) {
          const r = await store.getMessage(
            'g',
            STORE_CRASH_TOPIC,
            ack.queueId,
            offset,
            count - records.length,
          );
          assert.equal(r.status, GetMessageStatus.FOUND, `cycle ${cycle}: ${ack.id}`);
          records.push(...r.messages);
          offset = r.nextBeginOffset;
        }
        assert.equal(records.length, count, `cycle ${cycle}: ${ack.id}`);
        records.forEach((record, k) => {
          const m = decodeMessage(record);
          const expected = crashBody(ack.id, ack.bodyLen, ack.count === undefined ? undefined : k);
          assert.deepEqual(m.body, expected, `cycle ${cycle}: ${ack.id} #${k}`);
          assert.equal(m.queueOffset, ack.queueOffset + BigInt(k));
        });
      }
      // No holes: every queue reads from 0 to its end.
      for (let q = 0; q < STORE_CRASH_QUEUES; q++) {
        const max = store.getMaxOffsetInQueue(STORE_CRASH_TOPIC, q);
        let offset = 0n;
        while (offset < max) {
          const r = await store.getMessage('g', STORE_CRASH_TOPIC, q, offset, 32);
          assert.equal(r.status, GetMessageStatus.FOUND, `cycle ${cycle}: queue ${q} at ${offset}`);
          r.messages.forEach((record, k) => {
            assert.equal(decodeMessage(record).queueOffset, offset + BigInt(k));
          });
          offset = r.nextBeginOffset;
        }
      }
      // The index finds a sample of the acknowledged messages by key.
      for (const ack of all.filter((_, i) => i % 97 === 0)) {
        const key = ack.count === undefined ? ack.id : `${ack.id}#0`;
        const q = await store.queryMessage(STORE_CRASH_TOPIC, key, 32, 0n, BigInt(Date.now() + 60_000));
        assert.equal(q.messages.length, 1, `cycle ${cycle}: key ${key}`);
      }
    } finally {
      await store.shutdown();
    }
  }
});
