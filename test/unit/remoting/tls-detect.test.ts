/** Upstream's HandshakeHandler decision: the first byte, and what each tlsMode admits. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createRequest } from '../../../src/remoting/protocol/command.js';
import { encodeFrame } from '../../../src/remoting/protocol/frame.js';
import {
  admitConnection,
  detectConnectionKind,
  HANDSHAKE_MAGIC_CODE,
  TLS_MODES,
} from '../../../src/remoting/transport/index.js';

test('0x16 (a TLS handshake record) is TLS; a plaintext frame never starts with it', () => {
  assert.equal(HANDSHAKE_MAGIC_CODE, 0x16);
  assert.equal(detectConnectionKind(0x16), 'tls');
  const frame = encodeFrame(createRequest(10, { body: Buffer.alloc(1024 * 1024) }));
  assert.equal(frame[0], 0);
  assert.equal(detectConnectionKind(frame[0] ?? -1), 'plaintext');
  for (const garbage of [0x00, 0x15, 0x17, 0x80, 0xff])
    assert.equal(detectConnectionKind(garbage), 'plaintext');
});

test('disabled refuses TLS, enforcing refuses plaintext, permissive serves both', () => {
  const verdicts = TLS_MODES.map((mode) => [
    mode,
    admitConnection(mode, 'tls').admit,
    admitConnection(mode, 'plaintext').admit,
  ]);
  assert.deepEqual(verdicts, [
    ['disabled', false, true],
    ['permissive', true, true],
    ['enforcing', true, false],
  ]);
  const tlsRefused = admitConnection('disabled', 'tls');
  assert.ok(!tlsRefused.admit);
  assert.match(tlsRefused.reason, /SSL connection while this server is running in SSL disabled mode/);
  const plainRefused = admitConnection('enforcing', 'plaintext');
  assert.ok(!plainRefused.admit);
  assert.match(plainRefused.reason, /insecure connection while this server is running in SSL enforcing mode/);
});
