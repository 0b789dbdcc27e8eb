/**
 * The extFields key order is cached per key set; the cache key must tell every key set apart, or a
 * header with odd keys (a peer may send any) makes a later header with other keys lose its fields.
 * Found by `npm run fuzz -- --targets json-header` (seed 20261203).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createRequest, SerializeType } from '../../../src/remoting/protocol/command.js';
import { encodeHeader } from '../../../src/remoting/protocol/frame.js';
import { decodeJsonHeader } from '../../../src/remoting/protocol/json-header.js';
import { decodeRocketMQHeader } from '../../../src/remoting/protocol/rocketmq-header.js';

function roundTrip(extFields: Record<string, string>, serializeType: SerializeType): Record<string, string> {
  const cmd = createRequest(10, { extFields, serializeType });
  const header = encodeHeader(cmd);
  const decoded =
    serializeType === SerializeType.JSON
      ? decodeJsonHeader(header, undefined)
      : decodeRocketMQHeader(header, undefined);
  return decoded.extFields ?? {};
}

for (const type of [SerializeType.JSON, SerializeType.ROCKETMQ]) {
  test(`extFields (${type === SerializeType.JSON ? 'JSON' : 'ROCKETMQ'}): a key with a NUL does not stand for two keys`, () => {
    assert.deepEqual(roundTrip({ 'topicX\u0000queueIdX': '1' }, type), { 'topicX\u0000queueIdX': '1' });
    assert.deepEqual(roundTrip({ topicX: 'T', queueIdX: '0' }, type), { topicX: 'T', queueIdX: '0' });
    assert.deepEqual(roundTrip({ 'a\u0000b': '1' }, type), { 'a\u0000b': '1' });
  });
}

test('extFields (JSON): one empty key is not the empty map', () => {
  assert.deepEqual(roundTrip({}, SerializeType.JSON), {});
  assert.deepEqual(roundTrip({ '': 'v' }, SerializeType.JSON), { '': 'v' });
});
