import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { RemotingCommandError, ValidationError } from '../../../src/common/errors.js';
import {
  bytesToIp,
  CompressionType,
  compressBody,
  compressedSysFlag,
  decompressBody,
  hostToBytes,
  hostToString,
  ipToBytes,
  shouldCompressBody,
  UnsupportedCompressionError,
} from '../../../src/common/message/index.js';
import { prng } from './annotated.js';

describe('compression', () => {
  test('zlib-wrapped deflate at level 5 round-trips', () => {
    const body = Buffer.from('abc'.repeat(2000));
    const z = compressBody(body);
    assert.equal(z[0], 0x78, 'zlib header, CM=8 (deflate), 32K window');
    assert.equal(z[1], 0x5e, 'FLEVEL 1 (levels 2–5), header checksum');
    assert.deepEqual(decompressBody(z, 0x301), body);
    assert.deepEqual(decompressBody(z, 0x1), body);
    assert.equal(compressedSysFlag(), 0x301);
  });

  test('threshold: bodies of at least 4096 bytes', () => {
    assert.equal(shouldCompressBody(4095), false);
    assert.equal(shouldCompressBody(4096), true);
    assert.equal(shouldCompressBody(100, 50), true);
  });

  test('LZ4/ZSTD are typed errors both ways', () => {
    assert.throws(() => compressBody(Buffer.from('x'), CompressionType.LZ4), UnsupportedCompressionError);
    assert.throws(() => decompressBody(Buffer.from('x'), 0x201), UnsupportedCompressionError);
  });

  test('bounded inflate', () => {
    const bomb = compressBody(Buffer.alloc(1 << 20));
    assert.throws(() => decompressBody(bomb, 0x301, 1000), /decompressed body exceeds 1000 bytes/);
    assert.equal(decompressBody(bomb, 0x301, 1 << 20).length, 1 << 20);
    assert.throws(() => decompressBody(compressBody(Buffer.from('x')), 0x301, 0), RemotingCommandError);
  });

  test('truncated, corrupt and empty input are typed; trailing bytes are ignored as in Java', () => {
    const z = compressBody(Buffer.from('hello'));
    assert.throws(() => decompressBody(z.subarray(0, z.length - 1)), /corrupt zlib body/);
    assert.throws(() => decompressBody(Buffer.alloc(0)), RemotingCommandError);
    const flipped = Buffer.from(z);
    flipped[flipped.length - 1] = (flipped[flipped.length - 1] ?? 0) ^ 1;
    assert.throws(() => decompressBody(flipped), /corrupt zlib body/);
    assert.equal(decompressBody(Buffer.concat([z, Buffer.from('junk')])).toString(), 'hello');
  });
});

describe('host addresses', () => {
  test('IPv6 text is RFC 5952', () => {
    const cases: [string, string][] = [
      ['::', '::'],
      ['::1', '::1'],
      ['1::', '1::'],
      ['FE80:0:0:0:0:0:0:1', 'fe80::1'],
      ['2001:db8:0:0:1:0:0:1', '2001:db8::1:0:0:1'],
      ['2001:db8:0:1:1:1:1:1', '2001:db8:0:1:1:1:1:1'],
      ['0:0:1:0:0:0:1:0', '0:0:1::1:0'],
      ['::ffff:10.1.2.3', '::ffff:10.1.2.3'],
      ['::FFFF:a01:203', '::ffff:10.1.2.3'],
      ['fe80::1%eth0', 'fe80::1'],
      ['1:2:3:4:5:6:7:8', '1:2:3:4:5:6:7:8'],
      ['::2:3:4:5:6:7:8', '0:2:3:4:5:6:7:8'],
    ];
    for (const [input, text] of cases) {
      const b = ipToBytes(input);
      assert.equal(b.length, 16, input);
      assert.equal(bytesToIp(b), text, input);
      assert.deepEqual(ipToBytes(text), b, text);
    }
  });

  test('IPv4 and bytes', () => {
    assert.deepEqual(ipToBytes('10.0.0.255'), Buffer.from([10, 0, 0, 255]));
    assert.equal(bytesToIp(Buffer.from([1, 2, 3, 4])), '1.2.3.4');
    assert.deepEqual(
      hostToBytes({ address: '10.0.0.1', port: 10911 }),
      Buffer.from('0a00000100002a9f', 'hex'),
    );
    assert.equal(hostToString({ address: '10.0.0.1', port: 1 }), '10.0.0.1:1');
    assert.equal(hostToString({ address: '::1', port: 1 }), '[::1]:1');
  });

  test('text → bytes → text is the identity for random addresses with zero runs', () => {
    const rnd = prng(99);
    for (let i = 0; i < 5000; i++) {
      const b = Buffer.alloc(16);
      for (let w = 0; w < 8; w++) {
        if (rnd() < 0.5) b.writeUInt16BE(Math.floor(rnd() * 0x10000), w * 2);
      }
      if (rnd() < 0.1) b.writeUInt16BE(0xffff, 10);
      const text = bytesToIp(b);
      assert.deepEqual(ipToBytes(text), b, text);
      assert.ok(!text.includes(':::') && text.split('::').length <= 2, text);
    }
  });

  test('non-literals are refused', () => {
    for (const bad of [
      '',
      'localhost',
      '1.2.3',
      '256.0.0.1',
      '1.2.3.4.5',
      '1::2::3',
      ':::',
      '12345::',
      'g::',
      ':1::',
      '1:2:3:4:5:6:7:8:9',
      '1:2:3:4:5:6:7::8',
      '::1.2.3',
    ]) {
      assert.throws(() => ipToBytes(bad), ValidationError, bad);
    }
    assert.throws(() => bytesToIp(Buffer.alloc(5)), ValidationError);
  });
});
