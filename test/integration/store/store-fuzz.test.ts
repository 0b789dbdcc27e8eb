/**
 * Seeded random operation sequences against DefaultMessageStore, checked against an in-memory model:
 * puts and batch puts over several queues, pulls at random offsets with random sizes and filters,
 * key queries, clean restarts and restarts after which the abort file is still there (some with
 * consume-queue tails zeroed or the newest index file gone). The expected pull result comes from
 * walking the model the way upstream's getMessage walks a consume queue.
 *
 * RMQ_FUZZ_SEED=<n> runs one seed; RMQ_FUZZ_OPS=<n> changes the sequence length.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { ManualClock } from '../../../src/common/clock.js';
import { encodeBatch } from '../../../src/common/message/batch.js';
import { Message } from '../../../src/common/message/message.js';
import { decodeMessage } from '../../../src/common/message/stored-format.js';
import { tagsString2tagsCode } from '../../../src/common/message/tag-hash.js';
import { createAbortFile } from '../../../src/store/abort-file.js';
import type { DefaultMessageStore } from '../../../src/store/default-message-store.js';
import { GetMessageStatus, type MessageFilter } from '../../../src/store/message-store.js';
import { rng } from '../../unit/store/commit-log-support.js';
import {
  BORN_HOST,
  msg,
  openStore,
  removeTempDirs,
  STORE_HOST,
  tempDir,
  uniqKey,
} from '../../unit/store/default-message-store-support.js';

after(removeTempDirs);

const TOPICS = ['FuzzA', 'FuzzB'];
const QUEUES = 3;
const CQ_FILE_ENTRIES = 20;
const TAGS = ['TagA', 'TagB', 'TagC'];
const MAX_COUNT_IN_MEMORY = 32;

interface Stored {
  idx: number;
  tag: string;
  body: string;
  storeTime: bigint;
}

class Model {
  readonly queues = new Map<string, Stored[]>();
  queue(topic: string, queueId: number): Stored[] {
    const key = `${topic}-${queueId}`;
    let q = this.queues.get(key);
    if (q === undefined) {
      q = [];
      this.queues.set(key, q);
    }
    return q;
  }
}

/** Upstream's walk over the model: the statuses, messages and next offset getMessage must give. */
function expectedPull(
  q: Stored[] | undefined,
  offset: number,
  maxMsgNums: number,
  tag: string | undefined,
): { status: GetMessageStatus; next: number; idxs: number[] } {
  const max = q?.length ?? 0;
  if (q === undefined || max === 0)
    return { status: GetMessageStatus.NO_MESSAGE_IN_QUEUE, next: 0, idxs: [] };
  if (offset < 0) return { status: GetMessageStatus.OFFSET_TOO_SMALL, next: 0, idxs: [] };
  if (offset === max) return { status: GetMessageStatus.OFFSET_OVERFLOW_ONE, next: offset, idxs: [] };
  if (offset > max) return { status: GetMessageStatus.OFFSET_OVERFLOW_BADLY, next: max, idxs: [] };
  const walkEnd = Math.min(
    max,
    (Math.floor(offset / CQ_FILE_ENTRIES) + 1) * CQ_FILE_ENTRIES,
    offset + Math.max(800, maxMsgNums),
  );
  const idxs: number[] = [];
  let k = offset;
  for (; k < walkEnd; k++) {
    const count = idxs.length;
    if (count > 0 && (maxMsgNums <= count || count > MAX_COUNT_IN_MEMORY - 1)) break;
    const m = q[k] as Stored;
    if (tag !== undefined && m.tag !== tag) continue;
    idxs.push(m.idx);
  }
  return {
    status: idxs.length > 0 ? GetMessageStatus.FOUND : GetMessageStatus.NO_MATCHED_MESSAGE,
    next: k,
    idxs,
  };
}

function tagFilter(tag: string): MessageFilter {
  const code = tagsString2tagsCode(tag);
  return { isMatchedByConsumeQueue: (c) => c === code, isMatchedByCommitLog: () => true };
}

function zeroConsumeQueueTail(
  root: string,
  topic: string,
  queueId: number,
  total: number,
  entries: number,
): void {
  for (let e = Math.max(0, total - entries); e < total; e++) {
    const fileStart = Math.floor(e / CQ_FILE_ENTRIES) * CQ_FILE_ENTRIES * 20;
    const path = join(root, 'consumequeue', topic, String(queueId), String(fileStart).padStart(20, '0'));
    if (!fs.existsSync(path)) continue;
    const fd = fs.openSync(path, 'r+');
    fs.writeSync(fd, Buffer.alloc(20), 0, 20, e * 20 - fileStart);
    fs.closeSync(fd);
  }
}

function setCheckpointLogicsTime(root: string, t: bigint): void {
  const fd = fs.openSync(join(root, 'checkpoint'), 'r+');
  const b = Buffer.alloc(8);
  b.writeBigInt64BE(t);
  fs.writeSync(fd, b, 0, 8, 8);
  fs.closeSync(fd);
}

async function verifyAll(store: DefaultMessageStore, model: Model, where: string): Promise<void> {
  for (const [key, q] of model.queues) {
    const dash = key.lastIndexOf('-');
    const topic = key.slice(0, dash);
    const queueId = Number(key.slice(dash + 1));
    assert.equal(store.getMaxOffsetInQueue(topic, queueId), BigInt(q.length), `${where}: max of ${key}`);
    const got: number[] = [];
    let offset = 0n;
    for (;;) {
      const r = await store.getMessage('g', topic, queueId, offset, 32);
      if (r.status !== GetMessageStatus.FOUND) {
        assert.equal(r.status, GetMessageStatus.OFFSET_OVERFLOW_ONE, `${where}: ${key} at ${offset}`);
        break;
      }
      for (const rec of r.messages) got.push(Number(decodeMessage(rec).properties.get('idx')));
      offset = r.nextBeginOffset;
    }
    assert.deepEqual(
      got,
      q.map((m) => m.idx),
      `${where}: content of ${key}`,
    );
  }
}

async function run(seed: number, ops: number): Promise<void> {
  const random = rng(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  const root = tempDir('rmq-dms-fuzz-');
  const clock = new ManualClock(1_700_000_000_000);
  const open = (): Promise<DefaultMessageStore> => openStore(root, {}, { clock });
  let store = await open();
  const model = new Model();
  let idx = 0;
  const bodyOf = (i: number): string =>
    `b${i}-${'abcdefghij'[i % 10]?.repeat(Math.floor(random() * 500)) ?? ''}`;

  for (let op = 0; op < ops; op++) {
    const where = `seed ${seed} op ${op}`;
    const dice = random();
    clock.advance(Math.floor(random() * 50));
    if (dice < 0.55) {
      const topic = pick(TOPICS);
      const queueId = Math.floor(random() * QUEUES);
      const i = idx++;
      const tag = pick(TAGS);
      const body = bodyOf(i);
      const r = await store.putMessage(msg(i, { topic, queueId, tag, body }));
      assert.equal(r.putMessageStatus, 'PUT_OK', where);
      const q = model.queue(topic, queueId);
      assert.equal(r.appendMessageResult?.logicsOffset, BigInt(q.length), where);
      q.push({ idx: i, tag, body, storeTime: r.appendMessageResult?.storeTimestamp ?? 0n });
    } else if (dice < 0.62) {
      const topic = pick(TOPICS);
      const queueId = Math.floor(random() * QUEUES);
      const n = 1 + Math.floor(random() * 5);
      const items: Stored[] = [];
      const messages: Message[] = [];
      for (let k = 0; k < n; k++) {
        const i = idx++;
        const tag = pick(TAGS);
        const body = bodyOf(i);
        const m = new Message(topic, Buffer.from(body), { tags: tag, keys: `key-${i} k2-${i}` });
        m.putProperty('idx', String(i));
        m.putProperty('UNIQ_KEY', uniqKey(i));
        messages.push(m);
        items.push({ idx: i, tag, body, storeTime: 0n });
      }
      const r = await store.putMessages({
        topic,
        queueId,
        body: encodeBatch(messages),
        propertiesString: '',
        sysFlag: 0,
        bornTimestamp: 1_700_000_000_000n,
        bornHost: BORN_HOST,
        storeHost: STORE_HOST,
        reconsumeTimes: 0,
      });
      assert.equal(r.putMessageStatus, 'PUT_OK', where);
      const q = model.queue(topic, queueId);
      assert.equal(r.appendMessageResult?.logicsOffset, BigInt(q.length), where);
      for (const item of items) item.storeTime = r.appendMessageResult?.storeTimestamp ?? 0n;
      q.push(...items);
    } else if (dice < 0.85) {
      const topic = pick([...TOPICS, 'FuzzNone']);
      const queueId = Math.floor(random() * QUEUES);
      const q = model.queues.get(`${topic}-${queueId}`);
      const len = q?.length ?? 0;
      const offset = Math.floor(random() * (len + 4)) - 1;
      const maxMsgNums = Math.floor(random() * 40);
      const tag = random() < 0.3 ? pick(TAGS) : undefined;
      const filter = tag === undefined ? undefined : tagFilter(tag);
      const r = await store.getMessage('g', topic, queueId, BigInt(offset), maxMsgNums, filter);
      const e = expectedPull(q, offset, maxMsgNums, tag);
      const what = `${where}: get ${topic}-${queueId}@${offset} n=${maxMsgNums} tag=${tag}`;
      assert.equal(r.status, e.status, what);
      assert.equal(r.nextBeginOffset, BigInt(e.next), what);
      assert.deepEqual(
        r.messages.map((rec) => Number(decodeMessage(rec).properties.get('idx'))),
        e.idxs,
        what,
      );
      assert.equal(r.maxOffset, BigInt(len), what);
      for (const rec of r.messages) {
        const m = decodeMessage(rec);
        const stored = q?.[Number(m.queueOffset)];
        assert.equal(m.body.toString(), stored?.body, what);
      }
    } else if (dice < 0.9) {
      const all = [...model.queues.values()].flat();
      if (all.length === 0) continue;
      const m = pick(all);
      const key = random() < 0.5 ? `key-${m.idx}` : uniqKey(m.idx);
      const topic = [...model.queues].find(([, q]) => q.includes(m))?.[0].replace(/-\d+$/, '') ?? '';
      const r = await store.queryMessage(topic, key, 32, 0n, 2n ** 62n);
      assert.deepEqual(
        r.messages.map((rec) => Number(decodeMessage(rec).properties.get('idx'))),
        [m.idx],
        `${where}: query ${key}`,
      );
    } else if (dice < 0.95) {
      await store.shutdown();
      store = await open();
      await verifyAll(store, model, `${where} (clean restart)`);
    } else {
      await store.shutdown();
      createAbortFile(root);
      // A crash after the consume queues were last flushed at time T: entries of records stored
      // after T may be lost in any queue, and the checkpoint says T.
      const all = [...model.queues.values()].flat();
      const t = all.length === 0 ? 0n : pick(all).storeTime;
      setCheckpointLogicsTime(root, t);
      for (const [key, q] of model.queues) {
        if (random() < 0.5) continue;
        const dash = key.lastIndexOf('-');
        // Upstream's consume-queue recovery scans the last three files only; older entries are
        // trusted, so the loss stays within them (real files hold 300,000 entries each).
        const scanned = q.length - Math.max(0, Math.ceil(q.length / CQ_FILE_ENTRIES) - 3) * CQ_FILE_ENTRIES;
        const lost = Math.min(scanned, q.filter((m) => m.storeTime > t).length);
        zeroConsumeQueueTail(root, key.slice(0, dash), Number(key.slice(dash + 1)), q.length, lost);
      }
      if (random() < 0.5 && fs.existsSync(join(root, 'index'))) {
        const files = fs.readdirSync(join(root, 'index')).sort();
        const newest = files.at(-1);
        if (newest !== undefined) fs.rmSync(join(root, 'index', newest));
      }
      store = await open();
      assert.equal(store.lastShutdownWasClean, false);
      await verifyAll(store, model, `${where} (abnormal restart)`);
    }
  }
  await verifyAll(store, model, `seed ${seed} end`);
  await store.shutdown();
}

describe('DefaultMessageStore against a model', () => {
  const fixed = process.env.RMQ_FUZZ_SEED;
  const seeds = fixed === undefined ? [1, 2, 3, 4] : [Number(fixed)];
  const ops = Number(process.env.RMQ_FUZZ_OPS ?? 500);
  for (const seed of seeds) {
    test(`seed ${seed}: ${ops} random operations`, { timeout: 120_000 }, async () => {
      await run(seed, ops);
    });
  }
});
