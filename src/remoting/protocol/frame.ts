/**
 * Frame codec: [totalLength int32][serializeType << 24 | headerLength int32][header][body], where
 * totalLength counts everything after itself. Frames are limited to `maxFrameSize` bytes including
 * the length prefix, as upstream's Netty decoder limits them (16 MiB by default).
 */
import { RemotingCommandError } from '../../common/errors.js';
import { type RemotingCommand, SerializeType } from './command.js';
import { checkHeaderLimits, type HeaderLimits } from './header-limits.js';
import { decodeJsonHeader, encodeJsonHeader } from './json-header.js';
import { decodeRocketMQHeader, encodeRocketMQHeader } from './rocketmq-header.js';

/** Upstream's `com.rocketmq.remoting.frameMaxLength` default. */
export const DEFAULT_MAX_FRAME_SIZE = 16 * 1024 * 1024;

export function encodeHeader(cmd: RemotingCommand): Buffer {
  return cmd.serializeType === SerializeType.ROCKETMQ ? encodeRocketMQHeader(cmd) : encodeJsonHeader(cmd);
}

/**
 * The frame without its body: length prefix, type+length word and header. Writers send the body as a
 * second buffer (writev/cork) so large bodies are never copied.
 */
export function encodeFrameHead(cmd: RemotingCommand, maxFrameSize = DEFAULT_MAX_FRAME_SIZE): Buffer {
  const header = encodeHeader(cmd);
  const bodyLength = cmd.body?.length ?? 0;
  if (header.length > 0xffffff) {
    throw new RemotingCommandError(
      'frame',
      `header of ${header.length} bytes exceeds the 24-bit length field`,
    );
  }
  const frameSize = 8 + header.length + bodyLength;
  if (frameSize > maxFrameSize) {
    throw new RemotingCommandError(
      'frame',
      `frame of ${frameSize} bytes exceeds the limit of ${maxFrameSize}`,
    );
  }
  const head = Buffer.allocUnsafe(8 + header.length);
  head.writeInt32BE(frameSize - 4, 0);
  head.writeInt32BE(((cmd.serializeType << 24) | header.length) >>> 0, 4);
  header.copy(head, 8);
  return head;
}

/** A whole frame in one buffer (tests, small commands). */
export function encodeFrame(cmd: RemotingCommand, maxFrameSize = DEFAULT_MAX_FRAME_SIZE): Buffer {
  const head = encodeFrameHead(cmd, maxFrameSize);
  return cmd.body && cmd.body.length > 0 ? Buffer.concat([head, cmd.body]) : head;
}

/**
 * Decodes the content of one frame, i.e. the bytes after the 4-byte total length, as the splitter
 * delivers them. Header and body are views of `payload`, not copies. With `limits`, a header over
 * them throws HeaderLimitError before it is parsed.
 */
export function decodeFrame(payload: Buffer, limits?: HeaderLimits): RemotingCommand {
  if (payload.length < 4) {
    throw new RemotingCommandError('frame', `${payload.length} bytes, the header length field needs 4`);
  }
  const word = payload.readUInt32BE(0);
  const type = word >>> 24;
  const headerLength = word & 0xffffff;
  if (headerLength > payload.length - 4) {
    throw new RemotingCommandError(
      'frame',
      `header length ${headerLength} exceeds the frame (${payload.length - 4})`,
    );
  }
  const header = payload.subarray(4, 4 + headerLength);
  const body = payload.length > 4 + headerLength ? payload.subarray(4 + headerLength) : undefined;
  if (limits !== undefined) checkHeaderLimits(type, header, limits);
  if (type === SerializeType.JSON) return decodeJsonHeader(header, body);
  if (type === SerializeType.ROCKETMQ) return decodeRocketMQHeader(header, body);
  throw new RemotingCommandError('frame', `unknown serialize type ${type}`);
}
