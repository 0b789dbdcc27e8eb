/**
 * The binary ROCKETMQ header serialization (SerializeType.ROCKETMQ, upstream RocketMQSerializable):
 *   code int16 | language byte | version int16 | opaque int32 | flag int32 |
 *   remarkLen int32 | remark | extLen int32 | (keyLen int16 | key | valLen int32 | val)*
 * A zero length means null in Java. A remark of length 0 decodes as absent; an extFields value of length 0
 * decodes as '' so that the entry, which Java keeps with a null value, survives a re-encode unchanged.
 */
import { RemotingCommandError } from '../../common/errors.js';
import { type RemotingCommand, SerializeType } from './command.js';
import { rocketmqKeyOrder, setExtField } from './ext-fields.js';
import { languageByte, languageName } from './language-code.js';

const FIXED_PART = 21;

export function encodeRocketMQHeader(cmd: RemotingCommand): Buffer {
  if (cmd.code < -32768 || cmd.code > 32767) {
    throw new RemotingCommandError('rocketmq header', `code ${cmd.code} does not fit in an int16`);
  }
  const remarkLength = cmd.remark ? Buffer.byteLength(cmd.remark, 'utf8') : 0;
  const ext = cmd.extFields;
  const order = ext === undefined ? undefined : rocketmqKeyOrder(ext, cmd.fastEncodedKeys);
  // First pass sizes the map section so the header is written into a single buffer.
  let extLength = 0;
  if (ext !== undefined && order !== undefined) {
    for (const key of order) {
      const value = ext[key];
      // Java skips null keys and values but writes an empty value as length 0.
      if (value === undefined || key.length === 0) continue;
      const keyBytes = Buffer.byteLength(key, 'utf8');
      if (keyBytes > 32767)
        throw new RemotingCommandError('rocketmq header', `extFields key too long (${keyBytes})`);
      extLength += 6 + keyBytes + Buffer.byteLength(value, 'utf8');
    }
  }
  const out = Buffer.allocUnsafe(FIXED_PART + remarkLength + extLength);
  out.writeInt16BE(cmd.code, 0);
  out.writeUInt8(languageByte(cmd.language), 2);
  out.writeInt16BE((cmd.version << 16) >> 16, 3);
  out.writeInt32BE(cmd.opaque | 0, 5);
  out.writeInt32BE(cmd.flag | 0, 9);
  out.writeInt32BE(remarkLength, 13);
  let pos = 17;
  if (cmd.remark && remarkLength > 0) pos += out.write(cmd.remark, pos, 'utf8');
  out.writeInt32BE(extLength, pos);
  pos += 4;
  if (ext !== undefined && order !== undefined) {
    for (const key of order) {
      const value = ext[key];
      if (value === undefined || key.length === 0) continue;
      const keyBytes = out.write(key, pos + 2, 'utf8');
      out.writeInt16BE(keyBytes, pos);
      pos += 2 + keyBytes;
      const valueBytes = out.write(value, pos + 4, 'utf8');
      out.writeInt32BE(valueBytes, pos);
      pos += 4 + valueBytes;
    }
  }
  return out;
}

function fail(message: string): never {
  throw new RemotingCommandError('rocketmq header', message);
}

export function decodeRocketMQHeader(header: Buffer, body: Buffer | undefined): RemotingCommand {
  if (header.length < FIXED_PART) fail(`${header.length} bytes, at least ${FIXED_PART} needed`);
  const cmd: RemotingCommand = {
    code: header.readInt16BE(0),
    language: languageName(header.readUInt8(2)),
    version: header.readInt16BE(3),
    opaque: header.readInt32BE(5),
    flag: header.readInt32BE(9),
    serializeType: SerializeType.ROCKETMQ,
  };
  const remarkLength = header.readInt32BE(13);
  let pos = 17;
  if (remarkLength < 0 || remarkLength > header.length - pos - 4)
    fail(`remark length ${remarkLength} out of range`);
  if (remarkLength > 0) cmd.remark = header.toString('utf8', pos, pos + remarkLength);
  pos += remarkLength;
  const extLength = header.readInt32BE(pos);
  pos += 4;
  if (extLength < 0 || extLength > header.length - pos) fail(`extFields length ${extLength} out of range`);
  if (extLength > 0) {
    const fields: Record<string, string> = {};
    const end = pos + extLength;
    while (pos < end) {
      if (end - pos < 2) fail(`truncated extFields key length at ${pos}`);
      const keyLength = header.readInt16BE(pos);
      pos += 2;
      if (keyLength < 0 || keyLength > end - pos - 4) fail(`extFields key length ${keyLength} out of range`);
      const key = header.toString('utf8', pos, pos + keyLength);
      pos += keyLength;
      const valueLength = header.readInt32BE(pos);
      pos += 4;
      if (valueLength < 0 || valueLength > end - pos)
        fail(`extFields value length ${valueLength} out of range`);
      // A zero-length key is a null key in Java, which no header field can use.
      if (keyLength > 0) setExtField(fields, key, header.toString('utf8', pos, pos + valueLength));
      pos += valueLength;
    }
    cmd.extFields = fields;
  }
  if (body !== undefined) cmd.body = body;
  return cmd;
}
