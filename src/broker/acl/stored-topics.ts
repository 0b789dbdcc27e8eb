/**
 * The topics a request that names a stored message by its commit-log offset (VIEW_MESSAGE_BY_ID,
 * CONSUMER_SEND_MSG_BACK) must hold SUB on, read from the record's header. Upstream checks nothing
 * for the first and only the group for the second, so an account could read any topic by offset.
 */
import { MessageConst } from '../../common/message/message-const.js';
import { string2messageProperties } from '../../common/message/properties.js';
import { readStoredRecordHeader, type StoredRecordHeader } from '../../common/message/stored-format.js';
import { TopicValidator } from '../../common/validators.js';
import type { MessageStore } from '../../store/message-store.js';

export type StoredMessageLookup = Pick<
  MessageStore,
  'selectOneMessageByOffset' | 'getCommitLogOffsetInQueue'
>;

/** System topics whose records carry the topic they belong to in REAL_TOPIC. */
const REAL_TOPIC_HOLDERS: ReadonlySet<string> = new Set([
  TopicValidator.RMQ_SYS_SCHEDULE_TOPIC,
  TopicValidator.RMQ_SYS_TRANS_HALF_TOPIC,
]);

/** The topic of a record read by selectOneMessageByOffset, undefined when it is not one message. */
export function storedRecordTopic(record: Buffer): string | undefined {
  try {
    const h = readStoredRecordHeader(record, 0);
    return h.kind === 'message' ? topicOf(record, h) : undefined;
  } catch {
    return undefined;
  }
}

function topicOf(record: Buffer, h: StoredRecordHeader): string {
  return record.toString('utf8', h.topicOffset, h.topicOffset + h.topicLength);
}

/**
 * The topics the message stored at `offset` belongs to: its own (or REAL_TOPIC for a delayed or
 * half message), plus RETRY_TOPIC when it is a retry copy. Undefined when nothing is stored there
 * (the processor then answers its own not-found). Throws when bytes there frame as a record that the
 * consume queue does not point at: an offset inside a body can frame a forged record (any topic,
 * any length) that would carry the following records of other topics out with it.
 */
export function storedMessageTopics(store: StoredMessageLookup, offset: bigint): string[] | undefined {
  const record = store.selectOneMessageByOffset(offset);
  if (record === undefined) return undefined;
  const notAMessage = new Error(`no message is stored at commit-log offset ${offset}`);
  let h: StoredRecordHeader;
  try {
    const read = readStoredRecordHeader(record, 0);
    if (read.kind !== 'message') throw notAMessage;
    h = read;
  } catch {
    throw notAMessage;
  }
  const topic = topicOf(record, h);
  if (
    h.physicalOffset !== offset ||
    store.getCommitLogOffsetInQueue(topic, h.queueId, h.queueOffset) !== offset
  ) {
    throw notAMessage;
  }
  const properties = string2messageProperties(
    record.toString('utf8', h.propertiesOffset, h.propertiesOffset + h.propertiesLength),
  );
  const real = properties.get(MessageConst.PROPERTY_REAL_TOPIC);
  const topics = [REAL_TOPIC_HOLDERS.has(topic) && real !== undefined ? real : topic];
  const retryOf = properties.get(MessageConst.PROPERTY_RETRY_TOPIC);
  if (retryOf !== undefined && retryOf !== topics[0]) topics.push(retryOf);
  return topics;
}
