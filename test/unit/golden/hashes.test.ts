/**
 * String hashes recorded from the official 4.9.8 code: String.hashCode, the consume-queue tagsCode
 * (MessageExtBrokerInner.tagsString2tagsCode) and the index-file key hash and slot (IndexFile).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { javaStringHashCode } from '../../../src/common/java-hash.js';
import {
  buildIndexKey,
  indexKeyHash,
  tagsCodeToInt,
  tagsString2tagsCode,
} from '../../../src/common/message/index.js';
import { goldenManifest } from '../../golden-fixtures.js';

const hashes = goldenManifest().hashes;
/** IndexFile's default hashSlotNum (MessageStoreConfig.maxHashSlotNum). */
const HASH_SLOT_NUM = 5_000_000;

function codeUnits(s: string): number[] {
  const out: number[] = [];
  for (let i = 0; i < s.length; i++) out.push(s.charCodeAt(i));
  return out;
}

describe('golden tag hashes', () => {
  test('the manifest covers empty, colliding, non-BMP, lone-surrogate and Integer.MIN_VALUE hashes', () => {
    assert.ok(hashes.tags.some((g) => g.string === ''));
    assert.ok(hashes.tags.some((g) => g.hashCode === -2147483648));
    assert.ok(hashes.tags.some((g) => g.string === '\ud800'));
  });

  for (const g of hashes.tags) {
    const label =
      g.string.length > 20 ? `${g.string.slice(0, 20)}... (${g.length})` : JSON.stringify(g.string);
    test(label, () => {
      // The JSON text is the same UTF-16 string Java hashed, lone surrogates included.
      assert.equal(g.string.length, g.length);
      if (g.utf16 !== null) assert.deepEqual(codeUnits(g.string), g.utf16);
      assert.equal(javaStringHashCode(g.string), g.hashCode);
      assert.equal(tagsString2tagsCode(g.string), BigInt(g.tagsCode));
      assert.equal(tagsCodeToInt(BigInt(g.tagsCode)), g.hashCode);
    });
  }

  test('an absent TAGS property has tagsCode 0, as an empty one does', () => {
    const empty = hashes.tags.find((g) => g.string === '');
    assert.ok(empty);
    assert.equal(tagsString2tagsCode(undefined), BigInt(empty.tagsCode));
  });
});

describe('golden index key hashes (IndexFile)', () => {
  for (const g of hashes.index) {
    test(g.indexKey, () => {
      assert.equal(buildIndexKey(g.topic, g.key), g.indexKey);
      assert.equal(Buffer.from(g.indexKey, 'utf8').toString('hex'), g.indexKeyUtf8Hex);
      assert.equal(javaStringHashCode(g.indexKey), g.hashCode);
      assert.equal(indexKeyHash(g.indexKey), g.keyHash);
      assert.equal(indexKeyHash(g.indexKey) % HASH_SLOT_NUM, g.slotIndex);
    });
  }

  test('the manifest covers a key hashing to Integer.MIN_VALUE (keyHash 0)', () => {
    assert.ok(hashes.index.some((g) => g.hashCode === -2147483648 && g.keyHash === 0));
  });
});
