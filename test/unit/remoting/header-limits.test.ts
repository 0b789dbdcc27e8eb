/** Header limits checked before a header is parsed (protocol/header-limits.ts, decodeFrame). */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createRequest, RPC_ONEWAY, SerializeType } from '../../../src/remoting/protocol/command.js';
import { decodeFrame, encodeFrame } from '../../../src/remoting/protocol/frame.js';
import { FrameSplitter } from '../../../src/remoting/protocol/frame-splitter.js';
import {
  countJsonExtFields,
  HeaderLimitError,
  peekHeaderIds,
} from '../../../src/remoting/protocol/header-limits.js';

function fields(count: number, value = 'v'): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i < count; i++) out[`key${i}`] = value;
  return out;
}

/** The frame content decodeFrame takes: without the 4-byte length. */
function payloadOf(type: SerializeType, extFields: Record<string, string>): Buffer {
  const req = createRequest(34, { extFields, serializeType: type });
  req.opaque = 77;
  req.flag = RPC_ONEWAY;
  return encodeFrame(req).subarray(4);
}

const limits = { maxHeaderSize: 2048, maxExtFields: 100 };

describe('header limits', () => {
  for (const type of [SerializeType.JSON, SerializeType.ROCKETMQ]) {
    const name = type === SerializeType.JSON ? 'JSON' : 'ROCKETMQ';

    test(`${name}: the extFields limit is exact, and the error carries code, opaque and flag`, () => {
      assert.equal(
        Object.keys(decodeFrame(payloadOf(type, fields(100)), limits).extFields ?? {}).length,
        100,
      );
      assert.throws(
        () => decodeFrame(payloadOf(type, fields(101)), { ...limits, maxHeaderSize: 1 << 20 }),
        (e: unknown) =>
          e instanceof HeaderLimitError &&
          e.limit === 'maxExtFields' &&
          e.ids?.code === 34 &&
          e.ids.opaque === 77 &&
          e.ids.flag === RPC_ONEWAY,
      );
    });

    test(`${name}: a header one byte over maxHeaderSize is refused unparsed`, () => {
      const payload = payloadOf(type, { big: 'x'.repeat(2000) });
      const size = payload.readUInt32BE(0) & 0xffffff;
      assert.ok(decodeFrame(payload, { maxHeaderSize: size, maxExtFields: 100 }));
      assert.throws(
        () => decodeFrame(payload, { maxHeaderSize: size - 1, maxExtFields: 100 }),
        (e: unknown) => e instanceof HeaderLimitError && e.limit === 'maxHeaderSize' && e.ids?.opaque === 77,
      );
    });

    test(`${name}: without limits nothing is refused (the client side)`, () => {
      assert.equal(Object.keys(decodeFrame(payloadOf(type, fields(5000))).extFields ?? {}).length, 5000);
    });
  }

  test('JSON counting ignores colons inside strings, escaped quotes included', () => {
    const header = Buffer.from('{"code":1,"extFields":{"a":"x:\\":y","b\\\\":"{\\"c\\":1}"},"opaque":2}');
    assert.equal(countJsonExtFields(header, 100), 2);
  });

  test('JSON ids are found before or after a huge extFields, and are absent from garbage', () => {
    const payload = payloadOf(SerializeType.JSON, fields(3000));
    const header = payload.subarray(4, 4 + (payload.readUInt32BE(0) & 0xffffff));
    assert.deepEqual(peekHeaderIds(SerializeType.JSON, header), { code: 34, opaque: 77, flag: RPC_ONEWAY });
    const goFirst = Buffer.from(
      `{"code":12,"opaque":5,"flag":0,"extFields":{${'"k":"v",'.repeat(500)}"z":"v"}}`,
    );
    assert.deepEqual(peekHeaderIds(SerializeType.JSON, goFirst), { code: 12, opaque: 5, flag: 0 });
    assert.equal(peekHeaderIds(SerializeType.JSON, Buffer.from(`{"x":"${'y'.repeat(3000)}"}`)), undefined);
  });

  test('1M extFields keys (a ~13 MiB JSON header) are refused in milliseconds, not seconds', () => {
    const parts = ['{"code":34,"extFields":{'];
    for (let i = 0; i < 1_000_000; i++) parts.push(`${i === 0 ? '' : ','}"k${i}":"v"`);
    parts.push('},"flag":0,"opaque":9}');
    const header = Buffer.from(parts.join(''));
    const payload = Buffer.alloc(4 + header.length);
    payload.writeUInt32BE(header.length, 0);
    header.copy(payload, 4);
    const started = performance.now();
    assert.throws(
      () => decodeFrame(payload, { maxHeaderSize: 16 << 20, maxExtFields: 1024 }),
      (e: unknown) => e instanceof HeaderLimitError && e.limit === 'maxExtFields' && e.ids?.opaque === 9,
    );
    assert.ok(performance.now() - started < 500);
  });
});

describe('FrameSplitter stopping and resuming delivery', () => {
  test('a sink returning false holds the rest of the chunk until resume()', () => {
    const splitter = new FrameSplitter();
    const chunk = Buffer.concat(
      [1, 2, 3, 4].map((opaque) => {
        const req = createRequest(10);
        req.opaque = opaque;
        return encodeFrame(req);
      }),
    );
    const seen: number[] = [];
    const sink = (payload: Buffer) => {
      seen.push(decodeFrame(payload).opaque);
      return seen.length % 2 === 1 ? false : undefined;
    };
    splitter.push(chunk.subarray(0, chunk.length - 3), sink);
    assert.deepEqual(seen, [1]);
    assert.equal(splitter.holding, true);
    splitter.push(chunk.subarray(chunk.length - 3), sink); // appended, not delivered
    assert.deepEqual(seen, [1]);
    splitter.resume(sink);
    assert.deepEqual(seen, [1, 2, 3]);
    splitter.resume(sink);
    assert.deepEqual(seen, [1, 2, 3, 4]);
    assert.equal(splitter.holding, false);
    assert.equal(splitter.buffered, 0);
  });

  test('inProgress and frameSequence follow one incomplete frame to the next', () => {
    const splitter = new FrameSplitter();
    const frame = encodeFrame(createRequest(10));
    splitter.push(frame.subarray(0, 5), () => {});
    assert.equal(splitter.inProgress, true);
    const first = splitter.frameSequence;
    splitter.push(Buffer.concat([frame.subarray(5), frame.subarray(0, 5)]), () => {});
    assert.equal(splitter.inProgress, true);
    assert.notEqual(splitter.frameSequence, first);
    splitter.push(frame.subarray(5), () => {});
    assert.equal(splitter.inProgress, false);
  });
});
