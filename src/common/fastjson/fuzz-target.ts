/**
 * Fuzz entry for the project fuzzer: any input may be rejected with a RemotingCommandError; anything
 * else thrown is a bug. Accepted input must survive a mirror: emitting it (default and pretty forms)
 * and parsing that again gives the same value, less what the emitter leaves out on purpose (null
 * values in objects); the standard form only has to parse, as it turns object keys into strings.
 */

import { RemotingCommandError } from '../errors.js';
import { parseFastjson } from './parse.js';
import { stringifyFastjson } from './stringify.js';
import { type FastjsonRecord, type FastjsonValue, FjMap, fjEquals } from './values.js';

export function fuzzFastjson(input: Buffer): void {
  let value: FastjsonValue;
  try {
    value = parseFastjson(input);
  } catch (err) {
    if (err instanceof RemotingCommandError) return;
    throw err;
  }
  const expected = withoutNullFields(value);
  const compact = stringifyFastjson(value);
  if (!fjEquals(parseFastjson(compact), expected)) throw new Error(`fastjson mirror mismatch: ${compact}`);
  const pretty = stringifyFastjson(value, { pretty: true });
  if (!fjEquals(parseFastjson(pretty), expected))
    throw new Error(`fastjson pretty mirror mismatch: ${pretty}`);
  parseFastjson(stringifyFastjson(value, { form: 'standard' }));
}

/**
 * What a parse of the emitted text should give: null-valued fields and entries dropped, and an FjMap
 * left with no object or array key read back as a record (as the parser would build it).
 */
function withoutNullFields(v: FastjsonValue): FastjsonValue {
  if (v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) return v.map(withoutNullFields);
  if (v instanceof FjMap) {
    const kept: Array<[FastjsonValue, FastjsonValue]> = [];
    let composite = false;
    for (const [k, val] of v.entries) {
      if (val === null) continue;
      const key = withoutNullFields(k);
      if (key !== null && typeof key === 'object') composite = true;
      kept.push([key, withoutNullFields(val)]);
    }
    if (composite) return new FjMap(kept);
    const record: FastjsonRecord = {};
    for (const [k, val] of kept) setField(record, typeof k === 'string' ? k : String(k), val);
    return record;
  }
  const record: FastjsonRecord = {};
  for (const [k, val] of Object.entries(v)) if (val !== null) setField(record, k, withoutNullFields(val));
  return record;
}

function setField(record: FastjsonRecord, key: string, value: FastjsonValue): void {
  Object.defineProperty(record, key, { value, enumerable: true, writable: true, configurable: true });
}
