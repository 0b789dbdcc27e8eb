/**
 * What a FOUND pop answer becomes for the consumer, as upstream MQClientAPIImpl.processPopResponse
 * builds it: each message gets its receipt handle in POP_CK (ExtraInfoUtil's 8 fields: checkpoint
 * start offset, pop time, invisible time, revive queue, retry flag, broker name, queue id, the
 * message's offset) and 1ST_POP_TIME when absent; the broker name and the topic asked for.
 */
import type { MessageExt } from '../../../common/message/message.js';
import {
  buildExtraInfo,
  getRetry,
  parseMsgOffsetInfo,
  parseOrderCountInfo,
  parseStartOffsetInfo,
  retryFlagOf,
  splitExtraInfo,
} from '../../../common/pop/extra-info.js';
import { PopMessageConst } from '../../../common/pop/pop-message-const.js';
import type { RawPopResult } from '../../instance/requests/pop-message.js';

/**
 * ExtraInfoUtil.getStartOffsetInfoMapKey(topic, popCk, queueId): a broker that rewrote a retry
 * message's topic to the one asked for (5.x, popResponseReturnActualRetryTopic off) sets its POP_CK,
 * whose retry flag wins over the topic's.
 */
function startOffsetKey(msg: MessageExt): string {
  const popCk = msg.properties.get(PopMessageConst.PROPERTY_POP_CK);
  const flag = popCk !== undefined ? getRetry(splitExtraInfo(popCk)) : retryFlagOf(msg.topic);
  return `${flag}@${msg.queueId}`;
}

/** Sets each message's receipt handle; throws (ExtraInfoError) on info strings that do not parse. */
export function applyPopResult(
  raw: RawPopResult,
  msgs: MessageExt[],
  brokerName: string,
  topic: string,
  order: boolean,
): void {
  const startOffsetInfo = parseStartOffsetInfo(raw.startOffsetInfo);
  const msgOffsetInfo = parseMsgOffsetInfo(raw.msgOffsetInfo);
  const orderCountInfo = parseOrderCountInfo(raw.orderCountInfo);
  // key -> the popped offsets of that queue in answer order (buildQueueOffsetSortedMap).
  const sorted = new Map<string, bigint[]>();
  for (const msg of msgs) {
    const key = startOffsetKey(msg);
    let list = sorted.get(key);
    if (list === undefined) {
      list = [];
      sorted.set(key, list);
    }
    list.push(msg.queueOffset);
  }
  const firstOfQueue = new Map<string, string>();
  const popTime = String(raw.popTime);
  for (const msg of msgs) {
    if (startOffsetInfo === undefined) {
      // A broker without the info strings: the first message of each queue is the checkpoint start.
      const key = msg.topic + msg.queueId;
      let head = firstOfQueue.get(key);
      if (head === undefined) {
        head = buildExtraInfo(
          msg.queueOffset,
          raw.popTime,
          raw.invisibleTime,
          raw.reviveQid,
          msg.topic,
          brokerName,
          msg.queueId,
        );
        firstOfQueue.set(key, head);
      }
      msg.properties.set(PopMessageConst.PROPERTY_POP_CK, `${head} ${msg.queueOffset}`);
    } else if (!msg.properties.has(PopMessageConst.PROPERTY_POP_CK)) {
      const key = `${retryFlagOf(msg.topic)}@${msg.queueId}`;
      const index = sorted.get(key)?.indexOf(msg.queueOffset) ?? -1;
      const msgQueueOffset = msgOffsetInfo?.get(key)?.[index] ?? msg.queueOffset;
      const start = startOffsetInfo.get(key) ?? msg.queueOffset;
      msg.properties.set(
        PopMessageConst.PROPERTY_POP_CK,
        buildExtraInfo(
          start,
          raw.popTime,
          raw.invisibleTime,
          raw.reviveQid,
          msg.topic,
          brokerName,
          msg.queueId,
          msgQueueOffset,
        ),
      );
      if (order && orderCountInfo !== undefined) {
        const count =
          orderCountInfo.get(`${retryFlagOf(msg.topic)}@qo${msg.queueId}%${msg.queueOffset}`) ??
          orderCountInfo.get(key);
        if (count !== undefined && count > 0) msg.reconsumeTimes = count;
      }
    }
    if (!msg.properties.has(PopMessageConst.PROPERTY_FIRST_POP_TIME)) {
      msg.properties.set(PopMessageConst.PROPERTY_FIRST_POP_TIME, popTime);
    }
    msg.brokerName = brokerName;
    msg.topic = topic;
  }
}
