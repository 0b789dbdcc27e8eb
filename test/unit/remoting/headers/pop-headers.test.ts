/**
 * The POP headers against 5.5.0's classes: field order as the 5.5.0 `RemotingCommand.getClazzFields`
 * returns it (printed by running it on rocketmq-remoting-5.5.0.jar), required fields, defaults.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  decodeHeader,
  encodeHeader,
  HeaderFieldError,
} from '../../../../src/remoting/protocol/header-schema.js';
import {
  ChangeInvisibleTimeRequestHeader,
  isPopTimeoutTooMuch,
  NotificationResponseHeader,
  PopMessageRequestHeader,
  popHeaderSchemas,
} from '../../../../src/remoting/protocol/headers/pop-headers.js';

const JAVA_ORDER: Record<string, string> = {
  PopMessageRequestHeader:
    'pollTime bornTime ns topic expType exp consumerGroup lo order attemptId invisibleTime queueId maxMsgNums bname oway initMode nsd',
  PopMessageResponseHeader:
    'restNum popTime orderCountInfo reviveQid msgOffsetInfo invisibleTime startOffsetInfo',
  AckMessageRequestHeader: 'consumerGroup extraInfo ns bname liteTopic oway topic offset lo queueId nsd',
  ChangeInvisibleTimeRequestHeader:
    'ns extraInfo consumerGroup topic liteTopic lo offset queueId bname invisibleTime suspend oway nsd',
  ChangeInvisibleTimeResponseHeader: 'invisibleTime popTime reviveQid',
  NotificationRequestHeader:
    'ns queueId lo exp consumerGroup order attemptId bname topic oway expType pollTime bornTime nsd',
  NotificationResponseHeader: 'hasMsg pollingFull',
  PeekMessageRequestHeader: 'consumerGroup ns bname oway topic maxMsgNums lo queueId nsd',
  PollingInfoRequestHeader: 'consumerGroup topic ns bname oway queueId lo nsd',
  PollingInfoResponseHeader: 'pollingNum',
};

describe('POP headers (5.5.0)', () => {
  for (const [name, schema] of Object.entries(popHeaderSchemas)) {
    test(`${name}: Java's field order`, () => {
      assert.equal(schema.javaOrder.map((f) => f.key).join(' '), JAVA_ORDER[name]);
    });
  }

  test('PopMessageRequestHeader: primitives always written, order defaults to false, bname kept', () => {
    const ext = encodeHeader(PopMessageRequestHeader, {
      consumerGroup: 'G',
      topic: 'T',
      queueId: -1,
      maxMsgNums: 32,
      invisibleTime: 60000n,
      pollTime: 15000n,
      bornTime: 1700000000000n,
      initMode: 1,
      bname: 'broker-a',
    });
    assert.deepEqual(Object.keys(ext), [
      'pollTime',
      'bornTime',
      'topic',
      'consumerGroup',
      'order',
      'invisibleTime',
      'queueId',
      'maxMsgNums',
      'bname',
      'initMode',
    ]);
    assert.equal(ext.order, 'false');
    const back = decodeHeader(PopMessageRequestHeader, { ...ext, ns: 'x', unknown: '1' });
    assert.equal(back.queueId, -1);
    assert.equal(back.order, false);
    assert.equal(back.ns, 'x');
    assert.equal(back.invisibleTime, 60000n);
  });

  test('missing required fields fail with upstream text', () => {
    assert.throws(
      () => decodeHeader(PopMessageRequestHeader, { consumerGroup: 'G', topic: 'T' }),
      (e: unknown) => e instanceof HeaderFieldError && e.message === 'the custom field <queueId> is null',
    );
    assert.throws(
      () => decodeHeader(ChangeInvisibleTimeRequestHeader, { consumerGroup: 'G' }),
      HeaderFieldError,
    );
  });

  test('ChangeInvisibleTimeRequestHeader writes 5.5.0 suspend=false; NotificationResponseHeader both flags', () => {
    const ext = encodeHeader(ChangeInvisibleTimeRequestHeader, {
      consumerGroup: 'G',
      topic: 'T',
      queueId: 0,
      extraInfo: '0 1 2 3 0 b 0 5',
      offset: 5n,
      invisibleTime: 1000n,
    });
    assert.equal(ext.suspend, 'false');
    assert.deepEqual(encodeHeader(NotificationResponseHeader, { hasMsg: true }), {
      hasMsg: 'true',
      pollingFull: 'false',
    });
  });

  test('isTimeoutTooMuch: now - bornTime - pollTime > 500', () => {
    const h = { bornTime: 10_000n, pollTime: 1_000n };
    assert.equal(isPopTimeoutTooMuch(h, 11_500), false);
    assert.equal(isPopTimeoutTooMuch(h, 11_501), true);
  });
});
