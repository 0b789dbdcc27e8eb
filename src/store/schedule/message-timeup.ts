/**
 * Upstream ScheduleMessageService.messageTimeup: the message a due SCHEDULE_TOPIC_XXXX record becomes
 * when it is put back into its real topic and queue (REAL_TOPIC / REAL_QID, which the delay rewrite
 * of the commit log recorded).
 */
import { ValidationError } from '../../common/errors.js';
import { requireJavaInt } from '../../common/message/java-lang.js';
import { MessageConst } from '../../common/message/message-const.js';
import { javaPropertiesOrder, messageProperties2String } from '../../common/message/properties.js';
import { decodeMessage } from '../../common/message/stored-format.js';
import { tagsString2tagsCode } from '../../common/message/tag-hash.js';
import { validateTopic } from '../../common/validators.js';
import { validateQueueId } from '../consume-queue-entry.js';
import type { MessageExtBrokerInner } from '../stored-record-writer.js';

/**
 * The record's body (still compressed when it was), flag, sysFlag, born and store hosts, born time and
 * reconsume count, with the real topic and queue. The properties are the record's, DELAY, REAL_TOPIC
 * and REAL_QID included, written in Java's HashMap order as upstream re-serializes them: upstream
 * computes that string before it clears DELAY from the map, so its delivered record still carries
 * DELAY (a Java consumer's getDelayTimeLevel() returns the level it waited at) while its store,
 * reading the cleared map, does not schedule it again. delayTimeLevel 0 is that cleared map.
 * Not waiting for the flush (WAIT=false) as upstream, without writing WAIT into the record.
 *
 * Throws ValidationError when the record lacks a valid REAL_TOPIC or REAL_QID: it can never be
 * delivered (upstream's parseInt fails on it again at every retry).
 */
export function messageTimeup(record: Buffer): MessageExtBrokerInner {
  const ext = decodeMessage(record, 0, { decompress: false });
  const properties = ext.properties;
  const topic = properties.get(MessageConst.PROPERTY_REAL_TOPIC);
  if (topic === undefined) {
    throw new ValidationError(
      `delayed message ${ext.offsetMsgId} has no ${MessageConst.PROPERTY_REAL_TOPIC}`,
    );
  }
  const queueIdText = properties.get(MessageConst.PROPERTY_REAL_QUEUE_ID);
  if (queueIdText === undefined) {
    throw new ValidationError(
      `delayed message ${ext.offsetMsgId} has no ${MessageConst.PROPERTY_REAL_QUEUE_ID}`,
    );
  }
  const queueId = requireJavaInt(queueIdText, MessageConst.PROPERTY_REAL_QUEUE_ID);
  // A name or id no consume queue can have would fail the dispatch and stop the store taking appends.
  validateTopic(topic);
  validateQueueId(queueId);
  return {
    topic,
    queueId,
    flag: ext.flag,
    body: ext.body,
    propertiesString: messageProperties2String(javaPropertiesOrder(properties)),
    tagsCode: tagsString2tagsCode(properties.get(MessageConst.PROPERTY_TAGS)),
    sysFlag: ext.sysFlag,
    bornTimestamp: ext.bornTimestamp,
    bornHost: ext.bornHost,
    storeHost: ext.storeHost,
    reconsumeTimes: ext.reconsumeTimes,
    preparedTransactionOffset: 0n,
    waitStoreMsgOK: false,
    delayTimeLevel: 0,
  };
}
