/** Fuzz targets for the remoting protocol: frame splitter + frame decoder, and both header decoders. */
import { RemotingCommandError } from '../../src/common/errors.js';
import { type RemotingCommand, SerializeType } from '../../src/remoting/protocol/command.js';
import { decodeFrame, encodeFrame, encodeHeader } from '../../src/remoting/protocol/frame.js';
import { FrameSplitter } from '../../src/remoting/protocol/frame-splitter.js';
import { decodeJsonHeader } from '../../src/remoting/protocol/json-header.js';
import { decodeRocketMQHeader } from '../../src/remoting/protocol/rocketmq-header.js';
import { goldenFile } from '../golden-fixtures.js';
import type { FuzzTarget } from './engine.js';
import { goldenFiles } from './golden-seeds.js';

const isTyped = (err: unknown): boolean => err instanceof RemotingCommandError;

const sampleCommands: RemotingCommand[] = [
  {
    code: 310,
    language: 'JAVA',
    version: 409,
    opaque: 7,
    flag: 0,
    serializeType: SerializeType.JSON,
    extFields: {
      a: 'pg',
      b: 'T',
      c: 'TBW102',
      d: '4',
      e: '0',
      f: '0',
      g: '1700000000000',
      h: '0',
      i: 'TAGS\u0001A\u0002WAIT\u0001true',
      j: '0',
      k: 'false',
      m: 'false',
    },
    body: Buffer.from('hello'),
  },
  {
    code: 0,
    language: 'JAVA',
    version: 409,
    opaque: -1,
    flag: 1,
    remark: 'ok ✓',
    serializeType: SerializeType.ROCKETMQ,
    extFields: { msgId: '7F00000100002A9F0000000000000000', queueId: '1', queueOffset: '9' },
  },
  {
    code: 34,
    language: 'GO',
    version: 317,
    opaque: 99,
    flag: 2,
    serializeType: SerializeType.JSON,
    body: Buffer.from('{"clientID":"x"}'),
  },
  {
    code: 11,
    language: 'JAVA',
    version: 409,
    opaque: 12,
    flag: 0,
    serializeType: SerializeType.ROCKETMQ,
    extFields: {
      consumerGroup: 'g',
      topic: 'T',
      queueId: '0',
      queueOffset: '0',
      maxMsgNums: '32',
      sysFlag: '2',
    },
  },
];

/** The official client's frames (NettyEncoder output, 4.9.8): every header class, both forms. */
const goldenFrames = goldenFiles('commands/', '.bin').map((f) => goldenFile(f));

function headerOf(frame: Buffer): Buffer {
  return frame.subarray(8, 8 + (frame.readUInt32BE(4) & 0xffffff));
}

const goldenHeaders = (type: SerializeType): Buffer[] =>
  goldenFrames.filter((f) => f.length >= 8 && f[4] === type).map(headerOf);

/** Frame limit used while fuzzing, small so that "no allocation above the limit" is cheap to check. */
export const FUZZ_MAX_FRAME = 64 * 1024;

export const frameTarget: FuzzTarget = {
  id: 'frames',
  name: 'frame splitter + decoder',
  seeds: [
    ...sampleCommands.map((c) => encodeFrame(c)),
    Buffer.concat(sampleCommands.map((c) => encodeFrame(c))),
    ...goldenFrames.filter((_, i) => i % 4 === 0),
  ],
  run(input, random) {
    const splitter = new FrameSplitter(FUZZ_MAX_FRAME);
    let pos = 0;
    while (pos < input.length) {
      const size = 1 + Math.floor(random() * 64);
      splitter.push(input.subarray(pos, pos + size), (payload) => {
        if (payload.length + 4 > FUZZ_MAX_FRAME)
          throw new Error(`frame of ${payload.length + 4} above the limit`);
        const cmd = decodeFrame(payload);
        // A decoded frame must encode to a frame that decodes to the same command.
        const again = decodeFrame(encodeFrame(cmd).subarray(4));
        if (canonical(again) !== canonical(cmd)) throw new Error('frame mirror mismatch');
      });
      if (splitter.buffered > FUZZ_MAX_FRAME) throw new Error(`splitter holds ${splitter.buffered} bytes`);
      pos += size;
    }
  },
  isExpected: isTyped,
};

export const jsonHeaderTarget: FuzzTarget = {
  id: 'json-header',
  name: 'JSON header decoder',
  seeds: [
    ...sampleCommands.map((c) => encodeHeader({ ...c, serializeType: SerializeType.JSON })),
    ...goldenHeaders(SerializeType.JSON),
  ],
  run(input) {
    const cmd = decodeJsonHeader(input, undefined);
    const again = decodeJsonHeader(encodeHeader(cmd), undefined);
    if (canonical(again) !== canonical(cmd)) throw new Error('JSON header mirror mismatch');
  },
  isExpected: isTyped,
};

/**
 * extFields is a map: compare it without regard to key order. An empty map is the same as none (a
 * ROCKETMQ header whose only keys are empty, Java's null keys, decodes to an empty map).
 */
function canonical(cmd: RemotingCommand): string {
  const ext =
    cmd.extFields === undefined || Object.keys(cmd.extFields).length === 0
      ? undefined
      : Object.entries(cmd.extFields).sort(([a], [b]) => (a < b ? -1 : 1));
  return JSON.stringify({ ...cmd, extFields: ext });
}

export const rocketmqHeaderTarget: FuzzTarget = {
  id: 'rocketmq-header',
  name: 'ROCKETMQ header decoder',
  seeds: [
    ...sampleCommands.map((c) => encodeHeader({ ...c, serializeType: SerializeType.ROCKETMQ })),
    ...goldenHeaders(SerializeType.ROCKETMQ),
  ],
  run(input) {
    const cmd = decodeRocketMQHeader(input, undefined);
    // Whatever decodes must re-encode and decode to the same command (mirror property).
    const again = decodeRocketMQHeader(encodeHeader(cmd), undefined);
    if (canonical(again) !== canonical(cmd)) throw new Error('ROCKETMQ header mirror mismatch');
  },
  isExpected: isTyped,
};

export const protocolTargets: FuzzTarget[] = [frameTarget, jsonHeaderTarget, rocketmqHeaderTarget];
