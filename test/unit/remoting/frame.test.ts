import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { RemotingCommandError } from '../../../src/common/errors.js';
import {
  createRequest,
  createResponse,
  type RemotingCommand,
  SerializeType,
} from '../../../src/remoting/protocol/command.js';
import { decodeFrame, encodeFrame, encodeFrameHead } from '../../../src/remoting/protocol/frame.js';
import { FrameSplitter } from '../../../src/remoting/protocol/frame-splitter.js';
import { chunkings } from '../../helpers/chunks.js';

function split(splitter: FrameSplitter, chunks: Buffer[]): RemotingCommand[] {
  const out: RemotingCommand[] = [];
  for (const chunk of chunks) splitter.push(chunk, (payload) => out.push(decodeFrame(payload)));
  return out;
}

// The broker reply captured in the spec (§1.1): 95-byte JSON header, no body.
const CAPTURED_REPLY =
  '{"code":0,"flag":1,"language":"JAVA","opaque":0,"serializeTypeCurrentRPC":"JSON","version":403}';

describe('frame codec', () => {
  test('encodes the captured broker reply byte for byte', () => {
    const frame = encodeFrame({
      code: 0,
      flag: 1,
      language: 'JAVA',
      opaque: 0,
      version: 403,
      serializeType: SerializeType.JSON,
    });
    const expected = Buffer.concat([
      Buffer.from([0x00, 0x00, 0x00, 0x63]), // total length 99 = 4 + 95
      Buffer.from([0x00, 0x00, 0x00, 0x5f]), // serialize type 0 (JSON), header length 95
      Buffer.from(CAPTURED_REPLY, 'utf8'),
    ]);
    assert.equal(CAPTURED_REPLY.length, 95);
    assert.deepEqual(frame, expected);
  });

  test('the serialize type sits in the high byte of the second word', () => {
    const cmd = createRequest(34, { serializeType: SerializeType.ROCKETMQ });
    const frame = encodeFrame(cmd);
    assert.equal(frame.readUInt8(4), 1);
    assert.equal(frame.readUInt32BE(4) & 0xffffff, frame.length - 8);
  });

  for (const serializeType of [SerializeType.JSON, SerializeType.ROCKETMQ]) {
    test(`mirrors a request with extFields, remark and body (type ${serializeType})`, () => {
      const cmd: RemotingCommand = {
        code: 310,
        language: 'JAVA',
        version: 409,
        opaque: -5,
        flag: 0,
        remark: 'héllo ✓',
        extFields: { a: 'pg', b: 'TopicTest', i: 'TAGS\u0001A\u0002KEYS\u0001k' },
        body: Buffer.from('body bytes'),
        serializeType,
      };
      const frame = encodeFrame(cmd);
      assert.deepEqual(decodeFrame(frame.subarray(4)), cmd);
      const head = encodeFrameHead(cmd);
      assert.deepEqual(Buffer.concat([head, cmd.body ?? Buffer.alloc(0)]), frame);
    });
  }

  test('an empty body decodes as no body', () => {
    const frame = encodeFrame({ ...createRequest(10), body: Buffer.alloc(0) });
    assert.equal(createRequest(10, { body: Buffer.alloc(0) }).body, undefined);
    assert.equal(decodeFrame(frame.subarray(4)).body, undefined);
  });

  test('responses copy opaque and serialization from the request', () => {
    const request = { ...createRequest(11, { serializeType: SerializeType.ROCKETMQ }), opaque: 77 };
    const response = createResponse(request, 19, { remark: 'no new message' });
    assert.equal(response.opaque, 77);
    assert.equal(response.flag, 1);
    assert.equal(response.serializeType, SerializeType.ROCKETMQ);
  });

  test('rejects an unknown serialize type, a short payload and a header longer than the frame', () => {
    const frame = encodeFrame(createRequest(10));
    const badType = Buffer.from(frame.subarray(4));
    badType.writeUInt8(7, 0);
    assert.throws(() => decodeFrame(badType), /unknown serialize type 7/);
    assert.throws(() => decodeFrame(Buffer.from([0, 0])), RemotingCommandError);
    const badLength = Buffer.from(frame.subarray(4));
    badLength.writeUInt32BE(0x00ffffff, 0);
    assert.throws(() => decodeFrame(badLength), /header length 16777215 exceeds the frame/);
  });

  test('refuses to encode a frame above the limit', () => {
    const cmd = createRequest(10, { body: Buffer.alloc(2000) });
    assert.throws(() => encodeFrame(cmd, 1024), /exceeds the limit of 1024/);
  });
});

describe('frame splitter', () => {
  const a: RemotingCommand = { ...createRequest(34, { body: Buffer.from('{"x":1}') }), opaque: 1 };
  const b: RemotingCommand = {
    ...createRequest(11, { extFields: { topic: 'T' }, serializeType: SerializeType.ROCKETMQ }),
    opaque: 2,
  };
  const two = Buffer.concat([encodeFrame(a), encodeFrame(b)]);

  for (const { name, chunks } of chunkings(two)) {
    test(`two frames back to back, ${name}`, () => {
      const splitter = new FrameSplitter();
      assert.deepEqual(split(splitter, chunks), [a, b]);
      assert.equal(splitter.buffered, 0);
    });
  }

  test('a frame exactly at the limit passes, one byte more is refused before buffering', () => {
    const frame = encodeFrame(createRequest(10, { body: Buffer.alloc(100) }));
    assert.equal(split(new FrameSplitter(frame.length), [frame]).length, 1);
    const splitter = new FrameSplitter(frame.length - 1);
    assert.throws(() => split(splitter, [frame.subarray(0, 4)]), /exceeds the limit/);
    assert.equal(splitter.buffered, 0);
  });

  test('a hostile length of 2 GiB is refused from its 4 bytes alone', () => {
    const splitter = new FrameSplitter();
    for (const b of [0x7f, 0xff, 0xff]) splitter.push(Buffer.from([b]), () => assert.fail('no frame'));
    assert.throws(() => splitter.push(Buffer.from([0xff]), () => undefined), /exceeds the limit of 16777216/);
  });

  test('negative and too-small lengths are refused', () => {
    assert.throws(
      () => new FrameSplitter().push(Buffer.from([0xff, 0xff, 0xff, 0xff]), () => undefined),
      /below/,
    );
    assert.throws(
      () => new FrameSplitter().push(Buffer.from([0, 0, 0, 3]), () => undefined),
      /below the minimum/,
    );
  });

  test('a frame wholly inside one chunk is a view, not a copy', () => {
    const frame = encodeFrame(a);
    let payload: Buffer | undefined;
    new FrameSplitter().push(frame, (p) => {
      payload = p;
    });
    assert.equal(payload?.buffer, frame.buffer);
  });
});
