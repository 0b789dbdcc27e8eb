/**
 * Interop of our lite pull consumer and pull consumer with the official 4.9.8 clients, on our name
 * server and broker and on the official 4.9.x ones (one pair per suite, each case with its own topic
 * and group):
 * - our lite pull consumer and the official DefaultLitePullConsumer in one group split the queues the
 *   way upstream's averaging strategy does, together consume every message once, and after both commit
 *   the broker's offsets, each client's committed offsets and mqadmin consumerProgress agree (its
 *   Client IP column comes from the members' running info: ours lists its queues, as 5.x does); when
 *   the Java member leaves, ours takes its queues over from the offsets Java committed;
 * - seek and offsetForTimestamp of ours land where the official lite pull consumer lands on the same
 *   queue: same offset, same first message;
 * - our pull consumer reads what the official producer wrote intact, its sendMessageBack puts the
 *   message into %RETRY%<group> with reconsumeTimes 1, and the official pull consumer reads from the
 *   offsets ours committed (updateConsumeOffset, then shutdown persists them) and sees the same
 *   messages, property for property.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import {
  ConsumeFromWhere,
  createLitePullConsumer,
  createProducer,
  createPullConsumer,
  type LitePullConsumer,
  type Producer,
  type PullConsumer,
  PullStatus,
} from '../../src/client/index.js';
import type { MessageExt } from '../../src/common/message/message.js';
import type { MessageQueue } from '../../src/common/message/message-queue.js';
import { officialProduce } from './client-probe.js';
import { CONSUMER_PEERS, type ConsumerPeer, until } from './consumer-peers.js';
import {
  type JavaMessage,
  type JavaSeek,
  officialLiteSeek,
  officialPullRead,
  startLiteGroupProbe,
} from './pull-consumer-probe.js';

/** Client ids sort ours first, so upstream's averaging gives ours queues 0-1 and Java 2-3. */
const OUR_IP = '127.0.0.2';
const JAVA_IP = '127.0.0.3';
/** Route refresh and rebalance every second (30 s and 20 s by default) so a group settles quickly. */
const FAST = { pollNameServerInterval: 1000, rebalanceWaitInterval: 1000 } as const;
const SETTLE_MS = 30_000;

function queueIds(mqs: readonly MessageQueue[]): number[] {
  return mqs.map((mq) => mq.queueId).sort((a, b) => a - b);
}

/** A message as the Java probe prints it, from our MessageExt, for field-by-field comparison. */
function asJava(m: MessageExt): JavaMessage {
  return {
    topic: m.topic,
    brokerName: m.brokerName ?? null,
    queueId: m.queueId,
    queueOffset: String(m.queueOffset),
    commitLogOffset: String(m.commitLogOffset),
    msgId: m.msgId,
    offsetMsgId: m.offsetMsgId,
    tags: m.tags ?? null,
    keys: m.keys ?? null,
    bodyHex: m.body.toString('hex'),
    reconsumeTimes: m.reconsumeTimes,
    properties: Object.fromEntries(m.properties),
    storeTimestamp: String(m.storeTimestamp),
    bornTimestamp: String(m.bornTimestamp),
  };
}

/** Reads `mq` from its min to its max offset with our pull consumer. */
async function readQueue(consumer: PullConsumer, mq: MessageQueue): Promise<MessageExt[]> {
  const out: MessageExt[] = [];
  let offset = await consumer.minOffset(mq);
  const end = await consumer.maxOffset(mq);
  while (offset < end) {
    const r = await consumer.pull(mq, '*', offset, 32);
    assert.equal(r.pullStatus, PullStatus.FOUND, `pull ${mq.toString()} at ${offset}`);
    out.push(...r.msgFoundList);
    offset = r.nextBeginOffset;
  }
  return out;
}

/** One data line of `mqadmin consumerProgress -g <group> -s true`. */
interface ProgressRow {
  readonly topic: string;
  readonly brokerName: string;
  readonly queueId: number;
  readonly brokerOffset: bigint;
  readonly consumerOffset: bigint;
  readonly clientIP: string;
}

function parseProgress(stdout: string): ProgressRow[] {
  const rows: ProgressRow[] = [];
  for (const line of stdout.split('\n')) {
    const m = /^(\S+)\s+(\S+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\S+)\s+(-?\d+)/.exec(line.trim());
    if (m === null) continue;
    rows.push({
      topic: m[1] as string,
      brokerName: m[2] as string,
      queueId: Number(m[3]),
      brokerOffset: BigInt(m[4] as string),
      consumerOffset: BigInt(m[5] as string),
      clientIP: m[6] as string,
    });
  }
  return rows;
}

for (const kind of CONSUMER_PEERS) {
  describe(`pull consumers with the official 4.9.8 clients on ${kind.name}`, () => {
    let peer: ConsumerPeer;

    before(async () => {
      peer = await kind.start();
    });

    after(async () => {
      await peer?.close();
    });

    test('our lite pull consumer and the official one split a group, consume every message once, agree with consumerProgress, and ours takes over when Java leaves', async () => {
      const topic = 'PullInteropLiteGroup';
      const group = 'pull-interop-lite-group';
      const count = 40;
      const mqs = await peer.createTopic(topic, 4);
      const java = await startLiteGroupProbe({
        namesrvAddr: peer.namesrvAddr,
        topic,
        group,
        clientIP: JAVA_IP,
        dir: peer.dir,
      });
      let ours: LitePullConsumer | undefined;
      let producer: Producer | undefined;
      try {
        await until(
          () => (java.held()?.length === 4 ? true : undefined),
          () => `the official member alone holding 4 queues (holds ${String(java.held())})`,
          SETTLE_MS,
        );
        const consumer = createLitePullConsumer({
          namesrvAddr: peer.namesrvAddr,
          consumerGroup: group,
          clientIP: OUR_IP,
          consumeFromWhere: ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET,
          autoCommit: false,
          ...FAST,
        });
        ours = consumer;
        consumer.subscribe(topic, '*');
        await consumer.start();
        const split = await until(
          () => {
            const o = queueIds(consumer.assignment());
            const j = [...(java.held() ?? [])];
            return o.length === 2 && j.length === 2 ? { ours: o, java: j } : undefined;
          },
          () => `a split (ours ${String(queueIds(consumer.assignment()))}, Java ${String(java.held())})`,
          SETTLE_MS,
        );
        assert.deepEqual(
          split,
          { ours: [0, 1], java: [2, 3] },
          'upstream averaging over the sorted client ids',
        );

        // Sent only now, so each message can reach only the member that holds its queue.
        producer = createProducer({
          namesrvAddr: peer.namesrvAddr,
          producerGroup: 'pull-interop-lite-producer',
        });
        await producer.start();
        const sent = new Map<string, { i: number; queueId: number }>();
        const perQueue = new Map<number, bigint>();
        for (let i = 0; i < count; i++) {
          const r = await producer.send({ topic, body: `lite-${i}`, tags: 'TagL', keys: `lite-key-${i}` });
          sent.set(r.msgId, { i, queueId: r.messageQueue.queueId });
          perQueue.set(r.messageQueue.queueId, (perQueue.get(r.messageQueue.queueId) ?? 0n) + 1n);
        }
        assert.deepEqual([...perQueue.keys()].sort(), [0, 1, 2, 3], 'the sends cover every queue');

        const got: MessageExt[] = [];
        const deadline = Date.now() + SETTLE_MS;
        while (got.length + java.messages().length < count && Date.now() < deadline) {
          got.push(...(await consumer.poll({ timeoutMs: 200 })));
        }
        await consumer.commitSync();
        const javaCommitted = await java.commit();
        const javaGot = java.messages();

        const everyId = [...got.map((m) => m.msgId), ...javaGot.map((m) => m.msgId)];
        assert.equal(everyId.length, count, `deliveries (ours ${got.length}, Java ${javaGot.length})`);
        assert.deepEqual(new Set(everyId), new Set(sent.keys()), 'every message once, nothing else');
        for (const m of got) {
          assert.ok(split.ours.includes(m.queueId), `ours polled ${m.msgId} of queue ${m.queueId}`);
          assert.equal(m.body.toString(), `lite-${sent.get(m.msgId)?.i}`);
        }
        for (const m of javaGot) assert.ok(split.java.includes(m.queueId), `Java polled queue ${m.queueId}`);
        for (const [label, offsets] of [
          ['ours', got.map((m) => [m.queueId, Number(m.queueOffset)] as const)],
          ['Java', javaGot.map((m) => [m.queueId, Number(m.queueOffset)] as const)],
        ] as const) {
          for (const q of [0, 1, 2, 3]) {
            const seen = offsets.filter(([id]) => id === q).map(([, o]) => o);
            if (seen.length === 0) continue;
            assert.deepEqual(seen, [...seen.keys()], `${label}: queue ${q} in offset order from 0`);
          }
        }

        for (const mq of mqs) {
          const expected = perQueue.get(mq.queueId);
          const committed = split.ours.includes(mq.queueId)
            ? await consumer.committed(mq)
            : javaCommitted.get(mq.queueId);
          assert.equal(committed, expected, `queue ${mq.queueId}: the member's committed offset`);
          assert.equal(await peer.committedOffset(group, mq), expected, `queue ${mq.queueId} on the broker`);
        }
        const progress = await peer.admin('consumerProgress', '-g', group, '-s', 'true');
        const rows = parseProgress(progress.stdout).filter((r) => r.topic === topic);
        assert.deepEqual(
          rows.map((r) => [r.queueId, r.brokerOffset, r.consumerOffset, r.clientIP]),
          mqs.map((mq) => [
            mq.queueId,
            perQueue.get(mq.queueId),
            perQueue.get(mq.queueId),
            // The 4.9.8 lite pull consumer's running info lists no queues (5.x lists them, as ours
            // does), so mqadmin cannot place the Java member's queues.
            split.ours.includes(mq.queueId) ? OUR_IP : 'N/A',
          ]),
          `consumerProgress:\n${progress.stdout}`,
        );

        // The Java member leaves: ours takes its queues over from the offsets Java committed, so
        // what Java consumed is not read again and what comes next is read once.
        await java.quit();
        await until(
          () => (consumer.assignment().length === 4 ? true : undefined),
          () => `ours holding all 4 queues (holds ${String(queueIds(consumer.assignment()))})`,
          SETTLE_MS,
        );
        const next = new Set<string>();
        for (let i = count; i < count + 8; i++) {
          next.add(
            (await producer.send({ topic, body: `lite-${i}`, tags: 'TagL', keys: `lite-key-${i}` })).msgId,
          );
        }
        const later: MessageExt[] = [];
        const laterDeadline = Date.now() + SETTLE_MS;
        while (later.length < next.size && Date.now() < laterDeadline) {
          later.push(...(await consumer.poll({ timeoutMs: 200 })));
        }
        assert.deepEqual(new Set(later.map((m) => m.msgId)), next, 'the later messages, once each');
        assert.equal(later.length, next.size);
        for (const m of later) {
          assert.ok(
            m.queueOffset >= (perQueue.get(m.queueId) ?? 0n),
            `${m.msgId} at ${m.queueOffset} is new`,
          );
        }
        assert.deepEqual(
          [...new Set(later.map((m) => m.queueId))].sort(),
          [0, 1, 2, 3],
          "from every queue, Java's former ones too",
        );
      } finally {
        await java.quit();
        await ours?.shutdown();
        await producer?.shutdown();
      }
    });

    test('seek and offsetForTimestamp land where the official lite pull consumer lands', async () => {
      const topic = 'PullInteropSeek';
      const [mq] = await peer.createTopic(topic, 1);
      assert.ok(mq !== undefined);
      const producer = createProducer({
        namesrvAddr: peer.namesrvAddr,
        producerGroup: 'pull-interop-seek-producer',
      });
      await producer.start();
      const reader = createPullConsumer({
        namesrvAddr: peer.namesrvAddr,
        consumerGroup: 'pull-interop-seek-reader',
      });
      await reader.start();
      let stored: MessageExt[];
      try {
        for (let i = 0; i < 8; i++) {
          await producer.send({ topic, body: `seek-${i}`, keys: `seek-${i}` });
          // Distinct store times, a few ms apart, so a timestamp between two messages has a nearer one.
          await delay(5);
        }
        stored = await readQueue(reader, mq);
      } finally {
        await reader.shutdown();
        await producer.shutdown();
      }
      assert.equal(stored.length, 8);
      const t = stored.map((m) => m.storeTimestamp);
      const at = (i: number) => t[i] as bigint;
      const ops = [
        `ts:${at(0) - 1000n}`,
        `ts:${at(0)}`,
        `ts:${at(3)}`,
        `ts:${at(3) + 1n}`,
        `ts:${at(5) - 1n}`,
        `ts:${at(7) + 1000n}`,
        'offset:6',
        'offset:2',
        'begin',
        'end',
      ];
      const javaSeeks = await officialLiteSeek(peer.dir, peer.namesrvAddr, mq, 'pull-interop-seek-java', ops);
      assert.equal(javaSeeks.length, ops.length, 'one answer per op from the official consumer');

      const consumer = createLitePullConsumer({
        namesrvAddr: peer.namesrvAddr,
        consumerGroup: 'pull-interop-seek-ts',
        autoCommit: false,
        // as the Java side: batches of 2, so several wait in the cache that a seek must drop
        pullBatchSize: 2,
      });
      consumer.assign([mq]);
      await consumer.start();
      const ourSeeks: JavaSeek[] = [];
      try {
        for (const op of ops) {
          let offset: bigint | null = null;
          if (op.startsWith('ts:')) {
            offset = await consumer.offsetForTimestamp(mq, BigInt(op.slice(3)));
            await consumer.seek(mq, offset);
          } else if (op.startsWith('offset:')) {
            offset = BigInt(op.slice(7));
            await consumer.seek(mq, offset);
          } else if (op === 'begin') {
            await consumer.seekToBegin(mq);
          } else {
            await consumer.seekToEnd(mq);
          }
          let first: MessageExt | undefined;
          const pollUntil = Date.now() + (op === 'end' ? 500 : 3000);
          while (first === undefined && Date.now() < pollUntil)
            [first] = await consumer.poll({ timeoutMs: 100 });
          ourSeeks.push({
            op,
            offset: offset === null ? null : String(offset),
            first: first === undefined ? null : asJava(first),
          });
        }
      } finally {
        await consumer.shutdown();
      }
      const summary = (s: readonly JavaSeek[]) =>
        s.map((x) => ({
          op: x.op,
          offset: x.offset,
          first: x.first && [x.first.queueOffset, x.first.msgId],
        }));
      assert.deepEqual(summary(ourSeeks), summary(javaSeeks));
      // And where upstream's store says they land: a time matches its message, otherwise the nearer
      // neighbour wins, and a time after the last message finds the last message, not the end.
      const landing = (offset: string | null, first: number | null) => ({
        offset,
        first: first === null ? null : [String(first), stored[first]?.msgId],
      });
      assert.deepEqual(
        summary(ourSeeks).map(({ offset, first }) => ({ offset, first })),
        [
          landing('0', 0),
          landing('0', 0),
          landing('3', 3),
          landing('3', 3),
          landing('5', 5),
          landing('7', 7),
          landing('6', 6),
          landing('2', 2),
          landing(null, 0),
          landing(null, null),
        ],
      );
    });

    test('our pull consumer reads the official producer, sends back to %RETRY%, and the official pull consumer reads from where ours committed', async (t) => {
      const topic = 'PullInteropPull';
      const group = 'pull-interop-pull';
      const retryTopic = `%RETRY%${group}`;
      const mqs = await peer.createTopic(topic, 4);
      const sent = await officialProduce(peer.namesrvAddr, topic, 24, {
        group: 'pull-interop-java-producer',
      });
      assert.equal(sent.length, 24);
      const consumer = createPullConsumer({
        namesrvAddr: peer.namesrvAddr,
        consumerGroup: group,
        registerTopics: [topic],
        ...FAST,
      });
      await consumer.start();
      const read = new Map<number, MessageExt[]>();
      const commitAt = new Map<number, bigint>();
      let retried: MessageExt | undefined;
      try {
        await t.test(
          'reads bodies, tags, keys, properties and msgIds as the official producer wrote them',
          async () => {
            const queues = (await consumer.fetchSubscribeMessageQueues(topic)).sort(
              (a, b) => a.queueId - b.queueId,
            );
            assert.deepEqual(queueIds(queues), queueIds(mqs));
            for (const mq of queues) read.set(mq.queueId, await readQueue(consumer, mq));
            const all = [...read.values()].flat();
            assert.equal(all.length, sent.length);
            const byId = new Map(all.map((m) => [m.msgId, m]));
            for (const s of sent) {
              const m = byId.get(s.msgId);
              assert.ok(m !== undefined, `message ${s.msgId} read`);
              const i = Number(m.getUserProperty('idx'));
              assert.deepEqual(
                {
                  offsetMsgId: m.offsetMsgId,
                  queueId: m.queueId,
                  queueOffset: String(m.queueOffset),
                  topic: m.topic,
                  body: m.body.toString(),
                  tags: m.tags,
                  keys: m.keys,
                  reconsumeTimes: m.reconsumeTimes,
                },
                {
                  offsetMsgId: s.offsetMsgId,
                  queueId: s.queueId,
                  queueOffset: s.queueOffset,
                  topic,
                  body: `body-${i}`,
                  tags: ['TagA', 'TagB', 'TagC'][i % 3],
                  keys: `key-${i} k2-${i}`,
                  reconsumeTimes: 0,
                },
              );
            }
          },
        );

        await t.test(
          'sendMessageBack puts the message into %RETRY%<group> with reconsumeTimes 1',
          async () => {
            const original = read.get(0)?.[0];
            assert.ok(original !== undefined);
            await consumer.sendMessageBack(original, 1);
            const retryQueues = await until(
              () => consumer.fetchSubscribeMessageQueues(retryTopic).catch(() => undefined),
              `a route of ${retryTopic}`,
              SETTLE_MS,
            );
            // Delay level 1: the broker holds it for a second in its schedule topic first.
            const found = await until(
              async () => {
                for (const mq of retryQueues) {
                  const r = await consumer.pull(mq, '*', 0n, 32);
                  if (r.pullStatus === PullStatus.FOUND) return r.msgFoundList;
                }
                return undefined;
              },
              `the message in ${retryTopic}`,
              SETTLE_MS,
              200,
            );
            assert.equal(found.length, 1);
            retried = found[0] as MessageExt;
            assert.equal(retried.topic, retryTopic);
            assert.equal(retried.reconsumeTimes, 1);
            assert.equal(retried.msgId, original.msgId, 'UNIQ_KEY kept');
            assert.equal(retried.getProperty('RETRY_TOPIC'), topic);
            // The broker sets it from the record it looked up by commit log offset, whose id is the
            // offset id (both brokers; the header's originMsgId only feeds its consume hooks).
            assert.equal(retried.getProperty('ORIGIN_MESSAGE_ID'), original.offsetMsgId);
            assert.deepEqual(retried.body, original.body);
            assert.equal(retried.tags, original.tags);
            assert.equal(retried.keys, original.keys);
          },
        );

        await t.test('updateConsumeOffset, then shutdown persists the offsets on the broker', async () => {
          await until(
            () => (consumer.fetchMessageQueuesInBalance(topic).length === 4 ? true : undefined),
            `all 4 queues of ${topic} in balance`,
            SETTLE_MS,
          );
          for (const mq of mqs) {
            const offset = BigInt(mq.queueId + 1);
            commitAt.set(mq.queueId, offset);
            consumer.updateConsumeOffset(mq, offset);
            assert.equal(await consumer.fetchConsumeOffset(mq, false), offset, 'in memory');
          }
          await consumer.shutdown();
          for (const mq of mqs) {
            assert.equal(
              await peer.committedOffset(group, mq),
              commitAt.get(mq.queueId),
              `queue ${mq.queueId}`,
            );
          }
        });
      } finally {
        await consumer.shutdown();
      }

      await t.test(
        'the official pull consumer reads from those offsets and sees what ours read',
        async () => {
          assert.ok(retried !== undefined, 'the send-back case ran');
          const javaReads = await officialPullRead(peer.dir, peer.namesrvAddr, group, [topic, retryTopic], {
            fromCommitted: true,
          });
          const main = javaReads.filter((r) => r.topic === topic);
          assert.deepEqual(
            main.map((r) => [r.queueId, r.committed]),
            mqs.map((mq) => [mq.queueId, commitAt.get(mq.queueId)]),
          );
          for (const r of main) {
            const ours = (read.get(r.queueId) ?? []).filter((m) => m.queueOffset >= r.committed);
            assert.ok(ours.length > 0);
            assert.deepEqual(r.messages, ours.map(asJava), `queue ${r.queueId}`);
          }
          const retry = javaReads.filter((r) => r.topic === retryTopic).flatMap((r) => r.messages);
          assert.deepEqual(retry, [asJava(retried)]);
        },
      );
    });
  });
}
