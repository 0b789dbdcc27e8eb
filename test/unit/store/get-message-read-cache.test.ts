import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { tagsString2tagsCode } from '../../../src/common/message/tag-hash.js';
import type { DefaultMessageStore } from '../../../src/store/default-message-store.js';
import type { GetMessageResult, MessageFilter } from '../../../src/store/message-store.js';
import { msg, openStore, put, removeTempDirs, tempDir } from './default-message-store-support.js';

after(removeTempDirs);

const QUEUES = 3;

/** The same messages, queues taking turns (each queue's records lie apart), in a fresh store. */
async function filled(overrides: Parameters<typeof openStore>[1]): Promise<DefaultMessageStore> {
  // Nothing of the commit log in memory: every record is read from the files.
  const store = await openStore(tempDir(), { commitLogTailCacheBytes: 0, ...overrides });
  for (let i = 0; i < 300; i++) {
    await put(store, msg(i, { queueId: i % QUEUES, body: `body-${i}-${'y'.repeat((i * 53) % 400)}` }));
  }
  return store;
}

function tagFilter(tag: string): MessageFilter {
  const code = tagsString2tagsCode(tag);
  return { isMatchedByConsumeQueue: (tagsCode) => tagsCode === code, isMatchedByCommitLog: () => true };
}

/** Every pull a consumer of each queue makes, `maxMsgNums` at a time, queues taking turns. */
async function pulls(store: DefaultMessageStore, maxMsgNums: number, filter?: MessageFilter) {
  const results: GetMessageResult[] = [];
  const next = Array.from({ length: QUEUES }, () => 0n);
  for (let round = 0; round < 200; round++) {
    for (let q = 0; q < QUEUES; q++) {
      const r = await store.getMessage('g', 'TopicTest', q, next[q] as bigint, maxMsgNums, filter);
      results.push(r);
      next[q] = r.nextBeginOffset;
    }
  }
  return results;
}

test('getMessage through the read cache: the same answers as reading each record, and they stay intact', async () => {
  const exact = await filled({ pullReadCacheBytes: 0 });
  // One byte of capacity: every block read evicts another, whose memory is reused.
  const tiny = await filled({ pullReadCacheBytes: 1 });
  const roomy = await filled({});
  try {
    for (const [maxMsgNums, filter] of [
      [32, undefined],
      [7, undefined],
      [5, tagFilter('TagB')],
    ] as const) {
      const want = await pulls(exact, maxMsgNums, filter);
      for (const store of [tiny, roomy]) {
        // Compared once all pulls are done: an answer must not change under later pulls.
        const got = await pulls(store, maxMsgNums, filter);
        assert.equal(got.length, want.length);
        got.forEach((r, i) => {
          const w = want[i] as GetMessageResult;
          assert.equal(r.status, w.status, `pull ${i}`);
          assert.equal(r.nextBeginOffset, w.nextBeginOffset, `pull ${i}`);
          assert.deepEqual(r.messageQueueOffsets, w.messageQueueOffsets, `pull ${i}`);
          assert.equal(r.bufferTotalSize, w.bufferTotalSize, `pull ${i}`);
          assert.deepEqual(r.messages, w.messages, `pull ${i}`);
        });
      }
      assert.ok(
        want.some((r) => r.messages.length > 1),
        'some pulls return several records',
      );
    }
  } finally {
    for (const s of [exact, tiny, roomy]) await s.shutdown();
  }
});
