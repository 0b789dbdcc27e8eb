/**
 * Store directories move between the official broker (4.9.x, and the newest 5.x from interop/server5)
 * and our DefaultMessageStore, both ways:
 *
 *  - official -> ours: the official producer sends (sync and batch), the official consumer pulls and
 *    commits its offsets, the broker stops gracefully; our store opens the directory and every message
 *    is readable at its queue offset with the body, tags, keys and properties that were sent, and
 *    consumerOffset.json parses.
 *  - ours -> official: our store writes messages shaped like the official producer's (one put each and
 *    a batch), topics.json is written with the topic-config codec, our store shuts down; the official
 *    broker opens the directory, the official consumer reads every message, and new sends continue the
 *    queue offsets. A second round leaves our abort file behind, so the official broker recovers the
 *    directory abnormally (its CRC checks over our records).
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { PermName } from '../../src/common/constants.js';
import { createLogger } from '../../src/common/logger.js';
import { encodeBatch } from '../../src/common/message/batch.js';
import type { HostAddress } from '../../src/common/message/host.js';
import { Message } from '../../src/common/message/message.js';
import { decodeMessage } from '../../src/common/message/stored-format.js';
import { tagsString2tagsCode } from '../../src/common/message/tag-hash.js';
import { decodeConsumerOffsetTable } from '../../src/common/protocol/consumer-offset-wrapper.js';
import { encodeTopicConfigSerializeWrapper } from '../../src/common/protocol/register-broker-body.js';
import { createTopicConfig } from '../../src/common/protocol/topic-config.js';
import { createAbortFile } from '../../src/store/abort-file.js';
import { type MessageStoreConfig, messageStoreConfig } from '../../src/store/config.js';
import { DefaultMessageStore } from '../../src/store/default-message-store.js';
import { GetMessageStatus } from '../../src/store/message-store.js';
import type { MessageExtBrokerInner } from '../../src/store/stored-record-writer.js';
import { officialProduce, officialPullAll, type ProbeMessage } from './client-probe.js';
import { type NamesrvHandle, startBroker, startNamesrv, UPSTREAM_LINES } from './harness.js';

/**
 * How long an official broker gets to shut down cleanly (its hooks flush and pause for seconds; 5.x
 * took more than 15 s on a loaded 2-core machine, leaving the abort file). A broker that stops
 * sooner costs nothing.
 */
const STOP_GRACE_MS = 60_000;

const quiet = createLogger('store-compat', { level: 'silent' });
const TAGS = ['TagA', 'TagB', 'TagC'];
/** Properties the official client adds when it pulls (PullAPIWrapper), not stored ones. */
const CLIENT_ADDED = new Set(['MIN_OFFSET', 'MAX_OFFSET']);

/** File sizes both sides use: several commit-log and consume-queue files for a few hundred messages. */
const SIZES = {
  mappedFileSizeCommitLog: 64 * 1024,
  mappedFileSizeConsumeQueue: 20 * 20,
  maxHashSlotNum: 100_000,
  maxIndexNum: 400_000,
} as const;

function ourConfig(root: string): MessageStoreConfig {
  return messageStoreConfig({ storePathRootDir: root, ...SIZES });
}

function brokerConfig(): Record<string, string | number | boolean> {
  return { ...SIZES, flushDiskType: 'ASYNC_FLUSH' };
}

function storedProperties(properties: Record<string, string>): Map<string, string> {
  return new Map(Object.entries(properties).filter(([k]) => !CLIENT_ADDED.has(k)));
}

for (const { upstream, name: lineName } of UPSTREAM_LINES)
  describe(`store directories between the official ${lineName} broker and DefaultMessageStore`, {
    timeout: 900_000,
  }, () => {
    let namesrv: NamesrvHandle | undefined;
    const dirs: string[] = [];
    const newDir = (name: string): string => {
      const d = fs.mkdtempSync(join(tmpdir(), `rmq-store-compat-${name}-`));
      dirs.push(d);
      return d;
    };

    before(
      async () => {
        namesrv = await startNamesrv({ upstream });
      },
      { timeout: 120_000 },
    );
    after(async () => {
      await namesrv?.close();
      if (process.env.RMQ_INTEROP_KEEP !== '1') {
        for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
      }
    });

    test('a directory written by the official broker opens in ours with every message', {
      timeout: 400_000,
    }, async () => {
      assert.ok(namesrv);
      const root = newDir('official');
      const topic = 'CompatFromOfficial';
      const group = 'compat-consumer';
      const broker = await startBroker({
        namesrvAddr: namesrv.addr,
        brokerName: 'broker-compat-a',
        upstream,
        storeDir: root,
        config: brokerConfig(),
        gracefulStopMs: STOP_GRACE_MS,
      });
      let pulled: ProbeMessage[];
      try {
        const sync = await officialProduce(namesrv.addr, topic, 200, { mode: 'sync', bodySize: 200 });
        const batch = await officialProduce(namesrv.addr, topic, 100, { mode: 'batch', bodySize: 120 });
        assert.ok([...sync, ...batch].every((r) => r.status === 'SEND_OK'));
        pulled = await officialPullAll(namesrv.addr, topic, group, { commit: true });
      } finally {
        await broker.close();
      }
      assert.equal(pulled.length, 300);
      assert.ok(!fs.existsSync(join(root, 'abort')), 'the official broker stopped cleanly');
      assert.ok(fs.readdirSync(join(root, 'commitlog')).length >= 2, 'several commit-log files');

      const store = new DefaultMessageStore(ourConfig(root), { logger: quiet });
      await store.load();
      assert.equal(store.lastShutdownWasClean, true);
      await store.start();
      try {
        for (const expected of pulled) {
          const offset = BigInt(expected.queueOffset);
          const r = await store.getMessage('g', topic, expected.queueId, offset, 1);
          assert.equal(r.status, GetMessageStatus.FOUND, `${expected.queueId}@${offset}`);
          assert.equal(r.messages.length, 1);
          const m = decodeMessage(r.messages[0] as Buffer);
          assert.equal(m.topic, topic);
          assert.equal(m.queueId, expected.queueId);
          assert.equal(m.queueOffset, offset);
          assert.equal(m.commitLogOffset, BigInt(expected.commitLogOffset));
          assert.equal(m.body.toString('hex'), expected.bodyHex);
          assert.equal(m.tags, expected.tags ?? undefined);
          assert.equal(m.keys, expected.keys ?? undefined);
          assert.equal(m.msgId, expected.msgId);
          assert.equal(m.offsetMsgId, expected.offsetMsgId);
          assert.deepEqual(new Map([...m.properties].sort()), storedProperties(expected.properties));
        }
        // Every queue reads to its end in order, and nothing else is there.
        let total = 0;
        for (const queueId of new Set(pulled.map((p) => p.queueId))) {
          const max = store.getMaxOffsetInQueue(topic, queueId);
          total += Number(max - store.getMinOffsetInQueue(topic, queueId));
          const r = await store.getMessage('g', topic, queueId, max, 32);
          assert.equal(r.status, GetMessageStatus.OFFSET_OVERFLOW_ONE);
        }
        assert.equal(total, 300);
        // The index the official broker built answers our key queries.
        const sample = pulled[17] as ProbeMessage;
        const q = await store.queryMessage(
          topic,
          `key-${sample.properties.idx}`,
          32,
          0n,
          BigInt(Date.now() + 60_000),
        );
        assert.ok(
          q.messages.some((rec) => decodeMessage(rec).commitLogOffset === BigInt(sample.commitLogOffset)),
        );
        const byUniq = await store.queryMessage(topic, sample.msgId, 32, 0n, BigInt(Date.now() + 60_000));
        assert.equal(byUniq.messages.length, 1);
      } finally {
        await store.shutdown();
      }

      const offsets = decodeConsumerOffsetTable(fs.readFileSync(join(root, 'config', 'consumerOffset.json')));
      const committed = offsets.get(`${topic}@${group}`);
      assert.ok(committed !== undefined, 'the committed offsets of the group');
      for (const queueId of new Set(pulled.map((p) => p.queueId))) {
        const last = Math.max(
          ...pulled.filter((p) => p.queueId === queueId).map((p) => Number(p.queueOffset)),
        );
        assert.equal(committed.get(queueId), BigInt(last + 1));
      }
    });

    test('a directory written by ours opens in the official broker and its consumer reads every message', {
      timeout: 480_000,
    }, async () => {
      assert.ok(namesrv);
      const ns = namesrv;
      const topic = 'CompatFromOurs';
      const queues = 4;
      /** Expected content by message id (UNIQ_KEY). */
      const sent = new Map<string, Expected>();
      const root = newDir('ours');
      const storeHost: HostAddress = { address: '127.0.0.1', port: 10911 };
      const bornHost: HostAddress = { address: '127.0.0.1', port: 40000 };
      const uniq = (i: number): string =>
        `7F00000100002A9F0000${i.toString(16).toUpperCase().padStart(12, '0')}`;

      /** Our store appends `count` messages (the last 20 as one batch) and shuts down. */
      const writeWithOurs = async (from: number, count: number): Promise<Map<number, bigint>> => {
        const store = new DefaultMessageStore(ourConfig(root), { logger: quiet, brokerStoreHost: storeHost });
        await store.load();
        await store.start();
        const maxOffsets = new Map<number, bigint>();
        try {
          for (let i = from; i < from + count - 20; i++) {
            const queueId = i % queues;
            const tag = TAGS[i % 3] as string;
            const body = `body-${i}-${'.'.repeat(150)}`;
            const properties = new Map<string, string>([
              ['KEYS', `key-${i} k2-${i}`],
              ['idx', String(i)],
              ['UNIQ_KEY', uniq(i)],
              ['CLUSTER', 'DefaultCluster'],
              ['WAIT', 'true'],
              ['TAGS', tag],
            ]);
            const inner: MessageExtBrokerInner = {
              topic,
              queueId,
              flag: 0,
              body: Buffer.from(body),
              propertiesString: [...properties].map(([k, v]) => `${k}\u0001${v}`).join('\u0002'),
              tagsCode: tagsString2tagsCode(tag),
              sysFlag: 0,
              bornTimestamp: BigInt(Date.now()),
              bornHost,
              storeHost,
              reconsumeTimes: 0,
              preparedTransactionOffset: 0n,
            };
            const r = await store.putMessage(inner);
            assert.equal(r.putMessageStatus, 'PUT_OK');
            sent.set(uniq(i), { body, tag, keys: `key-${i} k2-${i}`, queueId });
          }
          // The last 20 as one batch, as SEND_BATCH_MESSAGE stores them.
          const batch: Message[] = [];
          for (let i = from + count - 20; i < from + count; i++) {
            const tag = TAGS[i % 3] as string;
            const m = new Message(topic, Buffer.from(`body-${i}`), { tags: tag, keys: `key-${i} k2-${i}` });
            m.putProperty('idx', String(i));
            m.putProperty('UNIQ_KEY', uniq(i));
            batch.push(m);
            sent.set(uniq(i), { body: `body-${i}`, tag, keys: `key-${i} k2-${i}`, queueId: 1 });
          }
          const r = await store.putMessages({
            topic,
            queueId: 1,
            body: encodeBatch(batch),
            propertiesString: 'CLUSTER\u0001DefaultCluster',
            sysFlag: 0,
            bornTimestamp: BigInt(Date.now()),
            bornHost,
            storeHost,
            reconsumeTimes: 0,
          });
          assert.equal(r.putMessageStatus, 'PUT_OK');
          for (let q = 0; q < queues; q++) maxOffsets.set(q, store.getMaxOffsetInQueue(topic, q));
        } finally {
          await store.shutdown();
        }
        return maxOffsets;
      };

      /** The official broker opens the directory; its consumer reads everything; its producer adds 8. */
      const readWithOfficial = async (maxOffsets: Map<number, bigint>, abnormal: boolean): Promise<void> => {
        if (abnormal) createAbortFile(root);
        writeTopicsJson(root, topic, queues);
        const group = `compat-reader-${sent.size}`;
        const broker = await startBroker({
          namesrvAddr: ns.addr,
          brokerName: 'broker-compat-b',
          upstream,
          storeDir: root,
          config: brokerConfig(),
          gracefulStopMs: STOP_GRACE_MS,
        });
        let pulled: ProbeMessage[];
        let more: Awaited<ReturnType<typeof officialProduce>>;
        try {
          const recovery = abnormal ? 'last shutdown abnormally' : 'last shutdown normally';
          assert.ok(broker.logTail(100_000).includes(recovery), `the official broker logged "${recovery}"`);
          pulled = await officialPullAll(ns.addr, topic, group);
          more = await officialProduce(ns.addr, topic, 8, { mode: 'sync' });
        } catch (err) {
          throw new Error(`${err instanceof Error ? err.message : String(err)}\n${broker.logTail(80)}`);
        } finally {
          await broker.close();
        }
        assert.equal(pulled.length, sent.size, 'the official consumer read every message');
        const perQueue = new Map<number, bigint[]>();
        for (const m of pulled) {
          const s = sent.get(m.msgId);
          assert.ok(s !== undefined, `message ${m.msgId} was stored`);
          assert.equal(Buffer.from(m.bodyHex, 'hex').toString(), s.body);
          assert.equal(m.tags, s.tag);
          assert.equal(m.keys, s.keys);
          assert.equal(m.queueId, s.queueId);
          const list = perQueue.get(m.queueId) ?? [];
          list.push(BigInt(m.queueOffset));
          perQueue.set(m.queueId, list);
        }
        for (const [queueId, offsets] of perQueue) {
          assert.deepEqual(
            offsets,
            offsets.map((_, k) => BigInt(k)),
            `queue ${queueId} holds offsets 0..n-1`,
          );
          assert.equal(BigInt(offsets.length), maxOffsets.get(queueId));
        }
        // The official broker continues each queue where ours left it.
        const next = new Map(maxOffsets);
        more.forEach((r, i) => {
          assert.equal(r.status, 'SEND_OK');
          assert.equal(BigInt(r.queueOffset), next.get(r.queueId), `queue ${r.queueId}`);
          next.set(r.queueId, (next.get(r.queueId) ?? 0n) + 1n);
          sent.set(r.msgId, {
            body: `body-${i}`,
            tag: TAGS[i % 3] as string,
            keys: `key-${i} k2-${i}`,
            queueId: r.queueId,
          });
        });
      };

      const first = await writeWithOurs(0, 240);
      assert.ok(fs.readdirSync(join(root, 'commitlog')).length >= 2, 'several commit-log files');
      await readWithOfficial(first, false);

      // Round two: ours opens the mixed directory (the official broker's 8 messages are readable too),
      // appends 60 more and leaves its abort file, so the official broker recovers abnormally: it scans
      // and CRC-checks our records and rebuilds what it distrusts.
      const second = await writeWithOurs(1000, 60);
      let total = 0n;
      for (const max of second.values()) total += max;
      assert.equal(total, BigInt(sent.size));
      await readWithOfficial(second, true);
    });
  });

interface Expected {
  body: string;
  tag: string;
  keys: string;
  queueId: number;
}

/** topics.json for one topic, written with the topic-config codec as TopicConfigManager would. */
function writeTopicsJson(root: string, topic: string, queues: number): void {
  const wrapper = encodeTopicConfigSerializeWrapper(
    {
      topicConfigTable: new Map([
        [
          topic,
          createTopicConfig(topic, {
            readQueueNums: queues,
            writeQueueNums: queues,
            perm: PermName.PERM_READ | PermName.PERM_WRITE,
          }),
        ],
      ]),
      dataVersion: { timestamp: BigInt(Date.now()), counter: 1n },
    },
    { pretty: true },
  );
  fs.mkdirSync(join(root, 'config'), { recursive: true });
  fs.writeFileSync(join(root, 'config', 'topics.json'), wrapper);
}
