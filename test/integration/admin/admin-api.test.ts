/**
 * The admin API against our name server and broker in this process: every method of MQAdminExt,
 * the facts it reads checked against what the broker and name server hold, its errors typed and
 * naming the peer, and a dead or silent broker failing within the call's timeout.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createAdmin, type MQAdminExt } from '../../../src/admin/index.js';
import type { BrokerController } from '../../../src/broker/broker-controller.js';
import {
  ClientErrorCode,
  ClientStateError,
  MQBrokerError,
  MQClientError,
} from '../../../src/client/errors.js';
import type { Producer, PushConsumer } from '../../../src/client/index.js';
import { MixAll, PermName } from '../../../src/common/constants.js';
import { MessageQueue } from '../../../src/common/message/message-queue.js';
import { ResponseCode } from '../../../src/remoting/protocol/response-code.js';
import {
  RemotingAbortedError,
  RemotingConnectError,
  RemotingTimeoutError,
} from '../../../src/remoting/transport/errors.js';
import { newConsumer, shutdownAll } from '../client/consumer-support.js';
import {
  deadAddress,
  newProducer,
  quiet,
  startCluster,
  startSilentServer,
  type TestCluster,
  timed,
  uniqueName,
  until,
} from '../client/support.js';

const CLUSTER = 'DefaultCluster';
const MESSAGES = 12;

let cluster: TestCluster;
let broker: BrokerController;
let brokerAddr: string;
let admin: MQAdminExt;
let producer: Producer;
let consumer: PushConsumer;
const topic = uniqueName('AdminTopic');
const group = uniqueName('AdminGroup');
const producerGroup = uniqueName('AdminProducer');
const msgIds: Array<{ msgId: string; offsetMsgId: string; key: string }> = [];
let consumed = 0;

function newAdmin(extra: Parameters<typeof createAdmin>[0] = {}): MQAdminExt {
  return createAdmin({ namesrvAddr: cluster.namesrvAddr, clientIP: '127.0.0.1', logger: quiet, ...extra });
}

async function rejectsWith(promise: Promise<unknown>, check: (error: unknown) => boolean, what: string) {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(check(error), `${what}: got ${String(error)}`);
    return true;
  });
}

before(async () => {
  cluster = await startCluster({ longPollingCheckInterval: 100 });
  broker = cluster.brokers[0] as BrokerController;
  brokerAddr = broker.brokerAddr;
  admin = newAdmin();
  await admin.start();
  await admin.createAndUpdateTopicConfig(brokerAddr, {
    topicName: topic,
    readQueueNums: 3,
    writeQueueNums: 3,
  });
  await until(
    async () => (await admin.examineTopicRouteInfo(topic).catch(() => undefined))?.queueDatas.length === 1,
    'the new topic is routed',
  );
  producer = newProducer({ namesrvAddr: cluster.namesrvAddr, producerGroup, clientIP: '127.0.0.1' });
  await producer.start();
  for (let i = 0; i < MESSAGES; i++) {
    const key = `k-${i}`;
    const r = await producer.send({ topic, body: `m${i}`, keys: key, tags: 'T' });
    msgIds.push({ msgId: r.msgId, offsetMsgId: r.offsetMsgId, key });
  }
  consumer = newConsumer(cluster, { consumerGroup: group });
  consumer.subscribe(topic, '*');
  consumer.registerMessageListener({
    type: 'concurrently',
    async consumeMessage(msgs) {
      consumed += msgs.length;
      return 'CONSUME_SUCCESS';
    },
  });
  await consumer.start();
  await until(() => consumed >= MESSAGES, 'the consumer read every message', 15_000);
});

after(async () => {
  await shutdownAll();
  await producer?.shutdown();
  await admin?.shutdown();
  await cluster?.close();
});

describe('lifecycle', () => {
  test('calls before start and after shutdown are refused; start is once only; shutdown is idempotent', async () => {
    const other = newAdmin();
    await rejectsWith(other.fetchAllTopicList(), (e) => e instanceof ClientStateError, 'before start');
    await other.start();
    await rejectsWith(other.start(), (e) => e instanceof MQClientError, 'second start');
    await other.shutdown();
    await other.shutdown();
    await rejectsWith(other.fetchAllTopicList(), (e) => e instanceof ClientStateError, 'after shutdown');
  });

  test('an admin group is registered once per client instance, and keeps a shared instance open', async () => {
    const instanceName = uniqueName('shared');
    const first = newAdmin({ instanceName });
    const second = newAdmin({ instanceName });
    await first.start();
    await rejectsWith(
      second.start(),
      (e) => e instanceof MQClientError && /admin_ext_group/.test(String(e)),
      'dup',
    );
    // A producer sharing the instance shuts down; the admin's calls must still work.
    const p = newProducer({ namesrvAddr: cluster.namesrvAddr, instanceName, clientIP: '127.0.0.1' });
    await p.start();
    await p.shutdown();
    assert.ok((await first.fetchAllTopicList()).topicList.includes(topic));
    await first.shutdown();
  });

  test('bad options fail at creation', () => {
    assert.throws(() => newAdmin({ timeoutMillis: 0 }), /timeoutMillis/);
    assert.throws(() => newAdmin({ adminExtGroup: ' ' }), /adminExtGroup/);
  });
});

describe('topics', () => {
  test('config, list, cluster list, route and stats agree with the broker', async () => {
    const config = await admin.examineTopicConfig(brokerAddr, topic);
    assert.deepEqual(
      { r: config?.readQueueNums, w: config?.writeQueueNums, perm: config?.perm },
      { r: 3, w: 3, perm: PermName.PERM_READ | PermName.PERM_WRITE },
    );
    assert.ok((await admin.getAllTopicConfig(brokerAddr)).topicConfigTable.has(topic));
    assert.ok((await admin.fetchAllTopicList()).topicList.includes(topic));
    assert.ok((await admin.fetchTopicsByCluster(CLUSTER)).topicList.includes(topic));
    assert.deepEqual([...(await admin.getTopicClusterList(topic))], [CLUSTER]);
    const route = await admin.examineTopicRouteInfo(topic);
    assert.equal(route.brokerDatas[0]?.brokerAddrs.get(0), brokerAddr);
    const stats = await admin.examineTopicStats(topic);
    assert.equal(stats.offsetTable.length, 3);
    let total = 0n;
    for (const [mq, offset] of stats.offsetTable) {
      assert.equal(mq.topic, topic);
      assert.equal(offset.maxOffset, broker.messageStore.getMaxOffsetInQueue(topic, mq.queueId));
      total += offset.maxOffset - offset.minOffset;
    }
    assert.equal(total, BigInt(MESSAGES));
    assert.deepEqual(await admin.queryTopicConsumeByWho(topic), [group]);
  });

  test('an unknown topic is TOPIC_NOT_EXIST', async () => {
    await rejectsWith(
      admin.examineTopicRouteInfo(uniqueName('Nope')),
      (e) => e instanceof MQClientError && e.responseCode === ResponseCode.TOPIC_NOT_EXIST,
      'route',
    );
    await rejectsWith(
      admin.examineTopicStats(uniqueName('Nope')),
      (e) => e instanceof MQClientError && e.responseCode === ResponseCode.TOPIC_NOT_EXIST,
      'stats',
    );
  });

  test('deleteTopic removes it from the broker and the name server; the two halves work alone', async () => {
    const doomed = uniqueName('Doomed');
    await admin.createAndUpdateTopicConfig(brokerAddr, {
      topicName: doomed,
      readQueueNums: 1,
      writeQueueNums: 1,
    });
    await until(async () => (await admin.fetchAllTopicList()).topicList.includes(doomed), 'routed');
    await admin.deleteTopic(doomed, CLUSTER);
    assert.equal(await admin.examineTopicConfig(brokerAddr, doomed), undefined);
    assert.ok(!(await admin.fetchAllTopicList()).topicList.includes(doomed));

    const half = uniqueName('Half');
    await admin.createAndUpdateTopicConfig(brokerAddr, {
      topicName: half,
      readQueueNums: 1,
      writeQueueNums: 1,
    });
    await until(async () => (await admin.fetchAllTopicList()).topicList.includes(half), 'routed');
    await admin.deleteTopicInBroker([brokerAddr], half);
    assert.equal(broker.topicConfigManager.selectTopicConfig(half), undefined);
    await admin.deleteTopicInNameServer(undefined, half);
    assert.ok(!(await admin.fetchAllTopicList()).topicList.includes(half));
  });
});

describe('groups, consumers and producers', () => {
  test('a subscription group is created, read and deleted', async () => {
    const g = uniqueName('SubGroup');
    await admin.createAndUpdateSubscriptionGroupConfig(brokerAddr, { groupName: g, retryMaxTimes: 5 });
    const config = await admin.examineSubscriptionGroupConfig(brokerAddr, g);
    assert.equal(config?.retryMaxTimes, 5);
    assert.equal(config?.consumeEnable, true);
    assert.ok((await admin.getAllSubscriptionGroup(brokerAddr)).subscriptionGroupTable.has(g));
    await admin.deleteSubscriptionGroup(brokerAddr, g, true);
    assert.equal(await admin.examineSubscriptionGroupConfig(brokerAddr, g), undefined);
  });

  test('consume stats, connections and running info describe the live consumer', async () => {
    await until(
      async () => {
        const s = await admin.examineConsumeStats(group).catch(() => undefined);
        const done = s?.offsetTable.reduce((n, [, o]) => n + o.consumerOffset, 0n);
        return done === BigInt(MESSAGES);
      },
      'the offsets reach the broker',
      15_000,
    );
    const stats = await admin.examineConsumeStats(group, topic);
    for (const [mq, o] of stats.offsetTable) {
      assert.equal(mq.topic, topic);
      assert.equal(o.brokerOffset, o.consumerOffset);
    }
    const connection = await admin.examineConsumerConnectionInfo(group);
    assert.deepEqual(
      connection.connectionSet.map((c) => c.clientId),
      [consumer.clientId],
    );
    assert.equal(connection.subscriptionTable.get(topic)?.subString, '*');
    const viaAddr = await admin.examineConsumerConnectionInfo(group, brokerAddr);
    assert.equal(viaAddr.connectionSet.length, 1);
    const info = await admin.getConsumerRunningInfo(group, consumer.clientId as string);
    assert.ok(info.subscriptionSet.some((s) => s.topic === topic));
    assert.ok(info.properties.size > 0);
    const inBroker = await admin.fetchConsumeStatsInBroker(brokerAddr, false);
    assert.ok(inBroker.consumeStatsList.some(([g]) => g === group));
  });

  test('a group with no member online is CONSUMER_NOT_ONLINE; a producer group is found by its topic', async () => {
    const idle = uniqueName('Idle');
    await admin.createAndUpdateSubscriptionGroupConfig(brokerAddr, { groupName: idle });
    await rejectsWith(
      admin.examineConsumerConnectionInfo(idle, brokerAddr),
      (e) => (e as { responseCode?: number }).responseCode === ResponseCode.CONSUMER_NOT_ONLINE,
      'idle group',
    );
    const producers = await admin.examineProducerConnectionInfo(producerGroup, topic);
    assert.equal(producers.connectionSet.length, 1);
    assert.equal(producers.connectionSet[0]?.clientId, producer.clientId);
  });

  test('resetOffsetByTimestamp moves the group back to the start; cloneGroupOffset copies its offsets', async () => {
    const reset = await admin.resetOffsetByTimestamp(topic, group, 0, true);
    assert.equal(reset.length, 3);
    for (const [mq, offset] of reset) {
      assert.equal(mq.topic, topic);
      assert.equal(offset, 0n);
    }
    await until(() => consumed >= 2 * MESSAGES, 'the reset group consumes again', 15_000);
    const committed = () => [...(broker.consumerOffsetManager.queryOffsets(group, topic) ?? new Map())];
    await until(
      () => committed().reduce((n, [, o]) => n + o, 0n) === BigInt(MESSAGES),
      'the group committed every offset again',
      15_000,
    );
    // The group is online and subscribes to the topic, so the clone does not need `offline`.
    const copy = uniqueName('Clone');
    await admin.cloneGroupOffset(group, copy, topic, false);
    assert.deepEqual([...(broker.consumerOffsetManager.queryOffsets(copy, topic) ?? [])], committed());
  });
});

describe('offsets of a group that is not online', () => {
  test('updateConsumeOffset, the admin-side reset (old) and resetOffsetNew falling back to it', async () => {
    const offline = uniqueName('Offline');
    const route = await admin.examineTopicRouteInfo(topic);
    const brokerName = route.brokerDatas[0]?.brokerName as string;
    const queues = [0, 1, 2].map((id) => new MessageQueue(topic, brokerName, id));
    // The retry topic a group gets when it first consumes: consume stats find the group's brokers by it.
    const retryTopic = MixAll.getRetryTopic(offline);
    await admin.createAndUpdateTopicConfig(brokerAddr, {
      topicName: retryTopic,
      readQueueNums: 1,
      writeQueueNums: 1,
    });
    await until(
      async () => (await admin.fetchAllTopicList()).topicList.includes(retryTopic),
      'retry topic routed',
    );
    for (const mq of queues) await admin.updateConsumeOffset(brokerAddr, offline, mq, 1);
    const committed = await admin.examineConsumeStats(offline, topic);
    assert.deepEqual(committed.offsetTable.map(([mq, o]) => [mq.queueId, o.consumerOffset]).sort(), [
      [0, 1n],
      [1, 1n],
      [2, 1n],
    ]);

    const rolled = await admin.resetOffsetByTimestampOld(offline, topic, -1, false);
    assert.equal(rolled.length, 3);
    for (const r of rolled) {
      const max = broker.messageStore.getMaxOffsetInQueue(topic, r.queueId);
      assert.equal(r.timestampOffset, max);
      // Not forced: a group behind the target keeps its own offset.
      assert.equal(r.rollbackOffset, max <= 1n ? max : 1n);
    }
    const forced = await admin.resetOffsetByTimestampOld(offline, topic, -1, true);
    assert.ok(forced.every((r) => r.rollbackOffset === r.timestampOffset));

    await rejectsWith(
      admin.resetOffsetByTimestamp(topic, offline, 0, true),
      (e) => e instanceof MQBrokerError && e.responseCode === ResponseCode.CONSUMER_NOT_ONLINE,
      'the broker resets only online groups',
    );
    await admin.resetOffsetNew(offline, topic, 0);
    const back = await admin.examineConsumeStats(offline, topic);
    assert.ok(back.offsetTable.every(([, o]) => o.consumerOffset === 0n));
  });
});

describe('messages', () => {
  test('by offset id, by message id, by key, by unique key; consume queue and queue offsets', async () => {
    const first = msgIds[0] as (typeof msgIds)[number];
    const byOffset = await admin.viewMessage(first.offsetMsgId);
    assert.equal(byOffset.body.toString(), 'm0');
    const byId = await admin.viewMessage(first.msgId, { topic });
    assert.equal(byId.body.toString(), 'm0');
    const byUniq = await admin.queryMessageByUniqKey(topic, first.msgId);
    assert.equal(byUniq.msgId, first.msgId);
    const byKey = await admin.queryMessage(topic, 'k-3', 32, 0, Date.now() + 60_000);
    assert.deepEqual(
      byKey.messageList.map((m) => m.body.toString()),
      ['m3'],
    );
    await rejectsWith(
      admin.queryMessageByUniqKey(topic, '7F0000010000000000000000000000FF'),
      (e) => e instanceof MQClientError && e.responseCode === ResponseCode.NO_MESSAGE,
      'unknown uniq key',
    );
    const mq = new MessageQueue(topic, byOffset.brokerName ?? 'broker-a', byOffset.queueId);
    const max = await admin.maxOffset(mq);
    assert.equal(max, broker.messageStore.getMaxOffsetInQueue(topic, mq.queueId));
    assert.equal(await admin.minOffset(mq), 0n);
    assert.ok((await admin.earliestMsgStoreTime(mq)) > 0n);
    assert.equal(await admin.searchOffset(mq, 0), 0n);
    const direct = await admin.consumeMessageDirectly(group, consumer.clientId as string, first.msgId, topic);
    assert.equal(direct.consumeResult, 'CR_SUCCESS');
    const cq = await admin.queryConsumeQueue(brokerAddr, topic, mq.queueId, 0, 10, group);
    assert.equal(cq.queueData?.length, Number(max));
    assert.equal(cq.maxQueueIndex, max);
  });
});

describe('brokers and clusters', () => {
  test('cluster info, masters, runtime stats and stats data', async () => {
    const info = await admin.examineBrokerClusterInfo();
    assert.deepEqual(info.clusterAddrTable.get(CLUSTER), ['broker-a']);
    assert.equal(info.brokerAddrTable.get('broker-a')?.brokerAddrs.get(0), brokerAddr);
    assert.deepEqual(await admin.fetchMasterAddrByClusterName(CLUSTER), [brokerAddr]);
    const runtime = await admin.fetchBrokerRuntimeStats(brokerAddr);
    assert.ok(runtime.has('brokerVersionDesc'), [...runtime.keys()].join(','));
    const put = await admin.viewBrokerStatsData(brokerAddr, 'TOPIC_PUT_NUMS', topic);
    // The broker's own figures (sampled, so possibly still 0) are what the admin reads.
    const item = broker.brokerStatsManager.getStatsItem('TOPIC_PUT_NUMS', topic);
    assert.ok(item !== undefined);
    assert.equal(put.statsMinute.sum, BigInt(item.getStatsDataInMinute().sum));
    assert.equal(put.statsDay.sum, BigInt(item.getStatsDataInDay().sum));
    await rejectsWith(
      admin.viewBrokerStatsData(brokerAddr, 'TOPIC_PUT_NUMS', uniqueName('none')),
      (e) => e instanceof MQBrokerError && e.brokerAddr === brokerAddr,
      'unknown stats item',
    );
  });

  test('broker config is read and updated; a key clients may not change is NO_PERMISSION', async () => {
    const config = await admin.getBrokerConfig(brokerAddr);
    assert.equal(config.get('brokerName'), 'broker-a');
    assert.equal(config.get('brokerClusterName'), CLUSTER);
    await admin.updateBrokerConfig(brokerAddr, { defaultTopicQueueNums: '6' });
    assert.equal(broker.config.defaultTopicQueueNums, 6);
    assert.equal((await admin.getBrokerConfig(brokerAddr)).get('defaultTopicQueueNums'), '6');
    await admin.updateBrokerConfig(brokerAddr, new Map());
    await rejectsWith(
      admin.updateBrokerConfig(brokerAddr, new Map([['listenPort', '1']])),
      (e) => e instanceof MQBrokerError && e.responseCode === ResponseCode.NO_PERMISSION,
      'black-listed key',
    );
  });

  test('clean expired consume queues and unused topics, by cluster and by address', async () => {
    assert.equal(await admin.cleanExpiredConsumerQueue(), true);
    assert.equal(await admin.cleanExpiredConsumerQueue(CLUSTER), true);
    assert.equal(await admin.cleanExpiredConsumerQueueByAddr(brokerAddr), true);
    assert.equal(await admin.cleanUnusedTopic(), true);
    assert.equal(await admin.cleanUnusedTopicByAddr(brokerAddr), true);
    assert.equal(await admin.cleanUnusedTopic(uniqueName('NoSuchCluster')), false);
  });
});

describe('name servers', () => {
  test('kv config is put, read, listed and deleted', async () => {
    const ns = uniqueName('NS');
    await admin.createAndUpdateKvConfig(ns, 'k1', 'v1');
    assert.equal(await admin.getKVConfig(ns, 'k1'), 'v1');
    assert.deepEqual([...(await admin.getKVListByNamespace(ns))], [['k1', 'v1']]);
    await admin.deleteKvConfig(ns, 'k1');
    assert.equal(await admin.getKVConfig(ns, 'k1'), undefined);
  });

  test('name server config is read and updated', async () => {
    const configs = await admin.getNameServerConfig();
    assert.deepEqual([...configs.keys()], [cluster.namesrvAddr]);
    assert.ok(configs.get(cluster.namesrvAddr)?.has('orderMessageEnable'));
    await admin.updateNameServerConfig({ productEnvName: 'admin-test' });
    const after = await admin.getNameServerConfig([cluster.namesrvAddr]);
    assert.equal(after.get(cluster.namesrvAddr)?.get('productEnvName'), 'admin-test');
  });

  test('wipe and add write permission of a broker change its routes', async () => {
    const wiped = await admin.wipeWritePermOfBroker(cluster.namesrvAddr, 'broker-a');
    assert.ok(wiped > 0);
    const perm = (await admin.examineTopicRouteInfo(topic)).queueDatas[0]?.perm ?? 0;
    assert.equal(perm & PermName.PERM_WRITE, 0);
    const added = await admin.addWritePermOfBroker(cluster.namesrvAddr, 'broker-a');
    assert.equal(added, wiped);
    const again = (await admin.examineTopicRouteInfo(topic)).queueDatas[0]?.perm ?? 0;
    assert.equal(again & PermName.PERM_WRITE, PermName.PERM_WRITE);
  });
});

describe('ACL admin calls', () => {
  test('a broker without ACL fails them as upstream does: typed errors naming it, no answer to 52', async () => {
    const failures: Array<[Promise<unknown>, number]> = [
      [
        admin.createAndUpdatePlainAccessConfig(brokerAddr, { accessKey: 'RocketMQ7', secretKey: '12345678' }),
        ResponseCode.UPDATE_AND_CREATE_ACL_CONFIG_FAILED,
      ],
      [admin.deletePlainAccessConfig(brokerAddr, 'RocketMQ7'), ResponseCode.DELETE_ACL_CONFIG_FAILED],
      [
        admin.updateGlobalWhiteAddrConfig(brokerAddr, '10.10.*.*'),
        ResponseCode.UPDATE_GLOBAL_WHITE_ADDRS_CONFIG_FAILED,
      ],
    ];
    for (const [call, code] of failures) {
      await rejectsWith(
        call,
        (e) => e instanceof MQBrokerError && e.brokerAddr === brokerAddr && e.responseCode === code,
        `ACL call ${code}`,
      );
    }
    await rejectsWith(
      admin.examineBrokerClusterAclVersionInfo(brokerAddr, { timeoutMs: 300 }),
      (e) => e instanceof RemotingTimeoutError && e.message.includes(brokerAddr),
      'ACL version info',
    );
  });
});

describe('dead and silent peers', () => {
  test('a broker that is gone fails at once naming its address', async () => {
    const dead = await deadAddress();
    await rejectsWith(
      admin.getBrokerConfig(dead, { timeoutMs: 2000 }),
      (e) => e instanceof RemotingConnectError && e.message.includes(dead),
      'dead broker',
    );
  });

  test('a broker that never answers fails within the timeout naming its address', async () => {
    const silent = await startSilentServer();
    try {
      const r = await timed(admin.fetchBrokerRuntimeStats(silent.address, { timeoutMs: 300 }));
      assert.ok(r.error instanceof RemotingTimeoutError, String(r.error));
      assert.ok((r.error as Error).message.includes(silent.address));
      assert.ok(r.ms < 1500, `took ${r.ms} ms`);
    } finally {
      await silent.close();
    }
  });

  test('an aborted call rejects with RemotingAbortedError', async () => {
    const silent = await startSilentServer();
    try {
      const controller = new AbortController();
      const call = admin.fetchBrokerRuntimeStats(silent.address, { signal: controller.signal });
      await until(() => silent.connections > 0, 'the admin connects');
      controller.abort();
      await rejectsWith(call, (e) => e instanceof RemotingAbortedError, 'aborted');
    } finally {
      await silent.close();
    }
  });

  test('with vipChannelEnabled a broker call goes to the VIP channel (port - 2), as upstream', async () => {
    const silent = await startSilentServer();
    const vip = newAdmin({ vipChannelEnabled: true });
    await vip.start();
    try {
      const port = Number(silent.address.split(':')[1]);
      const r = await timed(vip.fetchBrokerRuntimeStats(`127.0.0.1:${port + 2}`, { timeoutMs: 200 }));
      assert.ok(
        r.error instanceof RemotingTimeoutError && r.error.message.includes(silent.address),
        String(r.error),
      );
      assert.equal(silent.connections, 1);
    } finally {
      await vip.shutdown();
      await silent.close();
    }
  });

  test('a dead name server is named; no name server at all is NO_NAME_SERVER_EXCEPTION', async () => {
    const dead = await deadAddress();
    const lost = newAdmin({ namesrvAddr: dead });
    await lost.start();
    try {
      await rejectsWith(
        lost.fetchAllTopicList({ timeoutMs: 2000 }),
        (e) => e instanceof RemotingConnectError && e.message.includes(dead),
        'dead name server',
      );
    } finally {
      await lost.shutdown();
    }
    const none = newAdmin({ namesrvAddr: [] });
    await none.start();
    try {
      await rejectsWith(
        none.examineBrokerClusterInfo(),
        (e) => e instanceof MQClientError && e.responseCode === ClientErrorCode.NO_NAME_SERVER_EXCEPTION,
        'no name server',
      );
    } finally {
      await none.shutdown();
    }
  });

  test('an unknown consumer group has no route: TOPIC_NOT_EXIST for its retry topic', async () => {
    const g = uniqueName('Ghost');
    await rejectsWith(
      admin.examineConsumeStats(g),
      (e) =>
        e instanceof MQClientError &&
        e.responseCode === ResponseCode.TOPIC_NOT_EXIST &&
        e.topic === MixAll.getRetryTopic(g),
      'ghost group',
    );
  });
});
