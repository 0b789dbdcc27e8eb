import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  javaPropertiesOrder,
  messageProperties2String,
  string2messageProperties,
} from '../../../src/common/message/index.js';

const S1 = '\u0001';
const S2 = '\u0002';

function parsed(s: string): [string, string][] {
  return [...string2messageProperties(s)];
}

describe('properties string', () => {
  test('encode joins name\\u0001value with \\u0002 and no trailing separator (4.9.8 deletes the last one)', () => {
    const m = new Map([
      ['A', 'B'],
      ['C', 'D'],
    ]);
    assert.equal(messageProperties2String(m), `A${S1}B${S2}C${S1}D`);
    assert.equal(messageProperties2String(new Map([['K', 'V']])), `K${S1}V`);
    assert.equal(messageProperties2String(new Map()), '');
    assert.equal(messageProperties2String(undefined), '');
  });

  test('an empty value is written (Java writes it) but dropped on parse', () => {
    const s = messageProperties2String(
      new Map([
        ['K', ''],
        ['A', 'B'],
      ]),
    );
    assert.equal(s, `K${S1}${S2}A${S1}B`);
    assert.deepEqual(parsed(s), [['A', 'B']]);
  });

  test('parse keeps well-formed pairs', () => {
    assert.deepEqual(parsed(`A${S1}B`), [['A', 'B']]);
    assert.deepEqual(parsed(`KEYS${S1}k1 k2${S2}TAGS${S1}TagA`), [
      ['KEYS', 'k1 k2'],
      ['TAGS', 'TagA'],
    ]);
    assert.deepEqual(parsed(`名${S1}值`), [['名', '值']]);
  });

  test('parse drop rules', () => {
    assert.deepEqual(parsed(''), []);
    assert.deepEqual(parsed(`A${S1}`), [], 'empty value');
    assert.deepEqual(parsed(`${S1}B`), [], 'empty name');
    assert.deepEqual(parsed(`${S1}BC`), [], 'empty name, 3 characters');
    assert.deepEqual(parsed('ABC'), [], 'no name/value separator');
    assert.deepEqual(
      parsed(`A${S1}B${S2}${S2}C${S1}D`),
      [
        ['A', 'B'],
        ['C', 'D'],
      ],
      'empty segment',
    );
    assert.deepEqual(parsed(`A${S1}B${S2}`), [['A', 'B']], 'trailing separator');
    assert.deepEqual(parsed(`${S2}A${S1}B`), [['A', 'B']], 'leading separator');
    assert.deepEqual(parsed(`xy${S2}A${S1}B`), [['A', 'B']], 'segment shorter than 3');
  });

  test('the name/value separator is searched from the segment start, even past its end', () => {
    // Segment "ABC" has no \u0001; the first one found is in the next segment, so "ABC" is dropped.
    assert.deepEqual(parsed(`ABC${S2}D${S1}E`), [['D', 'E']]);
  });

  test('a value keeps later \\u0001 characters; duplicates keep the last value', () => {
    assert.deepEqual(parsed(`A${S1}B${S1}C`), [['A', `B${S1}C`]]);
    assert.deepEqual(parsed(`A${S1}1${S2}A${S1}2`), [['A', '2']]);
  });

  test('parse(encode(parse(s))) equals parse(s)', () => {
    const s = `A${S1}B${S1}C${S2}${S1}x${S2}K${S1}${S2}é${S1}ü`;
    const once = string2messageProperties(s);
    assert.deepEqual(string2messageProperties(messageProperties2String(once)), once);
  });
});

describe('Java HashMap order', () => {
  test('bucket order of String.hashCode spread over 16 slots', () => {
    // Buckets: KEYS 7, UNIQ_KEY 12, WAIT 13, TAGS 14 (h ^ h>>>16, & 15). The order a 4.9.8 producer's
    // Message(topic, "TagA", "OrderID188", body) + UNIQ_KEY sends.
    const m = new Map([
      ['TAGS', 'TagA'],
      ['KEYS', 'OrderID188'],
      ['WAIT', 'true'],
      ['UNIQ_KEY', '7F0000010A2C18B4AAC2336B6E8D0000'],
    ]);
    assert.deepEqual([...javaPropertiesOrder(m).keys()], ['KEYS', 'UNIQ_KEY', 'WAIT', 'TAGS']);
  });

  test('same bucket keeps insertion order', () => {
    // MIN_OFFSET 0, MAX_OFFSET 6, CONSUME_START_TIME 9, UNIQ_KEY and CLUSTER both 12, WAIT 13, TAGS 14.
    const names = ['TAGS', 'WAIT', 'CLUSTER', 'UNIQ_KEY', 'CONSUME_START_TIME', 'MAX_OFFSET', 'MIN_OFFSET'];
    const m = new Map(names.map((n) => [n, 'v']));
    assert.deepEqual(
      [...javaPropertiesOrder(m).keys()],
      ['MIN_OFFSET', 'MAX_OFFSET', 'CONSUME_START_TIME', 'CLUSTER', 'UNIQ_KEY', 'WAIT', 'TAGS'],
    );
  });

  test('the table doubles after 12 entries, which reorders', () => {
    // Single characters hash to their code: 'p' = 112 (slot 0 of 16, 16 of 32), 'a'..'k' = 97..107.
    const twelve = new Map([...'abcdefghijkp'].map((c) => [c, c]));
    assert.deepEqual([...javaPropertiesOrder(twelve).keys()].join(''), 'pabcdefghijk');
    const thirteen = new Map([...'abcdefghijkpq'].map((c) => [c, c]));
    assert.deepEqual([...javaPropertiesOrder(thirteen).keys()].join(''), 'abcdefghijkpq');
  });
});
