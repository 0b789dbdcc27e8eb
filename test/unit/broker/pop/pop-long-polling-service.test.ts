/** PopLongPollingService with a manual clock: parking limits, wake-ups by arrival, filter, retry topic, timeout, closed connections. */
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { describe, test } from 'node:test';
import { PopLongPollingService } from '../../../../src/broker/pop/pop-long-polling-service.js';
import type { PopRequest } from '../../../../src/broker/pop/pop-request.js';
import { createRequest, type RemotingCommand } from '../../../../src/remoting/protocol/command.js';
import { RequestCode } from '../../../../src/remoting/protocol/request-code.js';
import type { ProcessorContext } from '../../../../src/remoting/transport/index.js';
import type { MessageFilter } from '../../../../src/store/message-store.js';
import { ManualClock, quiet } from '../helpers.js';

class FakeConnection extends EventEmitter {
  isOpen = true;
  close(): void {
    this.isOpen = false;
    this.emit('close', 'test');
  }
}

function ctxOf(connection: FakeConnection): ProcessorContext {
  return { connection, remoteAddress: '127.0.0.1:1' } as unknown as ProcessorContext;
}

function setup(
  limits: Partial<{ popPollingSize: number; popPollingMapSize: number; maxPopPollingSize: number }> = {},
) {
  const clock = new ManualClock();
  const woken: PopRequest[] = [];
  const service = new PopLongPollingService({
    config: { popPollingSize: 1024, popPollingMapSize: 100000, maxPopPollingSize: 100000, ...limits },
    clock,
    logger: quiet,
    wakeUp: (r) => woken.push(r),
  });
  service.start();
  const conn = new FakeConnection();
  const answers: RemotingCommand[] = [];
  const park = (queueId: number, pollTime = 10_000, filter?: MessageFilter, group = 'G', c = conn) =>
    service.polling(
      ctxOf(c),
      createRequest(RequestCode.POP_MESSAGE),
      {
        consumerGroup: group,
        topic: 'T',
        queueId,
        bornTime: BigInt(clock.now()),
        pollTime: BigInt(pollTime),
      },
      filter,
      `%RETRY%${group}_T`,
      (r) => void Promise.resolve(r).then((x) => answers.push(x)),
    );
  return { clock, woken, service, conn, park, answers };
}

describe('PopLongPollingService', () => {
  test('limits: popPollingSize per key, maxPopPollingSize in all, popPollingMapSize keys; no poll time or too late', () => {
    const a = setup({ popPollingSize: 1 });
    assert.equal(a.park(0), 'POLLING_SUC');
    assert.equal(a.park(0), 'POLLING_SUC', 'size 1 is not > 1');
    assert.equal(a.park(0), 'POLLING_FULL');
    assert.equal(a.park(0, 0), 'NOT_POLLING');
    assert.equal(a.park(1, 40), 'POLLING_TIMEOUT', 'ends within the 50 ms slack');
    const b = setup({ maxPopPollingSize: 1 });
    assert.equal(b.park(0), 'POLLING_SUC');
    assert.equal(b.park(1), 'POLLING_FULL');
    const c = setup({ popPollingMapSize: 1 });
    assert.equal(c.park(0), 'POLLING_SUC');
    assert.equal(c.park(1), 'POLLING_FULL');
    assert.equal(c.park(0), 'POLLING_SUC');
  });

  test('an arrival wakes one request of the queue key and one of the all-queues key', () => {
    const { park, service, woken } = setup();
    park(-1);
    park(-1);
    park(2);
    park(3);
    service.notifyMessageArriving('T', 2, undefined, undefined);
    assert.equal(woken.length, 2);
    assert.deepEqual(woken.map((r) => r.key).sort(), ['T@G@-1', 'T@G@2']);
    assert.equal(service.totalPollingNum, 2);
    assert.equal(service.pollingNum('T', 'G', -1), 1);
    service.notifyMessageArriving('Other', 3, undefined, undefined);
    assert.equal(woken.length, 2);
  });

  test("a filter that refuses the message keeps the request parked; a retry-topic arrival wakes the group's requests", () => {
    const { park, service, woken } = setup();
    const onlyTag7: MessageFilter = {
      isMatchedByConsumeQueue: (code) => code === 7n,
      isMatchedByCommitLog: () => true,
    };
    park(1, 10_000, onlyTag7);
    service.notifyMessageArriving('T', 1, 5n, undefined);
    assert.equal(woken.length, 0);
    assert.equal(service.totalPollingNum, 1);
    service.notifyMessageArriving('T', 1, 7n, undefined);
    assert.equal(woken.length, 1);
    park(0, 10_000, onlyTag7);
    service.notifyMessageArriving('%RETRY%G_T', 0, 5n, undefined);
    assert.equal(woken.length, 2, 'retry arrivals are not filtered by the topic filter');
  });

  test('the poll time ends: the request is woken (to be answered POLLING_TIMEOUT by the re-run)', () => {
    const { park, service, woken, clock } = setup();
    park(0, 1000);
    park(0, 5000);
    clock.advance(949);
    assert.equal(woken.length, 0);
    clock.advance(2);
    assert.equal(woken.length, 1);
    clock.advance(4000);
    assert.equal(woken.length, 2);
    assert.equal(service.totalPollingNum, 0);
  });

  test("a closed connection's requests are released at once; shutdown answers the rest", async () => {
    const { park, service, answers, conn, woken } = setup();
    const other = new FakeConnection();
    park(0);
    park(1, 10_000, undefined, 'G', other);
    conn.close();
    assert.equal(service.totalPollingNum, 1);
    service.shutdown();
    assert.equal(service.totalPollingNum, 0);
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(
      answers.map((a) => a.code),
      [210, 210],
    );
    assert.equal(woken.length, 0);
  });
});
