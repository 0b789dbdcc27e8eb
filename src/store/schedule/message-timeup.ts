/**
 * Upstream ScheduleMessageService.messageTimeup: the message a due SCHEDULE_TOPIC_XXXX record becomes
 * when it is put back into its real topic and queue (toRealQueue). Upstream computes the properties
 * string before it clears DELAY from the map, so its delivered record still carries DELAY (a Java
 * consumer's getDelayTimeLevel() returns the level it waited at) while its store, reading the
 * cleared map, does not schedule it again; delayTimeLevel 0 is that cleared map.
 */
import { decodeMessage } from '../../common/message/stored-format.js';
import { toRealQueue } from '../real-queue-message.js';
import type { MessageExtBrokerInner } from '../stored-record-writer.js';

/** Throws ValidationError when the record lacks a valid REAL_TOPIC or REAL_QID. */
export function messageTimeup(record: Buffer): MessageExtBrokerInner {
  return toRealQueue(decodeMessage(record, 0, { decompress: false }), 'delayed message');
}
