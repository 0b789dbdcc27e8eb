/**
 * The signed HA handshake's codec and replay guard: a handshake read whole from any split of its
 * bytes, the bytes after it handed on, every malformed length refused before more is read, and a
 * nonce or a timestamp outside the window refused.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  encodeHandshake,
  HA_HANDSHAKE_MAGIC,
  HA_HANDSHAKE_MAX_BODY,
  HandshakeReader,
  handshakeSignature,
  ReplayGuard,
} from '../../../src/store/ha/ha-handshake.js';

const ACCOUNT = { accessKey: 'haAdmin01', secretKey: 'haAdminSecret01' };
const NONCE = Buffer.alloc(16, 7);
const T = 1_700_000_000_000;

test('a handshake read a byte at a time verifies and hands on what follows it', () => {
  const wire = Buffer.concat([encodeHandshake(ACCOUNT, 'broker-a', T, NONCE), Buffer.alloc(8)]);
  const reader = new HandshakeReader();
  for (let i = 0; i < wire.length - 9; i++) {
    assert.equal(reader.push(wire.subarray(i, i + 1)).done, false, `byte ${i}`);
  }
  const read = reader.push(wire.subarray(wire.length - 9));
  assert.ok(read.done && 'handshake' in read);
  assert.equal(read.handshake.accessKey, ACCOUNT.accessKey);
  assert.equal(read.handshake.timestamp, T);
  assert.deepEqual(read.rest, Buffer.alloc(8));
  assert.equal(read.handshake.signature, handshakeSignature(read.handshake, ACCOUNT.secretKey, 'broker-a'));
  assert.notEqual(
    read.handshake.signature,
    handshakeSignature(read.handshake, ACCOUNT.secretKey, 'broker-b'),
  );
});

test('anything else is refused at the first byte that cannot be a handshake', () => {
  const refused = (bytes: Buffer) => {
    const read = new HandshakeReader().push(bytes);
    assert.ok(read.done && 'refusal' in read, bytes.toString('hex'));
  };
  refused(Buffer.alloc(8));
  refused(Buffer.from([0x16, 0x03, 0x01]));
  for (const size of [0, -1, HA_HANDSHAKE_MAX_BODY + 1, 0x7fffffff]) {
    const b = Buffer.alloc(12);
    HA_HANDSHAKE_MAGIC.copy(b, 0);
    b.writeInt32BE(size, 8);
    refused(b);
  }
  const good = encodeHandshake(ACCOUNT, 'broker-a', T, NONCE);
  const badKeyLength = Buffer.from(good);
  badKeyLength[12 + 8 + 16] = 250;
  refused(badKeyLength);
  const negative = Buffer.from(good);
  negative.writeBigInt64BE(-1n, 12);
  refused(negative);
});

test('the replay guard refuses a nonce twice and a timestamp outside the window', () => {
  const guard = new ReplayGuard(1000, 2);
  const hs = (timestamp: number, fill: number) => ({
    timestamp,
    nonce: Buffer.alloc(16, fill),
    accessKey: 'a',
    signature: 's',
  });
  assert.equal(guard.admit(hs(T, 1), T), undefined);
  assert.match(guard.admit(hs(T, 1), T + 10) ?? '', /replayed/);
  assert.match(guard.admit(hs(T - 1001, 2), T) ?? '', /ms from the master's clock/);
  assert.match(guard.admit(hs(T + 1001, 2), T) ?? '', /ms from the master's clock/);
  assert.equal(guard.admit(hs(T, 2), T), undefined);
  assert.match(guard.admit(hs(T, 3), T) ?? '', /more than 2/, 'bounded');
  // Past twice the window the nonces are forgotten, and the timestamp check alone covers them.
  assert.equal(guard.admit(hs(T + 2500, 3), T + 2500), undefined);
});
