/**
 * The in-memory half of both offset stores, which needs no broker and no file: updateOffset with and
 * without increaseOnly, the READ_FROM_MEMORY and MEMORY_FIRST_THEN_STORE reads, freezing,
 * removeOffset and cloneOffsetTable. The broker store runs on a host that fails the test if any
 * memory-only call reaches the network; the file store on a fresh temp directory.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { LocalFileOffsetStore } from '../../../../src/client/consumer/offset/local-file-offset-store.js';
import { type OffsetStore, ReadOffsetType } from '../../../../src/client/consumer/offset/offset-store.js';
import { heldQueueKeys } from '../../../../src/client/consumer/offset/offset-table.js';
import {
  RemoteBrokerOffsetStore,
  type RemoteOffsetStoreHost,
} from '../../../../src/client/consumer/offset/remote-broker-offset-store.js';
import { createLogger } from '../../../../src/common/logger.js';
import { MessageQueue } from '../../../../src/common/message/message-queue.js';

const quiet = createLogger('test', { level: 'silent' });
const dir = mkdtempSync(join(tmpdir(), 'rmq-offset-table-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** A host whose every network call fails the test: these cases are memory only. */
const offlineHost: RemoteOffsetStoreHost = {
  clientId: '127.0.0.1@unit',
  logger: quiet,
  config: { vipChannelEnabled: false },
  api: { invoke: () => assert.fail('no broker call expected') },
  remoting: { invokeOneway: () => assert.fail('no oneway call expected') },
  findBrokerAddressInSubscribe: () => assert.fail('no broker lookup expected'),
  updateTopicRouteInfoFromNameServer: () => assert.fail('no route update expected'),
};

let seq = 0;
const stores: Record<string, () => OffsetStore> = {
  RemoteBrokerOffsetStore: () => new RemoteBrokerOffsetStore(offlineHost, 'cg-unit'),
  LocalFileOffsetStore: () => {
    seq += 1;
    return new LocalFileOffsetStore({
      clientId: `127.0.0.1@unit-${seq}`,
      groupName: 'cg-unit',
      logger: quiet,
      localOffsetStoreDir: dir,
    });
  },
};

const q0 = new MessageQueue('TopicA', 'broker-a', 0);
const q1 = new MessageQueue('TopicA', 'broker-a', 1);
const qb = new MessageQueue('TopicB', 'broker-a', 0);

const sorted = (entries: Array<[MessageQueue, bigint]>) =>
  entries.map(([mq, o]) => `${mq.topic}/${mq.queueId}=${o}`).sort();

for (const [name, make] of Object.entries(stores)) {
  describe(`${name}: offsets in memory`, () => {
    test('READ_FROM_MEMORY is -1 without an offset, then what updateOffset set', async () => {
      const store = make();
      assert.equal(await store.readOffset(q0, ReadOffsetType.READ_FROM_MEMORY), -1n);
      assert.equal(store.readOffsetInMemory(q0), -1n);
      store.updateOffset(q0, 10n, false);
      assert.equal(await store.readOffset(q0, ReadOffsetType.READ_FROM_MEMORY), 10n);
      assert.equal(await store.readOffset(q0, ReadOffsetType.MEMORY_FIRST_THEN_STORE), 10n);
      assert.equal(store.readOffsetInMemory(q0), 10n);
      // An equal queue built anew finds the same entry.
      assert.equal(store.readOffsetInMemory(new MessageQueue('TopicA', 'broker-a', 0)), 10n);
      assert.equal(store.readOffsetInMemory(q1), -1n);
    });

    test('increaseOnly never moves an offset back; without it any value is taken', () => {
      const store = make();
      store.updateOffset(q0, 100n, true);
      assert.equal(store.readOffsetInMemory(q0), 100n, 'the first value is taken even with increaseOnly');
      store.updateOffset(q0, 90n, true);
      assert.equal(store.readOffsetInMemory(q0), 100n);
      store.updateOffset(q0, 120n, true);
      assert.equal(store.readOffsetInMemory(q0), 120n);
      store.updateOffset(q0, 5n, false);
      assert.equal(store.readOffsetInMemory(q0), 5n);
      store.updateOffset(q0, 9007199254740993n, true);
      assert.equal(store.readOffsetInMemory(q0), 9007199254740993n, 'offsets beyond 2^53 stay exact');
    });

    test('a frozen offset ignores updates until the queue is removed', () => {
      const store = make();
      store.updateOffset(q0, 50n, false);
      store.updateAndFreezeOffset(q0, 20n);
      assert.equal(store.readOffsetInMemory(q0), 20n);
      store.updateOffset(q0, 60n, true);
      store.updateOffset(q0, 30n, false);
      assert.equal(store.readOffsetInMemory(q0), 20n);
      store.updateAndFreezeOffset(q1, 7n);
      assert.equal(store.readOffsetInMemory(q1), 7n, 'freezing creates the entry');
      store.removeOffset(q0);
      assert.equal(store.readOffsetInMemory(q0), -1n);
      store.updateOffset(q0, 60n, true);
      assert.equal(store.readOffsetInMemory(q0), 60n);
    });

    test('removeOffset forgets one queue; cloneOffsetTable filters by topic, blank means all', () => {
      const store = make();
      store.updateOffset(q0, 1n, false);
      store.updateOffset(q1, 2n, false);
      store.updateOffset(qb, 3n, false);
      assert.deepEqual(sorted(store.cloneOffsetTable('TopicA')), ['TopicA/0=1', 'TopicA/1=2']);
      assert.deepEqual(sorted(store.cloneOffsetTable(undefined)), ['TopicA/0=1', 'TopicA/1=2', 'TopicB/0=3']);
      assert.deepEqual(sorted(store.cloneOffsetTable('  ')), ['TopicA/0=1', 'TopicA/1=2', 'TopicB/0=3']);
      assert.deepEqual(store.cloneOffsetTable('TopicC'), []);
      store.removeOffset(q1);
      store.removeOffset(new MessageQueue('TopicZ', 'broker-a', 0));
      assert.deepEqual(sorted(store.cloneOffsetTable('')), ['TopicA/0=1', 'TopicB/0=3']);
      // A clone is a copy.
      const clone = store.cloneOffsetTable('TopicA');
      store.updateOffset(q0, 99n, false);
      assert.deepEqual(sorted(clone), ['TopicA/0=1']);
    });

    test('persistAll and persist with nothing to do touch neither broker nor file', async () => {
      const store = make();
      await store.persistAll([]);
      await store.persistAll(new Set<string>());
      await store.persist(q0);
      store.updateOffset(q0, 1n, false);
      await store.persistAll([]);
      assert.equal(store.readOffsetInMemory(q0), 1n, 'an empty persistAll removes nothing');
    });
  });
}

test('heldQueueKeys: a queue list becomes its keys, a key set is taken as is', () => {
  const keys = new Set([q0.key]);
  assert.equal(heldQueueKeys(keys), keys);
  assert.deepEqual([...heldQueueKeys([q0, q1, new MessageQueue('TopicA', 'broker-a', 0)])], [q0.key, q1.key]);
});
