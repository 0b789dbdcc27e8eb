/**
 * The LOCK_BATCH_MQ / UNLOCK_BATCH_MQ bodies (`common/.../protocol/body/LockBatchRequestBody.java`,
 * `LockBatchResponseBody.java`, `UnlockBatchRequestBody.java`):
 * `{"clientId":..,"consumerGroup":..,"mqSet":[{MessageQueue}]}` and `{"lockOKMQSet":[{MessageQueue}]}`.
 * The sets are Java HashSets: written in the order given (see javaMessageQueueSetOrder), read as
 * arrays without duplicates. 5.x clients add `onlyThisBroker`, which readers ignore.
 */
import { javaSet, stringifyFastjson } from '../fastjson/index.js';
import type { MessageQueue } from '../message/message-queue.js';
import { BodyReader } from './body-reader.js';
import { messageQueueValue, readMessageQueueSet } from './message-queue-value.js';

/** LockBatchRequestBody and UnlockBatchRequestBody have the same fields. */
export interface LockBatchRequestBody {
  consumerGroup: string;
  clientId: string;
  mqSet: MessageQueue[];
}

export type UnlockBatchRequestBody = LockBatchRequestBody;

export interface LockBatchResponseBody {
  lockOKMQSet: MessageQueue[];
}

function encodeRequest(b: LockBatchRequestBody): Buffer {
  const value = {
    clientId: b.clientId,
    consumerGroup: b.consumerGroup,
    mqSet: javaSet(b.mqSet.map(messageQueueValue)),
  };
  return Buffer.from(stringifyFastjson(value), 'utf8');
}

/**
 * Group and client id are required: upstream's lock table fails on a null group or holder (a
 * NullPointerException, so SYSTEM_ERROR). A missing mqSet is empty, the Java field's default.
 */
function decodeRequest(what: string, body: Buffer | undefined): LockBatchRequestBody {
  const r = BodyReader.parse(what, body);
  return {
    consumerGroup: r.field('consumerGroup').string(),
    clientId: r.field('clientId').string(),
    mqSet: readMessageQueueSet(r.optional('mqSet')),
  };
}

export function encodeLockBatchRequestBody(b: LockBatchRequestBody): Buffer {
  return encodeRequest(b);
}

export function decodeLockBatchRequestBody(body: Buffer | undefined): LockBatchRequestBody {
  return decodeRequest('LockBatchRequestBody', body);
}

export function encodeUnlockBatchRequestBody(b: UnlockBatchRequestBody): Buffer {
  return encodeRequest(b);
}

export function decodeUnlockBatchRequestBody(body: Buffer | undefined): UnlockBatchRequestBody {
  return decodeRequest('UnlockBatchRequestBody', body);
}

export function encodeLockBatchResponseBody(b: LockBatchResponseBody): Buffer {
  return Buffer.from(
    stringifyFastjson({ lockOKMQSet: javaSet(b.lockOKMQSet.map(messageQueueValue)) }),
    'utf8',
  );
}

export function decodeLockBatchResponseBody(body: Buffer | undefined): LockBatchResponseBody {
  const r = BodyReader.parse('LockBatchResponseBody', body);
  return { lockOKMQSet: readMessageQueueSet(r.optional('lockOKMQSet')) };
}
