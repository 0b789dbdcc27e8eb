import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { createLogger } from '../../../src/common/logger.js';
import { ConsumeQueue } from '../../../src/store/consume-queue.js';
import { CQ_STORE_UNIT_SIZE, cqEntryAt } from '../../../src/store/consume-queue-entry.js';
import { prng } from '../message/annotated.js';

const roots: string[] = [];
after(() => {
  for (const r of roots) rmSync(r, { recursive: true, force: true });
});

const quiet = createLogger('test', { level: 'silent' });
const ENTRIES_PER_FILE = 5;

interface ModelEntry {
  phy: bigint;
  size: number;
  tags: bigint;
}

/**
 * In-memory model: entries by logical offset (undefined below the queue's first file), the minimum
 * readable offset, and where the commit log ends (new records start there).
 */
class Model {
  entries: Array<ModelEntry | undefined> = [];
  min = 0;
  nextPhy = 0n;
  minPhy = 0n;

  get max(): number {
    return this.entries.length;
  }

  lastEnd(): bigint {
    const last = this.entries.at(-1);
    return last === undefined ? -1n : last.phy + BigInt(last.size);
  }
}

function open(storePath: string): ConsumeQueue {
  return new ConsumeQueue('ModelTopic', 4, {
    storePath,
    mappedFileSize: ENTRIES_PER_FILE * CQ_STORE_UNIT_SIZE,
    logger: quiet,
  });
}

function check(cq: ConsumeQueue, model: Model, step: string): void {
  assert.equal(cq.getMaxOffsetInQueue(), BigInt(model.max), `${step}: max`);
  assert.equal(cq.getMinOffsetInQueue(), BigInt(model.min), `${step}: min`);
  if (model.max > model.min)
    assert.equal(cq.getMaxPhysicOffset(), model.lastEnd(), `${step}: max physic offset`);
  for (let i = model.min; i < model.max; i++) {
    const e = cq.getEntry(BigInt(i));
    const m = model.entries[i];
    assert.ok(m, `${step}: model entry ${i}`);
    assert.deepEqual(e, { commitLogOffset: m.phy, size: m.size, tagsCode: m.tags }, `${step}: entry ${i}`);
  }
}

for (const seed of [1, 2, 3, 4, 5, 6, 7, 8]) {
  test(`seeded random operations agree with the in-memory model (seed ${seed})`, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rmq-cq-model-'));
    roots.push(dir);
    const storePath = join(dir, 'consumequeue');
    const rnd = prng(seed);
    const int = (n: number): number => Math.floor(rnd() * n);
    const model = new Model();
    let cq = open(storePath);
    for (let step = 0; step < 400; step++) {
      const op = int(100);
      const label = `seed ${seed} step ${step} op ${op}`;
      if (op < 55) {
        // append the next record (gaps stand for other queues' records)
        const size = 1 + int(500);
        const phy = model.nextPhy + BigInt(int(3) * 7);
        const tags = BigInt(int(2 ** 31)) - 2n ** 30n;
        const noFiles = cq.fileNames().length === 0;
        assert.equal(cq.putEntry(phy, size, tags, BigInt(model.max)), true, label);
        // a queue without files starts at the entry's offset (padding before it)
        if (noFiles) model.min = model.max;
        model.entries.push({ phy, size, tags });
        model.nextPhy = phy + BigInt(size);
      } else if (op < 62) {
        // re-dispatch of an already indexed record changes nothing
        if (model.max > model.min) {
          const i = model.min + int(model.max - model.min);
          const m = model.entries[i];
          assert.ok(m);
          assert.equal(cq.putEntry(m.phy, m.size, m.tags, BigInt(i)), true, label);
        }
      } else if (op < 75) {
        // range read
        const start = int(model.max + 3);
        const maxEntries = 1 + int(12);
        const buf = cq.getIndexBuffer(BigInt(start), maxEntries);
        if (start < model.min || start >= model.max) {
          assert.equal(buf, undefined, label);
        } else {
          assert.ok(buf, label);
          const fileEnd = (Math.floor(start / ENTRIES_PER_FILE) + 1) * ENTRIES_PER_FILE;
          const n = Math.min(maxEntries, model.max - start, fileEnd - start);
          assert.equal(buf.length, n * CQ_STORE_UNIT_SIZE, label);
          for (let i = 0; i < n; i++) {
            const m = model.entries[start + i];
            assert.ok(m);
            assert.deepEqual(
              cqEntryAt(buf, i),
              { commitLogOffset: m.phy, size: m.size, tagsCode: m.tags },
              label,
            );
          }
        }
      } else if (op < 83) {
        // restart: reload from disk, correct the minimum as the store does at start
        if (int(2) === 0) await cq.flush();
        cq.close();
        cq = open(storePath);
        cq.load();
        cq.recover();
        cq.correctMinOffset(model.minPhy);
      } else if (op < 90) {
        // commit-log recovery ends at a record boundary at or past its minimum
        const readable = model.max - model.min;
        let cut = model.nextPhy;
        if (readable > 0 && int(3) > 0) {
          const m = model.entries[model.min + int(readable)];
          assert.ok(m);
          cut = int(2) === 0 ? m.phy : m.phy + BigInt(m.size);
        }
        cq.truncateDirtyLogicFiles(cut);
        while (model.entries.length > model.min && (model.entries.at(-1)?.phy ?? -1n) >= cut)
          model.entries.pop();
        if (cq.fileNames().length === 0) {
          // every file went: the queue starts again from 0, as upstream
          model.entries = [];
          model.min = 0;
        }
        model.nextPhy = cut;
      } else if (op < 95) {
        // retention: the commit log's minimum moves up (never past its end)
        const span = model.nextPhy - model.minPhy;
        const minPhy = model.minPhy + (span > 0n ? BigInt(int(Number(span) + 1)) : 0n);
        model.minPhy = minPhy;
        cq.deleteExpiredFile(minPhy);
        let min = model.min;
        while (min < model.max && (model.entries[min]?.phy ?? -1n) < minPhy) min++;
        model.min = min;
      } else {
        await cq.flush(int(2));
      }
      check(cq, model, label);
    }
    cq.close();
  });
}
