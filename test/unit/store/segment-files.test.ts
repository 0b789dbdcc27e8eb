import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { SegmentFile, SegmentFileError } from '../../../src/store/segment-files.js';

test('an empty file (a kill between create and size) opens sized; a short one is refused', () => {
  const dir = mkdtempSync(join(tmpdir(), 'rmq-segment-'));
  try {
    const empty = join(dir, '00000000000000000000');
    writeFileSync(empty, Buffer.alloc(0));
    const file = SegmentFile.open(empty, 1000);
    file.close();
    assert.equal(statSync(empty).size, 1000);

    const short = join(dir, '00000000000000001000');
    writeFileSync(short, Buffer.alloc(10));
    assert.throws(
      () => SegmentFile.open(short, 1000),
      (err: unknown) => {
        assert.ok(err instanceof SegmentFileError);
        assert.match(err.message, /file is 10 bytes but the store configuration expects 1000/);
        return true;
      },
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
