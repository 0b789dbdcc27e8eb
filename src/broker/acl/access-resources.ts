/**
 * PlainAccessValidator.parse, the broker's part: which topics and groups each request code needs,
 * with which permission (4.9.8's table, with 5.x's fixes where 4.9.8 let a request through unchecked). Codes not listed need none (only the signature and the admin rule apply).
 * Groups are their retry topic (`%RETRY%<group>`); a missing value adds nothing, as upstream.
 * Beyond upstream, every request that returns or copies stored messages names their topics: a
 * message read by offset (the stored record's topics), queue locks (the group and each queue's
 * topic); see docs/security.md.
 */

import type { AccessRequestSource } from '../../common/acl/access-request.js';
import { getRetryTopic, isRetryTopic, Permission } from '../../common/acl/permission.js';
import { decodeBatchAckMessageRequestBody } from '../../common/pop/index.js';
import { decodeHeartbeatData } from '../../common/protocol/heartbeat-data.js';
import { decodeLockBatchRequestBody } from '../../common/protocol/lock-batch-body.js';
import { decodeQueryAssignmentRequestBody } from '../../common/protocol/query-assignment-body.js';
import { decodeHeader } from '../../remoting/protocol/header-schema.js';
import {
  ConsumerSendMsgBackRequestHeader,
  GetConsumerListByGroupRequestHeader,
  UnregisterClientRequestHeader,
  UpdateConsumerOffsetRequestHeader,
  ViewMessageRequestHeader,
} from '../../remoting/protocol/headers/index.js';
import { RequestCode } from '../../remoting/protocol/request-code.js';
import { type StoredMessageLookup, storedMessageTopics } from './stored-topics.js';

function add(into: Map<string, number>, resource: string | undefined, perm: number): void {
  if (resource !== undefined) into.set(resource, perm);
}

function addStored(
  into: Map<string, number>,
  store: StoredMessageLookup | undefined,
  offset: () => bigint,
): void {
  if (store === undefined) return;
  for (const topic of storedMessageTopics(store, offset()) ?? []) add(into, topic, Permission.SUB);
}

/** `store` reads the topics of a message named by offset; without it those requests name none. */
export function brokerAccessResources(
  request: AccessRequestSource,
  store?: StoredMessageLookup,
): Map<string, number> | undefined {
  const ext = request.extFields ?? {};
  const out = new Map<string, number>();
  switch (request.code) {
    case RequestCode.SEND_MESSAGE: {
      // A send to a retry topic needs SUB on that group. 4.9.8 reads the group from a `group` field
      // the V1 header does not have (so it checked nothing); 5.x checks the topic itself, as we do.
      const topic = ext.topic;
      add(out, topic, isRetryTopic(topic) ? Permission.SUB : Permission.PUB);
      break;
    }
    // 4.9.8 does not check batches at all, so a batch could reach a topic the account may not
    // publish to; 5.x checks them as single sends, as we do.
    case RequestCode.SEND_MESSAGE_V2:
    case RequestCode.SEND_BATCH_MESSAGE: {
      const topic = ext.b;
      add(out, topic, isRetryTopic(topic) ? Permission.SUB : Permission.PUB);
      break;
    }
    case RequestCode.CONSUMER_SEND_MSG_BACK: {
      // Upstream checks the group only, so sending any offset back into one's own group and pulling
      // its retry topic read messages of a denied topic: the stored message's topics count too.
      add(out, getRetryTopic(ext.group), Permission.SUB);
      addStored(out, store, () => decodeHeader(ConsumerSendMsgBackRequestHeader, ext).offset);
      break;
    }
    case RequestCode.VIEW_MESSAGE_BY_ID: {
      addStored(out, store, () => decodeHeader(ViewMessageRequestHeader, ext).offset);
      break;
    }
    case RequestCode.LOCK_BATCH_MQ:
    case RequestCode.UNLOCK_BATCH_MQ: {
      const body = decodeLockBatchRequestBody(request.body);
      add(out, getRetryTopic(body.consumerGroup), Permission.SUB);
      for (const mq of body.mqSet) add(out, mq.topic, Permission.SUB);
      break;
    }
    // Which queues of a topic a member reads: the member's own consume path (topic and group).
    case RequestCode.QUERY_ASSIGNMENT: {
      const body = decodeQueryAssignmentRequestBody(request.body);
      add(out, body.topic, Permission.SUB);
      add(out, getRetryTopic(body.consumerGroup), Permission.SUB);
      break;
    }
    // LITE_PULL_MESSAGE (5.x) is served by the same processor as PULL_MESSAGE: same resources.
    case RequestCode.PULL_MESSAGE:
    case RequestCode.LITE_PULL_MESSAGE:
    // 5.x POP reads (their headers name topic and consumerGroup like PULL's): SUB on both.
    case RequestCode.POP_MESSAGE:
    case RequestCode.PEEK_MESSAGE:
    case RequestCode.NOTIFICATION:
    case RequestCode.POLLING_INFO:
    // 5.x ACK_MESSAGE / CHANGE_MESSAGE_INVISIBLETIME: SUB on the topic and the group, as the pop.
    case RequestCode.ACK_MESSAGE:
    case RequestCode.CHANGE_MESSAGE_INVISIBLETIME:
      add(out, ext.topic, Permission.SUB);
      add(out, getRetryTopic(ext.consumerGroup), Permission.SUB);
      break;
    case RequestCode.BATCH_ACK_MESSAGE: {
      // Every BatchAck of the body names its group and topic.
      const body = request.body === undefined ? undefined : decodeBatchAckMessageRequestBody(request.body);
      for (const a of body?.acks ?? []) {
        add(out, a.topic, Permission.SUB);
        add(out, getRetryTopic(a.consumerGroup), Permission.SUB);
      }
      break;
    }
    case RequestCode.QUERY_MESSAGE:
      add(out, ext.topic, Permission.SUB);
      break;
    case RequestCode.HEART_BEAT: {
      const heartbeat = decodeHeartbeatData(request.body);
      for (const consumer of heartbeat.consumerDataSet) {
        add(out, getRetryTopic(consumer.groupName), Permission.SUB);
        for (const sub of consumer.subscriptionDataSet) add(out, sub.topic, Permission.SUB);
      }
      break;
    }
    case RequestCode.UNREGISTER_CLIENT: {
      const header = decodeHeader(UnregisterClientRequestHeader, request.extFields);
      add(out, getRetryTopic(header.consumerGroup), Permission.SUB);
      break;
    }
    case RequestCode.GET_CONSUMER_LIST_BY_GROUP: {
      const header = decodeHeader(GetConsumerListByGroupRequestHeader, request.extFields);
      add(out, getRetryTopic(header.consumerGroup), Permission.SUB);
      break;
    }
    case RequestCode.UPDATE_CONSUMER_OFFSET: {
      const header = decodeHeader(UpdateConsumerOffsetRequestHeader, request.extFields);
      add(out, getRetryTopic(header.consumerGroup), Permission.SUB);
      add(out, header.topic, Permission.SUB);
      break;
    }
    default:
      return undefined;
  }
  return out;
}
