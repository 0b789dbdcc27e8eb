/**
 * OffsetMovedEvent (`common/.../protocol/topic/OffsetMovedEvent.java`) and the message a master writes
 * to OFFSET_MOVED_EVENT when it corrects a pull's offset (PullMessageProcessor.generateOffsetMovedEvent):
 * tag and key are the consumer group, DELAY is 0, the body is the event's JSON, and born and store host
 * are the broker's own address.
 */
import { TopicName } from '../../common/constants.js';
import { stringifyFastjson } from '../../common/fastjson/index.js';
import type { HostAddress } from '../../common/message/host.js';
import { MessageConst } from '../../common/message/message-const.js';
import { javaPropertiesOrder, messageProperties2String } from '../../common/message/properties.js';
import { tagsString2tagsCode } from '../../common/message/tag-hash.js';
import type { MessageExtBrokerInner } from '../../store/stored-record-writer.js';

export interface OffsetMovedEvent {
  consumerGroup: string;
  messageQueue: { topic: string; brokerName: string; queueId: number };
  offsetRequest: bigint;
  offsetNew: bigint;
}

/** The event as RemotingSerializable.encode writes it (fastjson, bean fields sorted). */
export function encodeOffsetMovedEvent(event: OffsetMovedEvent): Buffer {
  const mq = event.messageQueue;
  return Buffer.from(
    stringifyFastjson({
      consumerGroup: event.consumerGroup,
      messageQueue: { brokerName: mq.brokerName, queueId: mq.queueId, topic: mq.topic },
      offsetNew: event.offsetNew,
      offsetRequest: event.offsetRequest,
    }),
    'utf8',
  );
}

/** The OFFSET_MOVED_EVENT message for `event`, born at `now` on `brokerHost`. */
export function offsetMovedEventMessage(
  event: OffsetMovedEvent,
  brokerHost: HostAddress,
  now: number,
): MessageExtBrokerInner {
  const group = event.consumerGroup;
  // Java puts TAGS, DELAY, KEYS into the message's HashMap in that order.
  const properties = new Map([
    [MessageConst.PROPERTY_TAGS, group],
    [MessageConst.PROPERTY_DELAY_TIME_LEVEL, '0'],
    [MessageConst.PROPERTY_KEYS, group],
  ]);
  return {
    topic: TopicName.RMQ_SYS_OFFSET_MOVED_EVENT,
    queueId: 0,
    flag: 0,
    body: encodeOffsetMovedEvent(event),
    propertiesString: messageProperties2String(javaPropertiesOrder(properties)),
    tagsCode: tagsString2tagsCode(group),
    sysFlag: 0,
    bornTimestamp: BigInt(now),
    bornHost: brokerHost,
    storeHost: brokerHost,
    reconsumeTimes: 0,
    preparedTransactionOffset: 0n,
  };
}
