/** KVTable against the official bytes. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { RemotingCommandError } from '../../../src/common/errors.js';
import { javaHashMapOrder } from '../../../src/common/fastjson/index.js';
import { decodeKVTable, encodeKVTable } from '../../../src/common/protocol/kv-table.js';
import { goldenFile } from '../../golden-fixtures.js';

describe('KVTable (golden)', () => {
  const bytes = goldenFile('bodies/kv-table.json');
  const content = new Map([
    ['broker-a', '4'],
    ['brokerVersionDesc', 'V4_9_8'],
    ['note', 'naïve "quoted" \\ 订单'],
  ]);

  test('decodes, and re-encodes byte for byte in the order read', () => {
    const table = decodeKVTable(bytes);
    assert.deepEqual(Object.fromEntries(table), Object.fromEntries(content));
    assert.equal(encodeKVTable(table).toString('hex'), bytes.toString('hex'));
  });

  test('the entries put in insertion order and sorted as Java iterates give the same bytes', () => {
    const ordered = new Map(javaHashMapOrder([...content.keys()]).map((k) => [k, content.get(k) ?? '']));
    assert.equal(encodeKVTable(ordered).toString('hex'), bytes.toString('hex'));
  });

  test('empty and malformed tables', () => {
    assert.equal(encodeKVTable(new Map()).toString(), '{"table":{}}');
    assert.equal(decodeKVTable(Buffer.from('{}')).size, 0);
    assert.throws(() => decodeKVTable(Buffer.from('{"table":{"a":1}}')), /table\.a: not a string/);
    assert.throws(() => decodeKVTable(Buffer.concat([bytes, bytes])), RemotingCommandError);
    assert.throws(() => decodeKVTable(bytes.subarray(0, bytes.length - 1)), RemotingCommandError);
    assert.throws(() => decodeKVTable(undefined), /KVTable: the body is empty/);
  });
});
