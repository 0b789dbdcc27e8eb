import assert from 'node:assert/strict';
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { after, test } from 'node:test';
import {
  isInside,
  MAX_SAFE_FILE_NAME_BYTES,
  safeFileName,
  writeFileInside,
} from '../../../src/cli/admin/safe-file.js';

const root = mkdtempSync(join(tmpdir(), 'rmq-safe-file-'));
after(() => rmSync(root, { recursive: true, force: true }));

const HOSTILE = [
  '../../x',
  '../../../../../../etc/passwd',
  '/etc/passwd',
  'a/../../b',
  'nul\0byte',
  'line\nbreak\r',
  '.',
  '..',
  '.hidden',
  '..\\..\\win',
  'C:\\Windows\\x',
  'x'.repeat(300),
  'é'.repeat(200),
  '',
];

test('safeFileName keeps the names mqadmin writes for ordinary ids', () => {
  for (const id of [
    '7F0000010B5C18B4AAC27E1A4C2E0000',
    'AC11000100002A9F0000000000000064',
    '192.168.0.7@12345',
    '127.0.0.1@8136#2349561829311',
    '%RETRY%group_a',
    'topic-1_x.y',
  ]) {
    assert.equal(safeFileName(id), id);
  }
});

test('safeFileName turns every hostile value into one plain name, distinct per value', () => {
  const seen = new Set<string>();
  for (const value of HOSTILE) {
    const name = safeFileName(value);
    assert.ok(!name.includes('/') && !name.includes('\\') && !name.includes('\0'), name);
    assert.ok(!/[\r\n]/.test(name), name);
    assert.ok(name !== '.' && name !== '..' && !name.startsWith('.'), name);
    assert.ok(Buffer.byteLength(name) <= MAX_SAFE_FILE_NAME_BYTES, `${Buffer.byteLength(name)}`);
    assert.ok(name.length > 0);
    assert.equal(safeFileName(value), name, 'stable');
    assert.ok(!seen.has(name), `two values share ${name}`);
    seen.add(name);
  }
});

test('isInside: the resolve + prefix check', () => {
  assert.ok(isInside('/a/b', '/a/b/c'));
  assert.ok(!isInside('/a/b', '/a/b'));
  assert.ok(!isInside('/a/b', '/a/bc'));
  assert.ok(!isInside('/a/b', '/a/b/../c'));
  assert.ok(!isInside('/a/b', '/etc/passwd'));
});

test('writeFileInside writes every hostile name inside its directory and nowhere else', () => {
  const dir = join(root, 'w', 'msgbodys');
  for (const [i, value] of HOSTILE.entries()) {
    const path = writeFileInside(dir, value, `body ${i}`);
    assert.equal(dirname(path), dir);
    assert.equal(readFileSync(path, 'utf8'), `body ${i}`);
  }
  assert.equal(readdirSync(dir).length, HOSTILE.length);
  // Nothing beside or above the directory.
  assert.deepEqual(readdirSync(join(root, 'w')), ['msgbodys']);
  // A second write of the same id replaces the file, as upstream's does.
  const again = writeFileInside(dir, '../../x', 'new');
  assert.equal(readFileSync(again, 'utf8'), 'new');
});

test('writeFileInside does not follow a symbolic link planted at the name or as the directory', () => {
  const dir = join(root, 'links');
  mkdirSync(dir);
  const target = join(root, 'victim');
  writeFileSync(target, 'precious');
  symlinkSync(target, join(dir, 'MSGID0001'));
  assert.throws(() => writeFileInside(dir, 'MSGID0001', 'payload'), { code: 'ELOOP' });
  assert.equal(readFileSync(target, 'utf8'), 'precious');

  const linkedDir = join(root, 'linked-dir');
  symlinkSync(dir, linkedDir);
  assert.throws(() => writeFileInside(linkedDir, 'MSGID0002', 'payload'), /not a plain directory/);
  assert.ok(!readdirSync(dir).includes('MSGID0002'));
  assert.equal(basename(linkedDir), 'linked-dir');
});
