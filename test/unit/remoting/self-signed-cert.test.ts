/** The hand-written X.509 v3 builder, checked by node:crypto's own certificate parser. */
import assert from 'node:assert/strict';
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { test } from 'node:test';
import {
  namedBits,
  objectIdentifier,
  time,
  tlv,
  unsignedInteger,
} from '../../../src/remoting/transport/der.js';
import {
  buildCertificate,
  generateEcKeyPair,
  generateSelfSignedCertificate,
  toPem,
} from '../../../src/remoting/transport/index.js';

test('DER primitives: long lengths, positive integers, OIDs, named bits, both time forms', () => {
  assert.deepEqual(tlv(0x04, Buffer.alloc(3)).subarray(0, 2), Buffer.of(0x04, 3));
  assert.deepEqual(tlv(0x04, Buffer.alloc(200)).subarray(0, 3), Buffer.of(0x04, 0x81, 200));
  assert.deepEqual(tlv(0x04, Buffer.alloc(300)).subarray(0, 4), Buffer.of(0x04, 0x82, 0x01, 0x2c));
  assert.deepEqual(unsignedInteger(Buffer.of(0x80)), Buffer.of(0x02, 0x02, 0x00, 0x80));
  assert.deepEqual(unsignedInteger(Buffer.of(0, 0, 5)), Buffer.of(0x02, 0x01, 0x05));
  // ecdsa-with-SHA256, as every certificate spells it.
  assert.equal(objectIdentifier('1.2.840.10045.4.3.2').toString('hex'), '06082a8648ce3d040302');
  assert.deepEqual(namedBits(Buffer.of(0x06)), Buffer.of(0x03, 0x02, 0x01, 0x06));
  assert.deepEqual(namedBits(Buffer.of(0x80)), Buffer.of(0x03, 0x02, 0x07, 0x80));
  assert.equal(
    time(new Date(Date.UTC(2026, 0, 2, 3, 4, 5)))
      .subarray(2)
      .toString(),
    '260102030405Z',
  );
  assert.equal(
    time(new Date(Date.UTC(9999, 11, 31, 23, 59, 59)))
      .subarray(2)
      .toString(),
    '99991231235959Z',
  );
  assert.equal(time(new Date(Date.UTC(9999, 11, 31)))[0], 0x18);
});

test('the test-mode certificate: self-signed, CN=localhost, valid from a year ago to 9999', () => {
  const now = new Date();
  const { key, cert } = generateSelfSignedCertificate('localhost', now);
  const x509 = new X509Certificate(cert);
  assert.equal(x509.subject, 'CN=localhost');
  assert.equal(x509.issuer, 'CN=localhost');
  assert.equal(x509.verify(x509.publicKey), true);
  assert.equal(x509.checkPrivateKey(createPrivateKey(key)), true);
  assert.equal(x509.ca, false);
  assert.equal(x509.subjectAltName, 'DNS:localhost, IP Address:127.0.0.1');
  assert.equal(x509.checkHost('localhost'), 'localhost');
  assert.equal(x509.checkIP('127.0.0.1'), '127.0.0.1');
  assert.ok(new Date(x509.validTo).getUTCFullYear() === 9999);
  const from = new Date(x509.validFrom).getTime();
  assert.ok(from < now.getTime() - 364 * 24 * 3600 * 1000 && from > now.getTime() - 366 * 24 * 3600 * 1000);
  assert.equal(x509.publicKey.asymmetricKeyType, 'ec');
  assert.match(key, /^-----BEGIN PRIVATE KEY-----\n/);
  const other = generateSelfSignedCertificate('localhost', now);
  assert.notEqual(new X509Certificate(other.cert).serialNumber, x509.serialNumber);
});

test('a CA certificate and a leaf it signs form a chain node:crypto checks', () => {
  const now = Date.now();
  const ca = generateEcKeyPair();
  const caCert = new X509Certificate(
    buildCertificate({
      subject: 'test-ca',
      publicKey: ca.publicKey,
      issuer: { commonName: 'test-ca', privateKey: ca.privateKey },
      notBefore: new Date(now - 60_000),
      notAfter: new Date(now + 3_600_000),
      isCA: true,
    }),
  );
  assert.equal(caCert.ca, true);
  const leafKeys = generateEcKeyPair();
  const leaf = new X509Certificate(
    toPem(
      buildCertificate({
        subject: 'client-1',
        publicKey: leafKeys.publicKey,
        issuer: { commonName: 'test-ca', privateKey: ca.privateKey },
        notBefore: new Date(now - 60_000),
        notAfter: new Date(now + 3_600_000),
        serialNumber: Buffer.of(0x01, 0x02),
      }),
    ),
  );
  assert.equal(leaf.subject, 'CN=client-1');
  assert.equal(leaf.serialNumber, '0102');
  assert.equal(leaf.checkIssued(caCert), true);
  assert.equal(leaf.verify(caCert.publicKey), true);
  assert.equal(leaf.verify(leafKeys.publicKey), false);
});
