/**
 * HashMap iteration orders. The small cases are worked out by hand in the comments (String.hashCode of
 * a one-char string is its code unit; spread h ^ h >>> 16 leaves values below 65536 unchanged); the
 * larger ones were recorded from `new HashMap<>()` + `put` + `keySet()` on OpenJDK 17.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ValidationError } from '../../../src/common/errors.js';
import {
  JAVA_INTEGER_KEY,
  JAVA_LONG_KEY,
  javaHashMapIterationOrder,
  javaHashMapOrder,
  javaLongHashCode,
} from '../../../src/common/fastjson/index.js';

describe('javaHashMapOrder', () => {
  test('one-char keys: bucket = code unit & 15', () => {
    // q=113 -> 1, a=97 -> 1, p=112 -> 0: bucket 0 first, then bucket 1 in insertion order.
    assert.deepEqual(javaHashMapOrder(['q', 'a', 'p']), ['p', 'q', 'a']);
    assert.deepEqual(javaHashMapOrder([]), []);
  });

  test('colliding keys stay in insertion order within their bucket', () => {
    // "Aa" = 65*31+97 = 2112 = "BB" = 66*31+66; 2112 & 15 = 0. "c" = 99 -> 3.
    assert.deepEqual(javaHashMapOrder(['c', 'BB', 'Aa']), ['BB', 'Aa', 'c']);
    assert.deepEqual(javaHashMapOrder(['Aa', 'c', 'BB']), ['Aa', 'BB', 'c']);
  });

  test('a key put again keeps its first place', () => {
    assert.deepEqual(javaHashMapOrder(['a', 'p', 'a', 'p']), ['p', 'a']);
  });

  test('the table doubles when size exceeds 0.75 * capacity', () => {
    // 12 keys fit 16 buckets: p (112 & 15 = 0) comes first.
    const twelve = ['p', 'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j', 'k'];
    assert.deepEqual(javaHashMapOrder(twelve), ['p', 'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j', 'k']);
    // The 13th put resizes to 32: a..l are buckets 1..12, p = 112 & 31 = 16 comes last.
    assert.deepEqual(javaHashMapOrder([...twelve, 'l']), [
      'a',
      'b',
      'c',
      'd',
      'e',
      'f',
      'g',
      'h',
      'i',
      'j',
      'k',
      'l',
      'p',
    ]);
  });

  test('initial capacity (new HashMap<>(4))', () => {
    // 4 buckets, threshold 3: b=98&3=2, a=97&3=1, c=99&3=3; putting q makes 4 > 3, so 8 buckets (threshold 6):
    // a=1, q=113&7=1, b=2, c=3, d=100&7=4.
    assert.deepEqual(javaHashMapOrder(['b', 'a', 'c', 'q', 'd'], { initialCapacity: 4 }), [
      'a',
      'q',
      'b',
      'c',
      'd',
    ]);
    assert.throws(() => javaHashMapOrder(['a'], { initialCapacity: 2 ** 30 }), ValidationError);
  });

  test('RocketMQ-like names (recorded)', () => {
    const keys = [
      'topicA',
      'topicB',
      '%RETRY%g',
      'Aa',
      'BB',
      'c',
      'zz',
      'TBW102',
      'SELF_TEST_TOPIC',
      'OFFSET_MOVED_EVENT',
      'RMQ_SYS_TRANS_HALF_TOPIC',
      'broker-a',
      'DefaultCluster',
      'x',
      'y',
      'z',
      'w',
    ];
    assert.deepEqual(javaHashMapOrder(keys), [
      'Aa',
      'BB',
      'zz',
      'c',
      'RMQ_SYS_TRANS_HALF_TOPIC',
      'OFFSET_MOVED_EVENT',
      '%RETRY%g',
      'TBW102',
      'SELF_TEST_TOPIC',
      'DefaultCluster',
      'topicA',
      'topicB',
      'w',
      'x',
      'y',
      'z',
      'broker-a',
    ]);
  });

  test('a bucket of 9+ colliding keys: resizes below 64 buckets, then a tree whose root goes first (recorded)', () => {
    // Eleven 4-block strings of "Aa"/"BB" share one hash. The 9th resizes 16 -> 32, the 10th 32 -> 64,
    // the 11th turns the bucket into a red-black tree, and the root (AaBBBBBB) moves to the front.
    const colliding: string[] = [];
    for (let i = 0; i < 11; i++) {
      let s = '';
      for (let j = 0; j < 4; j++) s += ((i >> j) & 1) === 1 ? 'Aa' : 'BB';
      colliding.push(s);
    }
    assert.deepEqual(javaHashMapOrder([...colliding, 'x', 'topic']), [
      'AaBBBBBB',
      'BBBBBBBB',
      'BBAaBBBB',
      'AaAaBBBB',
      'BBBBAaBB',
      'AaBBAaBB',
      'BBAaAaBB',
      'AaAaAaBB',
      'BBBBBBAa',
      'AaBBBBAa',
      'BBAaBBAa',
      'x',
      'topic',
    ]);
  });
});

describe('javaHashMapIterationOrder for other key classes', () => {
  test('Long keys (HashMap<Long,String> brokerAddrs)', () => {
    // Long.hashCode(-1) = (int)(0xFFFFFFFFFFFFFFFF ^ 0x00000000FFFFFFFF) = 0, so -1 shares bucket 0 with 0.
    assert.equal(javaLongHashCode(-1n), 0);
    assert.equal(javaLongHashCode(1n << 32n), 1);
    assert.equal(javaLongHashCode(123456789012345), -2045923535); // recorded (Long.hashCode on OpenJDK 17)
    assert.deepEqual(javaHashMapIterationOrder([1n, -1n, 0n], JAVA_LONG_KEY), [-1n, 0n, 1n]);
    // Recorded: puts of 0, 1, -1, 1<<32, 123456789012345, -5, 17, 33.
    assert.deepEqual(
      javaHashMapIterationOrder([0n, 1n, -1n, 1n << 32n, 123456789012345n, -5n, 17n, 33n], JAVA_LONG_KEY),
      [0n, -1n, 1n, 1n << 32n, 17n, 33n, -5n, 123456789012345n],
    );
  });

  test('Integer keys', () => {
    // 16 and 0 share bucket 0; 17 and 1 bucket 1.
    assert.deepEqual(javaHashMapIterationOrder([17, 16, 1, 0], JAVA_INTEGER_KEY), [16, 0, 17, 1]);
  });

  test('colliding keys in a tree bucket need compareTo', () => {
    const keys = Array.from({ length: 70 }, (_, i) => i);
    assert.throws(() => javaHashMapIterationOrder(keys, { hashCode: () => 7 }), ValidationError);
    const ordered = javaHashMapIterationOrder(keys, { hashCode: () => 7, compareTo: (a, b) => a - b });
    assert.equal(ordered.length, 70);
    assert.deepEqual(
      [...ordered].sort((a, b) => a - b),
      keys,
    );
  });
});
