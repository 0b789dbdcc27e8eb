import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SlabAllocator } from '../../../src/store/slab-allocator.js';

test('slab allocator: slices of one slab, 8-byte aligned, never shared; a full slab is replaced', () => {
  const slabs = new SlabAllocator(1024);
  const a = slabs.alloc(100);
  const b = slabs.alloc(3);
  const c = slabs.alloc(200);
  assert.equal(a.buffer, b.buffer);
  assert.equal(b.buffer, c.buffer);
  assert.deepEqual(
    [a, b, c].map((x) => [x.length, x.byteOffset - a.byteOffset]),
    [
      [100, 0],
      [3, 104],
      [200, 112],
    ],
  );
  a.fill(1);
  b.fill(2);
  c.fill(3);
  assert.ok(a.every((v) => v === 1) && b.every((v) => v === 2) && c.every((v) => v === 3), 'no overlap');
  // 312 bytes used: 712 left, so four more of 200 take a new slab on the fourth.
  const more = [slabs.alloc(200), slabs.alloc(200), slabs.alloc(200), slabs.alloc(200)];
  assert.equal(more[2]?.buffer, a.buffer);
  assert.notEqual(more[3]?.buffer, a.buffer);
  assert.equal(more[3]?.byteOffset, 0, 'the new slab starts at its beginning');
});

test('slab allocator: a request over a quarter of a slab gets memory of its own', () => {
  const slabs = new SlabAllocator(1024);
  const small = slabs.alloc(256);
  const big = slabs.alloc(257);
  assert.notEqual(big.buffer, small.buffer);
  assert.equal(big.length, 257);
  assert.equal(big.byteLength, big.buffer.byteLength);
  assert.equal(slabs.alloc(8).buffer, small.buffer, 'the slab goes on being used');
});
