/**
 * RemoteBrokerOffsetStore on a real client instance against our name server and brokers:
 * committed offsets read back by a fresh store, -1 when the broker has none (QUERY_NOT_FOUND), the
 * broker's 0 for a new group on a queue whose start is still in memory, -2 with a warn line when the
 * broker is down, unknown or refuses, persistAll committing held queues only (and dropping the rest
 * from memory), oneway commits, and a final persistAll that has reached the broker by the time it
 * resolves, even when the instance shuts down right after.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { BrokerController } from '../../../src/broker/broker-controller.js';
import { resolveClientConfig } from '../../../src/client/client-config.js';
import { ReadOffsetType } from '../../../src/client/consumer/offset/offset-store.js';
import { RemoteBrokerOffsetStore } from '../../../src/client/consumer/offset/remote-broker-offset-store.js';
import type { MQClientInstance } from '../../../src/client/instance/mq-client-instance.js';
import { getOrCreateMQClientInstance } from '../../../src/client/instance/mq-client-manager.js';
import { createLogger, type LogRecord } from '../../../src/common/logger.js';
import { MessageQueue } from '../../../src/common/message/message-queue.js';
import { createResponse } from '../../../src/remoting/protocol/command.js';
import { RequestCode } from '../../../src/remoting/protocol/request-code.js';
import { ResponseCode } from '../../../src/remoting/protocol/response-code.js';
import {
  createTopic,
  newProducer,
  startCluster,
  type TestCluster,
  uniqueName,
  until,
  wrapHandler,
} from './support.js';

let cluster: TestCluster;
let brokerA: BrokerController;
/** Topic with 4 queues on broker-a. */
let topic: string;
/** Topic with 1 queue on broker-a that holds a message (offset 0 counts as on disk: QUERY_NOT_FOUND). */
let storedTopic: string;
/** Groups whose QUERY_CONSUMER_OFFSET broker-a answers with SYSTEM_BUSY. */
const busyGroups = new Set<string>();
const instances: MQClientInstance[] = [];

before(async () => {
  // With no memory for hot messages every stored message counts as on disk, so a group without an
  // offset on a queue that holds messages gets QUERY_NOT_FOUND, as from a long-lived broker.
  cluster = await startCluster({ accessMessageInMemoryMaxRatio: 0 });
  brokerA = cluster.brokers[0] as BrokerController;
  topic = uniqueName('OffsetTopic');
  storedTopic = uniqueName('StoredTopic');
  await createTopic(cluster, topic, 4);
  await createTopic(cluster, storedTopic, 1);
  const producer = newProducer({ namesrvAddr: cluster.namesrvAddr, clientIP: '127.0.0.1' });
  await producer.start();
  try {
    await producer.send({ topic: storedTopic, body: 'one' });
    await producer.send({ topic: storedTopic, body: 'two' });
  } finally {
    await producer.shutdown();
  }
  wrapHandler(brokerA, RequestCode.QUERY_CONSUMER_OFFSET, (real) => (b, ctx, request) => {
    if (busyGroups.has(request.extFields?.consumerGroup ?? '')) {
      return createResponse(request, ResponseCode.SYSTEM_BUSY, { remark: 'busy, try later' });
    }
    return real(b, ctx, request);
  });
});

after(async () => {
  await Promise.all(instances.map((i) => i.shutdown()));
  await cluster?.close();
});

interface Client {
  instance: MQClientInstance;
  records: LogRecord[];
  store(group: string): RemoteBrokerOffsetStore;
}

/** A client instance of its own (not started: no timers, the store drives every call). */
function client(): Client {
  const records: LogRecord[] = [];
  const logger = createLogger('client', { level: 'debug', sink: (r) => records.push(r) });
  const config = resolveClientConfig(
    { namesrvAddr: cluster.namesrvAddr, clientIP: '127.0.0.1', instanceName: uniqueName('offsets'), logger },
    false,
  );
  const instance = getOrCreateMQClientInstance(config);
  instances.push(instance);
  return { instance, records, store: (group) => new RemoteBrokerOffsetStore(instance, group) };
}

const mq = (queueId: number, t = topic, brokerName = 'broker-a') => new MessageQueue(t, brokerName, queueId);

function brokerOffset(broker: BrokerController, group: string, queue: MessageQueue): bigint {
  return broker.consumerOffsetManager.queryOffset(group, queue.topic, queue.queueId);
}

test('committed offsets are read back from the broker by a fresh store, and kept in memory', async () => {
  const { store } = client();
  const group = uniqueName('cg');
  const first = store(group);
  first.updateOffset(mq(0), 17n, false);
  first.updateOffset(mq(1), 9007199254740993n, false);
  await first.persistAll([mq(0), mq(1)]);
  assert.equal(brokerOffset(brokerA, group, mq(0)), 17n);
  assert.equal(brokerOffset(brokerA, group, mq(1)), 9007199254740993n);

  const fresh = store(group);
  assert.equal(await fresh.readOffset(mq(0), ReadOffsetType.READ_FROM_MEMORY), -1n);
  assert.equal(await fresh.readOffset(mq(0), ReadOffsetType.MEMORY_FIRST_THEN_STORE), 17n);
  assert.equal(await fresh.readOffset(mq(1), ReadOffsetType.READ_FROM_STORE), 9007199254740993n);
  assert.equal(fresh.readOffsetInMemory(mq(1)), 9007199254740993n);
  // READ_FROM_STORE asks the broker even when memory holds something else.
  fresh.updateOffset(mq(0), 99n, false);
  assert.equal(await fresh.readOffset(mq(0), ReadOffsetType.READ_FROM_STORE), 17n);
  assert.equal(fresh.readOffsetInMemory(mq(0)), 17n);
});

test('a new group: -1 where the broker has no offset (QUERY_NOT_FOUND), 0 on a queue still starting in memory', async () => {
  const { store, records } = client();
  const fresh = store(uniqueName('cg-new'));
  assert.equal(await fresh.readOffset(mq(0, storedTopic), ReadOffsetType.READ_FROM_STORE), -1n);
  assert.equal(fresh.readOffsetInMemory(mq(0, storedTopic)), -1n, 'no offset is not kept');
  // The broker's rule (ConsumerManageProcessor): an empty queue starting at 0 answers 0.
  assert.equal(await fresh.readOffset(mq(2), ReadOffsetType.READ_FROM_STORE), 0n);
  assert.equal(records.filter((r) => r.level === 'warn').length, 0, 'no offset is not a failure');
});

test('-2 with a warn line when the broker refuses, is unknown, or is down', async () => {
  const { store, records } = client();
  const busy = uniqueName('cg-busy');
  busyGroups.add(busy);
  assert.equal(await store(busy).readOffset(mq(0), ReadOffsetType.READ_FROM_STORE), -2n, 'SYSTEM_BUSY');
  assert.ok(records.some((r) => r.level === 'warn' && String(r.fields.error).includes('busy, try later')));

  records.length = 0;
  const unknown = mq(0, topic, 'broker-nowhere');
  assert.equal(await store(uniqueName('cg')).readOffset(unknown, ReadOffsetType.READ_FROM_STORE), -2n);
  assert.ok(records.some((r) => r.level === 'warn' && String(r.fields.error).includes('broker-nowhere')));

  // A second broker with the topic: known to the route, then stopped.
  const brokerB = await cluster.addBroker('broker-b');
  const topicB = uniqueName('TopicB');
  await createTopic(cluster, topicB, 2, [brokerB]);
  const group = uniqueName('cg');
  const onB = store(group);
  const qb = mq(0, topicB, 'broker-b');
  await onB.updateConsumeOffsetToBroker(qb, 5n, false);
  assert.equal(await onB.readOffset(qb, ReadOffsetType.READ_FROM_STORE), 5n);
  await brokerB.shutdown();
  records.length = 0;
  assert.equal(await onB.readOffset(qb, ReadOffsetType.READ_FROM_STORE), -2n);
  assert.ok(records.some((r) => r.level === 'warn' && r.msg.includes('fetchConsumeOffsetFromBroker')));
  // The failed read leaves memory as it was.
  assert.equal(onB.readOffsetInMemory(qb), 5n);
  // persist with the broker down: an error line, no rejection.
  records.length = 0;
  await onB.persistAll([qb]);
  await onB.persist(qb);
  assert.equal(records.filter((r) => r.level === 'error').length, 2);
  await assert.rejects(onB.updateConsumeOffsetToBroker(qb, 6n, false));
});

test('persistAll commits held queues only and forgets the others', async () => {
  const { store } = client();
  const group = uniqueName('cg');
  const s = store(group);
  for (let q = 0; q < 4; q++) s.updateOffset(mq(q), BigInt(100 + q), false);
  await s.persistAll(new Set([mq(0).key, mq(2).key]));
  assert.equal(brokerOffset(brokerA, group, mq(0)), 100n);
  assert.equal(brokerOffset(brokerA, group, mq(2)), 102n);
  assert.equal(brokerOffset(brokerA, group, mq(1)), -1n, 'not held: not committed');
  assert.equal(brokerOffset(brokerA, group, mq(3)), -1n);
  assert.equal(s.readOffsetInMemory(mq(1)), -1n, 'not held: removed from memory');
  assert.equal(s.readOffsetInMemory(mq(3)), -1n);
  assert.deepEqual(
    s.cloneOffsetTable(topic).map(([q, o]) => `${q.queueId}=${o}`),
    ['0=100', '2=102'],
  );
  // persist(mq) commits one queue.
  s.updateOffset(mq(2), 150n, true);
  await s.persist(mq(2));
  assert.equal(brokerOffset(brokerA, group, mq(2)), 150n);
});

test('updateConsumeOffsetToBroker: two-way resolves once stored, oneway arrives too', async () => {
  const { store } = client();
  const group = uniqueName('cg');
  const s = store(group);
  await s.updateConsumeOffsetToBroker(mq(3), 33n, false);
  assert.equal(brokerOffset(brokerA, group, mq(3)), 33n);
  await s.updateConsumeOffsetToBroker(mq(3), 34n, true);
  await until(() => brokerOffset(brokerA, group, mq(3)) === 34n, 'the oneway commit stored');
  assert.equal(s.readOffsetInMemory(mq(3)), -1n, 'a direct commit does not touch memory');
});

test('the final persistAll has reached the broker when it resolves, even if the instance shuts down at once', async () => {
  const { instance, store } = client();
  const group = uniqueName('cg');
  const s = store(group);
  for (let q = 0; q < 4; q++) s.updateOffset(mq(q), BigInt(1000 + q), false);
  await s.persistAll([mq(0), mq(1), mq(2), mq(3)]);
  await instance.shutdown();
  for (let q = 0; q < 4; q++) assert.equal(brokerOffset(brokerA, group, mq(q)), BigInt(1000 + q));
});
