/**
 * GetConsumerStatusBody (`common/.../protocol/body/GetConsumerStatusBody.java`). A consumer answers
 * GET_CONSUMER_STATUS_FROM_CLIENT with its offsets in `messageQueueTable`; the broker answers
 * INVOKE_BROKER_TO_GET_CONSUMER_STATUS with each client's table under its clientId in
 * `consumerTable`. Both fields are HashMaps initialised empty, so both are always written:
 * `{"consumerTable":{"<clientId>":{{MessageQueue}:offset,..}},"messageQueueTable":{{MessageQueue}:offset}}`.
 */
import { FjMap, stringifyFastjson } from '../fastjson/index.js';
import type { MessageQueue } from '../message/message-queue.js';
import { BodyReader } from './body-reader.js';
import { type MessageQueueEntries, messageQueueMapValue, readMessageQueueMap } from './message-queue-map.js';

export interface GetConsumerStatusBody {
  /** A Java HashMap: in the order to write (javaMessageQueueMapOrder gives Java's). */
  messageQueueTable: MessageQueueEntries<bigint>;
  /** clientId -> that client's table; a Java HashMap, in the order to write (javaHashMapOrder). */
  consumerTable: ReadonlyArray<readonly [string, MessageQueueEntries<bigint>]>;
}

export function encodeGetConsumerStatusBody(body: GetConsumerStatusBody): Buffer {
  const offset = (v: bigint) => v;
  const value = {
    consumerTable: new FjMap(
      body.consumerTable.map(([clientId, table]) => [clientId, messageQueueMapValue(table, offset)] as const),
    ),
    messageQueueTable: messageQueueMapValue(body.messageQueueTable, offset),
  };
  return Buffer.from(stringifyFastjson(value), 'utf8');
}

export function decodeGetConsumerStatusBody(bytes: Buffer | undefined): {
  messageQueueTable: Array<[MessageQueue, bigint]>;
  consumerTable: Array<[string, Array<[MessageQueue, bigint]>]>;
} {
  const r = BodyReader.parse('GetConsumerStatusBody', bytes);
  const consumerTable: Array<[string, Array<[MessageQueue, bigint]>]> = [];
  for (const [clientId, table] of r.optional('consumerTable')?.entries() ?? []) {
    consumerTable.push([clientId, readMessageQueueMap(table, (v) => v.long())]);
  }
  return {
    messageQueueTable: readMessageQueueMap(r.optional('messageQueueTable'), (v) => v.long()),
    consumerTable,
  };
}
