/**
 * `<storePathRootDir>/config/delayOffset.json` (upstream DelayOffsetSerializeWrapper, written by
 * ScheduleMessageService.persist): `{"offsetTable":{<level>:<offset>,...}}`, each value the next
 * SCHEDULE_TOPIC_XXXX queue offset of that delay level to deliver. The keys are Java Integers, which
 * fastjson writes bare, so the text is not standard JSON; the broker writes it pretty (tab-indented).
 */
import { FjMap, stringifyFastjson } from '../../common/fastjson/index.js';
import { BodyReader } from '../../common/protocol/body-reader.js';
import { StorePath } from '../config.js';

/** Upstream StorePathConfigHelper.getDelayOffsetStorePath. */
export function delayOffsetStorePath(storePathRootDir: string): string {
  return `${StorePath.config(storePathRootDir)}/delayOffset.json`;
}

/**
 * The table in the order upstream's ConcurrentHashMap<Integer, Long>(32) iterates it: ascending for
 * levels below its 64 buckets, which is every level a messageDelayLevel setting realistically has.
 */
export function encodeDelayOffsetTable(
  table: ReadonlyMap<number, bigint>,
  options: { readonly pretty?: boolean } = {},
): string {
  const levels = [...table.keys()].sort((a, b) => a - b);
  const offsets = new FjMap<number, bigint>(levels.map((level) => [level, table.get(level) as bigint]));
  return stringifyFastjson({ offsetTable: offsets }, { pretty: options.pretty ?? false });
}

/** Throws RemotingCommandError naming `what` for malformed text, a level that is not an int, or an offset that is not a long. */
export function decodeDelayOffsetTable(
  text: string | Buffer,
  what = 'delayOffset.json',
): Map<number, bigint> {
  const bytes = typeof text === 'string' ? Buffer.from(text, 'utf8') : text;
  const reader = BodyReader.parse(what, bytes);
  const table = new Map<number, bigint>();
  const offsets = reader.optional('offsetTable');
  if (offsets === undefined) return table;
  for (const [key, offset] of offsets.entries()) {
    const level = Number(key);
    if (!Number.isInteger(level) || level < -2147483648 || level > 2147483647 || String(level) !== key) {
      offsets.fail(`delay level ${JSON.stringify(key)} is not an int`);
    }
    table.set(level, offset.long());
  }
  return table;
}
