/** SubscriptionGroupConfig (golden defaults and custom bodies) and the subscriptionGroup.json wrapper. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { RemotingCommandError } from '../../../src/common/errors.js';
import { parseFastjson } from '../../../src/common/fastjson/index.js';
import {
  createSubscriptionGroupConfig,
  decodeSubscriptionGroupConfig,
  decodeSubscriptionGroupWrapper,
  encodeSubscriptionGroupConfig,
  encodeSubscriptionGroupWrapper,
} from '../../../src/common/protocol/subscription-group-config.js';
import { goldenFile } from '../../golden-fixtures.js';

describe('SubscriptionGroupConfig', () => {
  test('defaults: the official bytes of a config with only a name', () => {
    const golden = goldenFile('bodies/subscription-group-config.defaults.json');
    assert.equal(
      encodeSubscriptionGroupConfig(createSubscriptionGroupConfig('cg-golden')).toString(),
      golden.toString(),
    );
    assert.deepEqual(decodeSubscriptionGroupConfig(golden), createSubscriptionGroupConfig('cg-golden'));
  });

  test('custom values both ways', () => {
    const golden = goldenFile('bodies/subscription-group-config.custom.json');
    const expected = createSubscriptionGroupConfig('cg-custom', {
      consumeBroadcastEnable: false,
      retryMaxTimes: 3,
      retryQueueNums: 2,
      brokerId: 1n,
      whichBrokerWhenConsumeSlowly: 2n,
      notifyConsumerIdsChangedEnable: false,
    });
    assert.deepEqual(decodeSubscriptionGroupConfig(golden), expected);
    assert.equal(encodeSubscriptionGroupConfig(expected).toString(), golden.toString());
  });

  test('absent fields take the Java defaults; a missing name is refused', () => {
    assert.deepEqual(
      decodeSubscriptionGroupConfig(Buffer.from('{"groupName":"g","retryQueueNums":3}')),
      createSubscriptionGroupConfig('g', { retryQueueNums: 3 }),
    );
    assert.throws(
      () => decodeSubscriptionGroupConfig(Buffer.from('{"retryQueueNums":3}')),
      /groupName: missing/,
    );
    assert.throws(() => decodeSubscriptionGroupConfig(undefined), RemotingCommandError);
  });
});

describe('SubscriptionGroupWrapper (subscriptionGroup.json)', () => {
  const wrapper = {
    dataVersion: { counter: 3n, timestamp: 1700000000123n },
    subscriptionGroupTable: new Map([
      ['g1', createSubscriptionGroupConfig('g1')],
      ['g2', createSubscriptionGroupConfig('g2', { retryQueueNums: 2 })],
    ]),
  };

  test('compact and pretty forms read back the same', () => {
    const compact = encodeSubscriptionGroupWrapper(wrapper);
    assert.match(
      compact,
      /^\{"dataVersion":\{"counter":3,"timestamp":1700000000123\},"subscriptionGroupTable":\{"g1":\{/,
    );
    const pretty = encodeSubscriptionGroupWrapper(wrapper, { pretty: true });
    assert.match(pretty, /^\{\n\t"dataVersion":\{\n\t\t"counter":3,/);
    for (const text of [compact, pretty]) {
      assert.deepEqual(decodeSubscriptionGroupWrapper(text, { timestamp: 0n }), wrapper);
    }
    assert.deepEqual(parseFastjson(compact), parseFastjson(pretty));
  });

  test('a file without a dataVersion gets version 0 at the given time', () => {
    const w = decodeSubscriptionGroupWrapper('{"subscriptionGroupTable":{}}', { timestamp: 5n });
    assert.deepEqual(w.dataVersion, { counter: 0n, timestamp: 5n });
  });

  test('errors name the source', () => {
    assert.throws(
      () =>
        decodeSubscriptionGroupWrapper(
          '{"subscriptionGroupTable":{"g":{"groupName":1}}}',
          { timestamp: 0n },
          '/x/subscriptionGroup.json',
        ),
      /\/x\/subscriptionGroup\.json: \$\.subscriptionGroupTable\.g\.groupName: not a string/,
    );
  });
});
