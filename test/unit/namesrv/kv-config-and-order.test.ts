/** kvConfig.json codec and the Java iteration order the name server writes its bodies in. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { RemotingCommandError } from '../../../src/common/errors.js';
import { javaHashMapOrder } from '../../../src/common/fastjson/index.js';
import { decodeKVConfig, encodeKVConfig } from '../../../src/namesrv/kvconfig/kv-config-serialize-wrapper.js';
import {
  javaLongOrder,
  javaOrderedEntries,
  javaStringOrder,
} from '../../../src/namesrv/routeinfo/java-order.js';

describe('kvConfig.json', () => {
  test('written compact, both levels in HashMap order, and read back', () => {
    const table = new Map([
      [
        'ORDER_TOPIC_CONFIG',
        new Map([
          ['TopicOrder', 'broker-a:8'],
          ['OrderB', 'broker-a:4;broker-b:4'],
        ]),
      ],
      ['ns', new Map([['k', 'naïve "v" \\ 订单']])],
    ]);
    const text = encodeKVConfig(table);
    const namespaces = javaHashMapOrder(['ORDER_TOPIC_CONFIG', 'ns']);
    assert.ok(text.startsWith(`{"configTable":{"${namespaces[0]}":`), text);
    assert.match(text, /"k":"naïve \\"v\\" \\\\ 订单"/);
    const orderKeys = javaHashMapOrder(['TopicOrder', 'OrderB']);
    assert.ok(text.indexOf(`"${orderKeys[0]}"`) < text.indexOf(`"${orderKeys[1]}"`));
    const back = decodeKVConfig(text, 'kvConfig.json');
    assert.deepEqual(
      [...back].map(([ns, kv]) => [ns, Object.fromEntries(kv)]).sort(),
      [...table].map(([ns, kv]) => [ns, Object.fromEntries(kv)]).sort(),
    );
    assert.equal(encodeKVConfig(new Map()), '{"configTable":{}}');
  });

  test('reads what Java or a hand could write; refuses the rest naming the file', () => {
    const lenient = decodeKVConfig('{"configTable":{"ns":{"a":1,"b":true,"c":null,\'d\':\'x\'}}}', 'f.json');
    assert.deepEqual(Object.fromEntries(lenient.get('ns') ?? []), { a: '1', b: 'true', d: 'x' });
    assert.equal(decodeKVConfig('{}', 'f.json').size, 0);
    for (const bad of ['{"configTable":{"ns":{"a":{}}}}', '{"configTable":[]}', '{"configTable":', 'null']) {
      assert.throws(
        () => decodeKVConfig(bad, '/data/kvConfig.json'),
        (e: unknown) => {
          assert.ok(e instanceof RemotingCommandError, bad);
          assert.match(e.message, /^\/data\/kvConfig\.json: /);
          return true;
        },
      );
    }
  });
});

describe('Java iteration order', () => {
  test('string keys: default and sized tables', () => {
    const keys = ['broker-a', 'broker-b', 'broker-c', 'zz', 'TBW102'];
    assert.deepEqual(javaStringOrder(keys), javaHashMapOrder(keys));
    assert.deepEqual(javaStringOrder(keys, 128), javaHashMapOrder(keys, { initialCapacity: 128 }));
    assert.deepEqual(javaStringOrder(['only']), ['only']);
    const map = new Map(keys.map((k, i) => [k, i]));
    assert.deepEqual(
      javaOrderedEntries(map).map(([k]) => k),
      javaHashMapOrder(keys),
    );
  });

  test('long keys (broker ids) iterate by hash bucket', () => {
    assert.deepEqual(javaLongOrder([2n, 0n, 1n]), [0n, 1n, 2n]);
    // 16 and 0 share bucket 0 of a 16-slot table: insertion order within the bucket.
    assert.deepEqual(javaLongOrder([16n, 1n, 0n]), [16n, 0n, 1n]);
  });
});
