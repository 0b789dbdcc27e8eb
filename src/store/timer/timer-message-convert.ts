/**
 * Upstream TimerMessageStore.convert + convertMessage (5.5.0): the message a due timer-topic record
 * becomes when it is put back into its real topic and queue. TIMER_ENQUEUE_MS (when the timer took
 * it in: upstream writes its current write time, a slot boundary) and TIMER_DEQUEUE_MS (now) are
 * added. Upstream serializes the properties before it clears REAL_TOPIC / REAL_QID from the map, so
 * the stored record, which is what a consumer reads, still carries both; so does ours, in Java's
 * HashMap order as upstream writes them. Everything else (body, flag, sysFlag, born and store
 * hosts, born time, reconsume count, UNIQ_KEY and so the message id) is the sent message's.
 */
import { ValidationError } from '../../common/errors.js';
import type { HostAddress } from '../../common/message/host.js';
import { requireJavaInt } from '../../common/message/java-lang.js';
import { MessageConst } from '../../common/message/message-const.js';
import { javaPropertiesOrder, messageProperties2String } from '../../common/message/properties.js';
import { decodeMessage } from '../../common/message/stored-format.js';
import { tagsString2tagsCode } from '../../common/message/tag-hash.js';
import { validateTopic } from '../../common/validators.js';
import { validateQueueId } from '../consume-queue-entry.js';
import type { MessageExtBrokerInner } from '../stored-record-writer.js';

/** Hosts seen, by text: see sameHost. */
const hosts = new Map<string, HostAddress>();
/** Past this many distinct hosts the table starts again (it only saves work). */
const MAX_HOSTS = 4096;

/**
 * One object per host: the store remembers a host's encoded bytes by object, and a decoded record
 * carries new ones, so each re-put parsed its born and store hosts again (a tenth of the dequeue's
 * time under load, npm run bench:compare timer scenario, node --cpu-prof).
 */
function sameHost(host: HostAddress): HostAddress {
  const key = `${host.address}/${host.port}`;
  const known = hosts.get(key);
  if (known !== undefined) return known;
  if (hosts.size >= MAX_HOSTS) hosts.clear();
  hosts.set(key, host);
  return host;
}

/**
 * Throws ValidationError when the record lacks a valid REAL_TOPIC or REAL_QID: it can never be
 * delivered (upstream's parseInt fails on it at every retry).
 */
export function convertTimerMessage(
  record: Buffer,
  nowMs: number,
  precisionMs: number,
): MessageExtBrokerInner {
  const ext = decodeMessage(record, 0, { decompress: false });
  const properties = ext.properties;
  const topic = properties.get(MessageConst.PROPERTY_REAL_TOPIC);
  if (topic === undefined) {
    throw new ValidationError(`timer message ${ext.offsetMsgId} has no ${MessageConst.PROPERTY_REAL_TOPIC}`);
  }
  const queueIdText = properties.get(MessageConst.PROPERTY_REAL_QUEUE_ID);
  if (queueIdText === undefined) {
    throw new ValidationError(
      `timer message ${ext.offsetMsgId} has no ${MessageConst.PROPERTY_REAL_QUEUE_ID}`,
    );
  }
  const queueId = requireJavaInt(queueIdText, MessageConst.PROPERTY_REAL_QUEUE_ID);
  // A name or id no consume queue can have would fail the dispatch and stop the store taking appends.
  validateTopic(topic);
  validateQueueId(queueId);
  const enqueueMs = Math.floor(Number(ext.storeTimestamp) / precisionMs) * precisionMs;
  properties.set(MessageConst.PROPERTY_TIMER_ENQUEUE_MS, String(enqueueMs));
  properties.set(MessageConst.PROPERTY_TIMER_DEQUEUE_MS, String(nowMs));
  return {
    topic,
    queueId,
    flag: ext.flag,
    body: ext.body,
    propertiesString: messageProperties2String(javaPropertiesOrder(properties)),
    tagsCode: tagsString2tagsCode(properties.get(MessageConst.PROPERTY_TAGS)),
    sysFlag: ext.sysFlag,
    bornTimestamp: ext.bornTimestamp,
    bornHost: sameHost(ext.bornHost),
    storeHost: sameHost(ext.storeHost),
    reconsumeTimes: ext.reconsumeTimes,
    preparedTransactionOffset: 0n,
    waitStoreMsgOK: false,
    // Never scheduled again by a DELAY property it might carry: the timer gave it out.
    delayTimeLevel: 0,
  };
}
