/**
 * KVTable (`common/.../protocol/body/KVTable.java`): `{"table":{"k":"v",..}}`, a HashMap<String, String>.
 * The name server answers GET_KVLIST_BY_NAMESPACE and REGISTER_BROKER with it, the broker
 * GET_BROKER_RUNTIME_INFO.
 */
import { FjMap, stringifyFastjson } from '../fastjson/index.js';
import { BodyReader } from './body-reader.js';

/** Writes the entries in the map's order (pass them in Java's HashMap order for Java's bytes). */
export function encodeKVTable(table: ReadonlyMap<string, string>): Buffer {
  return Buffer.from(stringifyFastjson({ table: new FjMap<string, string>(table) }), 'utf8');
}

export function decodeKVTable(body: Buffer | undefined): Map<string, string> {
  const r = BodyReader.parse('KVTable', body);
  const out = new Map<string, string>();
  for (const [k, v] of r.optional('table')?.entries() ?? []) out.set(k, v.string());
  return out;
}
