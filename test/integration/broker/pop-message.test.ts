/**
 * POP_MESSAGE against a broker in process: receipt handles, checkpoints and offsets, queueId -1, TAG
 * and SQL92 filters, retried messages re-topic'd, long polling woken by a send, POLLING_FULL and
 * POLLING_TIMEOUT, a closed connection releasing its parked pop, and the refusals with upstream's codes.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { BrokerController } from '../../../src/broker/index.js';
import { messageProperties2String } from '../../../src/common/message/properties.js';
import { decodeMessages } from '../../../src/common/message/stored-format.js';
import {
  buildClusterReviveTopic,
  buildPollingKey,
  decodePopCheckPoint,
  parseExtraInfo,
} from '../../../src/common/pop/index.js';
import { createRequest } from '../../../src/remoting/protocol/command.js';
import { decodeHeader, encodeHeader } from '../../../src/remoting/protocol/header-schema.js';
import {
  NotificationRequestHeader,
  NotificationResponseHeader,
  PeekMessageRequestHeader,
  PollingInfoRequestHeader,
  PollingInfoResponseHeader,
  PopMessageResponseHeader,
} from '../../../src/remoting/protocol/headers/pop-headers.js';
import { RequestCode } from '../../../src/remoting/protocol/request-code.js';
import { ResponseCode, ResponseCode5xReused } from '../../../src/remoting/protocol/response-code.js';
import { RemotingClient } from '../../../src/remoting/transport/index.js';
import {
  createTopic,
  type PopBroker,
  type PopInput,
  popRequest,
  quiet,
  readPop,
  sendRequest,
  startPopBroker,
} from './pop-support.js';

const LIMIT = { timeout: 60_000 };

describe('POP_MESSAGE', LIMIT, () => {
  let pb: PopBroker;
  let broker: BrokerController;
  let addr: string;
  const send = async (topic: string, body: string, o: Parameters<typeof sendRequest>[2] = {}) => {
    const r = await pb.client.invoke(addr, sendRequest(topic, body, o), { timeoutMs: 5000 });
    assert.equal(r.code, 0, r.remark);
  };
  const pop = async (input: PopInput, client: RemotingClient = pb.client) =>
    readPop(await client.invoke(addr, popRequest(input), { timeoutMs: 20_000 }), broker.config.brokerName);

  before(async () => {
    pb = await startPopBroker({ popPollingSize: 0, autoCreateSubscriptionGroup: false });
    broker = pb.broker;
    addr = broker.brokerAddr;
    for (const g of ['G1', 'G2', 'G3', 'G4', 'G5', 'G6', 'G7', 'G8']) {
      broker.subscriptionGroupManager.updateSubscriptionGroupConfig({
        ...broker.subscriptionGroupManager.findSubscriptionGroupConfig('CID_RMQ_SYS_X')!,
        groupName: g,
      });
    }
  });
  after(() => pb.close());

  test('pop returns the messages with parseable handles, writes the checkpoint, commits; a second pop gets none', async () => {
    createTopic(broker, 'T1');
    for (const b of ['a', 'b', 'c']) await send('T1', b, { queueId: 1 });
    const first = await pop({ consumerGroup: 'G1', topic: 'T1', queueId: 1 });
    assert.equal(first.response.code, ResponseCode.SUCCESS, first.response.remark);
    assert.deepEqual(
      first.messages.map((m) => m.body.toString()),
      ['a', 'b', 'c'],
    );
    assert.equal(first.header?.startOffsetInfo, '0 1 0');
    assert.equal(first.header?.msgOffsetInfo, '0 1 0,1,2');
    assert.equal(first.header?.restNum, 0n);
    const handles = first.handles.map((h) => parseExtraInfo(h));
    assert.deepEqual(
      handles.map((h) => [h.ckQueueOffset, h.queueOffset, h.queueId, h.retry, h.brokerName]),
      [
        [0n, 0n, 1, '0', broker.config.brokerName],
        [0n, 1n, 1, '0', broker.config.brokerName],
        [0n, 2n, 1, '0', broker.config.brokerName],
      ],
    );
    const reviveQid = first.header?.reviveQid ?? -1;
    assert.ok(reviveQid >= 0 && reviveQid < 8);
    // The checkpoint is in the revive queue, and the group's offset is past the batch.
    const revive = buildClusterReviveTopic(broker.config.brokerClusterName);
    const stored = await broker.messageStore.getMessage('x', revive, reviveQid, 0n, 32);
    const cks = decodeMessages(Buffer.concat(stored.messages)).filter((m) => m.getProperty('TAGS') === 'ck');
    const ck = decodePopCheckPoint(cks[cks.length - 1]!.body);
    assert.deepEqual(
      [ck.topic, ck.cid, ck.queueId, ck.startOffset, ck.num, ck.queueOffsetDiff],
      ['T1', 'G1', 1, 0n, 3, [0, 1, 2]],
    );
    assert.equal(ck.popTime, first.header?.popTime);
    assert.equal(broker.consumerOffsetManager.queryOffset('G1', 'T1', 1), 3n);
    const second = await pop({ consumerGroup: 'G1', topic: 'T1', queueId: 1 });
    assert.equal(second.response.code, ResponseCode5xReused.POLLING_TIMEOUT);
    assert.equal(second.response.remark, 'NO_MESSAGE_IN_QUEUE');
    assert.equal(broker.pop.popStats.get('G1', 'T1')?.messages, 3);
  });

  test('queueId -1 pops every readable queue; initMode MAX starts a new group at the last message', async () => {
    createTopic(broker, 'T2');
    for (let q = 0; q < 4; q++) await send('T2', `m${q}`, { queueId: q });
    const all = await pop({ consumerGroup: 'G2', topic: 'T2', queueId: -1 });
    assert.equal(all.response.code, 0);
    assert.deepEqual(all.messages.map((m) => m.body.toString()).sort(), ['m0', 'm1', 'm2', 'm3']);
    assert.equal(all.header?.startOffsetInfo?.split(';').length, 4);
    for (const h of all.handles) parseExtraInfo(h);
    // MAX: a new group skips to max - 1 unless the first message is still in memory (upstream's
    // initPopOffsetByCheckMsgInMem), which it is here: so the whole queue.
    const max = await pop({ consumerGroup: 'G3', topic: 'T2', queueId: 2, initMode: 1 });
    assert.deepEqual(
      max.messages.map((m) => m.body.toString()),
      ['m2'],
    );
  });

  test('TAG and SQL92 filters; skipped messages are covered by the committed offset', async () => {
    createTopic(broker, 'T3', 1);
    await send('T3', 'x1', { tags: 'a', properties: { k: '1' } });
    await send('T3', 'x2', { tags: 'b', properties: { k: '7' } });
    await send('T3', 'x3', { tags: 'a', properties: { k: '9' } });
    const tag = await pop({ consumerGroup: 'G4', topic: 'T3', expType: 'TAG', exp: 'a' });
    assert.deepEqual(
      tag.messages.map((m) => m.body.toString()),
      ['x1', 'x3'],
    );
    assert.equal(tag.header?.msgOffsetInfo, '0 0 0,2');
    assert.equal(broker.consumerOffsetManager.queryOffset('G4', 'T3', 0), 3n);
    const sql = await pop({ consumerGroup: 'G5', topic: 'T3', expType: 'SQL92', exp: 'k > 5' });
    assert.deepEqual(
      sql.messages.map((m) => m.body.toString()),
      ['x2', 'x3'],
    );
    const none = await pop({ consumerGroup: 'G6', topic: 'T3', expType: 'TAG', exp: 'zzz' });
    assert.equal(none.response.code, ResponseCode5xReused.POLLING_TIMEOUT);
    assert.equal(
      broker.consumerOffsetManager.queryOffset('G6', 'T3', 0),
      3n,
      'filtered-out offsets committed',
    );
    const bad = await pop({ consumerGroup: 'G6', topic: 'T3', expType: 'SQL92', exp: 'k >' });
    assert.equal(bad.response.code, ResponseCode.SUBSCRIPTION_PARSE_FAILED);
    assert.equal(bad.response.remark, "parse the consumer's subscription failed");
  });

  test('retried messages come back under the topic with their handle in POP_CK', async () => {
    createTopic(broker, 'T4', 1);
    createTopic(broker, '%RETRY%G7_T4', 1);
    // As the revive service writes it: straight into the store (the send path reads `%RETRY%G7_T4`
    // as the retry topic of a group `G7_T4`).
    const put = await broker.messageStore.putMessage({
      topic: '%RETRY%G7_T4',
      queueId: 0,
      flag: 0,
      body: Buffer.from('again'),
      propertiesString: messageProperties2String(new Map([['RETRY_TOPIC', 'T4']])),
      tagsCode: 0n,
      sysFlag: 0,
      bornTimestamp: BigInt(Date.now()),
      bornHost: { address: '127.0.0.1', port: 1 },
      storeHost: { address: '127.0.0.1', port: 1 },
      reconsumeTimes: 1,
      preparedTransactionOffset: 0n,
    });
    assert.equal(put.putMessageStatus, 'PUT_OK');
    const got = await pop({ consumerGroup: 'G7', topic: 'T4' });
    assert.equal(got.response.code, 0, got.response.remark);
    assert.equal(got.messages.length, 1);
    assert.equal(got.messages[0]?.topic, 'T4');
    const handle = parseExtraInfo(got.messages[0]?.getProperty('POP_CK'));
    assert.equal(handle.retry, '1');
    assert.equal(handle.queueOffset, 0n);
    assert.equal(got.messages[0]?.reconsumeTimes, 1);
    assert.equal(got.header?.startOffsetInfo, '1 0 0');
  });

  test('a parked pop is woken by a send; POLLING_FULL past popPollingSize; poll time over answers POLLING_TIMEOUT', async () => {
    createTopic(broker, 'T5', 2);
    const started = Date.now();
    const parked = pop({ consumerGroup: 'G8', topic: 'T5', queueId: -1, pollTime: 15_000n });
    // popPollingSize 0: one parks under the key, the next is refused.
    const full = await pop({ consumerGroup: 'G8', topic: 'T5', queueId: -1, pollTime: 15_000n });
    assert.equal(full.response.code, ResponseCode5xReused.POLLING_FULL);
    await send('T5', 'wake', { queueId: 1 });
    const woken = await parked;
    assert.equal(woken.response.code, 0);
    assert.deepEqual(
      woken.messages.map((m) => m.body.toString()),
      ['wake'],
    );
    assert.ok(Date.now() - started < 10_000);
    const timedOut = await pop({ consumerGroup: 'G8', topic: 'T5', queueId: 0, pollTime: 300n });
    assert.equal(timedOut.response.code, ResponseCode5xReused.POLLING_TIMEOUT);
    assert.equal(broker.pop.popLongPollingService.totalPollingNum, 0);
  });

  test('a parked pop that finds its queue locked by another pop does not stall the event loop', async () => {
    // The lock stands for a pop awaiting its store I/O; the parked pop counts the locked queue's
    // backlog into restNum and wakes its own key again (upstream's notify). Re-run as a microtask
    // chain, that blocked the whole process until the poll time ended.
    createTopic(broker, 'TLocked', 1);
    await send('TLocked', 'held');
    const lockKey = buildPollingKey('TLocked', 'G7', 0);
    assert.ok(broker.pop.queueLockManager.tryLock(lockKey));
    const parked = pop({ consumerGroup: 'G7', topic: 'TLocked', queueId: -1, pollTime: 3000n });
    // While it is parked and re-woken (the parked count flickers, so ten 50 ms timers instead of a wait
    // on it): each timer must fire about on time.
    let late = 0;
    for (let i = 0; i < 10; i++) {
      const before = performance.now();
      await new Promise((r) => setTimeout(r, 50));
      late = Math.max(late, performance.now() - before - 50);
    }
    broker.pop.queueLockManager.unLock(lockKey);
    assert.ok(late < 1000, `a 50 ms timer fired ${late.toFixed(0)} ms late while the pop was parked`);
    const got = await parked;
    assert.equal(got.response.code, ResponseCode.SUCCESS, got.response.remark);
    assert.deepEqual(
      got.messages.map((m) => m.body.toString()),
      ['held'],
    );
  });

  test("a closed connection's parked pop is released", async () => {
    createTopic(broker, 'T6', 1);
    const other = new RemotingClient({ clientChannelMaxIdleTimeSeconds: 0 }, { logger: quiet });
    const parked = other.invoke(addr, popRequest({ consumerGroup: 'G1', topic: 'T6', pollTime: 30_000n }), {
      timeoutMs: 30_000,
    });
    parked.catch(() => undefined);
    while (broker.pop.popLongPollingService.totalPollingNum === 0) await new Promise((r) => setTimeout(r, 5));
    await other.close();
    const deadline = Date.now() + 5000;
    while (broker.pop.popLongPollingService.totalPollingNum > 0 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 5));
    }
    assert.equal(broker.pop.popLongPollingService.totalPollingNum, 0);
  });

  test('NOTIFICATION says whether a pop would find messages, long-polling until one arrives; POLLING_INFO counts parked pops', async () => {
    createTopic(broker, 'T8', 2);
    const notify = async (queueId: number, pollTime: bigint) => {
      const r = await pb.client.invoke(
        addr,
        createRequest(RequestCode.NOTIFICATION, {
          extFields: encodeHeader(NotificationRequestHeader, {
            // Another group than the pop's: the pop would take the message first.
            consumerGroup: 'G2',
            topic: 'T8',
            queueId,
            pollTime,
            bornTime: BigInt(Date.now()),
          }),
        }),
        { timeoutMs: 20_000 },
      );
      assert.equal(r.code, 0, r.remark);
      return decodeHeader(NotificationResponseHeader, r.extFields);
    };
    const pollingNum = async (queueId: number) => {
      const r = await pb.client.invoke(
        addr,
        createRequest(RequestCode.POLLING_INFO, {
          extFields: encodeHeader(PollingInfoRequestHeader, { consumerGroup: 'G3', topic: 'T8', queueId }),
        }),
      );
      assert.equal(r.code, 0, r.remark);
      return decodeHeader(PollingInfoResponseHeader, r.extFields).pollingNum;
    };
    assert.deepEqual(await notify(-1, 0n), { hasMsg: false, pollingFull: false });
    const waiting = notify(-1, 15_000n);
    const parkedPop = pop({ consumerGroup: 'G3', topic: 'T8', queueId: 1, pollTime: 15_000n });
    while (broker.pop.popLongPollingService.totalPollingNum === 0) await new Promise((r) => setImmediate(r));
    assert.equal(await pollingNum(1), 1);
    assert.equal(await pollingNum(0), 0);
    await send('T8', 'n', { queueId: 1 });
    assert.deepEqual(await waiting, { hasMsg: true, pollingFull: false });
    assert.equal((await parkedPop).messages.length, 1);
    assert.equal(await pollingNum(1), 0);
    const bad = await pb.client.invoke(
      addr,
      createRequest(RequestCode.POLLING_INFO, {
        extFields: encodeHeader(PollingInfoRequestHeader, { consumerGroup: 'G3', topic: 'T8', queueId: 9 }),
      }),
    );
    assert.equal(bad.code, ResponseCode.INVALID_PARAMETER);
  });

  test('PEEK_MESSAGE shows what a pop would get next without taking it', async () => {
    createTopic(broker, 'T9', 1);
    await send('T9', 'p1');
    await send('T9', 'p2');
    const peek = async () =>
      pb.client.invoke(
        addr,
        createRequest(RequestCode.PEEK_MESSAGE, {
          extFields: encodeHeader(PeekMessageRequestHeader, {
            topic: 'T9',
            queueId: 0,
            maxMsgNums: 1,
            consumerGroup: 'G5',
          }),
        }),
      );
    const first = await peek();
    assert.equal(first.code, 0, first.remark);
    assert.deepEqual(
      decodeMessages(first.body ?? Buffer.alloc(0)).map((m) => m.body.toString()),
      ['p1'],
    );
    assert.equal(decodeHeader(PopMessageResponseHeader, first.extFields).restNum, 2n);
    const popped = await pop({ consumerGroup: 'G5', topic: 'T9', maxMsgNums: 2 });
    assert.equal(popped.messages.length, 2, 'peeking took nothing');
    const none = await peek();
    assert.equal(none.code, ResponseCode.PULL_NOT_FOUND);
  });

  test('concurrent pops of one group never hand out a message twice', async () => {
    createTopic(broker, 'T10', 2);
    for (let i = 0; i < 40; i++) await send('T10', `c${i}`, { queueId: i % 2 });
    const seen: string[] = [];
    for (let round = 0; round < 10 && seen.length < 40; round++) {
      const batch = await Promise.all(
        Array.from({ length: 4 }, () => pop({ consumerGroup: 'G8', topic: 'T10', maxMsgNums: 7 })),
      );
      for (const b of batch) for (const m of b.messages) seen.push(`${m.queueId}:${m.queueOffset}`);
    }
    assert.equal(seen.length, 40);
    assert.equal(new Set(seen).size, 40);
  });

  test('bad input: upstream codes and remarks', async () => {
    createTopic(broker, 'T7', 4);
    const q = await pop({ consumerGroup: 'G1', topic: 'T7', queueId: 4 });
    assert.equal(q.response.code, ResponseCode.INVALID_PARAMETER);
    assert.match(
      q.response.remark ?? '',
      /^queueId\[4\] is illegal, topic:\[T7\] topicConfig.readQueueNums:\[4\] consumer:\[\/127\.0\.0\.1:\d+\]$/,
    );
    const topic = await pop({ consumerGroup: 'G1', topic: 'NoSuchTopic' });
    assert.equal(topic.response.code, ResponseCode.TOPIC_NOT_EXIST);
    assert.match(topic.response.remark ?? '', /^topic\[NoSuchTopic\] not exist, apply first please!/);
    const group = await pop({ consumerGroup: 'NoSuchGroup', topic: 'T7' });
    assert.equal(group.response.code, ResponseCode.SUBSCRIPTION_GROUP_NOT_EXIST);
    assert.match(group.response.remark ?? '', /^subscription group \[NoSuchGroup\] does not exist/);
    const many = await pop({ consumerGroup: 'G1', topic: 'T7', maxMsgNums: 33 });
    assert.equal(many.response.code, ResponseCode.INVALID_PARAMETER);
    assert.equal(many.response.remark, "the broker[127.0.0.1] pop message's num is greater than 32");
    const old = await pop({
      consumerGroup: 'G1',
      topic: 'T7',
      bornTime: BigInt(Date.now() - 60_000),
      pollTime: 1000n,
    });
    assert.equal(old.response.code, ResponseCode5xReused.POLLING_TIMEOUT);
    assert.equal(old.response.remark, 'the broker[127.0.0.1] pop message is timeout too much');
    // Upstream's broker does not check invisibleTime on POP: negative or huge ones are served.
    await send('T7', 'inv', { queueId: 0 });
    const negative = await pop({ consumerGroup: 'G2', topic: 'T7', queueId: 0, invisibleTime: -5n });
    assert.equal(negative.response.code, 0);
    assert.equal(negative.header?.invisibleTime, -5n);
    const missing = await pb.client.invoke(addr, {
      ...popRequest({ consumerGroup: 'G1', topic: 'T7' }),
      extFields: { consumerGroup: 'G1', topic: 'T7' },
    });
    assert.equal(missing.code, ResponseCode.SYSTEM_ERROR);
    assert.match(missing.remark ?? '', /the custom field <queueId> is null/);
  });
});
