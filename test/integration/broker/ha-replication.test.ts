/**
 * HA replication between two real in-process brokers and our name server, over TCP on 127.0.0.1:
 * the slave finds the master's HA address (listenPort + 1) through its registration; a mixed load
 * (bodies above one 32 KiB frame, batches, commit-log file rolls) reaches the slave byte for byte
 * with the same consume-queue entries; an empty slave joining late starts at the master's last file;
 * a slave restarted mid-stream carries on; SYNC_MASTER answers SEND_OK only once the slave has the
 * bytes, SLAVE_NOT_AVAILABLE without a slave and FLUSH_SLAVE_TIMEOUT with a stalled one.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, afterEach, describe, test } from 'node:test';
import type { BrokerController } from '../../../src/broker/broker-controller.js';
import { createProducer, type Producer } from '../../../src/client/index.js';
import { messageProperties2String } from '../../../src/common/message/properties.js';
import { createTopicConfig } from '../../../src/common/protocol/topic-config.js';
import { createRequest, type RemotingCommand } from '../../../src/remoting/protocol/command.js';
import { decodeHeader, encodeHeader } from '../../../src/remoting/protocol/header-schema.js';
import {
  SendMessageRequestHeader,
  SendMessageResponseHeader,
} from '../../../src/remoting/protocol/headers/index.js';
import { RequestCode } from '../../../src/remoting/protocol/request-code.js';
import { ResponseCode } from '../../../src/remoting/protocol/response-code.js';
import { RemotingClient } from '../../../src/remoting/transport/index.js';
import { quiet } from '../../unit/broker/helpers.js';
import {
  assertSameCommitLog,
  assertSameConsumeQueues,
  caughtUp,
  HA_FILE_SIZE,
  type HAPair,
  startPair,
  storeOf,
  waitFor,
} from './ha-support.js';

const LIMIT = { timeout: 60_000 };
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});
after(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function pair(master: Parameters<typeof startPair>[0] = {}): Promise<HAPair> {
  const p = await startPair(master);
  cleanups.push(() => p.close());
  return p;
}

function producer(namesrvAddr: string): Producer {
  const p = createProducer({ producerGroup: `ha-pg-${process.pid}`, namesrvAddr, logger: quiet });
  cleanups.push(() => p.shutdown());
  return p;
}

async function createTopic(broker: BrokerController, topic: string, queues = 4): Promise<void> {
  const config = createTopicConfig(topic, { readQueueNums: queues, writeQueueNums: queues });
  broker.topicConfigManager.updateTopicConfig(config);
  await broker.registerIncrementBrokerData(config, broker.topicConfigManager.dataVersion);
}

/** Random bytes, which the producer's compression (bodies above 4 KiB) cannot shrink. */
function body(i: number, size: number): Buffer {
  const out = randomBytes(size);
  out.write(`message-${i}`);
  return out;
}

/** Sends `n` messages of every kind: small, above a frame, and batches of three. */
async function mixedLoad(p: Producer, topic: string, n: number, from = 0): Promise<void> {
  for (let i = from; i < from + n; i++) {
    if (i % 5 === 4) {
      await p.send([
        { topic, body: body(i, 200), keys: [`k${i}a`] },
        { topic, body: body(i + 1, 300), keys: [`k${i}b`] },
        { topic, body: body(i + 2, 400) },
      ]);
    } else {
      await p.send({ topic, body: body(i, i % 3 === 0 ? 40 * 1024 : 700), keys: [`k${i}`], tags: 'T' });
    }
  }
}

function rawClient(): RemotingClient {
  const c = new RemotingClient({ clientChannelMaxIdleTimeSeconds: 0 }, { logger: quiet });
  cleanups.push(() => c.close());
  return c;
}

/** One SEND_MESSAGE as the official client sends it (WAIT=true). */
function sendRequest(topic: string, text: string): RemotingCommand {
  return createRequest(RequestCode.SEND_MESSAGE, {
    extFields: encodeHeader(SendMessageRequestHeader, {
      producerGroup: 'ha-raw-pg',
      topic,
      defaultTopic: 'TBW102',
      defaultTopicQueueNums: 4,
      queueId: 0,
      sysFlag: 0,
      bornTimestamp: BigInt(Date.now()),
      flag: 0,
      properties: messageProperties2String(new Map([['WAIT', 'true']])),
      reconsumeTimes: 0,
      unitMode: false,
      batch: false,
    }),
    body: Buffer.from(text),
  });
}

describe('ASYNC_MASTER replication', () => {
  test(
    'a mixed load with file rolls reaches the slave byte for byte, consume queues equal',
    LIMIT,
    async () => {
      const p = await pair();
      const slave = await p.startSlave();
      const topic = 'HaMixed';
      await createTopic(p.master, topic);
      const prod = producer(p.namesrvAddr);
      await prod.start();
      await mixedLoad(prod, topic, 60);
      await caughtUp(p.master, slave);
      const masterStore = storeOf(p.master);
      assert.ok(
        masterStore.commitLog.mappedFileQueue.getMappedFiles().length >= 3,
        'the load rolled the commit log over at least twice',
      );
      assertSameCommitLog(p.master, slave);
      const compared = assertSameConsumeQueues(p.master, slave);
      assert.ok(compared >= 60, `compared ${compared} consume-queue entries`);
      // The index was built from the replicated records too.
      const found = await storeOf(slave).queryMessage(topic, 'k7', 10, 0n, BigInt(Date.now() + 1000));
      assert.equal(found.messages.length, 1);
    },
  );

  test("an empty slave joining late starts at the master's last file and keeps up", LIMIT, async () => {
    const p = await pair();
    const topic = 'HaLate';
    await createTopic(p.master, topic);
    const prod = producer(p.namesrvAddr);
    await prod.start();
    await mixedLoad(prod, topic, 40);
    const masterStore = storeOf(p.master);
    const masterMax = Number(masterStore.getMaxPhyOffset());
    const lastFileStart = masterMax - (masterMax % HA_FILE_SIZE);
    assert.ok(lastFileStart > 0, 'the master has rolled before the slave joins');
    const slave = await p.startSlave();
    await caughtUp(p.master, slave);
    assert.equal(Number(storeOf(slave).getMinPhyOffset()), lastFileStart);
    await mixedLoad(prod, topic, 20, 40);
    await caughtUp(p.master, slave);
    assertSameCommitLog(p.master, slave);
    assert.ok(assertSameConsumeQueues(p.master, slave) > 0);
  });

  test('a slave restarted mid-stream carries on from its own end', LIMIT, async () => {
    const p = await pair();
    const slave = await p.startSlave();
    const slaveDir = slave.config.storePathRootDir;
    const topic = 'HaRestart';
    await createTopic(p.master, topic);
    const prod = producer(p.namesrvAddr);
    await prod.start();
    const sending = mixedLoad(prod, topic, 80);
    await waitFor(() => storeOf(slave).getMaxPhyOffset() > 0n, 'slave received something');
    await slave.shutdown();
    const stoppedAt = storeOf(slave).getMaxPhyOffset();
    await sending;
    assert.ok(stoppedAt < storeOf(p.master).getMaxPhyOffset(), 'the master went on without the slave');
    const again = await p.startSlave({ listenPort: slave.listenPort }, slaveDir);
    await caughtUp(p.master, again);
    assertSameCommitLog(p.master, again);
    assert.ok(assertSameConsumeQueues(p.master, again) >= 80);
  });
});

describe('SYNC_MASTER', () => {
  test('SEND_OK only once the slave has the bytes', LIMIT, async () => {
    const p = await pair({ brokerRole: 'SYNC_MASTER' });
    const slave = await p.startSlave();
    const topic = 'HaSync';
    await createTopic(p.master, topic);
    const masterStore = storeOf(p.master);
    await waitFor(
      () => masterStore.haService.isSlaveOK(Number(masterStore.getMaxPhyOffset())),
      'slave connected',
    );
    // When the store answers a send, the slave must already have acknowledged the message's end
    // (checked where the answer is made: after it, an acknowledgement could arrive in any case).
    const answered: Array<{ end: bigint; acked: number }> = [];
    const original = masterStore.putMessage.bind(masterStore);
    masterStore.putMessage = async (message) => {
      const result = await original(message);
      const a = result.appendMessageResult;
      if (a !== undefined) {
        answered.push({
          end: a.wroteOffset + BigInt(a.wroteBytes),
          acked: masterStore.haService.push2SlaveMaxOffset,
        });
      }
      return result;
    };
    const client = rawClient();
    for (let i = 0; i < 20; i++) {
      const response = await client.invoke(p.master.brokerAddr, sendRequest(topic, `sync-${i}`), {
        timeoutMs: 10_000,
      });
      assert.equal(response.code, ResponseCode.SUCCESS, response.remark ?? '');
      const header = decodeHeader(SendMessageResponseHeader, response.extFields);
      assert.ok(header.msgId !== undefined);
      // The answer came after the slave acknowledged: it already has every byte of this message.
      assert.ok(
        storeOf(slave).getMaxPhyOffset() >= masterStore.getMaxPhyOffset(),
        `slave has message ${i} when the send is answered`,
      );
    }
    assert.equal(answered.length, 20);
    for (const a of answered) assert.ok(BigInt(a.acked) >= a.end, `acknowledged ${a.acked} >= ${a.end}`);
    assertSameCommitLog(p.master, slave);
  });

  test('SLAVE_NOT_AVAILABLE at once without a slave; the message is stored', LIMIT, async () => {
    const p = await pair({ brokerRole: 'SYNC_MASTER' });
    const topic = 'HaNoSlave';
    await createTopic(p.master, topic);
    const client = rawClient();
    const before = storeOf(p.master).getMaxPhyOffset();
    const started = Date.now();
    const response = await client.invoke(p.master.brokerAddr, sendRequest(topic, 'alone'), {
      timeoutMs: 10_000,
    });
    assert.equal(response.code, ResponseCode.SLAVE_NOT_AVAILABLE);
    assert.ok(Date.now() - started < 2000, 'answered at once');
    assert.ok(storeOf(p.master).getMaxPhyOffset() > before, 'the message is stored');
  });

  test('FLUSH_SLAVE_TIMEOUT after slaveTimeout with a stalled slave', LIMIT, async () => {
    const p = await pair({ brokerRole: 'SYNC_MASTER', slaveTimeout: 400 });
    const slave = await p.startSlave();
    const topic = 'HaStalled';
    await createTopic(p.master, topic);
    const masterStore = storeOf(p.master);
    await waitFor(
      () => masterStore.haService.isSlaveOK(Number(masterStore.getMaxPhyOffset())),
      'slave connected',
    );
    // The slave's store stops taking the master's bytes (as a slave whose disk stalls would).
    const slaveLog = storeOf(slave).commitLog;
    const original = slaveLog.appendReplicated.bind(slaveLog);
    let stalled = true;
    slaveLog.appendReplicated = (offset: number, data: Buffer) =>
      stalled ? 'stalled by the test' : original(offset, data);
    const client = rawClient();
    const started = Date.now();
    const response = await client.invoke(p.master.brokerAddr, sendRequest(topic, 'unacknowledged'), {
      timeoutMs: 10_000,
    });
    const took = Date.now() - started;
    assert.equal(response.code, ResponseCode.FLUSH_SLAVE_TIMEOUT);
    assert.ok(took >= 350, `waited slaveTimeout (${took} ms)`);
    stalled = false;
    // The stored message reaches the slave once it takes bytes again.
    await caughtUp(p.master, slave, 20_000);
    assertSameCommitLog(p.master, slave);
  });
});
