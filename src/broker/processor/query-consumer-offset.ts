import { createResponse } from '../../remoting/protocol/command.js';
import { decodeHeader, encodeHeader } from '../../remoting/protocol/header-schema.js';
import {
  QueryConsumerOffsetRequestHeader,
  QueryConsumerOffsetResponseHeader,
} from '../../remoting/protocol/headers/index.js';
import { ResponseCode } from '../../remoting/protocol/response-code.js';
import type { BrokerRequestHandler } from './broker-context.js';

/** Upstream's remark when a group has no offset and the queue's start is gone from memory. */
export const QUERY_OFFSET_NOT_FOUND_REMARK =
  'Not found, V3_0_6_SNAPSHOT maybe this group consumer boot first';

/**
 * QUERY_CONSUMER_OFFSET (14): the group's committed offset. Without one, 0 while the queue still
 * starts at 0 and that message is in memory (a new group reads a new queue from the start), else
 * QUERY_NOT_FOUND so the client applies its consumeFromWhere.
 */
export const queryConsumerOffset: BrokerRequestHandler = async (broker, _ctx, request) => {
  const h = decodeHeader(QueryConsumerOffsetRequestHeader, request.extFields);
  let offset = broker.consumerOffsetManager.queryOffset(h.consumerGroup, h.topic, h.queueId);
  if (offset < 0n) {
    const store = broker.messageStore;
    const minOffset = await store.getMinOffsetInQueue(h.topic, h.queueId);
    if (minOffset > 0n || (await store.checkInDiskByConsumeOffset(h.topic, h.queueId, 0n))) {
      return createResponse(request, ResponseCode.QUERY_NOT_FOUND, { remark: QUERY_OFFSET_NOT_FOUND_REMARK });
    }
    offset = 0n;
  }
  return createResponse(request, ResponseCode.SUCCESS, {
    extFields: encodeHeader(QueryConsumerOffsetResponseHeader, { offset }),
  });
};
