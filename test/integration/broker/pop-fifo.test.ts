/**
 * FIFO POP (order=true) against a broker in process: no checkpoint (reviveQid 999), the queue blocked
 * while the batch is un-acked and invisible, the same attemptId re-receiving the batch, reconsume
 * counts in orderCountInfo once the invisible time ends, and a parked FIFO pop woken when the queue's
 * block ends (the acks go through ConsumerOrderInfoManager.commitAndNext, as ACK_MESSAGE does).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { BrokerController } from '../../../src/broker/index.js';
import { parseExtraInfo, parseOrderCountInfo } from '../../../src/common/pop/index.js';
import { ResponseCode, ResponseCode5xReused } from '../../../src/remoting/protocol/response-code.js';
import {
  createTopic,
  type PopBroker,
  type PopInput,
  popRequest,
  readPop,
  sendRequest,
  startPopBroker,
} from './pop-support.js';

describe('FIFO POP', { timeout: 60_000 }, () => {
  let pb: PopBroker;
  let broker: BrokerController;
  let addr: string;
  const send = async (topic: string, body: string) => {
    const r = await pb.client.invoke(addr, sendRequest(topic, body, { queueId: 0 }), { timeoutMs: 5000 });
    assert.equal(r.code, 0, r.remark);
  };
  const pop = async (input: Omit<PopInput, 'consumerGroup'>) =>
    readPop(
      await pb.client.invoke(addr, popRequest({ consumerGroup: 'GF', order: true, ...input }), {
        timeoutMs: 20_000,
      }),
      broker.config.brokerName,
    );
  const ackAll = (topic: string, popped: ReturnType<typeof readPop>) => {
    let next = -9n;
    for (const h of popped.handles.map((x) => parseExtraInfo(x))) {
      next = broker.pop.consumerOrderInfoManager.commitAndNext(
        topic,
        'GF',
        h.queueId,
        h.queueOffset ?? -1n,
        h.popTime,
      );
      if (next >= 0n) broker.consumerOffsetManager.commitOffset('test', 'GF', topic, h.queueId, next);
    }
    return next;
  };

  before(async () => {
    pb = await startPopBroker();
    broker = pb.broker;
    addr = broker.brokerAddr;
  });
  after(() => pb.close());

  test('blocked until acked; the same attemptId re-receives; no checkpoint', async () => {
    createTopic(broker, 'F1', 1);
    for (const b of ['1', '2', '3']) await send('F1', b);
    const first = await pop({ topic: 'F1', attemptId: 'a1', maxMsgNums: 2 });
    assert.equal(first.response.code, ResponseCode.SUCCESS);
    assert.deepEqual(
      first.messages.map((m) => m.body.toString()),
      ['1', '2'],
    );
    assert.equal(first.header?.reviveQid, 999);
    assert.equal(first.header?.orderCountInfo, '0 0 0');
    assert.equal(broker.pop.popStats.get('GF', 'F1')?.checkpoints ?? 0, 0);
    assert.equal(broker.consumerOffsetManager.queryOffset('GF', 'F1', 0), 0n, 'FIFO commits the batch start');

    const blocked = await pop({ topic: 'F1', attemptId: 'a2' });
    assert.equal(blocked.response.code, ResponseCode5xReused.POLLING_TIMEOUT);
    const again = await pop({ topic: 'F1', attemptId: 'a1', maxMsgNums: 2 });
    assert.deepEqual(
      again.messages.map((m) => m.body.toString()),
      ['1', '2'],
      'same attemptId: same batch',
    );

    assert.equal(ackAll('F1', again), 2n);
    const next = await pop({ topic: 'F1', attemptId: 'a3' });
    assert.deepEqual(
      next.messages.map((m) => m.body.toString()),
      ['3'],
    );
    assert.equal(ackAll('F1', next), 3n);
  });

  test('after the invisible time the batch comes back with its reconsume counts', async () => {
    createTopic(broker, 'F2', 1);
    await send('F2', 'x');
    const first = await pop({ topic: 'F2', attemptId: 'b1', invisibleTime: 400n });
    assert.deepEqual(
      first.messages.map((m) => m.body.toString()),
      ['x'],
    );
    // Parked while blocked; woken when the block ends (the lock-free notification), not at its poll end.
    const started = Date.now();
    const back = await pop({ topic: 'F2', attemptId: 'b2', invisibleTime: 400n, pollTime: 10_000n });
    assert.ok(Date.now() - started < 5_000, 'woken when the invisible time ended');
    assert.deepEqual(
      back.messages.map((m) => m.body.toString()),
      ['x'],
    );
    assert.deepEqual(
      parseOrderCountInfo(back.header?.orderCountInfo),
      new Map([
        ['0@qo0%0', 1],
        ['0@0', 1],
      ]),
    );
  });

  test('a parked FIFO pop is woken when the blocking batch is acked', async () => {
    createTopic(broker, 'F3', 1);
    await send('F3', 'p');
    const first = await pop({ topic: 'F3', attemptId: 'c1' });
    await send('F3', 'q');
    const parked = pop({ topic: 'F3', attemptId: 'c2', pollTime: 10_000n });
    while (broker.pop.popLongPollingService.totalPollingNum === 0) await new Promise((r) => setImmediate(r));
    ackAll('F3', first);
    const started = Date.now();
    const got = await parked;
    assert.ok(Date.now() - started < 5_000);
    assert.deepEqual(
      got.messages.map((m) => m.body.toString()),
      ['q'],
    );
  });
});
