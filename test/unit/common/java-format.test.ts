/** Java's number text in the runtime info: Double.toString, %.Nf, MessageFormat longs, byte counts. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  humanReadableByteCount,
  javaDoubleString,
  javaFormatFixed,
  javaGroupedLong,
} from '../../../src/common/java-format.js';

describe('javaDoubleString (String.valueOf(double))', () => {
  test('plain and scientific ranges, and the non-numbers', () => {
    assert.equal(javaDoubleString(0), '0.0');
    assert.equal(javaDoubleString(-1), '-1.0');
    assert.equal(javaDoubleString(0.43), '0.43');
    assert.equal(javaDoubleString(1 / 3), '0.3333333333333333');
    assert.equal(javaDoubleString(1e7), '1.0E7');
    assert.equal(javaDoubleString(1e-4), '1.0E-4');
    assert.equal(javaDoubleString(Number.MAX_VALUE), '1.7976931348623157E308');
    assert.equal(javaDoubleString(Number.NaN), 'NaN');
    assert.equal(javaDoubleString(Number.POSITIVE_INFINITY), 'Infinity');
    assert.equal(javaDoubleString(Number.NEGATIVE_INFINITY), '-Infinity');
  });
});

describe('javaFormatFixed (String.format("%.Nf"))', () => {
  test('rounds the shortest decimal digits half up, as Java does', () => {
    assert.equal(javaFormatFixed(0, 2), '0.00');
    assert.equal(javaFormatFixed(0.125, 2), '0.13');
    // 1.005 is 1.00499999999999989... in binary: toFixed gives 1.00, Java 1.01.
    assert.equal(javaFormatFixed(1.005, 2), '1.01');
    assert.equal((1.005).toFixed(2), '1.00');
    assert.equal(javaFormatFixed(0.15, 1), '0.2');
    assert.equal(javaFormatFixed(2.5, 0), '3');
    assert.equal(javaFormatFixed(1023.96, 1), '1024.0');
    assert.equal(javaFormatFixed(12, 2), '12.00');
    assert.equal(javaFormatFixed(1e21, 1), '1000000000000000000000.0');
    assert.equal(javaFormatFixed(1e-7, 2), '0.00');
    assert.equal(javaFormatFixed(-0.04, 1), '-0.0');
    assert.equal(javaFormatFixed(-2.25, 1), '-2.3');
    assert.equal(javaFormatFixed(Number.NaN, 2), 'NaN');
  });
});

describe('javaGroupedLong and humanReadableByteCount', () => {
  test('MessageFormat groups thousands', () => {
    assert.equal(javaGroupedLong(0), '0');
    assert.equal(javaGroupedLong(999), '999');
    assert.equal(javaGroupedLong(1000), '1,000');
    assert.equal(javaGroupedLong(1234567), '1,234,567');
    assert.equal(javaGroupedLong(-1234), '-1,234');
  });

  test('MixAll.humanReadableByteCount, binary and SI', () => {
    assert.equal(humanReadableByteCount(0, false), '0 B');
    assert.equal(humanReadableByteCount(1023, false), '1023 B');
    assert.equal(humanReadableByteCount(1024, false), '1.0 KiB');
    assert.equal(humanReadableByteCount(1536, false), '1.5 KiB');
    assert.equal(humanReadableByteCount(10 * 2 ** 30, false), '10.0 GiB');
    assert.equal(humanReadableByteCount(2 ** 40 * 3.25, false), '3.3 TiB');
    assert.equal(humanReadableByteCount(999, true), '999 B');
    assert.equal(humanReadableByteCount(1000, true), '1.0 kB');
    assert.equal(humanReadableByteCount(1_500_000, true), '1.5 MB');
    assert.equal(humanReadableByteCount(-5, false), '-5 B');
  });
});
