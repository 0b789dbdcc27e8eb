/**
 * The slave role against the official 4.9.8 broker (name server ours): an official master with two
 * slaves, ours (brokerId 1, on a ManualClock) and the official one (brokerId 2) as the reference.
 * Our slave's first sync round (3 s after start) copies the official master's topics, groups,
 * consumer offsets and delay offsets; the official slave does the same on its own schedule without a
 * "Sync... Exception" in its log; and each refused request gets the same code and remark from both
 * slaves. Needs `node scripts/interop-prepare.mjs` first.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type BrokerController, createBroker } from '../../src/broker/broker-controller.js';
import { ManualClock } from '../../src/common/clock.js';
import { createLogger, type LogRecord } from '../../src/common/logger.js';
import { decodeConsumerOffsetTable } from '../../src/common/protocol/consumer-offset-wrapper.js';
import { decodeTopicConfigSerializeWrapper } from '../../src/common/protocol/register-broker-body.js';
import { decodeSubscriptionGroupWrapper } from '../../src/common/protocol/subscription-group-config.js';
import type { NamesrvController } from '../../src/namesrv/namesrv-controller.js';
import { createRequest, type RemotingCommand } from '../../src/remoting/protocol/command.js';
import { RequestCode } from '../../src/remoting/protocol/request-code.js';
import { ResponseCode } from '../../src/remoting/protocol/response-code.js';
import { RemotingClient } from '../../src/remoting/transport/index.js';
import { delayOffsetStorePath } from '../../src/store/schedule/delay-offset-table.js';
import {
  commitOffset,
  createGroup,
  createTopic,
  freeBrokerPort,
  slaveRefusals,
  startLoopbackNamesrv,
} from '../integration/broker/slave-support.js';
import { msg } from '../unit/store/default-message-store-support.js';
import { assertSameRefusal } from './ha-pair-support.js';
import { type BrokerHandle, startBroker } from './harness.js';

const TOPIC = 'InteropSlaveTopic';
const GROUP = 'InteropSlaveGroup';
const BROKER_NAME = 'broker-ha';
/** Upstream's first round comes 3 s after start, then every 10 s: within ~13 s of the official slave's start. */
const OFFICIAL_SYNC_DEADLINE_MS = 30_000;

const quiet = createLogger('test', { level: 'silent' });
const records: LogRecord[] = [];
const dir = mkdtempSync(join(tmpdir(), 'rmq-interop-slave-'));
let namesrv: NamesrvController | undefined;
let namesrvAddr = '';
let master: BrokerHandle | undefined;
let officialSlave: BrokerHandle | undefined;
let ours: BrokerController | undefined;
const clock = new ManualClock();
const client = new RemotingClient({ clientChannelMaxIdleTimeSeconds: 0 }, { logger: quiet });
let failed = false;

async function call(addr: string, request: RemotingCommand): Promise<RemotingCommand> {
  return client.invoke(addr, request, { timeoutMs: 10_000 });
}

async function ok(addr: string, request: RemotingCommand): Promise<RemotingCommand> {
  const response = await call(addr, request);
  assert.equal(response.code, ResponseCode.SUCCESS, response.remark);
  return response;
}

async function step(fn: () => Promise<void>): Promise<void> {
  try {
    await fn();
  } catch (e) {
    failed = true;
    throw e;
  }
}

const officialLog = (h: BrokerHandle) => {
  // The harness's logback file for 4.9.x: everything at INFO in <home>/logs/broker.log.
  const file = join(h.homeDir, 'logs', 'broker.log');
  return existsSync(file) ? readFileSync(file, 'utf8') : '';
};

/** A broker's topics, groups and offsets as its GET_ALL_* answers carry them. */
async function metadataOf(addr: string) {
  const defaults = { timestamp: 0n };
  const topics = decodeTopicConfigSerializeWrapper(
    (await ok(addr, createRequest(RequestCode.GET_ALL_TOPIC_CONFIG))).body,
    defaults,
  );
  const groups = decodeSubscriptionGroupWrapper(
    (await ok(addr, createRequest(RequestCode.GET_ALL_SUBSCRIPTIONGROUP_CONFIG))).body ?? Buffer.alloc(0),
    defaults,
  );
  const offsets = decodeConsumerOffsetTable(
    (await ok(addr, createRequest(RequestCode.GET_ALL_CONSUMER_OFFSET))).body ?? Buffer.alloc(0),
  );
  return { topics, groups, offsets };
}

const sorted = <V>(m: ReadonlyMap<string, V>) => [...m].sort((a, b) => (a[0] < b[0] ? -1 : 1));

after(async () => {
  await client.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('slave role against the official 4.9.8 broker', { timeout: 300_000 }, () => {
  before(
    async () => {
      ({ namesrv, addr: namesrvAddr } = await startLoopbackNamesrv(dir));
      master = await startBroker({ namesrvAddr, brokerName: BROKER_NAME });
      await ok(master.addr, createTopic(TOPIC));
      await ok(master.addr, createGroup(GROUP, { retryMaxTimes: 5 }));
      for (const [queueId, offset] of [
        [0, 11n],
        [3, 42n],
      ] as const) {
        await ok(master.addr, commitOffset(GROUP, TOPIC, queueId, offset));
      }
      officialSlave = await startBroker({
        namesrvAddr,
        brokerName: BROKER_NAME,
        config: { brokerRole: 'SLAVE', brokerId: 2 },
      });
      ours = createBroker({
        config: {
          storePathRootDir: join(dir, 'our-slave'),
          listenPort: await freeBrokerPort(),
          listenHost: '127.0.0.1',
          brokerIP1: '127.0.0.1',
          brokerIP2: '127.0.0.1',
          brokerName: BROKER_NAME,
          brokerId: 1,
          brokerRole: 'SLAVE',
          // The official master speaks upstream's unsigned HA wire.
          haAuthMode: 'plain',
          namesrvAddr,
          mappedFileSizeCommitLog: 16 * 1024 * 1024,
        },
        clock,
        logger: createLogger('slave', { level: 'info', sink: (r) => records.push(r) }),
      });
      await ours.start();
    },
    { timeout: 240_000 },
  );

  after(
    async () => {
      if (failed) {
        for (const h of [master, officialSlave])
          if (h !== undefined) process.stderr.write(`${h.logTail(60)}\n`);
      }
      await ours?.shutdown();
      await officialSlave?.close();
      await master?.close();
      await namesrv?.shutdown();
    },
    { timeout: 60_000 },
  );

  test('our slave copies the official master on its first round, 3 s after start', async () => {
    await step(async () => {
      const b = ours as BrokerController;
      const m = master as BrokerHandle;
      assert.equal(b.masterAddr, m.addr, 'learnt from registration');
      clock.advance(2999);
      assert.equal(b.topicConfigManager.selectTopicConfig(TOPIC), undefined);
      clock.advance(1);
      await b.slaveSynchronize.whenIdle();
      assert.deepEqual(
        records.filter((r) => /Exception/.test(r.msg)).map((r) => `${r.msg} ${JSON.stringify(r.fields)}`),
        [],
      );

      const official = await metadataOf(m.addr);
      assert.deepEqual(
        sorted(b.topicConfigManager.topicConfigTable),
        sorted(official.topics.topicConfigTable),
      );
      assert.deepEqual(b.topicConfigManager.dataVersion, official.topics.dataVersion);
      assert.deepEqual(
        sorted(b.subscriptionGroupManager.subscriptionGroupTable),
        sorted(official.groups.subscriptionGroupTable),
      );
      assert.deepEqual(b.subscriptionGroupManager.dataVersion, official.groups.dataVersion);
      assert.deepEqual(
        b.consumerOffsetManager.queryOffsets(GROUP, TOPIC),
        official.offsets.get(`${TOPIC}@${GROUP}`),
      );
      assert.equal(b.consumerOffsetManager.queryOffset(GROUP, TOPIC, 3), 42n);

      // The files: what our slave wrote reads back as the official master's tables.
      await b.topicConfigManager.flushed();
      await b.subscriptionGroupManager.flushed();
      const root = b.config.storePathRootDir;
      const topicsFile = decodeTopicConfigSerializeWrapper(
        readFileSync(join(root, 'config', 'topics.json')),
        { timestamp: 0n },
      );
      assert.deepEqual(sorted(topicsFile.topicConfigTable), sorted(official.topics.topicConfigTable));
      const groupsFile = decodeSubscriptionGroupWrapper(
        readFileSync(join(root, 'config', 'subscriptionGroup.json')),
        {
          timestamp: 0n,
        },
      );
      assert.deepEqual(
        sorted(groupsFile.subscriptionGroupTable),
        sorted(official.groups.subscriptionGroupTable),
      );
      const offsetsFile = decodeConsumerOffsetTable(
        readFileSync(join(root, 'config', 'consumerOffset.json')),
      );
      assert.deepEqual(offsetsFile.get(`${TOPIC}@${GROUP}`), official.offsets.get(`${TOPIC}@${GROUP}`));
      const delay = (await ok(m.addr, createRequest(RequestCode.GET_ALL_DELAY_OFFSET))).body?.toString(
        'utf8',
      );
      assert.equal(readFileSync(delayOffsetStorePath(root), 'utf8'), delay, 'the master text, as received');
    });
  });

  test('the official slave syncs from the same master without a Sync... Exception', async () => {
    await step(async () => {
      const s = officialSlave as BrokerHandle;
      const deadline = Date.now() + OFFICIAL_SYNC_DEADLINE_MS;
      for (;;) {
        const { topics } = await metadataOf(s.addr);
        if (topics.topicConfigTable.has(TOPIC)) break;
        assert.ok(Date.now() < deadline, 'the official slave never got the topic');
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
      // Its own line for the topics it took: the log read is the one the sync writes to.
      assert.match(officialLog(s), /Update slave topic config from master/);
      assert.doesNotMatch(officialLog(s), /Sync\w* Exception/);
      const official = await metadataOf(s.addr);
      const b = ours as BrokerController;
      assert.deepEqual(
        sorted(b.topicConfigManager.topicConfigTable),
        sorted(official.topics.topicConfigTable),
      );
    });
  });

  test('each refused request gets the official slave answer, frame by frame', async () => {
    await step(async () => {
      const theirs = (officialSlave as BrokerHandle).addr;
      const mine = (ours as BrokerController).brokerAddr;
      for (const refusal of slaveRefusals(TOPIC, GROUP)) {
        const official = await call(theirs, refusal.request());
        assertSameRefusal(refusal, official, await call(mine, refusal.request()));
      }
    });
  });
});

describe('the official 4.9.8 slave of our master', { timeout: 300_000 }, () => {
  const OUR_BROKER = 'broker-ours';
  let ns: NamesrvController | undefined;
  let ourMaster: BrokerController | undefined;
  let theirSlave: BrokerHandle | undefined;
  let broken = false;

  before(
    async () => {
      const started = await startLoopbackNamesrv(join(dir, 'ns-2'));
      ns = started.namesrv;
      const nsAddr = started.addr;
      ourMaster = createBroker({
        config: {
          storePathRootDir: join(dir, 'our-master'),
          listenPort: await freeBrokerPort(),
          listenHost: '127.0.0.1',
          brokerIP1: '127.0.0.1',
          brokerIP2: '127.0.0.1',
          brokerName: OUR_BROKER,
          namesrvAddr: nsAddr,
          // An ASYNC_MASTER expecting the official slave, which speaks upstream's unsigned HA wire.
          totalReplicas: 2,
          haAuthMode: 'plain',
          mappedFileSizeCommitLog: 16 * 1024 * 1024,
        },
        logger: quiet,
      });
      await ourMaster.start();
      const m = ourMaster.brokerAddr;
      await ok(m, createTopic(TOPIC));
      await ok(m, createGroup(GROUP, { retryMaxTimes: 5 }));
      await ok(m, commitOffset(GROUP, TOPIC, 2, 17n));
      // A delayed message delivered (level 1, real time) gives the delay offset table an entry.
      const put = await ourMaster.messageStore.putMessage(msg(0, { topic: TOPIC, extra: { DELAY: '1' } }));
      assert.equal(put.putMessageStatus, 'PUT_OK');
      const schedule = ourMaster.scheduleMessageService;
      const delivered = Date.now() + 20_000;
      while (schedule?.offsets().get(1) !== 1n) {
        assert.ok(Date.now() < delivered, 'the delayed message was never delivered');
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      theirSlave = await startBroker({
        namesrvAddr: nsAddr,
        brokerName: OUR_BROKER,
        config: { brokerRole: 'SLAVE', brokerId: 1 },
      });
    },
    { timeout: 240_000 },
  );

  after(
    async () => {
      if (broken && theirSlave !== undefined) process.stderr.write(`${theirSlave.logTail(80)}\n`);
      await theirSlave?.close();
      await ourMaster?.shutdown();
      await ns?.shutdown();
    },
    { timeout: 60_000 },
  );

  test('copies our topics, groups, consumer and delay offsets without a Sync... Exception', async () => {
    try {
      const s = theirSlave as BrokerHandle;
      const m = ourMaster as BrokerController;
      const deadline = Date.now() + OFFICIAL_SYNC_DEADLINE_MS;
      for (;;) {
        const { topics, offsets } = await metadataOf(s.addr);
        if (topics.topicConfigTable.has(TOPIC) && offsets.has(`${TOPIC}@${GROUP}`)) break;
        assert.ok(Date.now() < deadline, 'the official slave never synced');
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
      // Its own line for the topics it took: the log read is the one the sync writes to.
      assert.match(officialLog(s), /Update slave topic config from master/);
      assert.doesNotMatch(officialLog(s), /Sync\w* Exception/);
      const theirs = await metadataOf(s.addr);
      assert.deepEqual(sorted(theirs.topics.topicConfigTable), sorted(m.topicConfigManager.topicConfigTable));
      assert.deepEqual(theirs.topics.dataVersion, m.topicConfigManager.dataVersion);
      assert.deepEqual(
        sorted(theirs.groups.subscriptionGroupTable),
        sorted(m.subscriptionGroupManager.subscriptionGroupTable),
      );
      assert.deepEqual(theirs.groups.dataVersion, m.subscriptionGroupManager.dataVersion);
      assert.deepEqual(theirs.offsets.get(`${TOPIC}@${GROUP}`), new Map([[2, 17n]]));
      // GET_ALL_DELAY_OFFSET, new on our broker: the official slave writes our text as its file.
      const delay = (await ok(m.brokerAddr, createRequest(RequestCode.GET_ALL_DELAY_OFFSET))).body?.toString(
        'utf8',
      );
      assert.equal(delay, '{"offsetTable":{1:1}}');
      assert.equal(readFileSync(delayOffsetStorePath(s.storeDir), 'utf8'), delay);
    } catch (e) {
      broken = true;
      throw e;
    }
  });
});

// The official push consumer reading from a slave, its offsets reaching the master: every pairing of
// ha-replication.test.ts.
