/** Ways to cut a byte stream into chunks, so every decoder test covers any chunking. */

export function* chunkings(data: Buffer): Generator<{ name: string; chunks: Buffer[] }> {
  yield { name: 'whole buffer', chunks: [data] };
  const bytes: Buffer[] = [];
  for (let i = 0; i < data.length; i++) bytes.push(data.subarray(i, i + 1));
  yield { name: 'one byte at a time', chunks: bytes };
  for (const size of [2, 3, 7]) {
    const parts: Buffer[] = [];
    for (let i = 0; i < data.length; i += size) parts.push(data.subarray(i, i + size));
    yield { name: `${size}-byte chunks`, chunks: parts };
  }
}

/** A small deterministic PRNG (mulberry32) so random tests are reproducible from their seed. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
