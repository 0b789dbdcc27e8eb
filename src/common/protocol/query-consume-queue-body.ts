/**
 * QueryConsumeQueueResponseBody (QUERY_CONSUME_QUEUE body, `common/.../body/
 * QueryConsumeQueueResponseBody.java`, `mqadmin queryCq`) and its ConsumeQueueData entries: a consume
 * queue's logical bounds and raw entries, with the group's subscription and filter data when the
 * request names a group.
 * `{"filterData":..,"maxQueueIndex":..,"minQueueIndex":..,"queueData":[{"eval":false,"physicOffset":..,
 * "physicSize":..,"tagsCode":..}],"subscriptionData":{..}}`; absent fields are null in Java.
 */
import { stringifyFastjson } from '../fastjson/index.js';
import { BodyReader } from './body-reader.js';
import { readSubscriptionData, type SubscriptionData, subscriptionDataValue } from './subscription-data.js';

/** `common/.../body/ConsumeQueueData.java`; the ext fields stay unset without a consume-queue ext. */
export interface ConsumeQueueData {
  physicOffset: bigint;
  physicSize: number;
  tagsCode: bigint;
  extendDataJson?: string | undefined;
  bitMap?: string | undefined;
  eval: boolean;
  msg?: string | undefined;
}

export interface QueryConsumeQueueResponseBody {
  subscriptionData?: SubscriptionData | undefined;
  filterData?: string | undefined;
  queueData?: ConsumeQueueData[] | undefined;
  maxQueueIndex: bigint;
  minQueueIndex: bigint;
}

export function encodeQueryConsumeQueueResponseBody(b: QueryConsumeQueueResponseBody): Buffer {
  return Buffer.from(
    stringifyFastjson({
      filterData: b.filterData,
      maxQueueIndex: b.maxQueueIndex,
      minQueueIndex: b.minQueueIndex,
      queueData: b.queueData?.map((q) => ({
        bitMap: q.bitMap,
        eval: q.eval,
        extendDataJson: q.extendDataJson,
        msg: q.msg,
        physicOffset: q.physicOffset,
        physicSize: q.physicSize,
        tagsCode: q.tagsCode,
      })),
      subscriptionData:
        b.subscriptionData === undefined ? undefined : subscriptionDataValue(b.subscriptionData),
    }),
    'utf8',
  );
}

export function decodeQueryConsumeQueueResponseBody(body: Buffer | undefined): QueryConsumeQueueResponseBody {
  const r = BodyReader.parse('QueryConsumeQueueResponseBody', body);
  const sub = r.optional('subscriptionData');
  return {
    subscriptionData: sub === undefined ? undefined : readSubscriptionData(sub),
    filterData: r.optional('filterData')?.string(),
    queueData: r
      .optional('queueData')
      ?.array()
      .map((q) => ({
        physicOffset: q.optional('physicOffset')?.long() ?? 0n,
        physicSize: q.optional('physicSize')?.int() ?? 0,
        tagsCode: q.optional('tagsCode')?.long() ?? 0n,
        extendDataJson: q.optional('extendDataJson')?.string(),
        bitMap: q.optional('bitMap')?.string(),
        eval: q.optional('eval')?.boolean() ?? false,
        msg: q.optional('msg')?.string(),
      })),
    maxQueueIndex: r.optional('maxQueueIndex')?.long() ?? 0n,
    minQueueIndex: r.optional('minQueueIndex')?.long() ?? 0n,
  };
}
