/**
 * Shared pieces of the send-back and schedule tests: the started broker of store-broker.ts, putting
 * messages and reading a queue back.
 */
import assert from 'node:assert/strict';
import type { BrokerController } from '../../../src/broker/broker-controller.js';
import type { MessageExt } from '../../../src/common/message/message.js';
import { decodeMessage } from '../../../src/common/message/stored-format.js';
import type { MessageExtBrokerInner } from '../../../src/store/stored-record-writer.js';
import { settle } from './helpers.js';
import { until } from './store-broker.js';

export {
  cleanUp,
  type RunningBroker,
  type StartOptions,
  startBroker,
  stopBroker,
  T0,
  tempRoot,
  until,
} from './store-broker.js';

export const SCHEDULE_TOPIC = 'SCHEDULE_TOPIC_XXXX';

export async function putMessage(broker: BrokerController, message: MessageExtBrokerInner): Promise<bigint> {
  const result = await broker.messageStore.putMessage(message);
  assert.equal(result.putMessageStatus, 'PUT_OK');
  assert.ok(result.appendMessageResult);
  return result.appendMessageResult.wroteOffset;
}

export interface StoredEntry {
  msg: MessageExt;
  /** The consume-queue tag code (the deliver time for SCHEDULE_TOPIC_XXXX). */
  tagsCode: bigint | undefined;
}

/** Every message of a queue with its consume-queue tag code (body as stored), pulled page by page. */
export async function readQueue(
  broker: BrokerController,
  topic: string,
  queueId: number,
): Promise<StoredEntry[]> {
  const out: StoredEntry[] = [];
  let offset = 0n;
  for (;;) {
    const tagsCodes: Array<bigint | undefined> = [];
    const got = await broker.messageStore.getMessage('reader', topic, queueId, offset, 32, {
      isMatchedByConsumeQueue: (tagsCode) => {
        tagsCodes.push(tagsCode);
        return true;
      },
      isMatchedByCommitLog: () => true,
    });
    if (got.messages.length === 0) return out;
    got.messages.forEach((buf, i) => {
      out.push({ msg: decodeMessage(buf, 0, { decompress: false }), tagsCode: tagsCodes[i] });
    });
    offset = got.nextBeginOffset;
  }
}

export function untilQueueHas(
  broker: BrokerController,
  topic: string,
  queueId: number,
  count: number,
): Promise<void> {
  return until(
    () => broker.messageStore.getMaxOffsetInQueue(topic, queueId) >= BigInt(count),
    `${count} message(s) in ${topic}/${queueId}`,
  );
}

/** Lets pending appends finish (a few turns), so an absence checked afterwards is real. */
export async function quiesce(): Promise<void> {
  for (let i = 0; i < 20; i++) await settle();
}
