/**
 * The client instance (upstream MQClientInstance) against our broker and name server: one instance
 * per client id shared by its producers, heartbeats and UNREGISTER_CLIENT, route refresh on the
 * poll interval (new write queues picked up, the cached route kept through TOPIC_NOT_EXIST, route-change events), heartbeat
 * V2, and requests a broker sends to the client that the client does not know or cannot read.
 * Timers run on a ManualClock: the tests move time instead of waiting for it.
 */
import assert from 'node:assert/strict';
import diagnosticsChannel from 'node:diagnostics_channel';
import { after, before, test } from 'node:test';
import type { BrokerController } from '../../../src/broker/broker-controller.js';
import type { ClientChannel } from '../../../src/broker/client/client-channel-info.js';
import { consumerGroupHeartbeatTable } from '../../../src/broker/client/consumer-group-heartbeat-table.js';
import { resolveClientConfig } from '../../../src/client/client-config.js';
import type { MQConsumerInner } from '../../../src/client/instance/inner.js';
import type { MQClientInstance } from '../../../src/client/instance/mq-client-instance.js';
import {
  activeClientIds,
  getOrCreateMQClientInstance,
} from '../../../src/client/instance/mq-client-manager.js';
import { ManualClock } from '../../../src/common/clock.js';
import { MixAll } from '../../../src/common/constants.js';
import { decodeHeartbeatData, type HeartbeatData } from '../../../src/common/protocol/heartbeat-data.js';
import type { SubscriptionData } from '../../../src/common/protocol/subscription-data.js';
import {
  CHANNEL_NAMES,
  MQClientError,
  type Producer,
  type RouteChangeEvent,
  SendStatus,
} from '../../../src/index.js';
import { createRequest } from '../../../src/remoting/protocol/command.js';
import { RequestCode } from '../../../src/remoting/protocol/request-code.js';
import { ResponseCode } from '../../../src/remoting/protocol/response-code.js';
import {
  capturingLogger,
  createTopic,
  newProducer,
  startCluster,
  type TestCluster,
  turns,
  uniqueName,
  until,
  wrapHandler,
} from './support.js';

let cluster: TestCluster;
let broker: BrokerController;
/** Heartbeats the broker received, decoded, in order. */
const heartbeats: HeartbeatData[] = [];
/** UNREGISTER_CLIENT requests the broker received: `clientID/producerGroup`. */
const unregisters: string[] = [];
const producers: Producer[] = [];

before(async () => {
  cluster = await startCluster();
  broker = cluster.brokers[0] as BrokerController;
  wrapHandler(broker, RequestCode.HEART_BEAT, (real) => (b, ctx, request) => {
    heartbeats.push(decodeHeartbeatData(request.body));
    return real(b, ctx, request);
  });
  wrapHandler(broker, RequestCode.UNREGISTER_CLIENT, (real) => (b, ctx, request) => {
    unregisters.push(`${request.extFields?.clientID}/${request.extFields?.producerGroup}`);
    return real(b, ctx, request);
  });
});

after(async () => {
  await Promise.all(producers.map((p) => p.shutdown()));
  await cluster?.close();
});

async function started(options: Parameters<typeof newProducer>[0]): Promise<Producer> {
  const producer = newProducer({ namesrvAddr: cluster.namesrvAddr, clientIP: '127.0.0.1', ...options });
  producers.push(producer);
  await producer.start();
  return producer;
}

/** The running instance of a client id (looked up, never created: the id must be live). */
function instanceOf(clientId: string | undefined): MQClientInstance {
  assert.ok(clientId !== undefined && activeClientIds().includes(clientId), `no live instance ${clientId}`);
  const [clientIP, instanceName, unitName] = clientId.split('@');
  return getOrCreateMQClientInstance(resolveClientConfig({ clientIP, instanceName, unitName }, false));
}

/** The broker's connections of a producer group. */
function channelsOf(group: string): ClientChannel[] {
  return [...(broker.producerManager.groupChannelTable.get(group)?.keys() ?? [])];
}

/**
 * Waits until every run of the instance's tasks that `clock` started is over: a task reschedules
 * itself when its run ends, so as many timers are pending as right after start (`idle`). Moving the
 * clock before that would push a task's next run a whole period later.
 */
function tasksIdle(clock: ManualClock, idle: number): Promise<boolean> {
  return until(() => clock.pending === idle, 'the client tasks rescheduled');
}

function heartbeatsOf(clientId: string | undefined): HeartbeatData[] {
  return heartbeats.filter((h) => h.clientID === clientId);
}

test('producers with one instanceName share one client instance and one connection; heartbeats carry both groups; UNREGISTER_CLIENT on shutdown', async () => {
  const topic = uniqueName('Shared');
  await createTopic(cluster, topic, 2);
  const instanceName = uniqueName('shared');
  const clock = new ManualClock();
  const first = await started({ instanceName, clock });
  const second = await started({ instanceName, clock });
  const idle = clock.pending;
  assert.equal(first.clientId, `127.0.0.1@${instanceName}`);
  assert.equal(second.clientId, first.clientId);
  assert.equal((await first.send({ topic, body: 'one' })).sendStatus, SendStatus.SEND_OK);
  assert.equal((await second.send({ topic, body: 'two' })).sendStatus, SendStatus.SEND_OK);
  const instance = instanceOf(first.clientId);
  assert.deepEqual(
    new Set(instance.remoting.connectedAddresses),
    new Set([cluster.namesrvAddr, broker.brokerAddr]),
  );

  // The first heartbeat runs 1 s after start, then every heartbeatBrokerInterval [30 s].
  clock.advance(1000);
  await until(() => channelsOf(second.producerGroup).length === 1, 'heartbeat registered the groups');
  await tasksIdle(clock, idle);
  const [channel] = channelsOf(first.producerGroup);
  assert.ok(channel !== undefined);
  assert.deepEqual(channelsOf(second.producerGroup), [channel], 'one connection for both producers');
  const sent = heartbeatsOf(first.clientId);
  assert.equal(sent.length, 1);
  assert.deepEqual(
    new Set(sent[0]?.producerDataSet.map((p) => p.groupName)),
    new Set([first.producerGroup, second.producerGroup, MixAll.CLIENT_INNER_PRODUCER_GROUP]),
  );
  clock.advance(30_000);
  await until(() => heartbeatsOf(first.clientId).length === 2, 'the next heartbeat after 30 s');

  await first.shutdown();
  assert.ok(unregisters.includes(`${first.clientId}/${first.producerGroup}`));
  assert.deepEqual(channelsOf(first.producerGroup), [], 'the broker forgot the group');
  assert.deepEqual(channelsOf(second.producerGroup), [channel], 'the other group keeps the open connection');
  assert.ok(channel.isOpen);
  assert.equal((await second.send({ topic, body: 'still here' })).sendStatus, SendStatus.SEND_OK);
  await second.shutdown();
  assert.ok(unregisters.includes(`${second.clientId}/${second.producerGroup}`));
  assert.ok(
    !activeClientIds().includes(first.clientId as string),
    'the instance left with its last producer',
  );
  await until(() => !channel.isOpen, 'the connection closed');
});

test('the default instanceName gives each producer its own instance (its own client id and connection)', async () => {
  const topic = uniqueName('Separate');
  await createTopic(cluster, topic, 2);
  const clock = new ManualClock();
  const a = await started({ clock });
  const b = await started({ clock });
  assert.notEqual(a.clientId, b.clientId);
  assert.match(a.clientId ?? '', new RegExp(`^127\\.0\\.0\\.1@${process.pid}#\\d+$`));
  await a.send({ topic, body: 'a' });
  await b.send({ topic, body: 'b' });
  clock.advance(1000);
  await until(
    () => channelsOf(a.producerGroup).length === 1 && channelsOf(b.producerGroup).length === 1,
    'both heartbeats',
  );
  assert.notEqual(channelsOf(a.producerGroup)[0], channelsOf(b.producerGroup)[0]);
  assert.notEqual(instanceOf(a.clientId), instanceOf(b.clientId));
});

test('the same group twice on one instance is refused; on two instances it is two members', async () => {
  const instanceName = uniqueName('dup');
  const group = uniqueName('dup-group');
  const first = await started({ instanceName, producerGroup: group, clock: new ManualClock() });
  const twin = newProducer({
    namesrvAddr: cluster.namesrvAddr,
    clientIP: '127.0.0.1',
    instanceName,
    producerGroup: group,
  });
  await assert.rejects(twin.start(), (error: unknown) => {
    assert.ok(error instanceof MQClientError, String(error));
    assert.match(error.message, /has been created before/);
    assert.equal(error.group, group);
    return true;
  });
  await twin.shutdown();
  const elsewhere = await started({
    instanceName: uniqueName('dup-other'),
    producerGroup: group,
    clock: new ManualClock(),
  });
  assert.notEqual(elsewhere.clientId, first.clientId);
  assert.ok(
    activeClientIds().includes(first.clientId as string),
    'the refused twin left the first one running',
  );
});

test('route refresh every pollNameServerInterval picks up new write queues; a topic the name server stops knowing keeps its cached route, as upstream; route-change events tell changes', async () => {
  const topic = uniqueName('Refresh');
  await createTopic(cluster, topic, 2);
  const clock = new ManualClock();
  const { logger, records } = capturingLogger();
  const producer = await started({ clock, logger, instanceName: uniqueName('refresh') });
  const idle = clock.pending;
  const events: RouteChangeEvent[] = [];
  const onEvent = (message: unknown) => {
    const event = message as RouteChangeEvent;
    if (event.clientId === producer.clientId && event.topic === topic) events.push(event);
  };
  diagnosticsChannel.subscribe(CHANNEL_NAMES.routeChange, onEvent);
  try {
    assert.equal((await producer.fetchPublishMessageQueues(topic)).length, 2);
    assert.equal(events.length, 1);
    assert.equal(events[0]?.route?.queueDatas[0]?.writeQueueNums, 2);

    // The first poll runs 10 ms after start, the next ones every pollNameServerInterval [30 s].
    clock.advance(10);
    await tasksIdle(clock, idle);
    await createTopic(cluster, topic, 6);
    assert.equal(
      (await producer.fetchPublishMessageQueues(topic)).length,
      2,
      'the cached route until the next poll',
    );
    clock.advance(29_999);
    await tasksIdle(clock, idle);
    await turns();
    assert.equal((await producer.fetchPublishMessageQueues(topic)).length, 2);
    clock.advance(1);
    await until(async () => (await producer.fetchPublishMessageQueues(topic)).length === 6, 'six queues');
    assert.equal(events.length, 2);
    assert.equal(events[1]?.route?.queueDatas[0]?.writeQueueNums, 6);
    const used = new Set<number>();
    for (let i = 0; i < 12; i++)
      used.add((await producer.send({ topic, body: `q${i}` })).messageQueue.queueId);
    assert.deepEqual(used, new Set([0, 1, 2, 3, 4, 5]));

    // As a name server restarted (SIGKILL) before the broker registers again: it answers the next
    // poll TOPIC_NOT_EXIST. Upstream's client keeps the route it has, so sends go on (the chaos
    // suite's namesrv-kill found ours dropping it and failing every send until the registration).
    cluster.namesrv.routeInfoManager.deleteTopic(topic);
    const instance = instanceOf(producer.clientId);
    await tasksIdle(clock, idle);
    clock.advance(30_000);
    await until(
      () => records.some((r) => r.msg.includes('cached route stays') && r.fields.topic === topic),
      'the poll answered TOPIC_NOT_EXIST',
    );
    assert.ok(instance.topicRouteTable.has(topic), 'the cached route stays');
    assert.equal(events.length, 2, 'no route-change event');
    assert.equal((await producer.fetchPublishMessageQueues(topic)).length, 6);
    assert.equal((await producer.send({ topic, body: 'still routed' })).sendStatus, SendStatus.SEND_OK);
  } finally {
    diagnosticsChannel.unsubscribe(CHANNEL_NAMES.routeChange, onEvent);
  }
});

/** A consumer group on the instance, for what the heartbeat carries of consumers (no Node consumer yet). */
function subscribedGroup(group: string, topic: string): MQConsumerInner {
  const subscription: SubscriptionData = {
    topic,
    subString: '*',
    tagsSet: [],
    codeSet: [],
    subVersion: BigInt(Date.now()),
    expressionType: 'TAG',
    classFilterMode: false,
  };
  return {
    groupName: () => group,
    messageModel: () => 'CLUSTERING',
    consumeType: () => 'CONSUME_PASSIVELY',
    consumeFromWhere: () => 'CONSUME_FROM_LAST_OFFSET',
    subscriptions: () => [subscription],
    isUnitMode: () => false,
    updateTopicSubscribeInfo: () => {},
    isSubscribeTopicNeedUpdate: () => false,
    doRebalance: async () => {},
    persistConsumerOffset: async () => {},
    resetOffset: async () => {},
    consumerStatus: () => [],
    consumerRunningInfo: () => Buffer.from('{}'),
    consumeMessageDirectly: async () => Buffer.from('{}'),
  };
}

test('useHeartbeatV2: a full heartbeat first, then withoutSub ones, and a full one again when the broker answers IS_SUB_CHANGE', async () => {
  const topic = uniqueName('HbV2');
  await createTopic(cluster, topic, 1);
  const clock = new ManualClock();
  const producer = await started({ clock, useHeartbeatV2: true, instanceName: uniqueName('v2') });
  const idle = clock.pending;
  await producer.send({ topic, body: 'route' });
  const group = uniqueName('cg');
  assert.equal(instanceOf(producer.clientId).registerConsumer(group, subscribedGroup(group, topic)), true);
  const mine = () => heartbeatsOf(producer.clientId);

  clock.advance(1000);
  await until(() => mine().length === 1, 'the first heartbeat');
  await tasksIdle(clock, idle);
  const full = mine()[0] as HeartbeatData;
  assert.notEqual(full.withoutSub, true);
  assert.ok((full.heartbeatFingerprint ?? 0) !== 0);
  assert.equal(full.consumerDataSet[0]?.subscriptionDataSet[0]?.topic, topic);

  clock.advance(30_000);
  await until(() => mine().length === 2, 'the second heartbeat');
  await tasksIdle(clock, idle);
  const light = mine()[1] as HeartbeatData;
  assert.equal(light.withoutSub, true);
  assert.equal(light.heartbeatFingerprint, full.heartbeatFingerprint);
  assert.deepEqual(light.consumerDataSet[0]?.subscriptionDataSet, []);

  // The broker finds its copy of the group's subscription stale: its next answer says IS_SUB_CHANGE.
  const [channel] = channelsOf(producer.producerGroup);
  assert.ok(channel !== undefined);
  consumerGroupHeartbeatTable(broker).markStale(group, channel);
  clock.advance(30_000);
  await until(() => mine().length === 4, 'a withoutSub heartbeat and the full one it was asked for');
  assert.equal(mine()[2]?.withoutSub, true);
  assert.notEqual(mine()[3]?.withoutSub, true);
  assert.equal(mine()[3]?.consumerDataSet[0]?.subscriptionDataSet.length, 1);
  await instanceOf(producer.clientId).unregisterConsumer(group);
});

test('requests from the broker the client does not know or cannot read get upstream answers and a warn line; the client goes on', async () => {
  const topic = uniqueName('Inbound');
  await createTopic(cluster, topic, 1);
  const clock = new ManualClock();
  const { logger, records } = capturingLogger();
  const producer = await started({ clock, logger, instanceName: uniqueName('inbound') });
  await producer.send({ topic, body: 'route' });
  clock.advance(1000);
  await until(() => channelsOf(producer.producerGroup).length === 1, 'heartbeat');
  const [channel] = channelsOf(producer.producerGroup);
  assert.ok(channel !== undefined);
  const warned = (code: number) =>
    records.some((r) => (r.level === 'warn' || r.level === 'error') && r.fields.code === code);

  const unknown = await channel.invoke(createRequest(9999), { timeoutMs: 3000 });
  assert.equal(unknown.code, ResponseCode.REQUEST_CODE_NOT_SUPPORTED);
  assert.match(unknown.remark ?? '', /request type 9999 not supported/);
  assert.ok(warned(9999));

  const noHeader = await channel.invoke(createRequest(RequestCode.GET_CONSUMER_RUNNING_INFO), {
    timeoutMs: 3000,
  });
  assert.equal(noHeader.code, ResponseCode.SYSTEM_ERROR);
  assert.ok(warned(RequestCode.GET_CONSUMER_RUNNING_INFO));

  const notHere = await channel.invoke(
    createRequest(RequestCode.GET_CONSUMER_RUNNING_INFO, {
      extFields: { consumerGroup: 'no-such-group', clientId: producer.clientId ?? '', jstackEnable: 'false' },
    }),
    { timeoutMs: 3000 },
  );
  assert.equal(notHere.code, ResponseCode.SYSTEM_ERROR);
  assert.equal(notHere.remark, 'The Consumer Group <no-such-group> not exist in this consumer');

  const noStatusHeader = await channel.invoke(createRequest(RequestCode.GET_CONSUMER_STATUS_FROM_CLIENT), {
    timeoutMs: 3000,
  });
  assert.equal(noStatusHeader.code, ResponseCode.SYSTEM_ERROR);

  // Brokers send these two oneway (Broker2Client); a body that cannot be read is logged and dropped.
  const garbage = Buffer.from('not a stored message');
  for (const [code, extFields] of [
    [
      RequestCode.CHECK_TRANSACTION_STATE,
      { tranStateTableOffset: '0', commitLogOffset: '0', msgId: 'x', transactionId: 'x', offsetMsgId: 'x' },
    ],
    [RequestCode.RESET_CONSUMER_CLIENT_OFFSET, { topic, group: 'g', timestamp: '0', isForce: 'false' }],
  ] as const) {
    await channel.invokeOneway(createRequest(code, { extFields, body: garbage }));
    await until(() => warned(code), `a warn line for code ${code}`);
  }
  await channel.invokeOneway(createRequest(9998));
  await until(() => warned(9998), 'a warn line for a oneway unknown code');

  assert.ok(channel.isOpen, 'the connection survived');
  assert.equal((await producer.send({ topic, body: 'still working' })).sendStatus, SendStatus.SEND_OK);
});
