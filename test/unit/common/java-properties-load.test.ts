import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RocketMQError } from '../../../src/common/errors.js';
import { parseJavaProperties } from '../../../src/common/java-properties.js';

test('parses broker.conf as java.util.Properties does', () => {
  const text = [
    '# a comment',
    '! another comment',
    '',
    'brokerClusterName = DefaultCluster',
    'brokerName=broker-a',
    '  brokerId:0',
    'deleteWhen 04',
    'namesrvAddr=127.0.0.1:9876;\\',
    '    127.0.0.2:9876',
    'messageDelayLevel=1s 5s 10s',
    'empty=',
    'escaped\\ key=tab\\there \\u00e9',
    'brokerName=broker-b',
  ].join('\n');
  const props = parseJavaProperties(text);
  assert.deepEqual(
    [...props],
    [
      ['brokerClusterName', 'DefaultCluster'],
      ['brokerName', 'broker-b'],
      ['brokerId', '0'],
      ['deleteWhen', '04'],
      ['namesrvAddr', '127.0.0.1:9876;127.0.0.2:9876'],
      ['messageDelayLevel', '1s 5s 10s'],
      ['empty', ''],
      ['escaped key', 'tab\there é'],
    ],
  );
});

test('CRLF line ends, a trailing continuation and a key without value', () => {
  const props = parseJavaProperties('a=1\r\nb\r\nc=x\\');
  assert.deepEqual(
    [...props],
    [
      ['a', '1'],
      ['b', ''],
      ['c', 'x'],
    ],
  );
});

test('a malformed unicode escape is a typed error', () => {
  assert.throws(
    () => parseJavaProperties('ok=1\nbad=\\u12'),
    (err: unknown) => {
      assert.ok(err instanceof RocketMQError);
      assert.match(err.message, /\\u/);
      return true;
    },
  );
});
