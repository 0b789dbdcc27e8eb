import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { RocketMQError } from '../../../src/common/errors.js';
import { fuzzBatchDecode, fuzzMessageDecode } from '../../../src/common/message/fuzz-targets.js';
import {
  compressBody,
  encodeBatch,
  encodeMessage,
  Message,
  MessageExt,
} from '../../../src/common/message/index.js';
import { prng } from './annotated.js';

function seeds(): { records: Buffer[]; batches: Buffer[] } {
  const ext = (i: number, v6: boolean, topic: string, body: Buffer, sysFlag = 0): MessageExt => {
    const e = new MessageExt();
    e.topic = topic;
    e.body = body;
    e.sysFlag = sysFlag;
    e.queueId = i;
    e.queueOffset = BigInt(i * 7);
    e.commitLogOffset = BigInt(i * 1000);
    e.bornTimestamp = 1700000000000n;
    e.storeTimestamp = 1700000000100n;
    e.bornHost = v6 ? { address: 'fe80::1', port: 1 } : { address: '10.0.0.1', port: 1 };
    e.storeHost = v6 ? { address: '::ffff:10.0.0.2', port: 10911 } : { address: '10.0.0.2', port: 10911 };
    e.properties = new Map([
      ['TAGS', 'TagA'],
      ['KEYS', 'k1 k2'],
      ['UNIQ_KEY', '7F0000010A2C18B4AAC2336B6E8D0000'],
      ['ü', '\u0001x'],
    ]);
    return e;
  };
  const v2 = ext(3, false, 'T', Buffer.from('v2'));
  v2.magicCode = -626843477;
  const records = [
    encodeMessage(ext(1, false, 'TopicTest', Buffer.from('hello'))),
    encodeMessage(ext(2, true, 'T', Buffer.alloc(0))),
    encodeMessage(v2),
    encodeMessage(ext(4, false, 'Z', compressBody(Buffer.alloc(600, 1)), 0x301)),
  ];
  records.push(Buffer.concat([records[0] ?? Buffer.alloc(0), records[1] ?? Buffer.alloc(0)]));
  const m = new Message('T', Buffer.from('body'), { tags: 'A', keys: 'k' });
  const batches = [encodeBatch([m, new Message(), m])];
  return { records, batches };
}

/** Mutations a length-prefixed format is sensitive to: bit flips, bytes, int fields, cuts and splices. */
function mutate(input: Buffer, rnd: () => number): Buffer {
  let out = Buffer.from(input);
  const steps = 1 + Math.floor(rnd() * 4);
  for (let s = 0; s < steps; s++) {
    const at = out.length === 0 ? 0 : Math.floor(rnd() * out.length);
    switch (Math.floor(rnd() * 7)) {
      case 0:
        if (out.length > 0) out[at] = (out[at] ?? 0) ^ (1 << Math.floor(rnd() * 8));
        break;
      case 1:
        if (out.length > 0) out[at] = Math.floor(rnd() * 256);
        break;
      case 2:
        if (at + 4 <= out.length) {
          const interesting = [
            0,
            1,
            -1,
            0x7fffffff,
            -0x80000000,
            0x7f,
            0x80,
            0xff,
            0x7fff,
            0x8000,
            out.length,
          ];
          out.writeInt32BE(interesting[Math.floor(rnd() * interesting.length)] ?? 0, at);
        }
        break;
      case 3:
        out = out.subarray(0, at);
        break;
      case 4:
        out = Buffer.concat([
          out.subarray(0, at),
          out.subarray(Math.min(out.length, at + 1 + Math.floor(rnd() * 8))),
        ]);
        break;
      case 5: {
        const extra = Buffer.alloc(1 + Math.floor(rnd() * 8));
        for (let i = 0; i < extra.length; i++) extra[i] = Math.floor(rnd() * 256);
        out = Buffer.concat([out.subarray(0, at), extra, out.subarray(at)]);
        break;
      }
      default:
        if (at + 2 <= out.length) out.writeInt16BE([0, -1, 0x7fff, 1, 2][Math.floor(rnd() * 5)] ?? 0, at);
    }
  }
  return out;
}

function run(
  target: (b: Buffer) => void,
  corpus: Buffer[],
  seed: number,
  inputs: number,
): { ok: number; rejected: number } {
  const rnd = prng(seed);
  let ok = 0;
  let rejected = 0;
  for (let i = 0; i < inputs; i++) {
    const base = corpus[i % corpus.length] ?? Buffer.alloc(0);
    const input = i < corpus.length ? base : mutate(base, rnd);
    try {
      target(input);
      ok++;
    } catch (e) {
      if (!(e instanceof RocketMQError)) {
        assert.fail(
          `seed ${seed} input ${i} (${input.toString('hex')}): ${e instanceof Error ? e.stack : String(e)}`,
        );
      }
      rejected++;
    }
  }
  return { ok, rejected };
}

describe('fuzz targets', () => {
  test('seed corpus decodes and round-trips', () => {
    const { records, batches } = seeds();
    for (const r of records) fuzzMessageDecode(r);
    for (const b of batches) fuzzBatchDecode(b);
  });

  test('a round-trip mismatch is reported as a plain Error, malformed input as RocketMQError', () => {
    assert.throws(() => fuzzMessageDecode(Buffer.from([1, 2, 3])), RocketMQError);
    assert.throws(() => fuzzBatchDecode(Buffer.from([1, 2, 3])), RocketMQError);
  });

  test('20,000 mutated stored records: only typed errors', () => {
    const r = run(fuzzMessageDecode, seeds().records, 20240601, 20_000);
    assert.ok(r.ok > 100, `some mutations must still decode (${r.ok})`);
    assert.ok(r.rejected > 1000, `most mutations must be rejected (${r.rejected})`);
  });

  test('20,000 mutated batch bodies: only typed errors', () => {
    const r = run(fuzzBatchDecode, seeds().batches, 7, 20_000);
    assert.ok(r.ok > 100 && r.rejected > 1000, JSON.stringify(r));
  });
});
