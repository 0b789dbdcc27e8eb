/**
 * The message properties string as the official 4.9.8 MessageDecoder writes and reads it
 * (messageProperties2String / string2messageProperties). The parser accepts any text (Java's does too),
 * so there is no malformed input to refuse here.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  javaPropertiesOrder,
  messageProperties2String,
  string2messageProperties,
} from '../../../src/common/message/index.js';
import { goldenManifest } from '../../golden-fixtures.js';

const golden = goldenManifest().properties;

describe('golden messageProperties2String', () => {
  for (const g of golden.toString) {
    test(`${g.name}: ${g.description}`, () => {
      assert.equal(Buffer.from(g.string, 'utf8').toString('hex'), g.utf8Hex);
      // Java maps may hold null keys and values; our type rules them out, but a caller without types
      // can still pass them, and the result must then be Java's ("null" key written, null value skipped).
      const map =
        g.entries === null
          ? undefined
          : (new Map(g.entries) as unknown as ReadonlyMap<string, string> | undefined);
      assert.equal(messageProperties2String(map), g.string);
      assert.deepEqual(Object.fromEntries(string2messageProperties(g.string)), g.parsedBack);
    });
  }

  test('a HashMap: our model of its iteration order gives Java order from the keys alone', () => {
    const g = golden.toString.find((t) => t.name === 'hashmap-typical');
    assert.ok(g?.entries);
    // No two of these keys share a bucket, so any insertion order gives Java's iteration order.
    for (const inserted of [[...g.entries].reverse(), [...g.entries].sort()]) {
      const map = new Map(inserted.map(([k, v]) => [String(k), String(v)]));
      assert.equal(messageProperties2String(javaPropertiesOrder(map)), g.string);
    }
  });
});

describe('golden string2messageProperties', () => {
  for (const g of golden.fromString) {
    test(g.name, () => {
      assert.equal(Buffer.from(g.input, 'utf8').toString('hex'), g.inputUtf8Hex);
      assert.deepEqual(Object.fromEntries(string2messageProperties(g.input)), g.result);
    });
  }
});
