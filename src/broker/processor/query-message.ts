import { MixAll } from '../../common/constants.js';
import { createResponse } from '../../remoting/protocol/command.js';
import { decodeHeader, encodeHeader } from '../../remoting/protocol/header-schema.js';
import {
  QueryMessageRequestHeader,
  QueryMessageResponseHeader,
} from '../../remoting/protocol/headers/index.js';
import { ResponseCode } from '../../remoting/protocol/response-code.js';
import { joinRecords } from '../../store/message-store.js';
import { storedRecordTopic } from '../acl/stored-topics.js';
import type { BrokerRequestHandler } from './broker-context.js';

/** Upstream's remark when the index has no match. */
export const QUERY_NOT_FOUND_REMARK = 'can not find message, maybe time range not correct';

/**
 * QUERY_MESSAGE (12): the stored records of `topic` whose KEYS or UNIQ_KEY is `key`, stored within
 * [beginTimestamp, endTimestamp], concatenated as the body. A unique-key query (`_UNIQUE_KEY_QUERY`
 * = "true") asks for defaultQueryMaxNum records whatever maxNum says; the store caps any query at
 * maxMsgsNumBatch. Records found through a colliding hash come too: the client filters them; with
 * ACL on they are dropped here, since a key whose `topic#key` hash collides with a denied topic's
 * (Java's String.hashCode, easy to collide) would otherwise read that topic's messages. Both
 * answers carry the index's last update as the store reports it (0 when no lookup matched).
 */
export const queryMessage: BrokerRequestHandler = async (broker, _ctx, request) => {
  const h = decodeHeader(QueryMessageRequestHeader, request.extFields);
  const uniqueKey = request.extFields?.[MixAll.UNIQUE_MSG_QUERY_FLAG] === 'true';
  const maxNum = uniqueKey ? broker.config.defaultQueryMaxNum : h.maxNum;
  const result = await broker.messageStore.queryMessage(
    h.topic,
    h.key,
    maxNum,
    h.beginTimestamp,
    h.endTimestamp,
  );
  if (broker.config.aclEnable) {
    result.messages = result.messages.filter((r) => storedRecordTopic(r) === h.topic);
    result.bufferTotalSize = result.messages.reduce((n, r) => n + r.length, 0);
  }
  const extFields = encodeHeader(QueryMessageResponseHeader, {
    indexLastUpdateTimestamp: result.indexLastUpdateTimestamp,
    indexLastUpdatePhyoffset: result.indexLastUpdatePhyoffset,
  });
  if (result.bufferTotalSize > 0) {
    const body = joinRecords(result.messages, result.bufferTotalSize);
    return createResponse(request, ResponseCode.SUCCESS, { extFields, body });
  }
  return createResponse(request, ResponseCode.QUERY_NOT_FOUND, { extFields, remark: QUERY_NOT_FOUND_REMARK });
};
