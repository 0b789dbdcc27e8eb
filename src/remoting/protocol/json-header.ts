/**
 * The JSON header serialization (SerializeType.JSON), written the way Java's fastjson writes a
 * RemotingCommand bean: bean fields in alphabetical order, null fields left out, enums by name,
 * and extFields (a HashMap) in Java HashMap iteration order so our frames match the official bytes.
 */

import { RemotingCommandError } from '../../common/errors.js';
import { quoteFastjsonString } from '../../common/fastjson/escape.js';
import { type RemotingCommand, SerializeType } from './command.js';
import { extFieldsOrder, setExtField } from './ext-fields.js';

const quote = (s: string): string => quoteFastjsonString(s, false);

const SERIALIZE_TYPE_NAMES = ['JSON', 'ROCKETMQ'] as const;

export function encodeJsonHeader(cmd: RemotingCommand): Buffer {
  let out = `{"code":${cmd.code}`;
  const ext = cmd.extFields;
  if (ext !== undefined) {
    out += ',"extFields":{';
    let first = true;
    for (const key of extFieldsOrder(ext)) {
      const value = ext[key];
      if (value === undefined) continue;
      out += `${first ? '' : ','}${quote(key)}:${quote(value)}`;
      first = false;
    }
    out += '}';
  }
  out += `,"flag":${cmd.flag},"language":${quote(cmd.language)},"opaque":${cmd.opaque}`;
  if (cmd.remark !== undefined) out += `,"remark":${quote(cmd.remark)}`;
  out += `,"serializeTypeCurrentRPC":"${SERIALIZE_TYPE_NAMES[cmd.serializeType]}","version":${cmd.version}}`;
  return Buffer.from(out, 'utf8');
}

function fail(message: string): never {
  throw new RemotingCommandError('json header', message);
}

function readInt32(obj: Record<string, unknown>, key: string, required: boolean): number {
  const v = obj[key];
  if (v === undefined || v === null) {
    if (required) fail(`missing "${key}"`);
    return 0;
  }
  if (typeof v !== 'number' || !Number.isInteger(v) || v < -2147483648 || v > 2147483647) {
    fail(`"${key}" is not an int32: ${JSON.stringify(v)}`);
  }
  return v;
}

/** Decodes header bytes; the serialize type comes from the frame, never from the header's own field. */
export function decodeJsonHeader(header: Buffer, body: Buffer | undefined): RemotingCommand {
  let parsed: unknown;
  try {
    parsed = JSON.parse(header.toString('utf8'));
  } catch (err) {
    fail(`not valid JSON (${(err as Error).message})`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) fail('not a JSON object');
  const obj = parsed as Record<string, unknown>;
  const cmd: RemotingCommand = {
    code: readInt32(obj, 'code', true),
    language: 'JAVA',
    version: readInt32(obj, 'version', false),
    opaque: readInt32(obj, 'opaque', false),
    flag: readInt32(obj, 'flag', false),
    serializeType: SerializeType.JSON,
  };
  const language = obj.language;
  if (typeof language === 'string') cmd.language = language;
  else if (language !== undefined && language !== null) fail('"language" is not a string');
  const remark = obj.remark;
  if (typeof remark === 'string') cmd.remark = remark;
  else if (remark !== undefined && remark !== null) fail('"remark" is not a string');
  const ext = obj.extFields;
  if (ext !== undefined && ext !== null) {
    if (typeof ext !== 'object' || Array.isArray(ext)) fail('"extFields" is not an object');
    const fields: Record<string, string> = {};
    for (const [k, v] of Object.entries(ext as Record<string, unknown>)) {
      // Java leaves null map values out; numbers and booleans from lenient peers become their text.
      if (v === null) continue;
      if (typeof v === 'string') setExtField(fields, k, v);
      else if (typeof v === 'number' || typeof v === 'boolean') setExtField(fields, k, String(v));
      else fail(`extFields "${k}" is not a string`);
    }
    cmd.extFields = fields;
  }
  if (body !== undefined) cmd.body = body;
  return cmd;
}
