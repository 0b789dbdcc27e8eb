/**
 * Our producer (createProducer) against the official 4.9.x name server and broker, the official
 * 5.x pair and our own pair: sync, many in flight, oneway, batch, selector-ordered, compressed and
 * delayed sends, and committed transactions (at once, or after the broker's check), are received by
 * the official 4.9.8 push consumer (interop PushConsumerProbe) with topic, tags, keys, properties and
 * body intact, and with the msgId our SendResult reported (for single sends also the broker, queue,
 * queue offset and offset msgId). One name server and broker per peer (checking open transactions
 * every second), one topic, one consumer started after the first send created the topic (through
 * TBW102).
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import {
  createProducer,
  createTransactionProducer,
  LocalTransactionState,
  Message,
  type MessageExt,
  type MessageInput,
  type Producer,
  type SendResult,
  selectMessageQueueByHash,
  type TransactionSendResult,
} from '../../src/index.js';
import { PRODUCER_PEERS, type ProducerPeer } from './producer-peers.js';
import {
  bodyDigest,
  type PushConsumerProbe,
  type ReceivedMessage,
  startPushConsumerProbe,
} from './push-consumer-probe.js';

const TOPIC = 'ProducerInterop';
const PRODUCER_GROUP = 'pg_producer_interop';
const CONSUMER_GROUP = 'cg_producer_interop';
/** Queues a topic created by a first send gets (the producer's defaultTopicQueueNums). */
const QUEUES = 4;
const DELIVERY_MS = 30_000;
const COMPRESSED_FLAG = 0x1;
/**
 * Properties the broker (CLUSTER; MSG_REGION and TRACE_ON from 5.x) or the consuming client (the
 * offsets, CONSUME_START_TIME) add to what was sent.
 */
const ADDED_ON_THE_WAY = new Set([
  'CLUSTER',
  'MSG_REGION',
  'TRACE_ON',
  'MIN_OFFSET',
  'MAX_OFFSET',
  'CONSUME_START_TIME',
]);
/** What the broker adds to a delayed message when it moves it to its real topic. */
const ADDED_TO_DELAYED = new Set(['REAL_TOPIC', 'REAL_QID']);
/**
 * ... and to a committed half message: TRANSACTION_CHECK_TIMES when it was checked; 5.x also stores
 * the UNIQ_KEY as __transactionId__ in the half message.
 */
const ADDED_TO_COMMITTED = new Set([
  'REAL_TOPIC',
  'REAL_QID',
  'TRANSACTION_CHECK_TIMES',
  '__transactionId__',
]);
/**
 * The brokers check open transactions every second, once they are 2 s old; 5.x writes commit and
 * rollback marks within 0.5 s (the 3 s default would let a decided transaction be checked).
 */
const TRANSACTION_CONFIG = {
  transactionCheckInterval: 1000,
  transactionTimeOut: 2000,
  transactionOpBatchInterval: 500,
};
const TX_PRODUCER_GROUP = 'pg_tx_interop';
const TRANSACTION_TYPE_MASK = 0xc;
const TRANSACTION_COMMIT_TYPE = 0x8;

/** What one message was sent as, to compare with its delivery. */
interface Sent {
  readonly msgId: string;
  readonly tags?: string;
  readonly keys?: string;
  readonly user: Readonly<Record<string, string>>;
  readonly body: Buffer;
  readonly delayLevel?: number;
  readonly compressed?: boolean;
  readonly inBatch?: boolean;
  /** A committed transaction of TX_PRODUCER_GROUP. */
  readonly transactional?: boolean;
  /** A single send's result: the delivery must sit where it says. */
  readonly result?: SendResult;
}

function checkDelivery(deliveries: readonly ReceivedMessage[] | undefined, sent: Sent): ReceivedMessage {
  const what = `message ${sent.msgId}`;
  assert.ok(deliveries !== undefined, `${what} not delivered`);
  assert.equal(deliveries.length, 1, `${what} delivered ${deliveries.length} times`);
  const got = deliveries[0] as ReceivedMessage;
  assert.equal(got.topic, TOPIC, what);
  assert.equal(got.msgId, sent.msgId, what);
  assert.equal(got.tags, sent.tags ?? null, what);
  assert.equal(got.keys, sent.keys ?? null, what);
  // WAIT=true was sent with every message. The 4.9.x broker (and ours) drops it from a single
  // message before storing it (9 bytes saved), except that 4.9.x keeps it on a delayed one; 5.x keeps
  // it; every broker keeps it in a batch.
  const props: Record<string, string> = { ...sent.user, UNIQ_KEY: sent.msgId };
  if (sent.inBatch === true) props.WAIT = 'true';
  else if (got.properties.WAIT !== undefined) assert.equal(got.properties.WAIT, 'true', `${what}: WAIT`);
  if (sent.tags !== undefined) props.TAGS = sent.tags;
  if (sent.keys !== undefined) props.KEYS = sent.keys;
  if (sent.delayLevel !== undefined) props.DELAY = String(sent.delayLevel);
  if (sent.transactional === true) {
    props.TRAN_MSG = 'true';
    props.PGROUP = TX_PRODUCER_GROUP;
    const id = got.properties.__transactionId__;
    if (id !== undefined) assert.equal(id, sent.msgId, `${what}: __transactionId__`);
  }
  for (const [name, value] of Object.entries(props)) {
    assert.equal(got.properties[name], value, `${what}: property ${name}`);
  }
  const extra = Object.keys(got.properties).filter(
    (name) =>
      !(name in props) &&
      !ADDED_ON_THE_WAY.has(name) &&
      name !== 'WAIT' &&
      !(sent.delayLevel !== undefined && ADDED_TO_DELAYED.has(name)) &&
      !(sent.transactional === true && ADDED_TO_COMMITTED.has(name)),
  );
  assert.deepEqual(extra, [], `${what}: properties nobody sent: ${JSON.stringify(got.properties)}`);
  assert.deepEqual(
    { bodyLength: got.bodyLength, bodySha256: got.bodySha256 },
    bodyDigest(sent.body),
    `${what}: body`,
  );
  if (sent.body.length <= 1024) assert.equal(got.bodyHex, sent.body.toString('hex'), `${what}: body`);
  assert.equal(
    got.sysFlag & COMPRESSED_FLAG,
    sent.compressed === true ? COMPRESSED_FLAG : 0,
    `${what}: sysFlag`,
  );
  assert.equal(got.reconsumeTimes, 0, what);
  assert.equal(
    got.sysFlag & TRANSACTION_TYPE_MASK,
    sent.transactional === true ? TRANSACTION_COMMIT_TYPE : 0,
    `${what}: sysFlag`,
  );
  if (sent.result !== undefined) {
    assert.equal(sent.result.sendStatus, 'SEND_OK', what);
    assert.equal(got.queueId, sent.result.messageQueue.queueId, `${what}: queueId`);
    assert.equal(BigInt(got.queueOffset), sent.result.queueOffset, `${what}: queueOffset`);
    assert.equal(got.offsetMsgId, sent.result.offsetMsgId, `${what}: offsetMsgId`);
    assert.equal(got.brokerName, sent.result.messageQueue.brokerName, `${what}: brokerName`);
  }
  return got;
}

/** Runs fn(0..count-1) with at most `limit` calls pending at once; reports the most seen pending. */
async function inFlight<T>(
  count: number,
  limit: number,
  fn: (i: number) => Promise<T>,
): Promise<{ results: T[]; maxInFlight: number }> {
  const results = new Array<T>(count);
  let next = 0;
  let pending = 0;
  let maxInFlight = 0;
  const worker = async (): Promise<void> => {
    while (next < count) {
      const i = next++;
      pending++;
      maxInFlight = Math.max(maxInFlight, pending);
      try {
        results[i] = await fn(i);
      } finally {
        pending--;
      }
    }
  };
  await Promise.all(Array.from({ length: limit }, worker));
  return { results, maxInFlight };
}

function uniqKeyOf(msg: Message): string {
  const id = msg.getProperty('UNIQ_KEY');
  assert.ok(id !== undefined, 'the producer set UNIQ_KEY on the message');
  return id;
}

for (const kind of PRODUCER_PEERS) {
  describe(`our producer → ${kind.name} → official push consumer`, { timeout: 600_000 }, () => {
    let peer: ProducerPeer | undefined;
    let producer: Producer | undefined;
    let consumer: PushConsumerProbe | undefined;
    let warmUp: { result: SendResult; body: Buffer } | undefined;
    let failed = false;

    before(
      async () => {
        peer = await kind.start(TRANSACTION_CONFIG);
        producer = createProducer({ namesrvAddr: peer.namesrvAddr, producerGroup: PRODUCER_GROUP });
        await producer.start();
        // The topic does not exist yet: the broker creates it from TBW102 on this send.
        const body = Buffer.from('warm-up');
        warmUp = { result: await producer.send({ topic: TOPIC, body, tags: 'Warm', keys: 'warm' }), body };
        consumer = await startPushConsumerProbe({
          namesrvAddr: peer.namesrvAddr,
          topic: TOPIC,
          group: CONSUMER_GROUP,
          queues: QUEUES,
        });
      },
      { timeout: 180_000 },
    );

    after(
      async () => {
        if (failed && peer !== undefined) {
          process.stderr.write(`${peer.logTail(60)}\n${consumer?.stderrTail() ?? ''}\n`);
        }
        await producer?.shutdown();
        await consumer?.close();
        await peer?.close();
      },
      { timeout: 60_000 },
    );

    const it = (name: string, fn: (p: Producer, c: PushConsumerProbe) => Promise<void>): void => {
      test(name, { timeout: 120_000 }, async () => {
        try {
          assert.ok(producer !== undefined && consumer !== undefined, 'before() failed');
          await fn(producer, consumer);
        } catch (error) {
          failed = true;
          throw error;
        }
      });
    };

    it('the first send created the topic with 4 queues; its message is delivered', async (_p, c) => {
      assert.equal(c.queues, QUEUES);
      const w = warmUp as { result: SendResult; body: Buffer };
      const got = await c.waitForMsgIds([w.result.msgId], DELIVERY_MS);
      checkDelivery(got.get(w.result.msgId), {
        msgId: w.result.msgId,
        tags: 'Warm',
        keys: 'warm',
        user: {},
        body: w.body,
        result: w.result,
      });
    });

    it('sync: one send awaited at a time, Message or plain object; binary bodies, two keys, UTF-8 properties', async (p, c) => {
      const sent: Sent[] = [];
      for (let i = 0; i < 16; i++) {
        const body = Buffer.concat([Buffer.from(`sync-${i}:`), randomBytes(48)]);
        const user = { idx: String(i), scenario: 'sync', text: `héllo wörld ✓ ${i}` };
        const input: MessageInput = {
          topic: TOPIC,
          body,
          tags: 'Sync',
          keys: [`sync-${i}`, `alt-${i}`],
          properties: user,
        };
        const msg =
          i % 2 === 0 ? input : new Message(TOPIC, body, { tags: 'Sync', keys: [`sync-${i}`, `alt-${i}`] });
        if (msg instanceof Message) for (const [k, v] of Object.entries(user)) msg.putUserProperty(k, v);
        const result = await p.send(msg);
        assert.equal(result.sendStatus, 'SEND_OK');
        assert.equal(result.messageQueue.topic, TOPIC);
        if (msg instanceof Message) assert.equal(uniqKeyOf(msg), result.msgId);
        sent.push({ msgId: result.msgId, tags: 'Sync', keys: `sync-${i} alt-${i}`, user, body, result });
      }
      // Round robin: 16 sends cover every queue.
      assert.equal(new Set(sent.map((s) => s.result?.messageQueue.queueId)).size, QUEUES);
      const got = await c.waitForMsgIds(
        sent.map((s) => s.msgId),
        DELIVERY_MS,
      );
      for (const s of sent) checkDelivery(got.get(s.msgId), s);
    });

    it('500 sends with 64 in flight (SYNC and ASYNC retry rules alternating): all stored once, all delivered', async (p, c) => {
      const count = 500;
      const { results, maxInFlight } = await inFlight(count, 64, async (i) => {
        const body = Buffer.from(`flight-${i}-${randomBytes(8).toString('hex')}`);
        const user = { idx: String(i) };
        const result = await p.send(
          { topic: TOPIC, body, tags: 'Flight', keys: `flight-${i}`, properties: user },
          { communicationMode: i % 2 === 0 ? 'SYNC' : 'ASYNC' },
        );
        return {
          msgId: result.msgId,
          tags: 'Flight',
          keys: `flight-${i}`,
          user,
          body,
          result,
        } satisfies Sent;
      });
      assert.equal(maxInFlight, 64);
      assert.equal(new Set(results.map((s) => s.msgId)).size, count);
      // No two sends got one queue offset.
      const slots = new Set(results.map((s) => `${s.result.messageQueue.queueId}/${s.result.queueOffset}`));
      assert.equal(slots.size, count);
      const got = await c.waitForMsgIds(
        results.map((s) => s.msgId),
        DELIVERY_MS,
      );
      for (const s of results) checkDelivery(got.get(s.msgId), s);
    });

    it('serializeType ROCKETMQ (binary headers): sync, batch and oneway sends with properties are delivered', async (_p, c) => {
      const binary = createProducer({
        namesrvAddr: (peer as ProducerPeer).namesrvAddr,
        producerGroup: `${PRODUCER_GROUP}_bin`,
        serializeType: 'ROCKETMQ',
      });
      await binary.start();
      try {
        const sent: Sent[] = [];
        for (let i = 0; i < 4; i++) {
          const body = Buffer.from(`binary-${i}-${randomBytes(8).toString('hex')}`);
          const user = { idx: String(i), text: `héllo ✓ ${i}` };
          const result = await binary.send({
            topic: TOPIC,
            body,
            tags: 'Bin',
            keys: `bin-${i}`,
            properties: user,
          });
          sent.push({ msgId: result.msgId, tags: 'Bin', keys: `bin-${i}`, user, body, result });
        }
        const bodies = [0, 1, 2].map((i) => Buffer.from(`binary-batch-${i}`));
        const batch = await binary.send(bodies.map((body) => ({ topic: TOPIC, body, tags: 'BinBatch' })));
        assert.equal(batch.sendStatus, 'SEND_OK');
        const batchIds = batch.msgId.split(',');
        assert.equal(batchIds.length, 3);
        const oneway = new Message(TOPIC, Buffer.from('binary-oneway'), { tags: 'BinOneway' });
        await binary.sendOneway(oneway);
        const got = await c.waitForMsgIds(
          [...sent.map((s) => s.msgId), ...batchIds, uniqKeyOf(oneway)],
          DELIVERY_MS,
        );
        for (const s of sent) checkDelivery(got.get(s.msgId), s);
      } finally {
        await binary.shutdown();
      }
    });

    it('oneway: delivered with the UNIQ_KEY the producer gave the message', async (p, c) => {
      const sent: Sent[] = [];
      for (let i = 0; i < 10; i++) {
        const body = Buffer.from(`oneway-${i}`);
        const msg = new Message(TOPIC, body, { tags: 'Oneway', keys: `oneway-${i}` });
        msg.putUserProperty('idx', String(i));
        await p.sendOneway(msg);
        sent.push({
          msgId: uniqKeyOf(msg),
          tags: 'Oneway',
          keys: `oneway-${i}`,
          user: { idx: String(i) },
          body,
        });
      }
      const got = await c.waitForMsgIds(
        sent.map((s) => s.msgId),
        DELIVERY_MS,
      );
      for (const s of sent) checkDelivery(got.get(s.msgId), s);
    });

    it('batch: one request, one queue, consecutive offsets; each message with its own id, tags, keys, properties', async (p, c) => {
      const inputs = Array.from({ length: 10 }, (_, i) => ({
        topic: TOPIC,
        body: Buffer.concat([Buffer.from(`batch-${i}:`), randomBytes(32)]),
        tags: i % 2 === 0 ? 'BatchEven' : 'BatchOdd',
        keys: `batch-${i}`,
        properties: { idx: String(i), scenario: 'batch' },
      }));
      const result = await p.send(inputs);
      assert.equal(result.sendStatus, 'SEND_OK');
      const ids = result.msgId.split(',');
      assert.equal(ids.length, inputs.length);
      assert.equal(new Set(ids).size, inputs.length);
      const got = await c.waitForMsgIds(ids, DELIVERY_MS);
      inputs.forEach((input, i) => {
        const m = checkDelivery(got.get(ids[i] as string), {
          msgId: ids[i] as string,
          tags: input.tags,
          keys: input.keys,
          user: input.properties,
          body: input.body,
          inBatch: true,
        });
        assert.equal(m.queueId, result.messageQueue.queueId);
        assert.equal(BigInt(m.queueOffset), result.queueOffset + BigInt(i));
      });
    });

    it('selector-ordered: each key on the queue its hash selects, its messages in send order there', async (p, c) => {
      const keys = ['order-a', 'order-b', 'order-c', 'order-d', 'order-e', 'order-f'];
      const perKey = 12;
      const queues = await p.fetchPublishMessageQueues(TOPIC);
      assert.equal(queues.length, QUEUES);
      // One chain per key: each send awaited before the next (what keeps order); the keys interleave.
      const chains = await Promise.all(
        keys.map(async (key) => {
          const chain: Sent[] = [];
          for (let seq = 0; seq < perKey; seq++) {
            const body = Buffer.from(`${key}#${seq}`);
            const msg = new Message(TOPIC, body, { tags: 'Ordered', keys: key });
            msg.putUserProperty('seq', String(seq));
            const result = await p.send(msg, { selector: selectMessageQueueByHash, arg: key });
            chain.push({
              msgId: result.msgId,
              tags: 'Ordered',
              keys: key,
              user: { seq: String(seq) },
              body,
              result,
            });
          }
          return chain;
        }),
      );
      const got = await c.waitForMsgIds(
        chains.flat().map((s) => s.msgId),
        DELIVERY_MS,
      );
      keys.forEach((key, k) => {
        const chain = chains[k] as Sent[];
        const expected = selectMessageQueueByHash(queues, new Message(TOPIC, Buffer.from('x')), key);
        const offsets = chain.map((s) => {
          const m = checkDelivery(got.get(s.msgId), s);
          assert.equal(s.result?.messageQueue.brokerName, expected.brokerName, key);
          assert.equal(m.queueId, expected.queueId, `${key} stored on the queue its hash selects`);
          return m.queueOffset;
        });
        for (let i = 1; i < offsets.length; i++) {
          assert.ok(
            (offsets[i] as number) > (offsets[i - 1] as number),
            `${key}: offsets ${offsets.join(',')}`,
          );
        }
      });
    });

    it('bodies of 4 KiB and more are compressed (sysFlag), smaller ones not; all delivered intact', async (p, c) => {
      const text = Buffer.from('compressible text; '.repeat(4000)).subarray(0, 64 * 1024);
      const cases = [
        { body: randomBytes(4095), compressed: false },
        { body: randomBytes(4096), compressed: true },
        { body: text, compressed: true },
      ];
      const sent: Sent[] = [];
      for (const [i, x] of cases.entries()) {
        const result = await p.send({
          topic: TOPIC,
          body: x.body,
          tags: 'Big',
          keys: `big-${i}`,
          properties: { idx: String(i) },
        });
        sent.push({
          msgId: result.msgId,
          tags: 'Big',
          keys: `big-${i}`,
          user: { idx: String(i) },
          body: x.body,
          compressed: x.compressed,
          result,
        });
      }
      const got = await c.waitForMsgIds(
        sent.map((s) => s.msgId),
        DELIVERY_MS,
      );
      for (const s of sent) checkDelivery(got.get(s.msgId), s);
    });

    it('delay level 1: delivered to the real topic at least 1 s after the send, DELAY kept', async (p, c) => {
      const body = Buffer.from('delayed-by-level-1');
      const begin = Date.now();
      const result = await p.send({ topic: TOPIC, body, tags: 'Delay', keys: 'delay-1', delayTimeLevel: 1 });
      assert.equal(result.sendStatus, 'SEND_OK');
      const got = await c.waitForMsgIds([result.msgId], DELIVERY_MS);
      const m = checkDelivery(got.get(result.msgId), {
        msgId: result.msgId,
        tags: 'Delay',
        keys: 'delay-1',
        user: {},
        body,
        delayLevel: 1,
      });
      assert.equal(m.properties.REAL_TOPIC, TOPIC);
      assert.equal(m.properties.REAL_QID, String(result.messageQueue.queueId));
      assert.equal(m.queueId, result.messageQueue.queueId);
      // The broker stores it in its real topic once the level's 1 s has passed since the first store.
      assert.ok(m.storeTimestamp - m.bornTimestamp >= 1000, JSON.stringify(m));
      assert.ok(m.receivedAt - begin >= 1000, `received ${m.receivedAt - begin} ms after the send`);
      assert.ok(m.receivedAt - begin < 15_000, `received ${m.receivedAt - begin} ms after the send`);
    });

    it('transactions: COMMIT delivered, ROLLBACK never; UNKNOW checked by the broker, then as the check listener says', async (_p, c) => {
      assert.ok(peer !== undefined);
      // key prefix -> what the local transaction says, and what the check listener says
      const plan: Record<string, { local: LocalTransactionState; check?: LocalTransactionState }> = {
        commit: { local: LocalTransactionState.COMMIT_MESSAGE },
        rollback: { local: LocalTransactionState.ROLLBACK_MESSAGE },
        'check-commit': { local: LocalTransactionState.UNKNOW, check: LocalTransactionState.COMMIT_MESSAGE },
        'check-rollback': {
          local: LocalTransactionState.UNKNOW,
          check: LocalTransactionState.ROLLBACK_MESSAGE,
        },
      };
      const planOf = (key: string) => plan[key.replace(/-\d+$/, '')] as (typeof plan)[string];
      const checks: { key: string; at: number; msg: MessageExt }[] = [];
      const tx = createTransactionProducer({
        namesrvAddr: peer.namesrvAddr,
        producerGroup: TX_PRODUCER_GROUP,
        checkListener: async (msg) => {
          const key = msg.keys ?? '';
          checks.push({ key, at: Date.now(), msg });
          // What a real listener does: look the local transaction up (an ended one is never asked).
          return planOf(key).check ?? planOf(key).local;
        },
      });
      await tx.start();
      const sent = new Map<string, { result: TransactionSendResult; body: Buffer }>();
      try {
        for (const prefix of Object.keys(plan)) {
          for (let i = 0; i < 2; i++) {
            const key = `${prefix}-${i}`;
            const body = Buffer.from(`tx-${key}`);
            let ran: Message | undefined;
            const result = await tx.sendMessageInTransaction(
              { topic: TOPIC, body, tags: 'Tx', keys: key, properties: { idx: String(i) } },
              async (msg, arg) => {
                ran = msg;
                assert.equal(arg, key);
                return planOf(key).local;
              },
              key,
            );
            assert.equal(result.sendStatus, 'SEND_OK', key);
            assert.equal(result.localTransactionState, planOf(key).local, key);
            assert.ok(ran !== undefined, `${key}: the local transaction ran`);
            assert.equal(ran.transactionId, result.msgId, key);
            sent.set(key, { result, body });
          }
        }
        const delivered = [...sent].filter(
          ([key]) => (planOf(key).check ?? planOf(key).local) === LocalTransactionState.COMMIT_MESSAGE,
        );
        const got = await c.waitForMsgIds(
          delivered.map(([, s]) => s.result.msgId),
          DELIVERY_MS,
        );
        for (const [key, s] of delivered) {
          checkDelivery(got.get(s.result.msgId), {
            msgId: s.result.msgId,
            tags: 'Tx',
            keys: key,
            user: { idx: key.slice(-1) },
            body: s.body,
            transactional: true,
          });
        }
        // An open transaction is checked again every second: three quiet seconds after the last
        // check say every one is decided. Rolled-back ones never arrive.
        const quietMs = 3 * TRANSACTION_CONFIG.transactionCheckInterval;
        const deadline = Date.now() + DELIVERY_MS;
        while (Date.now() - Math.max(0, ...checks.map((x) => x.at)) < quietMs) {
          assert.ok(Date.now() < deadline, `checks never stopped: ${checks.map((x) => x.key).join(',')}`);
          await new Promise((r) => setTimeout(r, 100));
        }
        const rolledBack = new Set(
          [...sent].filter(([key]) => !delivered.some(([k]) => k === key)).map(([, s]) => s.result.msgId),
        );
        assert.deepEqual(
          c.deliveries().filter((m) => rolledBack.has(m.msgId)),
          [],
        );
        // Checked: exactly the open ones, once each, with the message as sent (its real topic).
        assert.deepEqual(checks.map((x) => x.key).sort(), [
          'check-commit-0',
          'check-commit-1',
          'check-rollback-0',
          'check-rollback-1',
        ]);
        for (const { key, msg } of checks) {
          const s = sent.get(key);
          assert.ok(s !== undefined);
          assert.equal(msg.topic, TOPIC, key);
          assert.equal(msg.body.toString(), s.body.toString(), key);
          assert.equal(msg.getProperty('UNIQ_KEY'), s.result.msgId, key);
          assert.equal(msg.getUserProperty('idx'), key.slice(-1), key);
        }
      } finally {
        await tx.shutdown();
      }
    });
  });
}
