/**
 * The slave role (upstream 4.9.8) with a real name server, master and slave of ours over TCP on
 * 127.0.0.1, stores and metadata files in temp dirs, each broker on its own ManualClock: the slave
 * learns its master from registration and routes show {0: master, 1: slave}; SlaveSynchronize asks
 * the master first 3 s after start and then every 10 s (topics on the master's VIP channel), and the
 * slave's topics.json, subscriptionGroup.json, consumerOffset.json and delayOffset.json then hold
 * the master's content; the slave's refusals frame by frame; pulls from the slave and the master
 * per slaveReadEnable and accessMessageInMemoryMaxRatio (over a copied store); and with HA
 * replication running, replicated messages read from the slave, our push consumer sent there by the
 * suggestion while its offsets go to the master and reach the slave by sync.
 */
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, afterEach, describe, test } from 'node:test';
import type { BrokerConfigOverrides } from '../../../src/broker/broker-config.js';
import { type BrokerController, createBroker } from '../../../src/broker/broker-controller.js';
import { PullSysFlag } from '../../../src/common/constants.js';
import type { Logger } from '../../../src/common/logger.js';
import { decodeMessages } from '../../../src/common/message/stored-format.js';
import { decodeConsumerOffsetTable } from '../../../src/common/protocol/consumer-offset-wrapper.js';
import { decodeTopicRouteData } from '../../../src/common/protocol/route.js';
import { createPushConsumer, type MessageExt } from '../../../src/index.js';
import { createRequest, type RemotingCommand } from '../../../src/remoting/protocol/command.js';
import { decodeHeader, encodeHeader } from '../../../src/remoting/protocol/header-schema.js';
import {
  GetRouteInfoRequestHeader,
  PullMessageRequestHeader,
  PullMessageResponseHeader,
} from '../../../src/remoting/protocol/headers/index.js';
import { RequestCode } from '../../../src/remoting/protocol/request-code.js';
import { ResponseCode } from '../../../src/remoting/protocol/response-code.js';
import { RemotingClient, type RemotingServer } from '../../../src/remoting/transport/index.js';
import {
  decodeDelayOffsetTable,
  delayOffsetStorePath,
} from '../../../src/store/schedule/delay-offset-table.js';
import { capturingLogger, ManualClock, quiet, settle, TEST_ENV } from '../../unit/broker/helpers.js';
import { until } from '../../unit/broker/store-broker.js';
import { msg } from '../../unit/store/default-message-store-support.js';
import {
  commitOffset,
  createGroup,
  createTopic,
  freeBrokerPort,
  slaveRefusals,
  startLoopbackNamesrv,
} from './slave-support.js';

const LIMIT = { timeout: 30_000 };
const T0 = 1_700_000_000_000;
const dir = mkdtempSync(join(tmpdir(), 'rmq-broker-slave-'));
let count = 0;
const cleanups: Array<() => Promise<void>> = [];

after(() => rmSync(dir, { recursive: true, force: true }));
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function startNamesrv(): Promise<string> {
  count++;
  const { namesrv, addr } = await startLoopbackNamesrv(join(dir, `ns-${count}`));
  cleanups.push(() => namesrv.shutdown());
  return addr;
}

interface Node {
  broker: BrokerController;
  clock: ManualClock;
  root: string;
}

interface NodeOptions {
  namesrvAddr?: string;
  root?: string;
  config?: BrokerConfigOverrides;
  logger?: Logger;
}

async function startNode(role: 'master' | 'slave', options: NodeOptions = {}): Promise<Node> {
  count++;
  const root = options.root ?? join(dir, `store-${count}`);
  const clock = new ManualClock(T0);
  const broker = createBroker({
    config: {
      storePathRootDir: root,
      listenPort: await freeBrokerPort(),
      listenHost: '127.0.0.1',
      brokerIP1: '127.0.0.1',
      brokerIP2: '127.0.0.1',
      brokerName: 'broker-a',
      brokerId: role === 'slave' ? 1 : 0,
      brokerRole: role === 'slave' ? 'SLAVE' : 'ASYNC_MASTER',
      registerBrokerTimeoutMills: 3000,
      mappedFileSizeCommitLog: 1 << 20,
      mappedFileSizeConsumeQueue: 20 * 1024,
      ...(options.namesrvAddr === undefined ? {} : { namesrvAddr: options.namesrvAddr }),
      ...options.config,
    },
    env: TEST_ENV,
    clock,
    logger: options.logger ?? quiet,
  });
  cleanups.push(() => broker.shutdown());
  await broker.start();
  return { broker, clock, root };
}

function client(): RemotingClient {
  const c = new RemotingClient({ clientChannelMaxIdleTimeSeconds: 0 }, { logger: quiet });
  cleanups.push(() => c.close());
  return c;
}

/** Every request code a server answered, in order. */
function watch(server: RemotingServer): number[] {
  const seen: number[] = [];
  server.registerRPCHook({
    doBeforeRequest: () => {},
    doAfterResponse: (_addr, request) => void seen.push(request.code),
  });
  return seen;
}

const SYNC_CODES = new Set<number>([
  RequestCode.GET_ALL_TOPIC_CONFIG,
  RequestCode.GET_ALL_CONSUMER_OFFSET,
  RequestCode.GET_ALL_DELAY_OFFSET,
  RequestCode.GET_ALL_SUBSCRIPTIONGROUP_CONFIG,
]);
const syncRequests = (seen: number[]) => seen.filter((c) => SYNC_CODES.has(c));

async function ok(c: RemotingClient, addr: string, request: RemotingCommand): Promise<RemotingCommand> {
  const response = await c.invoke(addr, request, { timeoutMs: 5000 });
  assert.equal(response.code, ResponseCode.SUCCESS, response.remark);
  return response;
}

const routeOf = (topic: string) =>
  createRequest(RequestCode.GET_ROUTEINFO_BY_TOPIC, {
    extFields: encodeHeader(GetRouteInfoRequestHeader, { topic }),
  });

/** The broker addresses by id the name server's route of `topic` shows, or undefined without a route. */
async function routeAddrs(c: RemotingClient, namesrvAddr: string, topic: string) {
  const response = await c.invoke(namesrvAddr, routeOf(topic), { timeoutMs: 5000 });
  if (response.code !== ResponseCode.SUCCESS) return undefined;
  const route = decodeTopicRouteData(response.body);
  assert.equal(route.brokerDatas.length, 1);
  return Object.fromEntries([...(route.brokerDatas[0]?.brokerAddrs ?? [])].sort((a, b) => a[0] - b[0]));
}

/** Lets requests under way arrive (a few event-loop turns), so an absence checked next is real. */
async function quiesce(): Promise<void> {
  for (let i = 0; i < 50; i++) await settle();
}

/** Moves `clock` on half a second at a time until `condition` holds (delayed delivery is due). */
async function advanceUntil(clock: ManualClock, condition: () => boolean): Promise<void> {
  for (let i = 0; i < 60; i++) {
    if (condition()) return;
    clock.advance(500);
    await quiesce();
  }
  assert.fail('the delayed messages were never delivered');
}

/** Advances the slave's clock into its next sync round and waits for the round to end. */
async function syncRound(slave: Node, ms: number): Promise<void> {
  slave.clock.advance(ms);
  await slave.broker.slaveSynchronize.whenIdle();
}

const configFile = (node: Node, name: string) => readFileSync(join(node.root, 'config', name), 'utf8');

describe('the slave learns its master and appears in routes', () => {
  test(
    'masterAddr from registration; routes show {0: master, 1: slave}, then the slave alone once the master is gone',
    LIMIT,
    async () => {
      const namesrvAddr = await startNamesrv();
      const master = await startNode('master', { namesrvAddr });
      const slave = await startNode('slave', { namesrvAddr });
      assert.equal(slave.broker.masterAddr, master.broker.brokerAddr);
      assert.equal(master.broker.masterAddr, undefined, 'a master is told of no master');

      const c = client();
      // Queue data come from the master's registration; the broker's members are listed with them.
      await ok(c, master.broker.brokerAddr, createTopic('SlaveRouteTopic'));
      assert.deepEqual(await routeAddrs(c, namesrvAddr, 'SlaveRouteTopic'), {
        0: master.broker.brokerAddr,
        1: slave.broker.brokerAddr,
      });

      // The master unregisters on shutdown: the route keeps the topic with the slave alone, for readers.
      await master.broker.shutdown();
      assert.deepEqual(await routeAddrs(c, namesrvAddr, 'SlaveRouteTopic'), { 1: slave.broker.brokerAddr });
    },
  );
});

describe('SlaveSynchronize', () => {
  test(
    'first round 3 s after start, then every 10 s; the slave files hold the master content',
    LIMIT,
    async () => {
      const namesrvAddr = await startNamesrv();
      const master = await startNode('master', { namesrvAddr });
      const { logger, records } = capturingLogger();
      const slave = await startNode('slave', { namesrvAddr, logger });
      const onMain = watch(master.broker.remotingServer);
      const onVip = watch(master.broker.fastRemotingServer);
      const c = client();
      const m = master.broker.brokerAddr;

      await ok(c, m, createTopic('SyncTopicA'));
      await ok(c, m, createGroup('SyncGroupA', { retryMaxTimes: 3 }));
      await ok(c, m, commitOffset('SyncGroupA', 'SyncTopicA', 0, 5n));
      await ok(c, m, commitOffset('SyncGroupA', 'SyncTopicA', 1, 7n));
      // Delay offsets: two delayed messages delivered on the master (levels 1 and 2).
      for (const level of [1, 2]) {
        const put = await master.broker.messageStore.putMessage(
          msg(level, { topic: 'SyncTopicA', extra: { DELAY: String(level) } }),
        );
        assert.equal(put.putMessageStatus, 'PUT_OK');
      }
      const schedule = master.broker.scheduleMessageService;
      assert.ok(schedule);
      await advanceUntil(
        master.clock,
        () => schedule.offsets().get(2) === 1n && schedule.offsets().get(1) === 1n,
      );
      // An offset committed to the slave itself stays (upstream puts the master's over the slave's).
      await ok(c, slave.broker.brokerAddr, commitOffset('SlaveOnlyGroup', 'SyncTopicA', 0, 3n));

      slave.clock.advance(2999);
      await quiesce();
      assert.deepEqual(syncRequests([...onMain, ...onVip]), [], 'nothing asked before 3 s');
      assert.equal(slave.broker.topicConfigManager.selectTopicConfig('SyncTopicA'), undefined);

      await syncRound(slave, 1);
      assert.deepEqual(
        syncRequests(onVip),
        [RequestCode.GET_ALL_TOPIC_CONFIG],
        'topics from the VIP channel',
      );
      assert.deepEqual(syncRequests(onMain), [
        RequestCode.GET_ALL_CONSUMER_OFFSET,
        RequestCode.GET_ALL_DELAY_OFFSET,
        RequestCode.GET_ALL_SUBSCRIPTIONGROUP_CONFIG,
      ]);

      // The tables and their DataVersions are the master's.
      assert.equal(slave.broker.topicConfigManager.encode(), master.broker.topicConfigManager.encode());
      assert.equal(
        slave.broker.subscriptionGroupManager.encode(),
        master.broker.subscriptionGroupManager.encode(),
      );
      assert.equal(slave.broker.consumerOffsetManager.queryOffset('SyncGroupA', 'SyncTopicA', 1), 7n);
      assert.equal(slave.broker.consumerOffsetManager.queryOffset('SlaveOnlyGroup', 'SyncTopicA', 0), 3n);

      // The files: topics and groups as the master writes them; offsets the master's plus the
      // slave's own key; delay offsets the master's table, as the master sent it (compact).
      await master.broker.topicConfigManager.flushed();
      await master.broker.subscriptionGroupManager.flushed();
      await master.broker.consumerOffsetManager.persist(true);
      await schedule.persist();
      assert.equal(configFile(slave, 'topics.json'), configFile(master, 'topics.json'));
      assert.equal(configFile(slave, 'subscriptionGroup.json'), configFile(master, 'subscriptionGroup.json'));
      const masterOffsets = decodeConsumerOffsetTable(configFile(master, 'consumerOffset.json'));
      const slaveOffsets = decodeConsumerOffsetTable(configFile(slave, 'consumerOffset.json'));
      assert.deepEqual(slaveOffsets.get('SyncTopicA@SyncGroupA'), masterOffsets.get('SyncTopicA@SyncGroupA'));
      assert.deepEqual([...slaveOffsets.keys()].sort(), [
        'SyncTopicA@SlaveOnlyGroup',
        'SyncTopicA@SyncGroupA',
      ]);
      const slaveDelay = readFileSync(delayOffsetStorePath(slave.root), 'utf8');
      assert.equal(slaveDelay, '{"offsetTable":{1:1,2:1}}');
      assert.deepEqual(
        decodeDelayOffsetTable(slaveDelay),
        decodeDelayOffsetTable(readFileSync(delayOffsetStorePath(master.root), 'utf8')),
      );

      // Changes on the master arrive with the next round, 10 s later.
      await ok(c, m, createTopic('SyncTopicB'));
      await ok(c, m, commitOffset('SyncGroupA', 'SyncTopicA', 0, 9n));
      slave.clock.advance(9999);
      await quiesce();
      assert.equal(syncRequests(onVip).length, 1, 'no second round before 10 s');
      await syncRound(slave, 1);
      assert.equal(syncRequests(onVip).length, 2);
      assert.ok(slave.broker.topicConfigManager.selectTopicConfig('SyncTopicB'));
      assert.equal(slave.broker.consumerOffsetManager.queryOffset('SyncGroupA', 'SyncTopicA', 0), 9n);
      await master.broker.topicConfigManager.flushed();
      assert.equal(configFile(slave, 'topics.json'), configFile(master, 'topics.json'));

      // Groups did not change on the master: the slave kept its table (one update in two rounds).
      const updates = (text: string) => records.filter((r) => r.msg === text).length;
      assert.equal(updates('Update slave Subscription Group from master'), 1);
      assert.equal(updates('Update slave topic config from master'), 2);
      assert.equal(records.filter((r) => /Sync.*Exception/.test(r.msg)).length, 0);
    },
  );

  test('GET_ALL_DELAY_OFFSET (45) answers the delay offset table, compact', LIMIT, async () => {
    const master = await startNode('master');
    const schedule = master.broker.scheduleMessageService;
    assert.ok(schedule);
    const put = await master.broker.messageStore.putMessage(
      msg(0, { topic: 'DelayTopic', extra: { DELAY: '3' } }),
    );
    assert.equal(put.putMessageStatus, 'PUT_OK');
    await advanceUntil(master.clock, () => schedule.offsets().get(3) === 1n);
    const response = await ok(
      client(),
      master.broker.brokerAddr,
      createRequest(RequestCode.GET_ALL_DELAY_OFFSET),
    );
    assert.equal(response.body?.toString('utf8'), '{"offsetTable":{3:1}}');
    assert.equal(response.remark, undefined);
  });

  test(
    'no master known: nothing is asked, and an unreachable master is logged and survived',
    LIMIT,
    async () => {
      const { logger, records } = capturingLogger();
      const lonely = await startNode('slave', { logger });
      assert.equal(lonely.broker.masterAddr, undefined);
      await syncRound(lonely, 3000);
      assert.equal(records.filter((r) => /Sync.*Exception/.test(r.msg)).length, 0);

      // A master that went away: each step fails on its own, logged with upstream's line.
      const namesrvAddr = await startNamesrv();
      const master = await startNode('master', { namesrvAddr });
      const slave = await startNode('slave', { namesrvAddr, logger });
      assert.equal(slave.broker.masterAddr, master.broker.brokerAddr);
      await master.broker.shutdown();
      await syncRound(slave, 3000);
      assert.deepEqual(
        records.filter((r) => /Sync.*Exception/.test(r.msg)).map((r) => r.msg),
        [
          'SyncTopicConfig Exception',
          'SyncConsumerOffset Exception',
          'SyncDelayOffset Exception',
          'SyncSubscriptionGroup Exception',
        ],
      );
    },
  );
});

describe('what a slave refuses', () => {
  test(
    'sends 14, END_TRANSACTION 11, topic and group admin 1, each with upstream remark',
    LIMIT,
    async () => {
      const namesrvAddr = await startNamesrv();
      const master = await startNode('master', { namesrvAddr });
      const slave = await startNode('slave', { namesrvAddr });
      const c = client();
      await ok(c, master.broker.brokerAddr, createTopic('RefusedTopic'));
      await ok(c, master.broker.brokerAddr, createGroup('RefusedGroup', { retryMaxTimes: 3 }));
      await syncRound(slave, 3000);
      assert.ok(slave.broker.topicConfigManager.selectTopicConfig('RefusedTopic'));
      const before = slave.broker.topicConfigManager.encode();
      const groupsBefore = slave.broker.subscriptionGroupManager.encode();

      for (const refusal of slaveRefusals('RefusedTopic', 'RefusedGroup')) {
        const response = await c.invoke(slave.broker.brokerAddr, refusal.request(), { timeoutMs: 5000 });
        assert.equal(response.code, refusal.code, `${refusal.what}: ${response.remark}`);
        if (refusal.remark instanceof RegExp)
          assert.match(response.remark ?? '', refusal.remark, refusal.what);
        else assert.equal(response.remark ?? null, refusal.remark, refusal.what);
      }
      assert.equal(slave.broker.messageStore.getMaxOffsetInQueue('RefusedTopic', 0), 0n, 'nothing stored');
      assert.equal(slave.broker.topicConfigManager.encode(), before, 'topics unchanged');
      assert.equal(slave.broker.subscriptionGroupManager.encode(), groupsBefore, 'groups unchanged');
    },
  );
});

describe('pulls on a pair', () => {
  const pull = (queueOffset: bigint, commit = false) =>
    createRequest(RequestCode.PULL_MESSAGE, {
      extFields: encodeHeader(PullMessageRequestHeader, {
        consumerGroup: 'ReadGroup',
        topic: 'ReadTopic',
        queueId: 0,
        queueOffset,
        maxMsgNums: 32,
        sysFlag: PullSysFlag.buildSysFlag(commit, false, true, false),
        commitOffset: 2n,
        suspendTimeoutMillis: 0n,
        subscription: '*',
        subVersion: 0n,
        expressionType: 'TAG',
      }),
    });
  const suggestion = (r: RemotingCommand) =>
    decodeHeader(PullMessageResponseHeader, r.extFields).suggestWhichBrokerId;

  test(
    'the slave serves reads; it suggests the master unless slaveReadEnable, then the group rule',
    LIMIT,
    async () => {
      // One store with three messages, copied: the two brokers hold the same commit log, as a
      // replicated pair does.
      const rootA = join(dir, `pair-a-${++count}`);
      const first = await startNode('master', { root: rootA });
      const c = client();
      await ok(c, first.broker.brokerAddr, createTopic('ReadTopic'));
      for (let i = 0; i < 3; i++) {
        const put = await first.broker.messageStore.putMessage(msg(i, { topic: 'ReadTopic', queueId: 0 }));
        assert.equal(put.putMessageStatus, 'PUT_OK');
      }
      await until(() => first.broker.messageStore.getMaxOffsetInQueue('ReadTopic', 0) === 3n, 'dispatched');
      await first.broker.shutdown();
      const rootB = join(dir, `pair-b-${count}`);
      cpSync(rootA, rootB, { recursive: true });

      const master = await startNode('master', { root: rootA, config: { slaveReadEnable: true } });
      const slave = await startNode('slave', {
        root: rootB,
        config: { slaveReadEnable: false, accessMessageInMemoryMaxRatio: 0 },
      });

      let r = await c.invoke(slave.broker.brokerAddr, pull(0n, true), { timeoutMs: 5000 });
      assert.equal(r.code, ResponseCode.SUCCESS, r.remark);
      assert.deepEqual(
        decodeMessages(r.body ?? Buffer.alloc(0)).map((m) => m.getProperty('idx')),
        ['0', '1', '2'],
      );
      assert.equal(suggestion(r), 0n, 'without slaveReadEnable: back to the master');
      assert.equal(
        slave.broker.consumerOffsetManager.queryOffset('ReadGroup', 'ReadTopic', 0),
        -1n,
        'a slave does not take the commit offset a pull carries',
      );

      // accessMessageInMemoryMaxRatio 0: every read is "behind", so the group's slow-consumer broker (1).
      slave.broker.config.slaveReadEnable = true;
      r = await c.invoke(slave.broker.brokerAddr, pull(0n), { timeoutMs: 5000 });
      assert.equal(r.code, ResponseCode.SUCCESS, r.remark);
      assert.equal(suggestion(r), 1n, 'slaveReadEnable, behind: whichBrokerWhenConsumeSlowly');

      // The master with the default ratio (40% of memory): not behind, so the group's brokerId (0).
      r = await c.invoke(master.broker.brokerAddr, pull(1n), { timeoutMs: 5000 });
      assert.equal(r.code, ResponseCode.SUCCESS, r.remark);
      assert.equal(suggestion(r), 0n);
      // Past the end, on the slave: nothing found, no offset correction on a slave.
      r = await c.invoke(slave.broker.brokerAddr, pull(3n), { timeoutMs: 5000 });
      assert.equal(r.code, ResponseCode.PULL_NOT_FOUND, r.remark);
    },
  );
});

describe('with HA replication', () => {
  test(
    'replicated messages are read from the slave; offsets committed to the master reach it by sync',
    LIMIT,
    async () => {
      const namesrvAddr = await startNamesrv();
      const master = await startNode('master', { namesrvAddr, config: { totalReplicas: 2 } });
      const slave = await startNode('slave', {
        namesrvAddr,
        config: { slaveReadEnable: true, accessMessageInMemoryMaxRatio: 0 },
      });
      const c = client();
      await ok(c, master.broker.brokerAddr, createTopic('ReadTopic'));
      for (let i = 0; i < 5; i++) {
        const put = await master.broker.messageStore.putMessage(msg(i, { topic: 'ReadTopic', queueId: 0 }));
        assert.equal(put.putMessageStatus, 'PUT_OK');
      }
      // The slave's HA client follows the master the registration named; replication is event driven.
      for (let i = 0; i < 500 && slave.broker.messageStore.getMaxOffsetInQueue('ReadTopic', 0) < 5n; i++) {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      assert.equal(slave.broker.messageStore.getMaxOffsetInQueue('ReadTopic', 0), 5n, 'replicated');

      const pullFrom = (addr: string, offset: bigint) =>
        c.invoke(
          addr,
          createRequest(RequestCode.PULL_MESSAGE, {
            extFields: encodeHeader(PullMessageRequestHeader, {
              consumerGroup: 'ReadGroup',
              topic: 'ReadTopic',
              queueId: 0,
              queueOffset: offset,
              maxMsgNums: 32,
              sysFlag: PullSysFlag.buildSysFlag(false, false, true, false),
              commitOffset: 0n,
              suspendTimeoutMillis: 0n,
              subscription: '*',
              subVersion: 0n,
              expressionType: 'TAG',
            }),
          }),
          { timeoutMs: 5000 },
        );
      // The slave serves the topic once its first sync round has brought it.
      let r = await pullFrom(slave.broker.brokerAddr, 2n);
      assert.equal(r.code, ResponseCode.TOPIC_NOT_EXIST, r.remark);
      await syncRound(slave, 3000);
      r = await pullFrom(slave.broker.brokerAddr, 2n);
      assert.equal(r.code, ResponseCode.SUCCESS, r.remark);
      assert.deepEqual(
        decodeMessages(r.body ?? Buffer.alloc(0)).map((m) => m.getProperty('idx')),
        ['2', '3', '4'],
      );
      assert.equal(decodeHeader(PullMessageResponseHeader, r.extFields).suggestWhichBrokerId, 1n);

      // A consumer commits to the master (as upstream's client does); the slave gets it by sync.
      await ok(c, master.broker.brokerAddr, commitOffset('ReadGroup', 'ReadTopic', 0, 5n));
      await syncRound(slave, 10_000);
      assert.equal(slave.broker.consumerOffsetManager.queryOffset('ReadGroup', 'ReadTopic', 0), 5n);
    },
  );

  test(
    'our push consumer follows the suggestion to the slave and commits its offsets to the master',
    LIMIT,
    async () => {
      const namesrvAddr = await startNamesrv();
      const ratio = { slaveReadEnable: true, accessMessageInMemoryMaxRatio: 0 };
      const master = await startNode('master', { namesrvAddr, config: { ...ratio, totalReplicas: 2 } });
      const slave = await startNode('slave', { namesrvAddr, config: ratio });
      const c = client();
      await ok(c, master.broker.brokerAddr, createTopic('E2ETopic'));
      for (let i = 0; i < 5; i++) {
        const put = await master.broker.messageStore.putMessage(msg(i, { topic: 'E2ETopic', queueId: 0 }));
        assert.equal(put.putMessageStatus, 'PUT_OK');
      }
      for (let i = 0; i < 500 && slave.broker.messageStore.getMaxOffsetInQueue('E2ETopic', 0) < 5n; i++) {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      await syncRound(slave, 3000);
      assert.ok(slave.broker.topicConfigManager.selectTopicConfig('E2ETopic'));

      const servedBy = { master: 0, slave: 0 };
      for (const [node, key] of [
        [master, 'master'],
        [slave, 'slave'],
      ] as const) {
        node.broker.remotingServer.registerRPCHook({
          doBeforeRequest: () => {},
          doAfterResponse: (_addr, request, response) => {
            if (request.code === RequestCode.PULL_MESSAGE && response?.code === ResponseCode.SUCCESS) {
              servedBy[key] += decodeMessages(response.body ?? Buffer.alloc(0)).length;
            }
          },
        });
      }
      const received = new Set<string>();
      let allReceived: () => void = () => {};
      const done = new Promise<void>((resolve) => {
        allReceived = resolve;
      });
      const consumer = createPushConsumer({
        consumerGroup: 'E2EGroup',
        namesrvAddr,
        clientIP: '127.0.0.1',
        instanceName: `e2e-${count}`,
        logger: quiet,
        // One message a pull: the first comes from the master, which points at the slave for the rest.
        pullBatchSize: 1,
        consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
      });
      consumer.subscribe('E2ETopic', '*');
      consumer.registerMessageListener({
        type: 'concurrently',
        consumeMessage: async (msgs: MessageExt[]) => {
          for (const m of msgs) received.add(m.getProperty('idx') ?? '?');
          if (received.size === 5) allReceived();
          return 'CONSUME_SUCCESS';
        },
      });
      await consumer.start();
      try {
        await done;
        // The consumer persists its offsets to the master every persistConsumerOffsetInterval (5 s).
        const deadline = Date.now() + 15_000;
        while (master.broker.consumerOffsetManager.queryOffset('E2EGroup', 'E2ETopic', 0) !== 5n) {
          assert.ok(Date.now() < deadline, 'the offset never reached the master');
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      } finally {
        await consumer.shutdown();
      }
      assert.deepEqual([...received].sort(), ['0', '1', '2', '3', '4']);
      assert.equal(servedBy.master, 1, 'the first pull, from the master');
      assert.equal(servedBy.slave, 4, 'the rest from the slave');

      // The offsets went to the master only; the slave learns them from its next sync round.
      assert.equal(master.broker.consumerOffsetManager.queryOffset('E2EGroup', 'E2ETopic', 0), 5n);
      assert.equal(slave.broker.consumerOffsetManager.queryOffset('E2EGroup', 'E2ETopic', 0), -1n);
      await syncRound(slave, 10_000);
      assert.equal(slave.broker.consumerOffsetManager.queryOffset('E2EGroup', 'E2ETopic', 0), 5n);
    },
  );
});
