/**
 * A throwaway PKI in a temp dir for TLS tests: a CA, a server certificate for localhost/127.0.0.1
 * and a client certificate it signed, a self-signed certificate no one trusts, and the server key
 * again encrypted with a passphrase. Built with the project's own certificate builder.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  buildCertificate,
  generateEcKeyPair,
  generateSelfSignedCertificate,
  privateKeyPem,
  toPem,
} from '../../../src/remoting/transport/index.js';

export interface PemPair {
  readonly cert: string;
  readonly key: string;
  readonly certPath: string;
  readonly keyPath: string;
}

export interface Pki {
  readonly dir: string;
  readonly ca: string;
  readonly caPath: string;
  /** CN=localhost, SAN localhost and 127.0.0.1, signed by the CA. */
  readonly server: PemPair;
  /** CN=client, signed by the CA. */
  readonly client: PemPair;
  /** Self-signed, trusted by nobody. */
  readonly untrusted: PemPair;
  /** The server key encrypted (PKCS#8, AES-256-CBC) with `passphrase`. */
  readonly encryptedServerKeyPath: string;
  readonly passphrase: string;
  remove(): void;
}

const HOUR = 3_600_000;

export function makePki(): Pki {
  const dir = mkdtempSync(join(tmpdir(), 'rmq-tls-pki-'));
  const now = Date.now();
  const caKeys = generateEcKeyPair();
  const issuer = { commonName: 'rocketmq-ts test CA', privateKey: caKeys.privateKey };
  const ca = toPem(
    buildCertificate({
      subject: issuer.commonName,
      publicKey: caKeys.publicKey,
      issuer,
      notBefore: new Date(now - HOUR),
      notAfter: new Date(now + 24 * HOUR),
      isCA: true,
    }),
  );
  const write = (name: string, text: string) => {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  };
  const leaf = (
    name: string,
    commonName: string,
  ): { pair: PemPair; keys: ReturnType<typeof generateEcKeyPair> } => {
    const keys = generateEcKeyPair();
    const cert = toPem(
      buildCertificate({
        subject: commonName,
        publicKey: keys.publicKey,
        issuer,
        notBefore: new Date(now - HOUR),
        notAfter: new Date(now + 24 * HOUR),
        dnsNames: [commonName],
        ipAddresses: ['127.0.0.1'],
      }),
    );
    const key = privateKeyPem(keys.privateKey);
    return {
      pair: { cert, key, certPath: write(`${name}.pem`, cert), keyPath: write(`${name}.key`, key) },
      keys,
    };
  };
  const server = leaf('server', 'localhost');
  const client = leaf('client', 'client');
  const self = generateSelfSignedCertificate('intruder');
  const passphrase = 'pass-phrase-never-logged';
  const encrypted = server.keys.privateKey
    .export({ type: 'pkcs8', format: 'pem', cipher: 'aes-256-cbc', passphrase })
    .toString();
  return {
    dir,
    ca,
    caPath: write('ca.pem', ca),
    server: server.pair,
    client: client.pair,
    untrusted: {
      ...self,
      certPath: write('untrusted.pem', self.cert),
      keyPath: write('untrusted.key', self.key),
    },
    encryptedServerKeyPath: write('server-encrypted.key', encrypted),
    passphrase,
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
