import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { crc32Table, messageBodyCrcOfView } from '../../../src/common/message/crc32.js';
import {
  buildIndexKey,
  crc32,
  indexKeyHash,
  javaStringHashCode,
  messageBodyCrc,
  tagsCodeToInt,
  tagsString2tagsCode,
} from '../../../src/common/message/index.js';
import { indexKeyHashOf } from '../../../src/common/message/tag-hash.js';
import { prng } from './annotated.js';

describe('Java String.hashCode', () => {
  test('ASCII, non-ASCII and surrogate pairs (UTF-16 code units)', () => {
    assert.equal(javaStringHashCode('TagA'), 2598919);
    assert.equal(javaStringHashCode(''), 0);
    assert.equal(javaStringHashCode('标签'), 0x6807 * 31 + 0x7b7e);
    assert.equal(javaStringHashCode('😀'), 0xd83d * 31 + 0xde00);
    assert.equal(javaStringHashCode('Aa'), javaStringHashCode('BB'));
    assert.equal(javaStringHashCode('hello world, this is a long tag'), 1197800641);
    assert.equal(javaStringHashCode('TopicTest#OrderID188'), -1231271670);
    assert.equal(javaStringHashCode('polygenelubricants'), -2147483648);
  });
});

describe('tag and index hashes', () => {
  test('tagsCode is the hash sign-extended to int64; empty or absent is 0', () => {
    assert.equal(tagsString2tagsCode('TagA'), 2598919n);
    assert.equal(tagsString2tagsCode('polygenelubricants'), -2147483648n);
    assert.equal(tagsString2tagsCode(''), 0n);
    assert.equal(tagsString2tagsCode(undefined), 0n);
    assert.equal(tagsCodeToInt(-1231271670n), -1231271670);
    assert.equal(tagsCodeToInt(0xffffffffn), -1);
  });

  test('index key hash is |hash| with MIN_VALUE → 0', () => {
    assert.equal(buildIndexKey('TopicTest', 'OrderID188'), 'TopicTest#OrderID188');
    assert.equal(indexKeyHash('TopicTest#OrderID188'), 1231271670);
    assert.equal(indexKeyHash('TagA'), 2598919);
    assert.equal(indexKeyHash('polygenelubricants'), 0);
    assert.equal(indexKeyHashOf(javaStringHashCode('TopicTest#OrderID188')), 1231271670);
    assert.equal(indexKeyHashOf(-2147483648), 0);
    assert.equal(indexKeyHashOf(2147483647), 2147483647);
  });
});

describe('CRC32', () => {
  test('check value and the 0x7FFFFFFF mask', () => {
    const data = Buffer.from('123456789');
    assert.equal(crc32(data), 0xcbf43926);
    assert.equal(crc32Table(data), 0xcbf43926);
    assert.equal(messageBodyCrc(data), 0x4bf43926);
    assert.equal(messageBodyCrc(Buffer.from('xx123456789yy'), 2, 11), 0x4bf43926);
    assert.equal(messageBodyCrc(Buffer.alloc(0)), 0);
  });

  test('the CRC of a view range agrees with messageBodyCrc at every length and alignment', () => {
    const rnd = prng(11);
    const data = Buffer.alloc(2000);
    for (let j = 0; j < data.length; j++) data[j] = Math.floor(rnd() * 256);
    // A view that does not start at its ArrayBuffer's first byte, as a Buffer from the pool does not.
    const inner = data.subarray(3);
    const view = new DataView(inner.buffer, inner.byteOffset, inner.length);
    for (const length of [0, 1, 15, 16, 17, 31, 32, 33, 127, 128, 129, 511, 512, 513, 1024, 1500]) {
      for (const start of [0, 1, 2, 3, 5, 8, 13]) {
        assert.equal(
          messageBodyCrcOfView(view, start, start + length),
          messageBodyCrc(inner, start, start + length),
          `${length} bytes from ${start}`,
        );
      }
    }
    const check = Uint8Array.from(Buffer.from('123456789'));
    assert.equal(messageBodyCrcOfView(new DataView(check.buffer), 0, 9), 0x4bf43926);
  });

  test('the table fallback agrees with the native one', () => {
    const rnd = prng(7);
    for (let i = 0; i < 200; i++) {
      const b = Buffer.alloc(Math.floor(rnd() * 300));
      for (let j = 0; j < b.length; j++) b[j] = Math.floor(rnd() * 256);
      assert.equal(crc32Table(b), crc32(b));
    }
  });
});
