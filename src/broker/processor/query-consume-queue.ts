import {
  type ConsumeQueueData,
  encodeQueryConsumeQueueResponseBody,
  type QueryConsumeQueueResponseBody,
} from '../../common/protocol/query-consume-queue-body.js';
import { consumerFilterDataJson } from '../../filter/consumer-filter-manager.js';
import { createResponse } from '../../remoting/protocol/command.js';
import { decodeHeader } from '../../remoting/protocol/header-schema.js';
import { QueryConsumeQueueRequestHeader } from '../../remoting/protocol/headers/index.js';
import { ResponseCode } from '../../remoting/protocol/response-code.js';
import type { BrokerRequestHandler } from './broker-context.js';

/**
 * QUERY_CONSUME_QUEUE (321, `mqadmin queryCq`): up to `count` raw entries of one consume queue from
 * `index` (within the file holding it, as upstream's getIndexBuffer), its logical bounds, and with a
 * consumer group the group's subscription and filter data. SYSTEM_ERROR for a queue the store does
 * not have; SUCCESS without a body, and upstream's remark, when there is no entry at `index`. Without
 * a consume-queue ext no tags code is an ext address, so `eval`, `bitMap` and `extendDataJson` stay
 * unset, as upstream leaves them for plain entries.
 */
export const queryConsumeQueue: BrokerRequestHandler = (broker, _ctx, request) => {
  const h = decodeHeader(QueryConsumeQueueRequestHeader, request.extFields);
  // No field of this header is required upstream; its remarks then print the missing topic as null.
  const topic = h.topic ?? 'null';
  const view = broker.messageStore.queryConsumeQueue(topic, h.queueId, h.index, h.count);
  if (view === undefined) {
    return createResponse(request, ResponseCode.SYSTEM_ERROR, {
      remark: `${h.queueId}@${topic} is not exist!`,
    });
  }
  const body: QueryConsumeQueueResponseBody = {
    maxQueueIndex: view.maxQueueIndex,
    minQueueIndex: view.minQueueIndex,
  };
  if (h.consumerGroup !== undefined) {
    const subscription = broker.consumerManager.findSubscriptionData(h.consumerGroup, topic);
    body.subscriptionData = subscription;
    body.filterData =
      subscription === undefined
        ? `${h.consumerGroup}@${topic} is not online!`
        : consumerFilterDataJson(broker.consumerFilterManager.get(topic, h.consumerGroup));
  }
  if (view.entries === undefined) {
    return createResponse(request, ResponseCode.SUCCESS, {
      remark: `Index ${h.index} of ${h.queueId}@${topic} is not exist!`,
    });
  }
  body.queueData = view.entries.map(
    (e): ConsumeQueueData => ({
      physicOffset: e.commitLogOffset,
      physicSize: e.size,
      tagsCode: e.tagsCode,
      eval: false,
    }),
  );
  return createResponse(request, ResponseCode.SUCCESS, { body: encodeQueryConsumeQueueResponseBody(body) });
};
