/**
 * The QUERY_ASSIGNMENT (400) bodies (`remoting/.../protocol/body/QueryAssignmentRequestBody.java`,
 * `QueryAssignmentResponseBody.java`, `common/.../message/MessageQueueAssignment.java`): a consumer
 * that lets the broker rebalance (`clientRebalance=false`) asks which queues of a topic are its, and
 * in which mode. fastjson bean layouts, fields sorted:
 * `{"clientId":..,"consumerGroup":..,"messageModel":"CLUSTERING","strategyName":"AVG","topic":..}` and
 * `{"messageQueueAssignments":[{"attachments":{..},"messageQueue":{MessageQueue},"mode":"POP"}]}`.
 * The assignments are a Java HashSet whose order depends on the enum's identity hash, so no order is
 * canonical: written in the order given, read as a set of queues (later duplicates dropped).
 */
import { FjMap, javaHashMapOrder, javaSet, stringifyFastjson } from '../fastjson/index.js';
import type { MessageQueue } from '../message/message-queue.js';
import { BodyReader } from './body-reader.js';
import { MessageModel, readEnum } from './heartbeat-data.js';
import { messageQueueValue, readMessageQueue } from './message-queue-value.js';
import { MessageRequestMode, parseMessageRequestMode } from './message-request-mode.js';

export interface QueryAssignmentRequestBody {
  topic: string;
  consumerGroup: string;
  clientId: string;
  /** The allocation strategy's name (`AllocateMessageQueueStrategy.getName()`: AVG, AVG_BY_CIRCLE, ..). */
  strategyName: string;
  /** undefined where Java holds null (absent or unknown); the broker then assigns nothing. */
  messageModel: MessageModel | undefined;
}

export interface MessageQueueAssignment {
  messageQueue: MessageQueue;
  /** undefined where Java holds null (an unknown name); absent reads as the Java default PULL. */
  mode: MessageRequestMode | undefined;
  /** Free-form extras; upstream's broker never sets them (null, left out of the JSON). */
  attachments?: Map<string, string> | undefined;
}

export interface QueryAssignmentResponseBody {
  /** undefined = Java's null: the broker could not compute an assignment and the client keeps its own. */
  messageQueueAssignments: MessageQueueAssignment[] | undefined;
}

export function encodeQueryAssignmentRequestBody(b: QueryAssignmentRequestBody): Buffer {
  const value = {
    clientId: b.clientId,
    consumerGroup: b.consumerGroup,
    messageModel: b.messageModel,
    strategyName: b.strategyName,
    topic: b.topic,
  };
  return Buffer.from(stringifyFastjson(value), 'utf8');
}

/**
 * Topic, group and client id are required (upstream fails on a null topic or client id); a missing
 * strategy name reads as '' (no strategy has it: the broker assigns nothing, as upstream).
 */
export function decodeQueryAssignmentRequestBody(body: Buffer | undefined): QueryAssignmentRequestBody {
  const r = BodyReader.parse('QueryAssignmentRequestBody', body);
  return {
    topic: r.field('topic').string(),
    consumerGroup: r.field('consumerGroup').string(),
    clientId: r.field('clientId').string(),
    strategyName: r.optional('strategyName')?.string() ?? '',
    messageModel: readEnum(r.optional('messageModel'), MessageModel),
  };
}

export function encodeQueryAssignmentResponseBody(b: QueryAssignmentResponseBody): Buffer {
  const assignments = b.messageQueueAssignments?.map((a) => ({
    attachments:
      a.attachments === undefined
        ? undefined
        : new FjMap(
            javaHashMapOrder([...a.attachments.keys()]).map((k) => [k, a.attachments?.get(k)] as const),
          ),
    messageQueue: messageQueueValue(a.messageQueue),
    mode: a.mode,
  }));
  const value = { messageQueueAssignments: assignments === undefined ? undefined : javaSet(assignments) };
  return Buffer.from(stringifyFastjson(value), 'utf8');
}

export function decodeQueryAssignmentResponseBody(body: Buffer | undefined): QueryAssignmentResponseBody {
  const r = BodyReader.parse('QueryAssignmentResponseBody', body);
  const list = r.optional('messageQueueAssignments');
  if (list === undefined) return { messageQueueAssignments: undefined };
  const seen = new Set<string>();
  const out: MessageQueueAssignment[] = [];
  for (const item of list.array()) {
    const messageQueue = readMessageQueue(item.field('messageQueue'));
    // MessageQueueAssignment.equals compares the queue only.
    if (seen.has(messageQueue.key)) continue;
    seen.add(messageQueue.key);
    const mode = item.optional('mode');
    const attachments = item.optional('attachments');
    out.push({
      messageQueue,
      mode: mode === undefined ? MessageRequestMode.PULL : parseMessageRequestMode(mode.string()),
      attachments:
        attachments === undefined
          ? undefined
          : new Map(attachments.entries().map(([k, v]) => [k, v.string()] as const)),
    });
  }
  return { messageQueueAssignments: out };
}
