/**
 * HA under faults against the official 4.9.8 broker (issue 17, part 6): our SYNC_MASTER and our slave
 * take a load; the master dies; the slave is stopped and an official broker is started as master on
 * the slave's store dir, as an operator promotes a slave. Every message acknowledged SEND_OK must be
 * served by it: by offset message id (VIEW_MESSAGE_BY_ID at the commit-log offset the send named) and
 * to a consumer pulling every queue, at the queue offset the send named. Twice: after a clean stop of
 * the slave, and after a SIGKILL of the slave (a child process) in the middle of the load. Needs
 * `node scripts/interop-prepare.mjs` first.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { type BrokerController, createBroker } from '../../src/broker/broker-controller.js';
import { type Producer, SendStatus } from '../../src/client/index.js';
import { createLogger } from '../../src/common/logger.js';
import { createOffsetMsgId } from '../../src/common/message/message-id.js';
import { DefaultMessageStore } from '../../src/store/default-message-store.js';
import {
  ChildBroker,
  commitLogOffsetOf,
  describeRecords,
  FaultScene,
  faultBody,
  pullEveryQueue,
  SenderPool,
  type SendRecord,
  sendRecord,
  tally,
  untilSlaveFollows,
} from '../integration/broker/ha-fault-support.js';
import { freeBrokerPort } from '../integration/broker/slave-support.js';
import { type BrokerHandle, startBroker } from './harness.js';

const LIMIT = { timeout: 180_000 };
const FILE_SIZE = 1024 * 1024;
const CQ_FILE_SIZE = 30_000 * 20;
const BROKER_NAME = 'broker-ha-promote';
/** How long a SYNC_MASTER may take to answer SEND_OK with the slave holding the topic. */
const FOLLOW_TIMEOUT_MS = 30_000;
const quiet = createLogger('test', { level: 'silent' });
const scene = new FaultScene('rmq-interop-ha-faults-');
const dir = scene.dir;

async function ourBroker(
  namesrvAddr: string,
  storeDir: string,
  role: 'SYNC_MASTER' | 'SLAVE',
): Promise<BrokerController> {
  const broker = createBroker({
    config: {
      listenHost: '127.0.0.1',
      brokerIP1: '127.0.0.1',
      brokerIP2: '127.0.0.1',
      brokerName: BROKER_NAME,
      listenPort: await freeBrokerPort(),
      storePathRootDir: storeDir,
      namesrvAddr,
      brokerRole: role,
      brokerId: role === 'SLAVE' ? 1 : 0,
      // Upstream's unsigned HA wire, which the official broker promoted on this store speaks.
      haAuthMode: 'plain',
      autoCreateTopicEnable: true,
      mappedFileSizeCommitLog: FILE_SIZE,
      mappedFileSizeConsumeQueue: CQ_FILE_SIZE,
    },
    logger: quiet,
  });
  await broker.start();
  return broker;
}

interface Acked {
  record: SendRecord;
  /** The body sent. */
  body: Buffer;
}

function startProducer(namesrvAddr: string, name: string): Promise<Producer> {
  return scene.producer(namesrvAddr, `ha-promote-${name}`);
}

/** A dozen SEND_OK bodies above one 32 KiB HA frame. */
async function largeMessages(producer: Producer, topic: string): Promise<Acked[]> {
  const out: Acked[] = [];
  for (let i = 0; i < 12; i++) {
    const body = randomBytes(40 * 1024);
    const startedAt = Date.now();
    const r = await producer.send({ topic, body });
    assert.equal(r.sendStatus, SendStatus.SEND_OK, `large message ${i}`);
    out.push({ body, record: sendRecord(-1000 - i, startedAt, r) });
  }
  return out;
}

function acked(pool: SenderPool): Acked[] {
  return pool.records
    .filter((r) => r.status === SendStatus.SEND_OK)
    .map((record) => ({ record, body: faultBody(record.index, 200) }));
}

/** The official 4.9.8 broker as master (id 0) on `storeDir`, registered with our name server. */
async function promoteOfficial(namesrvAddr: string, storeDir: string): Promise<BrokerHandle> {
  const official = await startBroker({
    namesrvAddr,
    brokerName: BROKER_NAME,
    storeDir,
    config: {
      brokerRole: 'ASYNC_MASTER',
      brokerId: 0,
      mappedFileSizeCommitLog: FILE_SIZE,
      mappedFileSizeConsumeQueue: CQ_FILE_SIZE,
    },
  });
  scene.onClose(() => official.close());
  return official;
}

/**
 * Every acknowledged message is served by `official`: by offset message id at the commit-log offset
 * its send named, and to a consumer pulling every queue from 0, at the queue offset its send named.
 */
async function assertServed(
  official: BrokerHandle,
  namesrvAddr: string,
  producer: Producer,
  topic: string,
  messages: readonly Acked[],
): Promise<string> {
  const [host, port] = official.addr.split(':') as [string, string];
  const storeHost = { address: host, port: Number(port) };
  const byId: string[] = [];
  for (const { record: r, body } of messages) {
    const id = createOffsetMsgId(storeHost, commitLogOffsetOf(r));
    try {
      const msg = await producer.viewMessage(id, { timeoutMs: 10_000 });
      if (msg.msgId !== r.msgId || !Buffer.from(msg.body).equals(body))
        byId.push(`#${r.index}: other message ${msg.msgId} at ${id}`);
    } catch (error) {
      byId.push(`#${r.index} (${r.msgId}, ${id}): ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  assert.deepEqual(
    byId.slice(0, 20),
    [],
    `${byId.length} of ${messages.length} SEND_OK messages not served by offset id by the official broker`,
  );

  const { messages: pulled } = await pullEveryQueue(namesrvAddr, 'ha-promote-cg', topic);
  const seen = new Map(pulled.map((m) => [m.msgId, `${m.queueId}:${m.queueOffset}`]));
  const missing = messages
    .map((m) => m.record)
    .filter((r) => r.msgId === undefined || seen.get(r.msgId) !== `${r.queueId}:${r.queueOffset}`);
  assert.equal(
    missing.length,
    0,
    `SEND_OK messages the official broker does not serve at their queue offset: ${describeRecords(missing)}`,
  );
  return `${messages.length} SEND_OK messages served by the official broker (${seen.size} in the topic)`;
}

describe('official broker promoted on our slave store', () => {
  test(
    'after a clean stop: serves every SEND_OK message by offset id and to a consumer',
    LIMIT,
    async (t) => {
      const namesrvAddr = await scene.namesrv('ns-clean');
      const slaveDir = join(dir, 'clean-slave');
      const master = await ourBroker(namesrvAddr, join(dir, 'clean-master'), 'SYNC_MASTER');
      let masterUp = true;
      scene.onClose(async () => {
        if (masterUp) await master.shutdown();
      });
      const slave = await ourBroker(namesrvAddr, slaveDir, 'SLAVE');
      let slaveUp = true;
      scene.onClose(async () => {
        if (slaveUp) await slave.shutdown();
      });
      assert.ok(master.messageStore instanceof DefaultMessageStore);
      const masterStore = master.messageStore;
      const topic = 'HaPromoted';
      const producer = await startProducer(namesrvAddr, 'clean');
      await untilSlaveFollows(
        producer,
        topic,
        () => slave.topicConfigManager.selectTopicConfig(topic) !== undefined,
        FOLLOW_TIMEOUT_MS,
      );

      // Small messages from 16 senders, enough to roll the 1 MiB commit-log file, and bodies above one
      // 32 KiB HA frame.
      const pool = new SenderPool(producer, topic, 16);
      const big = await largeMessages(producer, topic);
      while (masterStore.getMaxPhyOffset() < BigInt(FILE_SIZE + FILE_SIZE / 2))
        await new Promise((resolve) => setTimeout(resolve, 20));
      await pool.stop();
      // Only SEND_OK promises anything; other answers (a starved machine) are not checked.
      assert.ok(acked(pool).length >= 100, `SEND_OKs with the slave following (${tally(pool.records)})`);

      // The master dies, the slave stops; an official broker takes the slave's store as master.
      masterUp = false;
      await master.shutdown();
      slaveUp = false;
      await slave.shutdown();
      const official = await promoteOfficial(namesrvAddr, slaveDir);
      t.diagnostic(await assertServed(official, namesrvAddr, producer, topic, [...acked(pool), ...big]));
    },
  );

  test('after the slave is SIGKILLed under load: serves every SEND_OK message', LIMIT, async (t) => {
    const namesrvAddr = await scene.namesrv('ns-kill');
    const slaveDir = join(dir, 'kill-slave');
    const master = await ourBroker(namesrvAddr, join(dir, 'kill-master'), 'SYNC_MASTER');
    let masterUp = true;
    scene.onClose(async () => {
      if (masterUp) await master.shutdown();
    });
    const slave = await ChildBroker.start({
      namesrvAddr,
      storeDir: slaveDir,
      config: {
        brokerName: BROKER_NAME,
        listenPort: await freeBrokerPort(),
        brokerRole: 'SLAVE',
        brokerId: 1,
        haAuthMode: 'plain',
        mappedFileSizeCommitLog: FILE_SIZE,
        mappedFileSizeConsumeQueue: CQ_FILE_SIZE,
      },
    });
    scene.onClose(() => slave.stop());
    assert.ok(master.messageStore instanceof DefaultMessageStore);
    const masterStore = master.messageStore;
    const topic = 'HaPromotedAfterCrash';
    const producer = await startProducer(namesrvAddr, 'kill');
    const topicsFile = join(slaveDir, 'config', 'topics.json');
    await untilSlaveFollows(
      producer,
      topic,
      () => existsSync(topicsFile) && readFileSync(topicsFile, 'utf8').includes(`"${topic}"`),
      FOLLOW_TIMEOUT_MS,
    );
    const big = await largeMessages(producer, topic);
    const pool = new SenderPool(producer, topic, 16);
    while (masterStore.getMaxPhyOffset() < BigInt(FILE_SIZE + FILE_SIZE / 2))
      await new Promise((resolve) => setTimeout(resolve, 20));
    // Killed mid-stream: sends in flight are not acknowledged; every one that was must survive.
    slave.signal('SIGKILL');
    await slave.exited();
    await pool.stop();
    const ok = acked(pool);
    assert.ok(ok.length >= 100, `SEND_OKs before the kill (${tally(pool.records)})`);
    masterUp = false;
    await master.shutdown();
    const official = await promoteOfficial(namesrvAddr, slaveDir);
    t.diagnostic(
      `${tally(pool.records)}; ${await assertServed(official, namesrvAddr, producer, topic, [...ok, ...big])}`,
    );
  });
});
