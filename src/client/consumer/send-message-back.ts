/**
 * Sending a failed message back (what push and pull consumers share): CONSUMER_SEND_MSG_BACK to the
 * broker that stored it, which writes it to the group's retry topic with a delay (or the DLQ); when
 * that fails, the message goes to the retry topic through the instance's own producer with the
 * properties upstream sets, so the broker still counts its reconsume times.
 */
import { MixAll } from '../../common/constants.js';
import type { Logger } from '../../common/logger.js';
import { Message, type MessageExt } from '../../common/message/message.js';
import { MessageConst } from '../../common/message/message-const.js';
import { errorText, MQClientError } from '../errors.js';
import type { InnerProducer } from '../instance/inner.js';
import type { MQClientInstance } from '../instance/mq-client-instance.js';
import {
  buildConsumerSendMsgBackRequest,
  parseConsumerSendMsgBackResponse,
} from '../instance/requests/consumer-send-msg-back.js';
import { DefaultMQProducerImpl } from '../producer/default-mq-producer-impl.js';

/** Upstream's timeout of CONSUMER_SEND_MSG_BACK and of the fallback send, ms. */
export const SEND_MSG_BACK_TIMEOUT_MS = 5000;

export interface SendBackContext {
  readonly instance: MQClientInstance;
  /** The group on the wire (with the namespace). */
  readonly consumerGroup: string;
  readonly unitMode: boolean;
  readonly maxReconsumeTimes: number;
  readonly logger: Logger;
  readonly signal?: AbortSignal | undefined;
}

/**
 * A message for the group's retry topic carrying `msg` (upstream builds the same in the push
 * consumer's fallback and the orderly service's DLQ path): origin id, real topic, reconsume count,
 * max reconsume times, delay level 3 + the message's reconsume count; no transaction flag.
 */
export function retryMessage(
  msg: MessageExt,
  consumerGroup: string,
  wireTopic: string,
  reconsumeTimes: number,
  maxReconsumeTimes: number,
): Message {
  const retry = new Message(MixAll.getRetryTopic(consumerGroup), msg.body);
  retry.properties = new Map(msg.properties);
  const origin = msg.properties.get(MessageConst.PROPERTY_ORIGIN_MESSAGE_ID);
  retry.properties.set(
    MessageConst.PROPERTY_ORIGIN_MESSAGE_ID,
    origin === undefined || origin.trim() === '' ? msg.msgId : origin,
  );
  retry.flag = msg.flag;
  retry.properties.set(MessageConst.PROPERTY_RETRY_TOPIC, wireTopic);
  retry.properties.set(MessageConst.PROPERTY_RECONSUME_TIME, String(reconsumeTimes));
  retry.properties.set(MessageConst.PROPERTY_MAX_RECONSUME_TIMES, String(maxReconsumeTimes));
  retry.properties.delete(MessageConst.PROPERTY_TRANSACTION_PREPARED);
  retry.delayTimeLevel = 3 + msg.reconsumeTimes;
  return retry;
}

/** The instance's own producer (CLIENT_INNER_PRODUCER), made on first use; it has no namespace. */
export function innerProducerOf(instance: MQClientInstance): Promise<InnerProducer> {
  return instance.getOrCreateInnerProducer(async () => {
    const producer = new DefaultMQProducerImpl(
      { producerGroup: MixAll.CLIENT_INNER_PRODUCER_GROUP },
      { ...instance.config, namespace: undefined },
    );
    producer.startInner(instance);
    return producer;
  });
}

/**
 * `sendMessageBack(msg, delayLevel, brokerName)`: to `brokerName`'s master, or the broker that
 * stored `msg`; the retry topic through the inner producer when that fails. Rejects when both failed.
 */
export async function sendMessageBack(
  ctx: SendBackContext,
  msg: MessageExt,
  wireTopic: string,
  delayLevel: number,
  brokerName: string | undefined,
): Promise<void> {
  const { instance, consumerGroup } = ctx;
  try {
    const addr =
      brokerName !== undefined && brokerName !== ''
        ? instance.findBrokerAddressInPublish(brokerName)
        : `${msg.storeHost.address}:${msg.storeHost.port}`;
    if (addr === undefined)
      throw new MQClientError(`The broker[${brokerName}] not exist`, undefined, { topic: wireTopic });
    const request = buildConsumerSendMsgBackRequest({
      offset: msg.commitLogOffset,
      group: consumerGroup,
      delayLevel,
      originMsgId: msg.msgId,
      originTopic: wireTopic,
      unitMode: ctx.unitMode,
      maxReconsumeTimes: ctx.maxReconsumeTimes,
      bname: brokerName,
    });
    const response = await instance.api.invoke(addr, request, {
      timeoutMs: SEND_MSG_BACK_TIMEOUT_MS,
      signal: ctx.signal,
    });
    parseConsumerSendMsgBackResponse(response, { brokerAddr: addr, topic: wireTopic, group: consumerGroup });
  } catch (error) {
    ctx.logger.error(
      'sendMessageBack failed, sending to the retry topic with the inner producer',
      {
        group: consumerGroup,
        msgId: msg.msgId,
        error: errorText(error),
      },
      error,
    );
    const producer = await innerProducerOf(instance);
    const retry = retryMessage(msg, consumerGroup, wireTopic, msg.reconsumeTimes + 1, ctx.maxReconsumeTimes);
    await producer.sendInner(retry, SEND_MSG_BACK_TIMEOUT_MS);
  }
}
