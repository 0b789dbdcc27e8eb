import assert from 'node:assert/strict';
import { test } from 'node:test';
import { javaStringHashCode } from '../../../src/common/java-hash.js';
import { getProperty } from '../../../src/store/dispatch-request.js';
import {
  asciiJavaHash,
  continueJavaHash,
  findStoreProperties,
  STORE_PROPERTY_SLOTS,
  StoreProperty,
} from '../../../src/store/record-properties.js';

const NAMES = {
  TAGS: StoreProperty.TAGS,
  KEYS: StoreProperty.KEYS,
  UNIQ_KEY: StoreProperty.UNIQ_KEY,
} as const;

/** What findStoreProperties reports for `text`, decoded, next to what getProperty reads from it. */
function both(
  text: string,
  name: keyof typeof NAMES,
): { found: string | undefined; expected: string | undefined } {
  // Surrounding bytes that must not be read: the scan is limited to its range.
  const bytes = Buffer.concat([
    Buffer.from('TAGS\u0001x\u0002'),
    Buffer.from(text, 'utf8'),
    Buffer.from('\u0002KEYS\u0001y'),
  ]);
  const start = 7;
  const end = bytes.length - 7;
  const out = new Int32Array(STORE_PROPERTY_SLOTS + 2).fill(99);
  findStoreProperties(new DataView(bytes.buffer, bytes.byteOffset, bytes.length), start, end, out, 1);
  assert.equal(out[0], 99, 'nothing written before the slots');
  assert.equal(out[STORE_PROPERTY_SLOTS + 1], 99, 'nothing written after them');
  const from = out[1 + 2 * NAMES[name]] as number;
  const to = out[2 + 2 * NAMES[name]] as number;
  if (from < 0) assert.equal(to, -1);
  return {
    found: from < 0 ? undefined : bytes.toString('utf8', from, to),
    expected: getProperty(text, name),
  };
}

test('findStoreProperties reads TAGS, KEYS and UNIQ_KEY by the rules getProperty applies to the string', () => {
  const cases = [
    '',
    'WAIT\u0001true\u0002UNIQ_KEY\u00017F0000011A2B18B4AAC27A2C3D4E0000',
    'TAGS\u0001TagA\u0002KEYS\u0001k1 k2\u0002UNIQ_KEY\u0001U1',
    'TAGS\u0001a\u0002TAGS\u0001b', // a later duplicate wins
    'TAGS\u0001a\u0002TAGS\u0001', // an empty value is skipped
    'TAGS\u0001\u0002KEYS\u0001\u0002UNIQ_KEY\u0001',
    '\u0001x\u0002TAGSX\u0001y\u0002TAG\u0001z\u0002XTAGS\u0001w', // other names, empty name
    'TAGS', // no separator at all
    'TAGS\u0002\u0001v', // the \u0001 lies beyond the segment
    'KEYS\u0001a\u0001b', // a value holding \u0001
    'UNIQ_KEY\u0001标签\u0002TAGS\u0001😀',
    '\u0002\u0002TAGS\u0001t\u0002\u0002',
    'UNIQ_KE\u0001short\u0002UNIQ_KEYS\u0001long',
    'UNIQ_KEY\u0001u\u0002UNIQ\u0001v\u0002UNIQ_KEY\u0001',
    // Separators at every alignment of the four-byte scan.
    'a\u0002TAGS\u0001t1\u0002bb\u0002KEYS\u0001k\u0002ccc\u0002UNIQ_KEY\u0001u\u0002dddd\u0002TAGS\u0001t2',
    `KEYS\u0001${'x'.repeat(37)}\u0002\u0002TAGS\u0001${'y'.repeat(6)}`,
  ];
  for (const text of cases) {
    for (const name of Object.keys(NAMES) as Array<keyof typeof NAMES>) {
      const { found, expected } = both(text, name);
      assert.equal(found, expected, `${name} of ${JSON.stringify(text)}`);
    }
  }
});

test('asciiJavaHash continues Java hashCode over ASCII bytes and declines anything else', () => {
  const seed = continueJavaHash('#', javaStringHashCode('TopicTest'));
  const key = Buffer.from('xxOrderID188yy');
  assert.equal(asciiJavaHash(key, 2, 12, seed), javaStringHashCode('TopicTest#OrderID188'));
  assert.equal(asciiJavaHash(key, 2, 2, 0), 0);
  assert.equal(asciiJavaHash(Buffer.from('a标b'), 0, 5, 0), undefined);
  assert.equal(continueJavaHash('标签😀', javaStringHashCode('Topic#')), javaStringHashCode('Topic#标签😀'));
  assert.equal(continueJavaHash('OrderID188', seed), javaStringHashCode('TopicTest#OrderID188'));
  assert.equal(continueJavaHash('', seed), seed);
});

test('findStoreProperties agrees with getProperty on random properties strings', () => {
  const pieces = [
    'TAGS',
    'KEYS',
    'UNIQ_KEY',
    'UNIQ',
    '_KEY',
    'T',
    'a',
    'é',
    '\u0001',
    '\u0002',
    '\u0002',
    '\u0001',
  ];
  let seed = 42;
  const next = (n: number): number => {
    seed = (Math.imul(seed, 1103515245) + 12345) & 0x7fffffff;
    return seed % n;
  };
  for (let round = 0; round < 3000; round++) {
    let text = '';
    for (let i = next(14); i > 0; i--) text += pieces[next(pieces.length)];
    for (const name of Object.keys(NAMES) as Array<keyof typeof NAMES>) {
      const { found, expected } = both(text, name);
      assert.equal(found, expected, `${name} of ${JSON.stringify(text)}`);
    }
  }
});
