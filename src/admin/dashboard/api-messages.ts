/**
 * Message search: by topic and store-time range (each queue pulled from the offset of `begin` to the
 * offset of `end`, as upstream dashboard does with its TOOLS_CONSUMER pull consumer), by key (the
 * brokers' index) and by id, with the body preview, the properties and where the message went.
 * Bodies and properties are sent as JSON strings: the page shows them as text, never as markup.
 */

import { PullStatus } from '../../client/consumer/pull/pull-result.js';
import type { PullConsumer } from '../../client/consumer/pull-consumer/pull-consumer.js';
import { MixAll } from '../../common/constants.js';
import { RocketMQError } from '../../common/errors.js';
import { hostToString } from '../../common/message/host.js';
import type { MessageExt } from '../../common/message/message.js';
import { decodeOffsetMsgId } from '../../common/message/message-id.js';
import { ResponseCode } from '../../remoting/protocol/response-code.js';
import type { ApiContext } from './api-context.js';
import { errorText } from './api-errors.js';
import { HttpError, type Params } from './http-json.js';
import { messageTrackDetail } from './message-track.js';

/** Messages per pull of a topic+time search (upstream dashboard pulls 32 at a time). */
const PULL_BATCH = 32;
/** Most messages a key search asks each broker for (upstream QUERY_MESSAGE_MAX_NUM 64). */
const KEY_QUERY_MAX = 64;

export interface MessagesContext extends ApiContext {
  /** The started TOOLS_CONSUMER pull consumer (created on first use). */
  pullConsumer(): Promise<PullConsumer>;
}

export function messageSummary(m: MessageExt) {
  return {
    msgId: m.msgId,
    offsetMsgId: m.offsetMsgId,
    topic: m.topic,
    tags: m.tags ?? null,
    keys: m.keys ?? null,
    brokerName: m.brokerName ?? null,
    queueId: m.queueId,
    queueOffset: m.queueOffset,
    storeTimestamp: m.storeTimestamp,
    bornTimestamp: m.bornTimestamp,
    bodySize: m.body.length,
  };
}

function bodyPreview(m: MessageExt, limit: number) {
  const shown = m.body.subarray(0, limit);
  return { text: shown.toString('utf8'), truncated: m.body.length > limit, size: m.body.length };
}

export async function searchByTopic(ctx: MessagesContext, params: Params): Promise<unknown> {
  const topic = params.string('topic');
  const end = params.optionalInt('end') ?? Date.now();
  const begin = params.optionalInt('begin') ?? end - 3_600_000;
  if (begin > end) throw new HttpError(400, 'begin is after end');
  const max = Math.min(
    params.optionalInt('max') ?? ctx.settings.messageSearchMax,
    ctx.settings.messageSearchMax,
  );
  const consumer = await ctx.pullConsumer();
  const found: MessageExt[] = [];
  let truncated = false;
  for (const mq of await consumer.fetchSubscribeMessageQueues(topic)) {
    let offset = await consumer.searchOffset(mq, begin);
    const stop = await consumer.searchOffset(mq, end + 1);
    while (offset < stop) {
      const r = await consumer.pull(mq, '*', offset, PULL_BATCH);
      if (r.pullStatus !== PullStatus.FOUND) break;
      for (const m of r.msgFoundList) {
        if (m.storeTimestamp < BigInt(begin) || m.storeTimestamp > BigInt(end)) continue;
        found.push(m);
      }
      if (found.length >= max) {
        truncated = true;
        break;
      }
      if (r.nextBeginOffset <= offset) break;
      offset = r.nextBeginOffset;
    }
    if (truncated) break;
  }
  found.sort((a, b) =>
    a.storeTimestamp < b.storeTimestamp ? 1 : a.storeTimestamp > b.storeTimestamp ? -1 : 0,
  );
  return { topic, begin, end, truncated, messages: found.slice(0, max).map(messageSummary) };
}

export async function searchByKey(ctx: ApiContext, params: Params): Promise<unknown> {
  const topic = params.string('topic');
  const key = params.string('key');
  const end = params.optionalInt('end') ?? Date.now();
  const begin = params.optionalInt('begin') ?? 0;
  const [result, info] = await Promise.all([
    ctx.admin.queryMessage(topic, key, KEY_QUERY_MAX, begin, end),
    ctx.admin.examineBrokerClusterInfo(),
  ]);
  // The index answers carry no broker name: the store host names the broker that holds the message.
  const brokerByAddr = new Map<string, string>();
  for (const [name, data] of info.brokerAddrTable)
    for (const addr of data.brokerAddrs.values()) brokerByAddr.set(addr, name);
  const messages = result.messageList.map((m) => {
    const summary = messageSummary(m);
    return {
      ...summary,
      brokerName: summary.brokerName ?? brokerByAddr.get(hostToString(m.storeHost)) ?? null,
    };
  });
  return { topic, key, messages };
}

/** Hex of 16 bytes (a client msgId or an offset id of an IPv4 host) or 28 (of an IPv6 host). */
const MESSAGE_ID = /^(?:[0-9A-Fa-f]{32}|[0-9A-Fa-f]{56})$/;

export async function viewMessage(ctx: ApiContext, params: Params): Promise<unknown> {
  const msgId = params.string('msgId').trim();
  const topic = params.optionalString('topic');
  if (!MESSAGE_ID.test(msgId)) {
    throw new HttpError(400, `"${msgId.slice(0, 64)}" is no message id: 32 hex digits (56 for an IPv6 host)`);
  }
  if (topic === undefined || topic === '') {
    try {
      decodeOffsetMsgId(msgId);
    } catch (error) {
      throw new HttpError(400, `${errorText(error)}; a client msgId needs its topic`);
    }
  }
  const m = await ctx.admin
    .viewMessage(msgId, topic === undefined || topic === '' ? {} : { topic })
    .catch((error: unknown) => {
      if (error instanceof RocketMQError && error.responseCode === ResponseCode.NO_MESSAGE)
        throw new HttpError(404, errorText(error));
      throw error;
    });
  const track = await messageTrackDetail(ctx.admin, m).catch((error: unknown) => [
    {
      consumerGroup: '',
      trackType: 'UNKNOWN',
      exceptionDesc: error instanceof Error ? error.message : String(error),
    },
  ]);
  return {
    ...messageSummary(m),
    bornHost: hostToString(m.bornHost),
    storeHost: hostToString(m.storeHost),
    reconsumeTimes: m.reconsumeTimes,
    commitLogOffset: m.commitLogOffset,
    properties: Object.fromEntries(m.properties),
    body: bodyPreview(m, ctx.settings.bodyPreviewBytes),
    track,
  };
}

export const TOOLS_CONSUMER_GROUP = MixAll.TOOLS_CONSUMER_GROUP;
