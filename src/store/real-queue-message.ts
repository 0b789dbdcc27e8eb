/**
 * The message a parked record becomes when it goes back to the topic and queue it was sent to
 * (REAL_TOPIC / REAL_QID, written when the record was parked): delay levels (upstream
 * ScheduleMessageService.messageTimeup) and timer messages (TimerMessageStore.convertMessage) both
 * re-put this way. Body (still compressed when it was), flag, sysFlag, born and store hosts, born
 * time and reconsume count are the record's; the properties are too, REAL_TOPIC and REAL_QID
 * included, in Java's HashMap order: upstream serializes them before it clears those keys from the
 * map. Not waiting for the flush (WAIT=false) as upstream, without writing WAIT into the record.
 */
import { ValidationError } from '../common/errors.js';
import type { HostAddress } from '../common/message/host.js';
import { requireJavaInt } from '../common/message/java-lang.js';
import type { MessageExt } from '../common/message/message.js';
import { MessageConst } from '../common/message/message-const.js';
import { javaPropertiesOrder, messageProperties2String } from '../common/message/properties.js';
import { tagsString2tagsCode } from '../common/message/tag-hash.js';
import { validateTopic } from '../common/validators.js';
import { validateQueueId } from './consume-queue-entry.js';
import type { MessageExtBrokerInner } from './stored-record-writer.js';

/** Hosts seen, by text: see sameHost. */
const hosts = new Map<string, HostAddress>();
/** Past this many distinct hosts the table starts again (it only saves work). */
const MAX_HOSTS = 4096;

/**
 * One object per host: the store remembers a host's encoded bytes by object, and a decoded record
 * carries new ones, so each re-put parsed its born and store hosts again (a tenth of the timer's
 * dequeue time under load, npm run bench:compare timer scenario, node --cpu-prof).
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
 * `what` names the record in errors ("delayed message", "timer message"). Throws ValidationError
 * when the record lacks a valid REAL_TOPIC or REAL_QID: it can never be delivered (upstream's
 * parseInt fails on it again at every retry). delayTimeLevel is 0: the copy is never scheduled
 * again by a DELAY property it may carry.
 */
export function toRealQueue(ext: MessageExt, what: string): MessageExtBrokerInner {
  const properties = ext.properties;
  const topic = properties.get(MessageConst.PROPERTY_REAL_TOPIC);
  if (topic === undefined) {
    throw new ValidationError(`${what} ${ext.offsetMsgId} has no ${MessageConst.PROPERTY_REAL_TOPIC}`);
  }
  const queueIdText = properties.get(MessageConst.PROPERTY_REAL_QUEUE_ID);
  if (queueIdText === undefined) {
    throw new ValidationError(`${what} ${ext.offsetMsgId} has no ${MessageConst.PROPERTY_REAL_QUEUE_ID}`);
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
    bornHost: sameHost(ext.bornHost),
    storeHost: sameHost(ext.storeHost),
    reconsumeTimes: ext.reconsumeTimes,
    preparedTransactionOffset: 0n,
    waitStoreMsgOK: false,
    delayTimeLevel: 0,
  };
}
