/**
 * The binary ROCKETMQ header serialization (SerializeType.ROCKETMQ, upstream RocketMQSerializable):
 *   code int16 | language byte | version int16 | opaque int32 | flag int32 |
 *   remarkLen int32 | remark | extLen int32 | (keyLen int16 | key | valLen int32 | val)*
 * A zero length means null, so empty strings do not survive this format (spec §1.5).
 */
import { RemotingCommandError } from '../../common/errors.js';
import { javaHashMapOrder } from '../../common/fastjson/java-hash-map.js';
import { type RemotingCommand, SerializeType } from './command.js';
import { setExtField } from './ext-fields.js';
import { languageByte, languageName } from './language-code.js';

const FIXED_PART = 21;

export function encodeRocketMQHeader(cmd: RemotingCommand): Buffer {
  if (cmd.code < -32768 || cmd.code > 32767) {
    throw new RemotingCommandError('rocketmq header', `code ${cmd.code} does not fit in an int16`);
  }
  const remark = cmd.remark ? Buffer.from(cmd.remark, 'utf8') : undefined;
  const entries: Buffer[] = [];
  let extLength = 0;
  const ext = cmd.extFields;
  if (ext !== undefined) {
    for (const key of javaHashMapOrder(Object.keys(ext))) {
      const value = ext[key];
      // Java skips null keys and values; an empty string would decode as null on the other side anyway.
      if (value === undefined || key.length === 0 || value.length === 0) continue;
      const keyBytes = Buffer.byteLength(key, 'utf8');
      if (keyBytes > 32767)
        throw new RemotingCommandError('rocketmq header', `extFields key too long (${keyBytes})`);
      const valueBytes = Buffer.byteLength(value, 'utf8');
      const entry = Buffer.allocUnsafe(6 + keyBytes + valueBytes);
      entry.writeInt16BE(keyBytes, 0);
      entry.write(key, 2, 'utf8');
      entry.writeInt32BE(valueBytes, 2 + keyBytes);
      entry.write(value, 6 + keyBytes, 'utf8');
      entries.push(entry);
      extLength += entry.length;
    }
  }
  const remarkLength = remark?.length ?? 0;
  const out = Buffer.allocUnsafe(FIXED_PART + remarkLength + extLength);
  out.writeInt16BE(cmd.code, 0);
  out.writeUInt8(languageByte(cmd.language), 2);
  out.writeInt16BE((cmd.version << 16) >> 16, 3);
  out.writeInt32BE(cmd.opaque | 0, 5);
  out.writeInt32BE(cmd.flag | 0, 9);
  out.writeInt32BE(remarkLength, 13);
  let pos = 17;
  if (remark) pos += remark.copy(out, pos);
  out.writeInt32BE(extLength, pos);
  pos += 4;
  for (const entry of entries) pos += entry.copy(out, pos);
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
      // Zero-length keys and values are nulls in Java; a HashMap write of null is left out here.
      if (keyLength > 0 && valueLength > 0)
        setExtField(fields, key, header.toString('utf8', pos, pos + valueLength));
      pos += valueLength;
    }
    cmd.extFields = fields;
  }
  if (body !== undefined) cmd.body = body;
  return cmd;
}
