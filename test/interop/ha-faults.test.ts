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
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { type BrokerController, createBroker } from '../../src/broker/broker-controller.js';
import {
  createProducer,
  createPullConsumer,
  type Producer,
  PullStatus,
  SendStatus,
} from '../../src/client/index.js';
import { createLogger } from '../../src/common/logger.js';
import { createOffsetMsgId } from '../../src/common/message/message-id.js';
import { createNamesrv } from '../../src/namesrv/namesrv-controller.js';
import { DefaultMessageStore } from '../../src/store/default-message-store.js';
import {
  ChildBroker,
  commitLogOffsetOf,
  faultBody,
  SenderPool,
  type SendRecord,
  tally,
} from '../integration/broker/ha-fault-support.js';
import { freeBrokerPort } from '../integration/broker/slave-support.js';
import { type BrokerHandle, startBroker } from './harness.js';

const LIMIT = { timeout: 180_000 };
const FILE_SIZE = 1024 * 1024;
const CQ_FILE_SIZE = 30_000 * 20;
const BROKER_NAME = 'broker-ha-promote';
const quiet = createLogger('test', { level: 'silent' });
const dir = mkdtempSync(join(tmpdir(), 'rmq-interop-ha-faults-'));
const cleanups: Array<() => Promise<void>> = [];

after(async () => {
  for (const c of cleanups.splice(0).reverse()) {
    try {
      await c();
    } catch {
      // Tearing down: the failure that matters was reported by the test.
    }
  }
  rmSync(dir, { recursive: true, force: true });
});

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
      autoCreateTopicEnable: true,
      mappedFileSizeCommitLog: FILE_SIZE,
      mappedFileSizeConsumeQueue: CQ_FILE_SIZE,
    },
    logger: quiet,
  });
  await broker.start();
  return broker;
}

function describeRecords(records: readonly SendRecord[], n = 20): string {
  const shown = records
    .slice(0, n)
    .map(
      (r) => `#${r.index} (queue ${r.queueId} offset ${r.queueOffset}, msgId ${r.msgId}, ${r.offsetMsgId})`,
    );
  return `${records.length}: ${shown.join('; ')}${records.length > n ? '; ...' : ''}`;
}

interface Acked {
  record: SendRecord;
  /** The body sent. */
  body: Buffer;
}

async function namesrv(name: string): Promise<string> {
  const ns = createNamesrv({
    listenPort: 0,
    kvConfigPath: join(dir, name, 'kvConfig.json'),
    logger: quiet,
    settings: { listenHost: '127.0.0.1' },
  });
  const bound = await ns.start();
  cleanups.push(() => ns.shutdown());
  return `127.0.0.1:${bound.port}`;
}

async function startProducer(namesrvAddr: string, name: string): Promise<Producer> {
  const producer = createProducer({
    producerGroup: `ha-promote-${name}-${process.pid}`,
    namesrvAddr,
    logger: quiet,
    retryTimesWhenSendFailed: 0,
  });
  cleanups.push(() => producer.shutdown());
  await producer.start();
  return producer;
}

/** Sends until one is SEND_OK and `slaveHasTopic` says the slave has the topic (metadata sync). */
async function untilSlaveFollows(
  producer: Producer,
  topic: string,
  slaveHasTopic: () => boolean,
): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (let i = 0; ; i++) {
    const r = await producer.send({ topic, body: faultBody(-1 - i, 50) });
    if (r.sendStatus === SendStatus.SEND_OK && slaveHasTopic()) return;
    assert.ok(Date.now() < deadline, `no SEND_OK and topic on the slave within 30 s (last: ${r.sendStatus})`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** A dozen SEND_OK bodies above one 32 KiB HA frame. */
async function largeMessages(producer: Producer, topic: string): Promise<Acked[]> {
  const out: Acked[] = [];
  for (let i = 0; i < 12; i++) {
    const body = randomBytes(40 * 1024);
    const r = await producer.send({ topic, body });
    assert.equal(r.sendStatus, SendStatus.SEND_OK, `large message ${i}`);
    out.push({
      body,
      record: {
        index: -1000 - i,
        startedAt: 0,
        endedAt: 0,
        status: r.sendStatus,
        msgId: r.msgId,
        offsetMsgId: r.offsetMsgId,
        queueId: r.messageQueue.queueId,
        queueOffset: r.queueOffset,
        error: undefined,
      },
    });
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
  cleanups.push(() => official.close());
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

  const consumer = createPullConsumer({
    consumerGroup: `ha-promote-cg-${process.pid}`,
    namesrvAddr,
    logger: quiet,
  });
  cleanups.push(() => consumer.shutdown());
  await consumer.start();
  const seen = new Map<string, string>();
  for (const mq of await consumer.fetchSubscribeMessageQueues(topic)) {
    let offset = 0n;
    for (;;) {
      const result = await consumer.pull(mq, '*', offset, 32, { timeoutMs: 10_000 });
      if (result.pullStatus !== PullStatus.FOUND) break;
      for (const m of result.msgFoundList) seen.set(m.msgId, `${m.queueId}:${m.queueOffset}`);
      offset = result.nextBeginOffset;
    }
  }
  const missing = messages
    .map((m) => m.record)
    .filter((r) => r.msgId === undefined || seen.get(r.msgId) !== `${r.queueId}:${r.queueOffset}`);
  assert.equal(
    missing.length,
    0,
    `SEND_OK messages the official broker does not serve at their queue offset: ${describeRecords(missing)}`,
  );
  await consumer.shutdown();
  return `${messages.length} SEND_OK messages served by the official broker (${seen.size} in the topic)`;
}

describe('official broker promoted on our slave store', () => {
  test(
    'after a clean stop: serves every SEND_OK message by offset id and to a consumer',
    LIMIT,
    async (t) => {
      const namesrvAddr = await namesrv('ns-clean');
      const slaveDir = join(dir, 'clean-slave');
      const master = await ourBroker(namesrvAddr, join(dir, 'clean-master'), 'SYNC_MASTER');
      let masterUp = true;
      cleanups.push(async () => {
        if (masterUp) await master.shutdown();
      });
      const slave = await ourBroker(namesrvAddr, slaveDir, 'SLAVE');
      let slaveUp = true;
      cleanups.push(async () => {
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
    const namesrvAddr = await namesrv('ns-kill');
    const slaveDir = join(dir, 'kill-slave');
    const master = await ourBroker(namesrvAddr, join(dir, 'kill-master'), 'SYNC_MASTER');
    let masterUp = true;
    cleanups.push(async () => {
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
        mappedFileSizeCommitLog: FILE_SIZE,
        mappedFileSizeConsumeQueue: CQ_FILE_SIZE,
      },
    });
    cleanups.push(() => slave.stop());
    assert.ok(master.messageStore instanceof DefaultMessageStore);
    const masterStore = master.messageStore;
    const topic = 'HaPromotedAfterCrash';
    const producer = await startProducer(namesrvAddr, 'kill');
    const topicsFile = join(slaveDir, 'config', 'topics.json');
    await untilSlaveFollows(
      producer,
      topic,
      () => existsSync(topicsFile) && readFileSync(topicsFile, 'utf8').includes(`"${topic}"`),
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
