/**
 * ResetOffsetBody (`common/.../protocol/body/ResetOffsetBody.java`): the offset each queue of a topic
 * is reset to. The broker pushes it to consumers with RESET_CONSUMER_CLIENT_OFFSET and answers
 * INVOKE_BROKER_TO_RESET_OFFSET with it: `{"offsetTable":{{MessageQueue}:offset,..}}`.
 * C++ clients get ResetOffsetBodyForC instead, the same table as a list of MessageQueueForC beans:
 * `{"offsetTable":[{"brokerName":..,"offset":..,"queueId":..,"topic":..},..]}`.
 */
import { stringifyFastjson } from '../fastjson/index.js';
import { MessageQueue } from '../message/message-queue.js';
import { BodyReader } from './body-reader.js';
import { type MessageQueueEntries, messageQueueMapValue, readMessageQueueMap } from './message-queue-map.js';

export interface ResetOffsetBody {
  /** A Java HashMap: in the order to write (javaMessageQueueMapOrder gives Java's). */
  offsetTable: MessageQueueEntries<bigint>;
}

export function encodeResetOffsetBody(body: ResetOffsetBody): Buffer {
  const value = { offsetTable: messageQueueMapValue(body.offsetTable, (offset) => offset) };
  return Buffer.from(stringifyFastjson(value), 'utf8');
}

/** A missing or null offsetTable reads as empty (the Java bean would hold null). */
export function decodeResetOffsetBody(bytes: Buffer | undefined): {
  offsetTable: Array<[MessageQueue, bigint]>;
} {
  const r = BodyReader.parse('ResetOffsetBody', bytes);
  return { offsetTable: readMessageQueueMap(r.optional('offsetTable'), (v) => v.long()) };
}

/** ResetOffsetBodyForC: the entries as a list, in the order given (upstream: its HashMap's order). */
export function encodeResetOffsetBodyForC(offsetTable: MessageQueueEntries<bigint>): Buffer {
  const list = offsetTable.map(([mq, offset]) => ({
    brokerName: mq.brokerName,
    offset,
    queueId: mq.queueId,
    topic: mq.topic,
  }));
  return Buffer.from(stringifyFastjson({ offsetTable: list }), 'utf8');
}

export function decodeResetOffsetBodyForC(bytes: Buffer | undefined): {
  offsetTable: Array<[MessageQueue, bigint]>;
} {
  const r = BodyReader.parse('ResetOffsetBodyForC', bytes);
  const items = r.optional('offsetTable')?.array() ?? [];
  return {
    offsetTable: items.map((item) => [
      new MessageQueue(
        item.field('topic').string(),
        item.field('brokerName').string(),
        item.optional('queueId')?.int() ?? 0,
      ),
      item.optional('offset')?.long() ?? 0n,
    ]),
  };
}
