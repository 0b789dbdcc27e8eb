/**
 * Upstream TimerMessageStore.convert + convertMessage (5.5.0): the message a due timer-topic record
 * becomes when it is put back into its real topic and queue (toRealQueue). TIMER_ENQUEUE_MS (when
 * the timer took it in: upstream writes its current write time, a slot boundary) and
 * TIMER_DEQUEUE_MS (now) are added; REAL_TOPIC / REAL_QID stay in the stored record as upstream's.
 * Everything else (UNIQ_KEY and so the message id included) is the sent message's.
 */
import { MessageConst } from '../../common/message/message-const.js';
import { decodeMessage } from '../../common/message/stored-format.js';
import { toRealQueue } from '../real-queue-message.js';
import type { MessageExtBrokerInner } from '../stored-record-writer.js';

/** Throws ValidationError when the record lacks a valid REAL_TOPIC or REAL_QID. */
export function convertTimerMessage(
  record: Buffer,
  nowMs: number,
  precisionMs: number,
): MessageExtBrokerInner {
  const ext = decodeMessage(record, 0, { decompress: false });
  const enqueueMs = Math.floor(Number(ext.storeTimestamp) / precisionMs) * precisionMs;
  ext.properties.set(MessageConst.PROPERTY_TIMER_ENQUEUE_MS, String(enqueueMs));
  ext.properties.set(MessageConst.PROPERTY_TIMER_DEQUEUE_MS, String(nowMs));
  return toRealQueue(ext, 'timer message');
}
