/**
 * BrokerStatsData (VIEW_BROKER_STATS_DATA body, `common/.../protocol/body/BrokerStatsData.java`): one
 * statistic item's figures over the last minute, hour and day.
 * `{"statsDay":{"avgpt":..,"sum":..,"tps":..},"statsHour":{..},"statsMinute":{..}}`.
 */
import { javaDouble, stringifyFastjson } from '../fastjson/index.js';
import { BodyReader } from './body-reader.js';

/** `common/.../protocol/body/BrokerStatsItem.java`: sum is a long, tps and avgpt doubles. */
export interface BrokerStatsItem {
  sum: bigint;
  tps: number;
  avgpt: number;
}

export interface BrokerStatsData {
  statsMinute: BrokerStatsItem;
  statsHour: BrokerStatsItem;
  statsDay: BrokerStatsItem;
}

function itemValue(i: BrokerStatsItem) {
  return { avgpt: javaDouble(i.avgpt), sum: i.sum, tps: javaDouble(i.tps) };
}

/** A Java double: any JSON number (an integer too large for a JS number reads as the nearest double). */
export function readDouble(r: BodyReader | undefined): number {
  if (r === undefined) return 0;
  const v = r.value;
  if (typeof v === 'bigint') return Number(v);
  if (typeof v === 'number') return v;
  return r.fail('not a double');
}

function readItem(r: BodyReader | undefined): BrokerStatsItem {
  return {
    sum: r?.optional('sum')?.long() ?? 0n,
    tps: readDouble(r?.optional('tps')),
    avgpt: readDouble(r?.optional('avgpt')),
  };
}

export function encodeBrokerStatsData(d: BrokerStatsData): Buffer {
  const value = {
    statsDay: itemValue(d.statsDay),
    statsHour: itemValue(d.statsHour),
    statsMinute: itemValue(d.statsMinute),
  };
  return Buffer.from(stringifyFastjson(value), 'utf8');
}

/** A missing item reads as zeros (Java would leave it null). */
export function decodeBrokerStatsData(body: Buffer | undefined): BrokerStatsData {
  const r = BodyReader.parse('BrokerStatsData', body);
  return {
    statsMinute: readItem(r.optional('statsMinute')),
    statsHour: readItem(r.optional('statsHour')),
    statsDay: readItem(r.optional('statsDay')),
  };
}
