/**
 * The producer against our name server and broker: every way of sending (sync, many in flight,
 * oneway, batch, to a queue, through a selector, compressed, delayed, auto-created topics,
 * namespaces), each checked by reading the stored message back from the broker's store.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { MessageConst } from '../../../src/common/message/message-const.js';
import { MessageSysFlag } from '../../../src/common/message/sysflag.js';
import {
  Message,
  MessageQueue,
  type Producer,
  type SendResult,
  SendStatus,
  selectMessageQueueByHash,
} from '../../../src/index.js';
import { RequestCode } from '../../../src/remoting/protocol/request-code.js';
import {
  createTopic,
  newProducer,
  queueMessages,
  startCluster,
  storedAt,
  storedById,
  storedCount,
  type TestCluster,
  uniqueName,
  until,
  wrapHandler,
} from './support.js';

let cluster: TestCluster;
let producer: Producer;
/** Send requests the broker received, by request code and topic. */
const received = new Map<string, number>();

before(async () => {
  cluster = await startCluster();
  const broker = cluster.brokers[0];
  assert.ok(broker);
  for (const code of [RequestCode.SEND_MESSAGE_V2, RequestCode.SEND_BATCH_MESSAGE]) {
    wrapHandler(broker, code, (real) => (b, ctx, request) => {
      const key = `${code}:${request.extFields?.b ?? ''}`;
      received.set(key, (received.get(key) ?? 0) + 1);
      return real(b, ctx, request);
    });
  }
  producer = newProducer({ namesrvAddr: cluster.namesrvAddr });
  await producer.start();
});

after(async () => {
  await producer?.shutdown();
  await cluster?.close();
});

function brokerA() {
  const broker = cluster.brokers[0];
  assert.ok(broker);
  return broker;
}

test('sync send: SEND_OK with msgId (UNIQ_KEY), offsetMsgId, queue and offset; tags, keys and user properties stored intact', async () => {
  const topic = uniqueName('Sync');
  await createTopic(cluster, topic, 4);
  const msg = new Message(topic, Buffer.from('hello'), { tags: 'TagA', keys: ['k1', 'k2'] });
  msg.putUserProperty('color', 'blue');
  const r = await producer.send(msg);
  assert.equal(r.sendStatus, SendStatus.SEND_OK);
  assert.match(r.msgId, /^[0-9A-F]{32}$/);
  assert.equal(r.messageQueue.topic, topic);
  assert.equal(r.messageQueue.brokerName, 'broker-a');
  assert.ok(r.messageQueue.queueId >= 0 && r.messageQueue.queueId < 4);
  assert.equal(r.queueOffset, 0n);
  const stored = storedById(brokerA(), r.offsetMsgId);
  assert.equal(stored.topic, topic);
  assert.equal(stored.body.toString(), 'hello');
  assert.equal(stored.tags, 'TagA');
  assert.equal(stored.keys, 'k1 k2');
  assert.equal(stored.getUserProperty('color'), 'blue');
  assert.equal(stored.msgId, r.msgId);
  assert.equal(stored.queueId, r.messageQueue.queueId);
  assert.equal(stored.queueOffset, r.queueOffset);

  const plain = await producer.send({
    topic,
    body: 'plain',
    tags: 'TagB',
    keys: 'x y',
    properties: { a: '1', b: 'two' },
  });
  const stored2 = storedById(brokerA(), plain.offsetMsgId);
  assert.equal(stored2.body.toString(), 'plain');
  assert.equal(stored2.tags, 'TagB');
  assert.deepEqual(stored2.keyList(), ['x', 'y']);
  assert.equal(stored2.getUserProperty('a'), '1');
  assert.equal(stored2.getUserProperty('b'), 'two');
  assert.equal(stored2.msgId, plain.msgId);
  assert.notEqual(plain.msgId, r.msgId);
});

test('1,000 sends with 64 in flight: every one SEND_OK, distinct msgIds, all stored and readable', async () => {
  const topic = uniqueName('Many');
  await createTopic(cluster, topic, 4);
  const total = 1000;
  const results: SendResult[] = new Array(total);
  let next = 0;
  let inFlight = 0;
  let maxInFlight = 0;
  const worker = async () => {
    while (next < total) {
      const i = next++;
      inFlight += 1;
      maxInFlight = Math.max(maxInFlight, inFlight);
      try {
        results[i] = await producer.send({ topic, body: `m-${i}`, keys: `key-${i}` });
      } finally {
        inFlight -= 1;
      }
    }
  };
  await Promise.all(Array.from({ length: 64 }, worker));
  assert.equal(maxInFlight, 64);
  assert.ok(results.every((r) => r.sendStatus === SendStatus.SEND_OK));
  assert.equal(new Set(results.map((r) => r.msgId)).size, total);
  assert.equal(new Set(results.map((r) => r.offsetMsgId)).size, total);
  assert.deepEqual(new Set(results.map((r) => r.messageQueue.queueId)), new Set([0, 1, 2, 3]));
  await until(() => storedCount(brokerA(), topic) === BigInt(total), `${total} messages in ${topic}`);
  results.forEach((r, i) => {
    const stored = storedById(brokerA(), r.offsetMsgId);
    assert.equal(stored.body.toString(), `m-${i}`);
    assert.equal(stored.keys, `key-${i}`);
    assert.equal(stored.msgId, r.msgId);
    assert.equal(stored.queueOffset, r.queueOffset);
  });
});

test('oneway: resolves once written, without an answer; the message is stored', async () => {
  const topic = uniqueName('Oneway');
  await createTopic(cluster, topic, 1);
  const value = await producer.sendOneway({ topic, body: 'one way', tags: 'OW' });
  assert.equal(value, undefined);
  const [stored] = await queueMessages(brokerA(), topic, 0, 1);
  assert.equal(stored?.body.toString(), 'one way');
  assert.equal(stored?.tags, 'OW');
  assert.match(stored?.msgId ?? '', /^[0-9A-F]{32}$/);

  const toQueue = uniqueName('OnewayQueue');
  await createTopic(cluster, toQueue, 4);
  await producer.sendOneway(
    { topic: toQueue, body: 'to queue 3' },
    { messageQueue: new MessageQueue(toQueue, 'broker-a', 3) },
  );
  const [inQueue] = await queueMessages(brokerA(), toQueue, 3, 1);
  assert.equal(inQueue?.body.toString(), 'to queue 3');
  assert.equal(storedCount(brokerA(), toQueue), 1n);
});

test('batch: one SEND_BATCH_MESSAGE request, msgIds and offsetMsgIds comma-joined, each message stored and readable', async () => {
  const topic = uniqueName('Batch');
  await createTopic(cluster, topic, 1);
  const messages = [0, 1, 2].map((i) => {
    const m = new Message(topic, Buffer.from(`batch-${i}`), { tags: `T${i}`, keys: `bk-${i}` });
    m.putUserProperty('index', String(i));
    return m;
  });
  const r = await producer.send(messages);
  assert.equal(r.sendStatus, SendStatus.SEND_OK);
  assert.equal(received.get(`${RequestCode.SEND_BATCH_MESSAGE}:${topic}`), 1);
  assert.equal(received.get(`${RequestCode.SEND_MESSAGE_V2}:${topic}`), undefined);
  const ids = r.msgId.split(',');
  assert.equal(ids.length, 3);
  assert.deepEqual(
    ids,
    messages.map((m) => m.getProperty(MessageConst.PROPERTY_UNIQ_CLIENT_MESSAGE_ID_KEYIDX)),
  );
  const offsetIds = r.offsetMsgId.split(',');
  assert.equal(offsetIds.length, 3);
  assert.equal(r.queueOffset, 0n);
  const stored = await queueMessages(brokerA(), topic, 0, 3);
  stored.forEach((s, i) => {
    assert.equal(s.topic, topic);
    assert.equal(s.body.toString(), `batch-${i}`);
    assert.equal(s.tags, `T${i}`);
    assert.equal(s.keys, `bk-${i}`);
    assert.equal(s.getUserProperty('index'), String(i));
    assert.equal(s.msgId, ids[i]);
    assert.equal(s.offsetMsgId, offsetIds[i]);
  });
});

test('send to a given MessageQueue: every message lands in that queue', async () => {
  const topic = uniqueName('ToQueue');
  await createTopic(cluster, topic, 4);
  const queues = await producer.fetchPublishMessageQueues(topic);
  assert.equal(queues.length, 4);
  const target = queues.find((q) => q.queueId === 2);
  assert.ok(target instanceof MessageQueue);
  for (let i = 0; i < 3; i++) {
    const r: SendResult = await producer.send({ topic, body: `q-${i}` }, { messageQueue: target });
    assert.equal(r.messageQueue.queueId, 2);
    assert.equal(r.queueOffset, BigInt(i));
  }
  const stored = await queueMessages(brokerA(), topic, 2, 3);
  assert.deepEqual(
    stored.map((s) => s.body.toString()),
    ['q-0', 'q-1', 'q-2'],
  );
  assert.equal(storedCount(brokerA(), topic), 3n);
});

test('send to a queue of a topic the producer never looked up: the route is read first', async () => {
  const topic = uniqueName('ToQueueCold');
  await createTopic(cluster, topic, 2);
  const cold = newProducer({ namesrvAddr: cluster.namesrvAddr });
  await cold.start();
  try {
    const r = await cold.send(
      { topic, body: 'cold' },
      { messageQueue: new MessageQueue(topic, 'broker-a', 1) },
    );
    assert.equal(r.sendStatus, SendStatus.SEND_OK);
    assert.equal(r.messageQueue.queueId, 1);
    assert.equal((await storedAt(brokerA(), topic, 1, 0n)).body.toString(), 'cold');
  } finally {
    await cold.shutdown();
  }
});

test('selector-ordered sends: the same argument always picks the same queue, stored in send order', async () => {
  const topic = uniqueName('Ordered');
  await createTopic(cluster, topic, 4);
  const orders = ['order-1', 'order-2', 'order-3', 'order-4', 'order-5'];
  const queueOf = new Map<string, Set<number>>();
  for (let step = 0; step < 4; step++) {
    for (const order of orders) {
      const msg = new Message(topic, Buffer.from(`${order}:${step}`), { keys: order });
      const r = await producer.send(msg, { selector: selectMessageQueueByHash, arg: order });
      let set = queueOf.get(order);
      if (set === undefined) {
        set = new Set();
        queueOf.set(order, set);
      }
      set.add(r.messageQueue.queueId);
    }
  }
  for (const [order, set] of queueOf) {
    assert.equal(set.size, 1, `${order} went to queues ${[...set].join(',')}`);
  }
  for (let queueId = 0; queueId < 4; queueId++) {
    const count = Number(brokerA().messageStore.getMaxOffsetInQueue(topic, queueId));
    const stored = await queueMessages(brokerA(), topic, queueId, count);
    for (const order of orders) {
      const steps = stored.filter((s) => s.keys === order).map((s) => s.body.toString().split(':')[1]);
      if (steps.length > 0) assert.deepEqual(steps, ['0', '1', '2', '3'], `${order} in queue ${queueId}`);
    }
  }
});

test('a body of at least compressMsgBodyOverHowmuch (4 KiB) is stored zlib-compressed with the flag, and reads back whole', async () => {
  const topic = uniqueName('Compressed');
  await createTopic(cluster, topic, 1);
  const big = Buffer.from('0123456789abcdef'.repeat(512)); // 8 KiB
  const r = await producer.send({ topic, body: big, tags: 'Z' });
  const raw = storedById(brokerA(), r.offsetMsgId, { decompress: false });
  assert.notEqual(raw.sysFlag & MessageSysFlag.COMPRESSED_FLAG, 0);
  assert.ok(raw.body.length < big.length, `stored ${raw.body.length} bytes`);
  const inflated = storedById(brokerA(), r.offsetMsgId);
  assert.deepEqual(inflated.body, big);
  assert.equal(inflated.tags, 'Z');

  const edge = await producer.send({ topic, body: Buffer.alloc(4096, 'a') });
  const edgeRaw = storedById(brokerA(), edge.offsetMsgId, { decompress: false });
  assert.notEqual(edgeRaw.sysFlag & MessageSysFlag.COMPRESSED_FLAG, 0, 'exactly 4096 bytes is compressed');
  const small = await producer.send({ topic, body: Buffer.alloc(4095, 'a') });
  const smallRaw = storedById(brokerA(), small.offsetMsgId, { decompress: false });
  assert.equal(smallRaw.sysFlag & MessageSysFlag.COMPRESSED_FLAG, 0);
  assert.equal(smallRaw.body.length, 4095);
});

test('a batch is never compressed, whatever the size of its messages', async () => {
  const topic = uniqueName('BigBatch');
  await createTopic(cluster, topic, 1);
  const big = Buffer.from('0123456789abcdef'.repeat(512));
  const r = await producer.send([
    { topic, body: big },
    { topic, body: 'small' },
  ]);
  const [first] = r.offsetMsgId.split(',');
  const raw = storedById(brokerA(), first ?? '', { decompress: false });
  assert.equal(raw.sysFlag & MessageSysFlag.COMPRESSED_FLAG, 0);
  assert.deepEqual(raw.body, big);
});

test('delay level 1: stored in SCHEDULE_TOPIC_XXXX, then delivered to the topic about 1 s later with the same msgId', async () => {
  const topic = uniqueName('Delay');
  await createTopic(cluster, topic, 1);
  const r = await producer.send({ topic, body: 'later', tags: 'D', delayTimeLevel: 1 });
  assert.equal(r.sendStatus, SendStatus.SEND_OK);
  const scheduled = storedById(brokerA(), r.offsetMsgId);
  assert.equal(scheduled.topic, 'SCHEDULE_TOPIC_XXXX');
  assert.equal(scheduled.queueId, 0);
  assert.equal(scheduled.getProperty(MessageConst.PROPERTY_REAL_TOPIC), topic);
  assert.equal(scheduled.getProperty(MessageConst.PROPERTY_REAL_QUEUE_ID), '0');
  assert.equal(scheduled.getProperty(MessageConst.PROPERTY_DELAY_TIME_LEVEL), '1');
  assert.equal(brokerA().messageStore.getMaxOffsetInQueue(topic, 0), 0n);
  const delivered = await storedAt(brokerA(), topic, 0, 0n);
  assert.equal(delivered.topic, topic);
  assert.equal(delivered.body.toString(), 'later');
  assert.equal(delivered.tags, 'D');
  assert.equal(delivered.msgId, r.msgId);
  const delay = Number(delivered.storeTimestamp - scheduled.storeTimestamp);
  assert.ok(delay >= 900, `delivered after ${delay} ms`);
});

test('a topic that does not exist yet is created through TBW102 with defaultTopicQueueNums queues', async () => {
  const topic = uniqueName('Auto');
  assert.equal(cluster.namesrv.routeInfoManager.pickupTopicRouteData(topic), undefined);
  const auto = newProducer({ namesrvAddr: cluster.namesrvAddr, defaultTopicQueueNums: 3 });
  await auto.start();
  try {
    const r = await auto.send({ topic, body: 'first' });
    assert.equal(r.sendStatus, SendStatus.SEND_OK);
    assert.ok(r.messageQueue.queueId < 3);
    const config = brokerA().topicConfigManager.selectTopicConfig(topic);
    assert.equal(config?.writeQueueNums, 3);
    assert.equal(config?.readQueueNums, 3);
    assert.equal(storedById(brokerA(), r.offsetMsgId).body.toString(), 'first');
    await until(
      () => cluster.namesrv.routeInfoManager.pickupTopicRouteData(topic)?.queueDatas[0]?.writeQueueNums === 3,
      'the created topic registered with the name server',
    );
    const second = await auto.send({ topic, body: 'second' });
    assert.equal(second.sendStatus, SendStatus.SEND_OK);
  } finally {
    await auto.shutdown();
  }
});

test('a producer with a namespace writes ns%Topic and reports the topic without it', async () => {
  const topic = uniqueName('Spaced');
  const spaced = newProducer({ namesrvAddr: cluster.namesrvAddr, namespace: 'ns1' });
  await spaced.start();
  try {
    const r = await spaced.send({ topic, body: 'in a namespace', tags: 'N' });
    assert.equal(r.messageQueue.topic, topic);
    assert.notEqual(brokerA().topicConfigManager.selectTopicConfig(`ns1%${topic}`), undefined);
    assert.equal(brokerA().topicConfigManager.selectTopicConfig(topic), undefined);
    const stored = storedById(brokerA(), r.offsetMsgId);
    assert.equal(stored.topic, `ns1%${topic}`);
    assert.equal(stored.body.toString(), 'in a namespace');
    const queues = await spaced.fetchPublishMessageQueues(topic);
    assert.ok(queues.length > 0 && queues.every((q) => q.topic === topic));
    const direct = await spaced.send({ topic, body: 'to a queue' }, { messageQueue: queues[0] });
    assert.equal(storedById(brokerA(), direct.offsetMsgId).topic, `ns1%${topic}`);
    const batch = await spaced.send([
      { topic, body: 'b1' },
      { topic, body: 'b2' },
    ]);
    assert.equal(batch.messageQueue.topic, topic);
    for (const id of batch.offsetMsgId.split(','))
      assert.equal(storedById(brokerA(), id).topic, `ns1%${topic}`);
  } finally {
    await spaced.shutdown();
  }
});
