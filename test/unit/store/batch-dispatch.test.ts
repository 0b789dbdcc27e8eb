/**
 * A batch's records reach the consume queue, the index and the arriving listeners through the batch
 * path (DispatchBatch, no properties string decoded): what each gets must equal what the reput builds
 * from the stored bytes, whatever properties the messages and the batch carry.
 */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { encodeBatch } from '../../../src/common/message/batch.js';
import { Message } from '../../../src/common/message/message.js';
import { decodeMessages } from '../../../src/common/message/stored-format.js';
import { tagsString2tagsCode } from '../../../src/common/message/tag-hash.js';
import { cqEntryAt } from '../../../src/store/consume-queue-entry.js';
import type { DispatchRequest } from '../../../src/store/dispatch-request.js';
import { PutMessageStatus } from '../../../src/store/put-message-result.js';
import type { MessageExtBatch } from '../../../src/store/stored-record-writer.js';
import {
  BORN_HOST,
  msg,
  openStore,
  put,
  removeTempDirs,
  STORE_HOST,
  tempDir,
} from './default-message-store-support.js';

after(removeTempDirs);

function message(body: string, properties: Record<string, string>): Message {
  const m = new Message('BatchTopic', Buffer.from(body));
  for (const [k, v] of Object.entries(properties)) m.putProperty(k, v);
  return m;
}

function batch(queueId: number, messages: Message[], propertiesString: string): MessageExtBatch {
  return {
    topic: 'BatchTopic',
    queueId,
    body: encodeBatch(messages),
    propertiesString,
    sysFlag: 0,
    bornTimestamp: 1_700_000_000_000n,
    bornHost: BORN_HOST,
    storeHost: STORE_HOST,
    reconsumeTimes: 0,
  };
}

const fields = (r: DispatchRequest) => ({
  topic: r.topic,
  queueId: r.queueId,
  commitLogOffset: r.commitLogOffset,
  msgSize: r.msgSize,
  tagsCode: r.tagsCode,
  storeTimestamp: r.storeTimestamp,
  consumeQueueOffset: r.consumeQueueOffset,
  keys: r.keys,
  uniqKey: r.uniqKey,
  sysFlag: r.sysFlag,
  preparedTransactionOffset: r.preparedTransactionOffset,
  propertiesString: r.propertiesString,
});

test('batch records get the consume-queue entries, index keys and listener calls the stored bytes give', async () => {
  const store = await openStore(tempDir());
  try {
    const seen: DispatchRequest[] = [];
    store.onMessageArrived((r) => seen.push(r));
    await put(store, msg(0, { topic: 'BatchTopic', queueId: 1 }));
    const batches = [
      // As the official client sends them: WAIT and UNIQ_KEY per message, WAIT for the batch.
      batch(
        1,
        [0, 1, 2].map((i) =>
          message(`a${i}`, { WAIT: 'true', UNIQ_KEY: `7F00000100002A9F0000000000000${i}0A` }),
        ),
        'WAIT\u0001true\u0002CLUSTER\u0001DefaultCluster',
      ),
      // Own TAGS and KEYS, non-ASCII ones, none at all, and properties ending in a separator.
      batch(
        1,
        [
          message('b0', { TAGS: 'TagA', KEYS: 'k1 k2', UNIQ_KEY: 'U-b0' }),
          message('b1', { TAGS: '标签', KEYS: 'ключ  k3', UNIQ_KEY: 'ü-b1' }),
          message('b2', {}),
        ],
        'CLUSTER\u0001c',
      ),
      // The batch's own KEYS, UNIQ_KEY and TAGS come after every message's and so win.
      batch(
        2,
        [message('c0', { TAGS: 'mine', KEYS: 'own', UNIQ_KEY: 'U-c0' }), message('c1', { idx: '1' })],
        'KEYS\u0001shared\u0002UNIQ_KEY\u0001U-batch\u0002TAGS\u0001TagB',
      ),
      // No batch properties at all: no separator is added.
      batch(2, [message('d0', { TAGS: 'polygenelubricants', UNIQ_KEY: 'U-d0' })], ''),
    ];
    for (const b of batches) {
      const r = await store.putMessages(b);
      assert.equal(r.putMessageStatus, PutMessageStatus.PUT_OK);
    }
    await put(store, msg(1, { topic: 'BatchTopic', queueId: 2 }));

    const parsed: DispatchRequest[] = [];
    store.commitLog.forEachRecord(0, (r) => parsed.push(r));
    assert.equal(parsed.length, 11);
    assert.deepEqual(seen.map(fields), parsed.map(fields), 'listeners see what parsing gives');

    for (const queueId of [1, 2]) {
      const cq = store.consumeQueueStore.getConsumeQueue('BatchTopic', queueId);
      const expected = parsed.filter((r) => r.queueId === queueId);
      const buf = cq?.getIndexBuffer(0n, 100);
      assert.ok(buf !== undefined);
      assert.deepEqual(
        expected.map((_, i) => cqEntryAt(buf, i)),
        expected.map((r) => ({ commitLogOffset: r.commitLogOffset, size: r.msgSize, tagsCode: r.tagsCode })),
        `queue ${queueId}`,
      );
    }

    const bodiesByKey = async (key: string) => {
      const q = await store.queryMessage('BatchTopic', key, 32, 0n, 4_000_000_000_000n);
      return decodeMessages(Buffer.concat(q.messages))
        .map((m) => m.body.toString())
        .sort();
    };
    for (const r of parsed) {
      const body = decodeMessages(store.commitLog.getMessage(Number(r.commitLogOffset), r.msgSize)!)[0]!.body;
      if (r.uniqKey !== undefined)
        assert.ok((await bodiesByKey(r.uniqKey)).includes(body.toString()), r.uniqKey);
      for (const key of r.keys.split(' ').filter((k) => k.length > 0)) {
        assert.ok((await bodiesByKey(key)).includes(body.toString()), key);
      }
    }
    assert.deepEqual(await bodiesByKey('ключ'), ['b1']);
    assert.deepEqual(await bodiesByKey('U-batch'), ['c0', 'c1']);
    assert.deepEqual(await bodiesByKey('shared'), ['c0', 'c1']);
    assert.deepEqual(await bodiesByKey('own'), [], 'a KEYS the batch overrides is not indexed');
    assert.deepEqual(await bodiesByKey('U-c0'), []);
    const c0 = parsed.find((r) => r.uniqKey === 'U-batch');
    assert.equal(c0?.tagsCode, tagsString2tagsCode('TagB'), "the batch's TAGS win");
  } finally {
    await store.shutdown();
  }
});

test("a listener's interest lets the store pass over a batch's records, never a single message's", async () => {
  const store = await openStore(tempDir());
  try {
    const all: string[] = [];
    const picky: string[] = [];
    const asked: string[] = [];
    store.onMessageArrived((r) => all.push(`${r.queueId}/${r.consumeQueueOffset}`));
    store.onMessageArrived(
      (r) => picky.push(`${r.queueId}/${r.consumeQueueOffset}`),
      (topic, queueId) => {
        asked.push(`${topic}/${queueId}`);
        return queueId === 2;
      },
    );
    for (const queueId of [1, 2]) {
      const r = await store.putMessages(batch(queueId, [message('x', {}), message('y', {})], ''));
      assert.equal(r.putMessageStatus, PutMessageStatus.PUT_OK);
    }
    await put(store, msg(0, { topic: 'BatchTopic', queueId: 1 }));
    assert.deepEqual(all, ['1/0', '1/1', '2/0', '2/1', '1/2']);
    assert.deepEqual(picky, ['2/0', '2/1', '1/2']);
    assert.deepEqual(asked, ['BatchTopic/1', 'BatchTopic/2']);
  } finally {
    await store.shutdown();
  }
});
