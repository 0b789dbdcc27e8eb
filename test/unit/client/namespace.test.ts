/**
 * Namespaces as upstream NamespaceUtil (4.9.8) has them: plain, retry and dead-letter resources are
 * wrapped and unwrapped, system topics and CID_RMQ_SYS_ groups never.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  isAlreadyWithNamespace,
  isDLQTopic,
  isRetryTopic,
  stripNamespace,
  withoutNamespace,
  wrapNamespace,
  wrapNamespaceAndRetry,
} from '../../../src/client/namespace.js';
import { prng } from '../message/annotated.js';

const SYSTEM = [
  'TBW102',
  'SCHEDULE_TOPIC_XXXX',
  'BenchmarkTest',
  'RMQ_SYS_TRANS_HALF_TOPIC',
  'RMQ_SYS_TRACE_TOPIC',
  'RMQ_SYS_TRANS_OP_HALF_TOPIC',
  'TRANS_CHECK_MAX_TIME_TOPIC',
  'SELF_TEST_TOPIC',
  'OFFSET_MOVED_EVENT',
  'rmq_sys_anything',
  'CID_RMQ_SYS_TRANS',
  'CID_RMQ_SYS_mine',
];

describe('wrapNamespace', () => {
  test('plain, retry and dead-letter resources', () => {
    assert.equal(wrapNamespace('ns', 'Topic'), 'ns%Topic');
    assert.equal(wrapNamespace('ns', '%RETRY%Group'), '%RETRY%ns%Group');
    assert.equal(wrapNamespace('ns', '%DLQ%Group'), '%DLQ%ns%Group');
    // Another namespace is not ours: it gets ours in front.
    assert.equal(wrapNamespace('ns', 'other%Topic'), 'ns%other%Topic');
  });

  test('already wrapped resources stay as they are', () => {
    for (const r of ['ns%Topic', '%RETRY%ns%Group', '%DLQ%ns%Group']) {
      assert.equal(wrapNamespace('ns', r), r);
      assert.equal(isAlreadyWithNamespace(r, 'ns'), true);
    }
    assert.equal(isAlreadyWithNamespace('nsx%Topic', 'ns'), false);
    assert.equal(isAlreadyWithNamespace('Topic', 'ns'), false);
    assert.equal(isAlreadyWithNamespace('ns%Topic', undefined), false);
  });

  test('no namespace or an empty resource change nothing', () => {
    assert.equal(wrapNamespace(undefined, 'Topic'), 'Topic');
    assert.equal(wrapNamespace('', 'Topic'), 'Topic');
    assert.equal(wrapNamespace('ns', ''), '');
  });

  test('system topics and CID_RMQ_SYS_ groups are never wrapped', () => {
    for (const r of SYSTEM) {
      assert.equal(wrapNamespace('ns', r), r, r);
      assert.equal(isAlreadyWithNamespace(r, 'ns'), false, r);
    }
  });

  test('wrapNamespaceAndRetry puts %RETRY% before the wrapped group', () => {
    assert.equal(wrapNamespaceAndRetry('ns', 'Group'), '%RETRY%ns%Group');
    assert.equal(wrapNamespaceAndRetry(undefined, 'Group'), '%RETRY%Group');
    assert.equal(wrapNamespaceAndRetry('ns', 'ns%Group'), '%RETRY%ns%Group');
  });
});

describe('withoutNamespace', () => {
  test('stripNamespace removes any namespace, keeping the retry/DLQ prefix', () => {
    assert.equal(stripNamespace('ns%Topic'), 'Topic');
    assert.equal(stripNamespace('other%Topic'), 'Topic');
    assert.equal(stripNamespace('%RETRY%ns%Group'), '%RETRY%Group');
    assert.equal(stripNamespace('%DLQ%ns%Group'), '%DLQ%Group');
    assert.equal(stripNamespace('a%b%c'), 'b%c');
    assert.equal(stripNamespace('Topic'), 'Topic');
    assert.equal(stripNamespace('%RETRY%Group'), '%RETRY%Group');
    // A separator in first place is no namespace (upstream's `index > 0`).
    assert.equal(stripNamespace('%Topic'), '%Topic');
    assert.equal(stripNamespace(''), '');
    for (const r of SYSTEM) assert.equal(stripNamespace(r), r, r);
  });

  test('withoutNamespace removes only the namespace given', () => {
    assert.equal(withoutNamespace('ns%Topic', 'ns'), 'Topic');
    assert.equal(withoutNamespace('%RETRY%ns%Group', 'ns'), '%RETRY%Group');
    assert.equal(withoutNamespace('%DLQ%ns%Group', 'ns'), '%DLQ%Group');
    assert.equal(withoutNamespace('other%Topic', 'ns'), 'other%Topic');
    assert.equal(withoutNamespace('nsx%Topic', 'ns'), 'nsx%Topic');
    assert.equal(withoutNamespace('ns%Topic', undefined), 'ns%Topic');
    assert.equal(withoutNamespace('ns%Topic', ''), 'ns%Topic');
    assert.equal(withoutNamespace('', 'ns'), '');
  });

  test('wrapping then unwrapping gives the resource back', () => {
    const rnd = prng(7);
    const chars = 'abcXYZ019_-|';
    for (let i = 0; i < 300; i++) {
      let name = '';
      const length = 1 + Math.floor(rnd() * 12);
      for (let j = 0; j < length; j++) name += chars[Math.floor(rnd() * chars.length)];
      const prefix = ['', '%RETRY%', '%DLQ%'][i % 3] as string;
      const resource = prefix + name;
      const wrapped = wrapNamespace('ns_1', resource);
      assert.equal(wrapped, `${prefix}ns_1%${name}`);
      assert.equal(withoutNamespace(wrapped, 'ns_1'), resource);
      assert.equal(stripNamespace(wrapped), resource);
      assert.equal(wrapNamespace('ns_1', wrapped), wrapped);
    }
  });
});

describe('retry and DLQ topics', () => {
  test('recognised by prefix', () => {
    assert.equal(isRetryTopic('%RETRY%G'), true);
    assert.equal(isRetryTopic('G%RETRY%'), false);
    assert.equal(isRetryTopic(''), false);
    assert.equal(isDLQTopic('%DLQ%G'), true);
    assert.equal(isDLQTopic('%RETRY%G'), false);
    assert.equal(isDLQTopic(''), false);
  });
});
