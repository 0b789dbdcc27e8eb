/**
 * X.509 v3 certificates built with node:crypto alone: the self-signed certificate of TLS test mode
 * (upstream uses Netty's SelfSignedCertificate: CN=localhost, valid from a year ago to 9999-12-31),
 * and, for tests and for operators without openssl at hand, CA-signed ones. Keys are EC P-256 —
 * generated in about a millisecond where an RSA key takes tens — and certificates are signed with
 * ecdsa-with-SHA256 (sha256WithRSAEncryption when the issuer key is RSA).
 */
import { createPublicKey, generateKeyPairSync, type KeyObject, randomBytes, sign } from 'node:crypto';
import { isIPv4 } from 'node:net';
import {
  bitString,
  boolean,
  explicit,
  implicitPrimitive,
  namedBits,
  objectIdentifier,
  octetString,
  sequence,
  set,
  smallInteger,
  time,
  tlv,
  unsignedInteger,
  utf8String,
} from './der.js';

const OID = {
  commonName: '2.5.4.3',
  ecdsaWithSha256: '1.2.840.10045.4.3.2',
  sha256WithRsa: '1.2.840.113549.1.1.11',
  basicConstraints: '2.5.29.19',
  keyUsage: '2.5.29.15',
  subjectAltName: '2.5.29.17',
} as const;

/** Netty SelfSignedCertificate's notAfter. */
const FAR_FUTURE = new Date(Date.UTC(9999, 11, 31, 23, 59, 59));
const YEAR_MS = 365 * 24 * 3600 * 1000;

export interface CertificateSpec {
  /** The subject's common name. */
  subject: string;
  /** The key the certificate vouches for. */
  publicKey: KeyObject;
  /** Who signs: its name and private key (the subject itself for a self-signed certificate). */
  issuer: { commonName: string; privateKey: KeyObject };
  notBefore: Date;
  notAfter: Date;
  /** A CA certificate (basicConstraints cA, keyCertSign) rather than an end-entity one. */
  isCA?: boolean;
  /** subjectAltName DNS names. */
  dnsNames?: readonly string[];
  /** subjectAltName IPv4 addresses. */
  ipAddresses?: readonly string[];
  /** Default: 16 random bytes. */
  serialNumber?: Buffer;
}

/** PEM text of a private key (PKCS#8) and its certificate, as node:tls and Netty take them. */
export interface KeyAndCertificate {
  key: string;
  cert: string;
}

function name(commonName: string): Buffer {
  return sequence(set(sequence(objectIdentifier(OID.commonName), utf8String(commonName))));
}

function extension(oid: string, critical: boolean, value: Buffer): Buffer {
  return critical
    ? sequence(objectIdentifier(oid), boolean(true), octetString(value))
    : sequence(objectIdentifier(oid), octetString(value));
}

function signatureAlgorithm(key: KeyObject): { identifier: Buffer; digest: string } {
  if (key.asymmetricKeyType === 'ec') {
    return { identifier: sequence(objectIdentifier(OID.ecdsaWithSha256)), digest: 'sha256' };
  }
  if (key.asymmetricKeyType === 'rsa') {
    return {
      identifier: sequence(objectIdentifier(OID.sha256WithRsa), tlv(0x05, Buffer.alloc(0))),
      digest: 'sha256',
    };
  }
  throw new RangeError(`cannot sign a certificate with a ${key.asymmetricKeyType} key`);
}

function ipv4Bytes(address: string): Buffer {
  if (!isIPv4(address)) throw new RangeError(`not an IPv4 address: ${address}`);
  return Buffer.from(address.split('.').map(Number));
}

function extensions(spec: CertificateSpec): Buffer {
  const list: Buffer[] = [];
  const ca = spec.isCA === true;
  list.push(extension(OID.basicConstraints, true, ca ? sequence(boolean(true)) : sequence()));
  // digitalSignature (bit 0) for a TLS end entity; keyCertSign and cRLSign (bits 5, 6) for a CA.
  list.push(extension(OID.keyUsage, true, namedBits(Buffer.of(ca ? 0x06 : 0x80))));
  const names = [
    ...(spec.dnsNames ?? []).map((dns) => implicitPrimitive(2, Buffer.from(dns, 'ascii'))),
    ...(spec.ipAddresses ?? []).map((ip) => implicitPrimitive(7, ipv4Bytes(ip))),
  ];
  if (names.length > 0) list.push(extension(OID.subjectAltName, false, sequence(...names)));
  return explicit(3, sequence(...list));
}

function serial(spec: CertificateSpec): Buffer {
  const bytes = Buffer.from(spec.serialNumber ?? randomBytes(16));
  // RFC 5280: positive and at most 20 octets; clearing the top bit keeps it positive in 16.
  if (spec.serialNumber === undefined) bytes[0] = ((bytes[0] ?? 0) & 0x7f) | 0x01;
  return unsignedInteger(bytes);
}

/** The DER encoding of a signed X.509 v3 certificate. */
export function buildCertificate(spec: CertificateSpec): Buffer {
  const algorithm = signatureAlgorithm(spec.issuer.privateKey);
  const spki = spec.publicKey.export({ type: 'spki', format: 'der' });
  const tbs = sequence(
    explicit(0, smallInteger(2)),
    serial(spec),
    algorithm.identifier,
    name(spec.issuer.commonName),
    sequence(time(spec.notBefore), time(spec.notAfter)),
    name(spec.subject),
    spki,
    extensions(spec),
  );
  const signature = sign(algorithm.digest, tbs, spec.issuer.privateKey);
  return sequence(tbs, algorithm.identifier, bitString(signature));
}

export function toPem(der: Buffer, label = 'CERTIFICATE'): string {
  const lines = der.toString('base64').match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${label}-----\n${lines.join('\n')}\n-----END ${label}-----\n`;
}

/** A fresh EC P-256 key pair. */
export function generateEcKeyPair(): { privateKey: KeyObject; publicKey: KeyObject } {
  return generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
}

export function privateKeyPem(key: KeyObject): string {
  return key.export({ type: 'pkcs8', format: 'pem' }).toString();
}

/**
 * A new key and a certificate for it signed by itself, valid as Netty's SelfSignedCertificate
 * makes it (from a year before `now` to 9999-12-31), for `commonName` (also its DNS name) and the
 * loopback address.
 */
export function generateSelfSignedCertificate(
  commonName = 'localhost',
  now: Date = new Date(),
): KeyAndCertificate {
  const { privateKey } = generateEcKeyPair();
  const der = buildCertificate({
    subject: commonName,
    publicKey: createPublicKey(privateKey),
    issuer: { commonName, privateKey },
    notBefore: new Date(now.getTime() - YEAR_MS),
    notAfter: FAR_FUTURE,
    dnsNames: [commonName],
    ipAddresses: ['127.0.0.1'],
  });
  return { key: privateKeyPem(privateKey), cert: toPem(der) };
}
