/**
 * Seeded operation fuzzer: random puts (single and batch, concurrent within a turn), reads, flushes,
 * abnormal and clean restarts, and torn-tail truncations, checked after every step against an
 * in-memory model of what the log must hold. A failure names the seed and step to replay.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { ManualClock } from '../../../src/common/clock.js';
import { createLogger } from '../../../src/common/logger.js';
import { encodeBatch } from '../../../src/common/message/batch.js';
import { Message } from '../../../src/common/message/message.js';
import { decodeMessage } from '../../../src/common/message/stored-format.js';
import { MessageSysFlag } from '../../../src/common/message/sysflag.js';
import { CommitLog } from '../../../src/store/commit-log.js';
import type { FlushDiskType } from '../../../src/store/config.js';
import { type PutMessageResult, PutMessageStatus } from '../../../src/store/put-message-result.js';
import {
  BORN_HOST,
  inner,
  properties,
  rng,
  STORE_HOST,
  smallConfig,
  tempStoreDir,
} from './commit-log-support.js';

const FILE = 8192;
const quiet = createLogger('fuzz', { level: 'silent' });

interface ModelRecord {
  offset: number;
  size: number;
  topic: string;
  queueId: number;
  queueOffset: number;
  body: Buffer;
  takesOffset: boolean;
  bytes: Buffer;
}

class Model {
  records: ModelRecord[] = [];
  end = 0;

  nextQueueOffset(topic: string, queueId: number): number {
    let next = 0;
    for (const r of this.records) {
      if (r.takesOffset && r.topic === topic && r.queueId === queueId)
        next = Math.max(next, r.queueOffset + 1);
    }
    return next;
  }

  table(): Map<string, number> {
    const t = new Map<string, number>();
    for (const r of this.records) {
      if (!r.takesOffset) continue;
      const k = `${r.topic}-${r.queueId}`;
      t.set(k, Math.max(t.get(k) ?? 0, r.queueOffset + 1));
    }
    return t;
  }
}

async function runSeed(seed: number, steps: number): Promise<void> {
  const random = rng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
  const flushDiskType: FlushDiskType = random() < 0.5 ? 'ASYNC_FLUSH' : 'SYNC_FLUSH';
  const writeMode = random() < 0.5 ? 'sync' : 'async';
  const { root, cleanup } = tempStoreDir('rmq-fuzz-');
  const clock = new ManualClock(1_700_000_000_000);
  const config = smallConfig(root, { mappedFileSizeCommitLog: FILE, maxMessageSize: 4096, flushDiskType });
  const make = (): CommitLog => new CommitLog(config, { clock, logger: quiet, writeMode });
  let cl = make();
  cl.recoverNormally();
  const model = new Model();
  let step = 0;
  const where = (): string => `seed ${seed} step ${step} (${flushDiskType}, ${writeMode} writes)`;

  const checkAll = (): void => {
    assert.equal(cl.getMaxOffset(), model.end, `max offset, ${where()}`);
    for (const r of model.records) {
      assert.deepEqual(cl.getMessage(r.offset, r.size), r.bytes, `record at ${r.offset}, ${where()}`);
    }
    assert.deepEqual(cl.getTopicQueueTable(), model.table(), `queue table, ${where()}`);
  };

  const randomBody = (): Buffer => {
    const n = random() < 0.05 ? Math.floor(random() * 4000) : Math.floor(random() * 600);
    const b = Buffer.allocUnsafe(n);
    for (let i = 0; i < n; i++) b[i] = Math.floor(random() * 256);
    return b;
  };
  const randomProps = (): Record<string, string> => {
    const p: Record<string, string> = {};
    if (random() < 0.7) p.TAGS = pick(['a', 'b', 'TagC']);
    if (random() < 0.5) p.KEYS = `k${Math.floor(random() * 100)}`;
    if (random() < 0.3) p.UNIQ_KEY = `U${Math.floor(random() * 1e6)}`;
    return p;
  };

  /** Adds an acknowledged append to the model, checking its offsets and bytes. */
  const accept = (
    r: PutMessageResult,
    topic: string,
    queueId: number,
    bodies: Buffer[],
    takesOffset: boolean,
    expectedQueueOffset: number,
  ): void => {
    assert.equal(r.putMessageStatus, PutMessageStatus.PUT_OK, where());
    const a = r.appendMessageResult!;
    assert.equal(a.logicsOffset, BigInt(expectedQueueOffset), `queue offset, ${where()}`);
    let offset = Number(a.wroteOffset);
    const bytes = cl.getMessage(offset, a.wroteBytes);
    assert.ok(bytes, where());
    let p = 0;
    for (let i = 0; i < bodies.length; i++) {
      const m = decodeMessage(bytes, p, { checkCRC: true });
      assert.equal(m.commitLogOffset, BigInt(offset), where());
      assert.deepEqual(m.body, bodies[i], where());
      assert.equal(m.topic, topic, where());
      model.records.push({
        offset,
        size: m.storeSize,
        topic,
        queueId,
        queueOffset: Number(m.queueOffset),
        body: bodies[i]!,
        takesOffset,
        bytes: Buffer.from(bytes.subarray(p, p + m.storeSize)),
      });
      p += m.storeSize;
      offset += m.storeSize;
    }
    model.end = Math.max(model.end, offset);
  };

  const restart = async (abnormal: boolean): Promise<void> => {
    await cl.shutdown({ flush: !abnormal });
    cl = make();
    if (abnormal) {
      cl.recoverAbnormally();
    } else {
      cl.recoverNormally();
      // Normal recovery scans only the last files; the store takes the other offsets from the
      // consume queues, rebuilt here the way the reput would.
      const min = cl.getMinOffset();
      if (min >= 0) {
        cl.forEachRecord(min, (req) => {
          const t = req.sysFlag & MessageSysFlag.TRANSACTION_ROLLBACK_TYPE;
          if (
            t === MessageSysFlag.TRANSACTION_PREPARED_TYPE ||
            t === MessageSysFlag.TRANSACTION_ROLLBACK_TYPE
          )
            return;
          const next = Number(req.consumeQueueOffset) + 1;
          if (next > cl.getTopicQueueOffset(req.topic, req.queueId))
            cl.setTopicQueueOffset(req.topic, req.queueId, next);
        });
      }
    }
    checkAll();
  };

  try {
    for (step = 0; step < steps; step++) {
      const op = random();
      clock.advance(Math.floor(random() * 3));
      if (op < 0.55) {
        // 1..8 appends in the same turn.
        const n = 1 + Math.floor(random() * 8);
        const planned: Array<{
          topic: string;
          queueId: number;
          body: Buffer;
          prepared: boolean;
          promise: Promise<PutMessageResult>;
        }> = [];
        const pendingNext = new Map<string, number>();
        for (let i = 0; i < n; i++) {
          const topic = pick(['A', 'B', 'Topic-C']);
          const queueId = Math.floor(random() * 3);
          const body = randomBody();
          const prepared = random() < 0.05;
          const msg = inner({
            topic,
            queueId,
            body,
            props: randomProps(),
            ...(prepared ? { sysFlag: MessageSysFlag.TRANSACTION_PREPARED_TYPE } : {}),
          });
          planned.push({ topic, queueId, body, prepared, promise: cl.putMessage(msg) });
        }
        for (const p of planned) {
          const r = await p.promise;
          const key = `${p.topic}-${p.queueId}`;
          const next = pendingNext.get(key) ?? model.nextQueueOffset(p.topic, p.queueId);
          accept(r, p.topic, p.queueId, [p.body], !p.prepared, p.prepared ? 0 : next);
          if (!p.prepared) pendingNext.set(key, next + 1);
        }
      } else if (op < 0.63) {
        const count = 1 + Math.floor(random() * 5);
        const messages = Array.from({ length: count }, () => {
          const m = new Message();
          m.body = randomBody().subarray(0, 500);
          for (const [k, v] of Object.entries(randomProps())) m.properties.set(k, v);
          return m;
        });
        const queueId = Math.floor(random() * 3);
        const expected = model.nextQueueOffset('Batch', queueId);
        const r = await cl.putMessages({
          topic: 'Batch',
          queueId,
          body: encodeBatch(messages),
          propertiesString: properties({ CLUSTER: 'c' }),
          sysFlag: 0,
          bornTimestamp: 1n,
          bornHost: BORN_HOST,
          storeHost: STORE_HOST,
          reconsumeTimes: 0,
        });
        accept(
          r,
          'Batch',
          queueId,
          messages.map((m) => m.body),
          true,
          expected,
        );
      } else if (op < 0.8) {
        if (model.records.length > 0) {
          const r = pick(model.records);
          assert.deepEqual(cl.getMessage(r.offset, r.size), r.bytes, where());
          assert.equal(cl.getMessage(r.offset, r.size + 1)?.length ?? r.size + 1, r.size + 1, where());
        }
        assert.equal(cl.getMessage(model.end, 1), undefined, where());
      } else if (op < 0.86) {
        assert.equal(await cl.flush(), model.end, where());
      } else if (op < 0.93) {
        await restart(true);
      } else if (op < 0.96) {
        await restart(false);
      } else if (model.records.length > 0) {
        // Torn tail: everything from a byte inside one of the last three records reads as zeros.
        await cl.shutdown({ flush: false });
        const victim = model.records[Math.max(0, model.records.length - 1 - Math.floor(random() * 3))]!;
        const cut = victim.offset + Math.floor(random() * victim.size);
        const dir = join(root, 'commitlog');
        for (const name of fs.readdirSync(dir)) {
          const start = Number(name);
          if (start + FILE <= cut) continue;
          const data = fs.readFileSync(join(dir, name));
          data.fill(0, Math.max(0, cut - start));
          fs.writeFileSync(join(dir, name), data);
        }
        const intact = victim.bytes.subarray(cut - victim.offset).every((b) => b === 0);
        model.records = model.records.filter((r) => r.offset < victim.offset || (r === victim && intact));
        model.end = intact ? victim.offset + victim.size : victim.offset;
        cl = make();
        const result = cl.recoverAbnormally();
        assert.equal(result.processOffset, model.end, where());
        checkAll();
        assert.ok(
          fs.readdirSync(join(root, 'commitlog')).every((n) => Number(n) <= model.end),
          `files after the end are deleted, ${where()}`,
        );
      }
      assert.equal(cl.getMaxOffset(), model.end, `max offset, ${where()}`);
    }
    await restart(true);
  } finally {
    await cl.shutdown({ flush: false });
    cleanup();
  }
}

// RMQ_FUZZ_SEEDS=<n> runs seeds 1..n (and RMQ_FUZZ_STEPS steps each) for a longer campaign.
const seeds = Number(process.env.RMQ_FUZZ_SEEDS ?? 8);
const steps = Number(process.env.RMQ_FUZZ_STEPS ?? 250);
for (let seed = 1; seed <= seeds; seed++) {
  test(`operation fuzzer, seed ${seed}`, async () => {
    await runSeed(seed, steps);
  });
}
