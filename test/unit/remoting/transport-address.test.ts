import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ValidationError } from '../../../src/common/errors.js';
import { formatAddress, parseAddress } from '../../../src/remoting/transport/index.js';

test('parseAddress reads host:port, bracketed IPv6 and Java-style bare IPv6', () => {
  assert.deepEqual(parseAddress('127.0.0.1:9876'), { host: '127.0.0.1', port: 9876 });
  assert.deepEqual(parseAddress('broker-a.example:10911'), { host: 'broker-a.example', port: 10911 });
  assert.deepEqual(parseAddress('[::1]:9876'), { host: '::1', port: 9876 });
  assert.deepEqual(parseAddress('0:0:0:0:0:0:0:1:10911'), { host: '0:0:0:0:0:0:0:1', port: 10911 });
  assert.deepEqual(parseAddress('h:0'), { host: 'h', port: 0 });
  assert.deepEqual(parseAddress('h:65535'), { host: 'h', port: 65535 });
});

test('parseAddress names the address it rejects', () => {
  for (const bad of [
    '',
    'host',
    ':9876',
    'host:',
    'host:65536',
    'host:12ab',
    'host:-1',
    '[::1:9876',
    '[]:1',
    'h: 1',
  ]) {
    assert.throws(
      () => parseAddress(bad),
      (e: unknown) => e instanceof ValidationError && e.message.includes(`"${bad}"`),
      bad,
    );
  }
});

test('formatAddress brackets IPv6 and unmaps IPv4-mapped hosts', () => {
  assert.equal(formatAddress('127.0.0.1', 10911), '127.0.0.1:10911');
  assert.equal(formatAddress('::1', 9876), '[::1]:9876');
  assert.equal(formatAddress('::ffff:10.0.0.7', 1234), '10.0.0.7:1234');
  assert.equal(formatAddress('::ffff:a00:7', 1234), '[::ffff:a00:7]:1234');
});
