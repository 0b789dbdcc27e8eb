/**
 * Receipt handles the POP client builds from a pop answer (upstream processPopResponse): the
 * 8-field POP_CK from startOffsetInfo/msgOffsetInfo, the per-queue first offset without them, a
 * handle the broker already set (a 5.x retry message rewritten to the topic asked) kept, and
 * 1ST_POP_TIME; the popDelayLevel look-up of a failed message.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { popDelaySeconds } from '../../../../src/client/consumer/consume/consume-message-pop-concurrently-service.js';
import { applyPopResult } from '../../../../src/client/consumer/pop/pop-result.js';
import type { RawPopResult } from '../../../../src/client/instance/requests/pop-message.js';
import { MessageExt } from '../../../../src/common/message/message.js';

function msg(
  topic: string,
  queueId: number,
  queueOffset: bigint,
  props: Record<string, string> = {},
): MessageExt {
  const m = new MessageExt(topic, Buffer.from('x'));
  m.queueId = queueId;
  m.queueOffset = queueOffset;
  for (const [k, v] of Object.entries(props)) m.properties.set(k, v);
  return m;
}

function raw(fields: Partial<RawPopResult>): RawPopResult {
  return {
    popStatus: 'FOUND',
    restNum: 0n,
    popTime: 1700000000000n,
    invisibleTime: 60000n,
    reviveQid: 3,
    startOffsetInfo: undefined,
    msgOffsetInfo: undefined,
    orderCountInfo: undefined,
    messageBinary: undefined,
    ...fields,
  };
}

test('handles from the info strings, one per message, retry queue keyed apart', () => {
  const msgs = [msg('T', 1, 100n), msg('T', 1, 101n), msg('%RETRY%cg_T', 0, 7n)];
  applyPopResult(
    raw({ startOffsetInfo: '0 1 100;1 0 7', msgOffsetInfo: '0 1 100,101;1 0 7' }),
    msgs,
    'broker-a',
    'T',
    false,
  );
  assert.deepEqual(
    msgs.map((m) => m.properties.get('POP_CK')),
    [
      '100 1700000000000 60000 3 0 broker-a 1 100',
      '100 1700000000000 60000 3 0 broker-a 1 101',
      '7 1700000000000 60000 3 1 broker-a 0 7',
    ],
  );
  for (const m of msgs) {
    assert.equal(m.properties.get('1ST_POP_TIME'), '1700000000000');
    assert.equal(m.brokerName, 'broker-a');
    assert.equal(m.topic, 'T');
  }
});

test('without info strings: the first offset of each queue is the checkpoint start', () => {
  const msgs = [msg('T', 2, 50n), msg('T', 2, 52n)];
  applyPopResult(raw({}), msgs, 'b', 'T', false);
  assert.deepEqual(
    msgs.map((m) => m.properties.get('POP_CK')),
    ['50 1700000000000 60000 3 0 b 2 50', '50 1700000000000 60000 3 0 b 2 52'],
  );
});

test('a handle set by the broker and an earlier 1ST_POP_TIME are kept', () => {
  const handle = '9 1699999990000 60000 3 1 b 0 9';
  const m = msg('T', 0, 9n, { POP_CK: handle, '1ST_POP_TIME': '1690000000000' });
  applyPopResult(raw({ startOffsetInfo: '1 0 9', msgOffsetInfo: '1 0 9' }), [m], 'b', 'T', false);
  assert.equal(m.properties.get('POP_CK'), handle);
  assert.equal(m.properties.get('1ST_POP_TIME'), '1690000000000');
});

test('malformed info strings throw (the pop fails, nothing is acked)', () => {
  assert.throws(() =>
    applyPopResult(raw({ startOffsetInfo: 'garbage' }), [msg('T', 0, 1n)], 'b', 'T', false),
  );
});

test('popDelayLevel: by reconsumeTimes when the level is 0, capped at the last, negative = first', () => {
  assert.equal(popDelaySeconds(0, 0), 10);
  assert.equal(popDelaySeconds(0, 3), 120);
  assert.equal(popDelaySeconds(2, 0), 60);
  assert.equal(popDelaySeconds(0, 99), 7200);
  assert.equal(popDelaySeconds(-1, 0), 10);
});
