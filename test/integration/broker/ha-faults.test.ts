/**
 * HA under faults, our brokers only (issue 17, part 6), with the broker that dies in a child process:
 * - a SYNC_MASTER SIGKILLed under 64 concurrent senders: every SEND_OK is on the slave at the
 *   commit-log offset its offsetMsgId names, and a consumer reading from the slave gets all of them;
 * - a slave SIGKILLed, then SIGSTOPped, under load: the master answers as upstream 4.9.8 does
 *   (CommitLog.submitReplicaRequest with HAService.isSlaveOK: SLAVE_NOT_AVAILABLE once no slave is
 *   connected, FLUSH_SLAVE_TIMEOUT while a connected slave does not acknowledge), stores every
 *   message, and the slave catches up on its return to a byte-identical commit log.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import type { BrokerConfigOverrides } from '../../../src/broker/broker-config.js';
import { type BrokerController, createBroker } from '../../../src/broker/broker-controller.js';
import { SendStatus } from '../../../src/client/index.js';
import { MessageConst } from '../../../src/common/message/message-const.js';
import { quiet } from '../../unit/broker/helpers.js';
import {
  ChildBroker,
  commitLogFileBytes,
  commitLogOffsetOf,
  describeRecords,
  FaultScene,
  faultBody,
  firstCommitLogFile,
  firstDifference,
  pullEveryQueue,
  SenderPool,
  type SendRecord,
  tally,
  untilSlaveFollows,
} from './ha-fault-support.js';
import { HA_BROKER_DEFAULTS, HA_FILE_SIZE, storeOf, waitFor } from './ha-support.js';
import { freeBrokerPort } from './slave-support.js';

const LIMIT = { timeout: 90_000 };
const CQ_FILE_SIZE = 60_000;
const BROKER_NAME = 'broker-ha-faults';
const scene = new FaultScene('rmq-ha-faults-');
const dir = scene.dir;

async function inProcessBroker(config: BrokerConfigOverrides): Promise<BrokerController> {
  const broker = createBroker({
    config: {
      ...HA_BROKER_DEFAULTS,
      brokerName: BROKER_NAME,
      mappedFileSizeConsumeQueue: CQ_FILE_SIZE,
      listenPort: await freeBrokerPort(),
      ...config,
    },
    logger: quiet,
  });
  await broker.start();
  scene.onClose(() => broker.shutdown());
  return broker;
}

async function childBroker(
  namesrvAddr: string,
  storeDir: string,
  config: Record<string, string | number | boolean>,
): Promise<ChildBroker> {
  const broker = await ChildBroker.start({
    namesrvAddr,
    storeDir,
    config: {
      brokerName: BROKER_NAME,
      listenPort: await freeBrokerPort(),
      mappedFileSizeCommitLog: HA_FILE_SIZE,
      mappedFileSizeConsumeQueue: CQ_FILE_SIZE,
      autoCreateTopicEnable: true,
      ...config,
    },
  });
  scene.onClose(() => broker.stop());
  return broker;
}

function producer(namesrvAddr: string, name: string) {
  return scene.producer(namesrvAddr, `ha-faults-${name}`, 5000);
}

describe('SYNC_MASTER killed under load', () => {
  test('every SEND_OK is on the slave by its offsetMsgId and consumed from it', LIMIT, async (t) => {
    const SENDERS = 64;
    /** The master is killed after this many SEND_OKs (or the deadline below). */
    const KILL_AFTER_SEND_OK = 1500;
    const LOAD_DEADLINE_MS = 8000;
    const namesrvAddr = await scene.namesrv('ns-a');
    const master = await childBroker(namesrvAddr, join(dir, 'a-master'), {
      brokerRole: 'SYNC_MASTER',
      brokerId: 0,
    });
    const slave = await inProcessBroker({
      storePathRootDir: join(dir, 'a-slave'),
      namesrvAddr,
      brokerRole: 'SLAVE',
      brokerId: 1,
    });
    const slaveStore = storeOf(slave);
    const topic = 'HaFaultKillMaster';
    const p = await producer(namesrvAddr, 'a');
    await untilSlaveFollows(
      p,
      topic,
      () => slave.topicConfigManager.selectTopicConfig(topic) !== undefined,
      20_000,
    );

    const pool = new SenderPool(p, topic, SENDERS);
    const loadStarted = Date.now();
    await waitFor(
      () =>
        pool.count(SendStatus.SEND_OK) >= KILL_AFTER_SEND_OK || Date.now() - loadStarted > LOAD_DEADLINE_MS,
      'load running',
      LOAD_DEADLINE_MS + 5000,
    );
    master.signal('SIGKILL');
    await master.exited();
    await pool.stop();

    const ok = pool.records.filter((r) => r.status === SendStatus.SEND_OK);
    // Only SEND_OK promises anything; other answers (FLUSH_SLAVE_TIMEOUT on a starved machine) do not.
    assert.ok(ok.length >= 100, `enough SEND_OKs before the kill (${tally(pool.records)})`);

    // Found on the slave at the offset the master named, with the body that was sent.
    const lost: SendRecord[] = [];
    const wrong: string[] = [];
    for (const r of ok) {
      const msg = slaveStore.lookMessageByOffset(commitLogOffsetOf(r));
      if (msg === undefined) {
        lost.push(r);
        continue;
      }
      const expected = faultBody(r.index, 200);
      if (msg.topic !== topic || !Buffer.from(msg.body).equals(expected))
        wrong.push(
          `#${r.index}: topic ${msg.topic}, body ${Buffer.from(msg.body).subarray(0, 12).toString()}`,
        );
      else if (msg.getProperty(MessageConst.PROPERTY_UNIQ_CLIENT_MESSAGE_ID_KEYIDX) !== r.msgId)
        wrong.push(
          `#${r.index}: msgId ${msg.getProperty(MessageConst.PROPERTY_UNIQ_CLIENT_MESSAGE_ID_KEYIDX)}`,
        );
    }
    assert.equal(
      lost.length,
      0,
      `SEND_OK messages missing on the slave (of ${ok.length}): ${describeRecords(lost)}`,
    );
    assert.deepEqual(wrong, [], 'the slave holds other messages at the offsets the master named');

    // Consumed from the slave: the master is gone from the route, the consumer reads from brokerId 1.
    await waitFor(() => slaveStore.dispatchBehindBytes() === 0n, 'slave dispatched every record');
    const { queues, messages } = await pullEveryQueue(namesrvAddr, 'ha-faults-cg', topic);
    assert.ok(queues > 0, 'the slave serves the topic route');
    const consumed = new Set(messages.map((m) => m.msgId));
    const notConsumed = ok.filter((r) => r.msgId === undefined || !consumed.has(r.msgId));
    assert.equal(
      notConsumed.length,
      0,
      `SEND_OK messages a consumer could not read from the slave (of ${ok.length}): ${describeRecords(notConsumed)}`,
    );
    t.diagnostic(
      `${SENDERS} senders, master killed: ${tally(pool.records)}; ${consumed.size} consumed from the slave`,
    );
  });
});

interface SlavePair {
  master: BrokerController;
  slave: ChildBroker;
  pool: SenderPool;
  topic: string;
}

/** An in-process SYNC_MASTER, a child slave, and senders at work, every send SEND_OK. */
async function slavePairUnderLoad(name: string, master: BrokerConfigOverrides): Promise<SlavePair> {
  const namesrvAddr = await scene.namesrv(`ns-${name}`);
  const m = await inProcessBroker({
    storePathRootDir: join(dir, `${name}-master`),
    namesrvAddr,
    brokerRole: 'SYNC_MASTER',
    autoCreateTopicEnable: true,
    ...master,
  });
  const slave = await childBroker(namesrvAddr, join(dir, `${name}-slave`), {
    brokerRole: 'SLAVE',
    brokerId: 1,
  });
  const store = storeOf(m);
  await waitFor(() => store.haService.isSlaveOK(Number(store.getMaxPhyOffset())), 'slave connected', 20_000);
  const topic = `HaFaultSlave${name}`;
  const pool = new SenderPool(await producer(namesrvAddr, name), topic, 16);
  await waitFor(() => pool.count(SendStatus.SEND_OK) >= 200, `SEND_OKs (${tally(pool.records)})`, 20_000);
  return { master: m, slave, pool, topic };
}

/** Every answered message is on the master at its offset with its body; no send failed outright. */
function assertAllStoredOnMaster(pair: SlavePair): void {
  const store = storeOf(pair.master);
  const failed = pair.pool.records.filter((r) => r.error !== undefined);
  assert.deepEqual(
    failed.map((r) => `#${r.index}: ${r.error}`).slice(0, 10),
    [],
    `sends that failed outright (${tally(pair.pool.records)})`,
  );
  const lost = pair.pool.records.filter((r) => {
    const msg = store.lookMessageByOffset(commitLogOffsetOf(r));
    return msg === undefined || !Buffer.from(msg.body).equals(faultBody(r.index, 200));
  });
  assert.equal(lost.length, 0, `answered messages not stored on the master: ${describeRecords(lost)}`);
}

/** The slave stops cleanly; its commit-log files hold the master's bytes over the slave's range. */
async function assertSlaveIdentical(pair: SlavePair): Promise<string> {
  const store = storeOf(pair.master);
  const end = Number(store.getMaxPhyOffset());
  await waitFor(
    () => store.haService.push2SlaveMaxOffset === end,
    `slave acknowledges the master's end ${end} (at ${store.haService.push2SlaveMaxOffset})`,
    30_000,
  );
  await pair.slave.stop();
  const from = firstCommitLogFile(pair.slave.options.storeDir);
  const theirs = commitLogFileBytes(pair.slave.options.storeDir, HA_FILE_SIZE, from, end);
  const ours: Buffer[] = [];
  for (let at = from; at < end; ) {
    const data = store.getCommitLogData(at, end - at);
    assert.ok(data !== undefined && data.length > 0, `master's commit log readable at ${at}`);
    ours.push(Buffer.from(data));
    at += data.length;
  }
  const diff = firstDifference(theirs, Buffer.concat(ours));
  assert.equal(
    diff,
    -1,
    `slave's commit log differs from the master's at offset ${from + diff} (range ${from}..${end})`,
  );
  return `commit logs identical over ${from}..${end}`;
}

describe('slave faults under SYNC_MASTER load', () => {
  test(
    'SIGKILL: SLAVE_NOT_AVAILABLE while gone, nothing lost, byte-identical after restart',
    LIMIT,
    async (t) => {
      const pair = await slavePairUnderLoad('kill', {});
      const store = storeOf(pair.master);
      pair.slave.signal('SIGKILL');
      await pair.slave.exited();
      // The kernel closes the dead slave's socket; the master drops the connection at once.
      await waitFor(() => store.haService.connectionCount === 0, 'master drops the dead slave', 10_000);
      const gone = Date.now();
      await waitFor(
        () => pair.pool.records.filter((r) => r.startedAt > gone).length >= 100,
        `sends after the slave died (${tally(pair.pool.records)})`,
        20_000,
      );
      const whileGone = pair.pool.records.filter((r) => r.startedAt > gone);
      assert.deepEqual(
        [...new Set(whileGone.map((r) => r.status ?? r.error))],
        [SendStatus.SLAVE_NOT_AVAILABLE],
        `with no slave connected every send answers SLAVE_NOT_AVAILABLE (${tally(whileGone)})`,
      );
      assert.ok(
        whileGone.every((r) => r.endedAt - r.startedAt < store.config.slaveTimeout),
        'SLAVE_NOT_AVAILABLE is answered at once, not after slaveTimeout',
      );

      pair.slave = await pair.slave.restart();
      scene.onClose(() => pair.slave.stop());
      const back = Date.now();
      await waitFor(
        () => pair.pool.count(SendStatus.SEND_OK, back) >= 50,
        `SEND_OK again once the slave is back (${tally(pair.pool.records.filter((r) => r.startedAt > back))})`,
        30_000,
      );
      await pair.pool.stop();
      assertAllStoredOnMaster(pair);
      t.diagnostic(`${tally(pair.pool.records)}; ${await assertSlaveIdentical(pair)}`);
    },
  );

  test(
    'SIGSTOP: FLUSH_SLAVE_TIMEOUT, then SLAVE_NOT_AVAILABLE once dropped; catch-up on SIGCONT',
    LIMIT,
    async (t) => {
      const SLAVE_TIMEOUT = 1000;
      const HOUSEKEEPING = 3000;
      const pair = await slavePairUnderLoad('stop', {
        slaveTimeout: SLAVE_TIMEOUT,
        haHousekeepingInterval: HOUSEKEEPING,
      });
      const store = storeOf(pair.master);
      pair.slave.signal('SIGSTOP');
      const stoppedAt = Date.now();
      // Connected but silent: the master waits slaveTimeout for an acknowledgement that never comes.
      await waitFor(
        () => pair.pool.count(SendStatus.FLUSH_SLAVE_TIMEOUT, stoppedAt) >= 16,
        `FLUSH_SLAVE_TIMEOUT while the slave is stopped (${tally(pair.pool.records)})`,
        HOUSEKEEPING + 5000,
      );
      // After haHousekeepingInterval without a report the master drops the connection.
      await waitFor(() => store.haService.connectionCount === 0, 'master drops the silent slave', 20_000);
      const dropped = Date.now();
      await waitFor(
        () => pair.pool.records.filter((r) => r.startedAt > dropped).length >= 50,
        'sends after the drop',
        20_000,
      );
      const whileStopped = pair.pool.records.filter((r) => r.startedAt > stoppedAt);
      const okWhileStopped = whileStopped.filter((r) => r.status === SendStatus.SEND_OK);
      assert.equal(
        okWhileStopped.length,
        0,
        `SEND_OK from a stopped slave: ${describeRecords(okWhileStopped)}`,
      );
      const timedOut = whileStopped.filter((r) => r.status === SendStatus.FLUSH_SLAVE_TIMEOUT);
      assert.ok(
        timedOut.every((r) => r.endedAt - r.startedAt >= SLAVE_TIMEOUT - 50),
        'FLUSH_SLAVE_TIMEOUT only after slaveTimeout',
      );
      const afterDrop = pair.pool.records.filter((r) => r.startedAt > dropped);
      assert.deepEqual(
        [...new Set(afterDrop.map((r) => r.status ?? r.error))],
        [SendStatus.SLAVE_NOT_AVAILABLE],
        `once the silent slave is dropped, SLAVE_NOT_AVAILABLE (${tally(afterDrop)})`,
      );

      pair.slave.signal('SIGCONT');
      const resumed = Date.now();
      await waitFor(
        () => pair.pool.count(SendStatus.SEND_OK, resumed) >= 50,
        `SEND_OK again after SIGCONT (${tally(pair.pool.records.filter((r) => r.startedAt > resumed))})`,
        30_000,
      );
      await pair.pool.stop();
      assertAllStoredOnMaster(pair);
      t.diagnostic(`${tally(pair.pool.records)}; ${await assertSlaveIdentical(pair)}`);
    },
  );
});
