/**
 * kvConfig.json (`namesrv/.../kvconfig/KVConfigSerializeWrapper.java`): `{"configTable":{"<namespace>":
 * {"<key>":"<value>",..},..}}`, written compact by fastjson (`toJson()`), both levels HashMaps.
 */
import { RemotingCommandError } from '../../common/errors.js';
import { FjMap, parseFastjson, stringifyFastjson } from '../../common/fastjson/index.js';
import { BodyReader } from '../../common/protocol/body-reader.js';
import { javaOrderedEntries } from '../routeinfo/java-order.js';

/** namespace -> key -> value. */
export type KVConfigTable = Map<string, Map<string, string>>;

/** The file text, both levels in Java's HashMap order. */
export function encodeKVConfig(table: KVConfigTable): string {
  const configTable = new FjMap(
    javaOrderedEntries(table).map(
      ([ns, kv]) => [ns, new FjMap<string, string>(javaOrderedEntries(kv))] as const,
    ),
  );
  return stringifyFastjson({ configTable });
}

/**
 * Reads the file text. Values written by hand as numbers or booleans read as their text (fastjson
 * converts them to String the same way); nulls are skipped. Anything else is a RemotingCommandError.
 */
export function decodeKVConfig(text: string, file: string): KVConfigTable {
  const r = new BodyReader(file, '$', parseFastjson(text, { what: file }));
  const table: KVConfigTable = new Map();
  for (const [namespace, entries] of r.optional('configTable')?.entries() ?? []) {
    const kv = new Map<string, string>();
    for (const [key, value] of entries.entries()) {
      const v = value.value;
      if (v === null) continue;
      if (typeof v === 'string') kv.set(key, v);
      else if (typeof v === 'number' || typeof v === 'bigint' || typeof v === 'boolean')
        kv.set(key, String(v));
      else throw new RemotingCommandError(file, `${value.path}: not a string`);
    }
    table.set(namespace, kv);
  }
  return table;
}
