/**
 * The checkpoint record a non-FIFO pop writes to the revive topic (upstream
 * PopMessageProcessor.buildCkMsg / appendCheckPoint): queue `reviveQid` of
 * `rmq_sys_REVIVE_LOG_<cluster>`, tag `ck`, body the PopCheckPoint JSON, UNIQ_KEY the checkpoint's
 * unique id. Decision 2 of the design: it is put at once into the revive queue (upstream routes it
 * through the timer with TIMER_DELIVER_MS = reviveTime - 1 s), so no TIMER_* property is written.
 */
import type { HostAddress } from '../../common/message/host.js';
import { MessageConst } from '../../common/message/message-const.js';
import { javaPropertiesOrder, messageProperties2String } from '../../common/message/properties.js';
import { tagsString2tagsCode } from '../../common/message/tag-hash.js';
import { PopAckConstants } from '../../common/pop/key-builder.js';
import { encodePopCheckPoint, type PopCheckPoint } from '../../common/pop/pop-check-point.js';
import type { MessageExtBrokerInner } from '../../store/stored-record-writer.js';

/** PopMessageProcessor.genCkUniqueId: `topic@queueId@startOffset@group@popTime@brokerName@ck`. */
export function genCkUniqueId(ck: PopCheckPoint): string {
  const s = PopAckConstants.SPLIT;
  return `${ck.topic}${s}${ck.queueId}${s}${ck.startOffset}${s}${ck.cid}${s}${ck.popTime}${s}${ck.brokerName}${s}${PopAckConstants.CK_TAG}`;
}

export function buildCkMsg(
  ck: PopCheckPoint,
  reviveTopic: string,
  reviveQid: number,
  brokerHost: HostAddress,
  now: number,
): MessageExtBrokerInner {
  // Written in Java's HashMap iteration order, as buildCkMsg's properties map is.
  const properties = new Map([
    [MessageConst.PROPERTY_TAGS, PopAckConstants.CK_TAG],
    [MessageConst.PROPERTY_UNIQ_CLIENT_MESSAGE_ID_KEYIDX, genCkUniqueId(ck)],
  ]);
  return {
    topic: reviveTopic,
    queueId: reviveQid,
    flag: 0,
    body: Buffer.from(encodePopCheckPoint(ck), 'utf8'),
    propertiesString: messageProperties2String(javaPropertiesOrder(properties)),
    tagsCode: tagsString2tagsCode(PopAckConstants.CK_TAG),
    sysFlag: 0,
    bornTimestamp: BigInt(now),
    bornHost: brokerHost,
    storeHost: brokerHost,
    reconsumeTimes: 0,
    preparedTransactionOffset: 0n,
  };
}
