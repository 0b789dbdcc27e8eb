/**
 * Values that fit JavaScript: a Message takes a string, a Buffer or any Uint8Array as its body, and
 * messages and send results go through JSON.stringify (bigints as numbers where exact, else strings;
 * bodies as base64; properties as an object).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { toJsonValue, withToJSON } from '../../../src/common/json-value.js';
import { Message, MessageExt } from '../../../src/common/message/message.js';
import { MessageQueue } from '../../../src/common/message/message-queue.js';

test('new Message(topic, string | Buffer | Uint8Array)', () => {
  assert.equal(new Message('T', 'héllo').body.toString('utf8'), 'héllo');
  const bytes = new Uint8Array([0, 1, 2, 3, 4]).subarray(1, 4);
  const fromView = new Message('T', bytes).body;
  assert.ok(Buffer.isBuffer(fromView));
  assert.deepEqual([...fromView], [1, 2, 3]);
  const buffer = Buffer.from('raw');
  assert.equal(new Message('T', buffer).body, buffer, 'a Buffer is kept as it is');
});

test('JSON.stringify(MessageExt): offsets as numbers where exact, else strings; body base64; msgId', () => {
  const m = new MessageExt('T', 'hi', { tags: 'A', keys: 'k1' });
  m.queueOffset = 42n;
  m.commitLogOffset = 2n ** 63n - 1n;
  m.offsetMsgId = 'OFFSETID';
  const json = JSON.parse(JSON.stringify(m)) as Record<string, unknown>;
  assert.equal(json.queueOffset, 42);
  assert.equal(json.commitLogOffset, '9223372036854775807');
  assert.equal(json.body, Buffer.from('hi').toString('base64'));
  assert.equal((json.properties as Record<string, string>).TAGS, 'A');
  assert.equal(json.msgId, 'OFFSETID');
  assert.equal(toJsonValue(BigInt(Number.MAX_SAFE_INTEGER) + 1n), '9007199254740992');
  assert.equal(toJsonValue(-5n), -5);
});

test('a send result stringifies; its toJSON is invisible to copies and deepEqual', () => {
  const result = withToJSON({ msgId: 'M', queueOffset: 7n, messageQueue: new MessageQueue('T', 'b', 1) });
  assert.deepEqual(JSON.parse(JSON.stringify(result)), {
    msgId: 'M',
    queueOffset: 7,
    messageQueue: { topic: 'T', brokerName: 'b', queueId: 1 },
  });
  assert.deepEqual(
    { ...result },
    { msgId: 'M', queueOffset: 7n, messageQueue: new MessageQueue('T', 'b', 1) },
  );
});
