import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { ARGV_SECRET_WARNING, secretKeyOf } from '../../../src/cli/secret-flags.js';
import { tlsOptionOfFlags } from '../../../src/cli/tls-flags.js';

const dir = mkdtempSync(join(tmpdir(), 'rmq-secret-flags-'));
after(() => rmSync(dir, { recursive: true, force: true }));

test('the secret key comes from a file, then argv (with a warning), then the environment', () => {
  const file = join(dir, 'sk');
  writeFileSync(file, 'fromFile1\n');
  const warnings: string[] = [];
  const warn = (l: string) => warnings.push(l);
  assert.equal(secretKeyOf(undefined, file, 'fromEnv', warn), 'fromFile1');
  assert.equal(secretKeyOf(undefined, undefined, 'fromEnv', warn), 'fromEnv');
  assert.equal(secretKeyOf(undefined, undefined, '', warn), undefined);
  assert.deepEqual(warnings, []);
  assert.equal(secretKeyOf('fromArgv', undefined, 'fromEnv', warn), 'fromArgv');
  assert.deepEqual(warnings, [ARGV_SECRET_WARNING]);
  assert.throws(() => secretKeyOf('a', file, undefined, warn), /give one/);
  assert.throws(() => secretKeyOf(undefined, join(dir, 'missing'), undefined, warn), /--secret-key-file/);
});

test('TLS flags: --tls verifies, --tls-ca reads the CA, --tls-insecure opts out', () => {
  const ca = join(dir, 'ca.pem');
  writeFileSync(ca, 'PEM');
  assert.equal(tlsOptionOfFlags(false, undefined, false), undefined);
  assert.deepEqual(tlsOptionOfFlags(true, undefined, false), {});
  assert.deepEqual(tlsOptionOfFlags(false, ca, false), { ca: Buffer.from('PEM') });
  assert.deepEqual(tlsOptionOfFlags(true, undefined, true), { rejectUnauthorized: false });
  assert.throws(() => tlsOptionOfFlags(true, ca, true), /contradict/);
  assert.throws(() => tlsOptionOfFlags(true, join(dir, 'nope'), false), /--tls-ca/);
});
