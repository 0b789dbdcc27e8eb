/**
 * ConsumeStatsList (GET_BROKER_CONSUME_STATS body, `common/.../body/ConsumeStatsList.java`,
 * `mqadmin brokerConsumeStats`): for each subscription group of the broker, a one-entry map from the
 * group to one ConsumeStats per topic it has offsets in; the broker's address; and the messages all
 * of them have yet to consume.
 * `{"brokerAddr":..,"consumeStatsList":[{"<group>":[<ConsumeStats>..]}..],"totalDiff":..}`.
 */
import { stringifyFastjson } from '../fastjson/index.js';
import { BodyReader } from './body-reader.js';
import {
  type ConsumeStats,
  consumeStatsValue,
  type DecodedConsumeStats,
  readConsumeStats,
} from './consume-stats.js';

export interface ConsumeStatsList {
  /** One `[group, per-topic stats]` pair per list element (upstream wraps each in its own HashMap). */
  consumeStatsList: Array<[string, ConsumeStats[]]>;
  brokerAddr: string;
  totalDiff: bigint;
}

export function encodeConsumeStatsList(list: ConsumeStatsList): Buffer {
  return Buffer.from(
    stringifyFastjson({
      brokerAddr: list.brokerAddr,
      consumeStatsList: list.consumeStatsList.map(([group, stats]) => ({
        [group]: stats.map(consumeStatsValue),
      })),
      totalDiff: list.totalDiff,
    }),
    'utf8',
  );
}

export interface DecodedConsumeStatsList {
  consumeStatsList: Array<[string, DecodedConsumeStats[]]>;
  brokerAddr: string | undefined;
  totalDiff: bigint;
}

export function decodeConsumeStatsList(body: Buffer | undefined): DecodedConsumeStatsList {
  const r = BodyReader.parse('ConsumeStatsList', body);
  const consumeStatsList: Array<[string, DecodedConsumeStats[]]> = [];
  for (const element of r.optional('consumeStatsList')?.array() ?? []) {
    for (const [group, stats] of element.entries()) {
      consumeStatsList.push([group, stats.array().map(readConsumeStats)]);
    }
  }
  return {
    consumeStatsList,
    brokerAddr: r.optional('brokerAddr')?.string(),
    totalDiff: r.optional('totalDiff')?.long() ?? 0n,
  };
}
