/**
 * NOTIFICATION (200054), upstream NotificationProcessor: answers `hasMsg` -- whether a pop of the
 * queue (every queue with queueId -1), or of the group's POP retry topic, would find messages past
 * the group's offset (a blocked FIFO queue has none) -- at once when there are, else when a message
 * arrives or the poll time ends (its own long polling, newest request woken first). `pollingFull`
 * says the request could not be parked.
 */
import { buildPopRetryTopic } from '../../common/pop/key-builder.js';
import type { TopicConfig } from '../../common/protocol/topic-config.js';
import { createResponse, type RemotingCommand } from '../../remoting/protocol/command.js';
import { decodeHeader, encodeHeader } from '../../remoting/protocol/header-schema.js';
import { NotificationRequestHeader } from '../../remoting/protocol/headers/notification-request-header.js';
import { NotificationResponseHeader } from '../../remoting/protocol/headers/notification-response-header.js';
import { ResponseCode } from '../../remoting/protocol/response-code.js';
import type { ProcessorContext } from '../../remoting/transport/index.js';
import type { BrokerContext, BrokerRequestHandler } from '../processor/broker-context.js';
import { checkPopTarget, isRefusal } from './pop-checks.js';
import type { PopRequest } from './pop-request.js';
import { enableRetryTopicV2Of } from './pop-settings.js';

const BORN_TIME = 'bornTime';

function hasMsgFromQueue(
  broker: BrokerContext,
  topic: string,
  h: NotificationRequestHeader,
  queueId: number,
): boolean {
  if (
    h.order &&
    broker.pop.consumerOrderInfoManager.checkBlock(h.attemptId, h.topic, h.consumerGroup, queueId, 0n)
  ) {
    return false;
  }
  let offset = broker.consumerOffsetManager.queryOffset(h.consumerGroup, topic, queueId);
  if (offset < 0n) offset = broker.messageStore.getMinOffsetInQueue(topic, queueId);
  return broker.messageStore.getMaxOffsetInQueue(topic, queueId) - offset > 0n;
}

function hasMsgFromTopic(
  broker: BrokerContext,
  topicConfig: Readonly<TopicConfig> | undefined,
  randomQ: number,
  h: NotificationRequestHeader,
): boolean {
  if (topicConfig === undefined) return false;
  const n = topicConfig.readQueueNums;
  for (let i = 0; i < n; i++) {
    if (hasMsgFromQueue(broker, topicConfig.topicName, h, (randomQ + i) % n)) return true;
  }
  return false;
}

export async function processNotificationRequest(
  broker: BrokerContext,
  ctx: ProcessorContext,
  request: RemotingCommand,
): Promise<RemotingCommand> {
  const ext = request.extFields ?? {};
  if (ext[BORN_TIME] === undefined || ext[BORN_TIME] === '0') {
    ext[BORN_TIME] = String(broker.clock.now());
    request.extFields = ext;
  }
  const h = decodeHeader(NotificationRequestHeader, ext);
  const checked = checkPopTarget(broker, ctx, request, h);
  if (isRefusal(checked)) return checked;
  const queueId = h.queueId < 0 ? -1 : h.queueId;
  const randomQ = Math.floor(Math.random() * 100);
  const needRetry = randomQ % 5 === 0;
  const retryTopic = buildPopRetryTopic(h.topic, h.consumerGroup, enableRetryTopicV2Of(broker.config));
  const retryConfig = () => broker.topicConfigManager.selectTopicConfig(retryTopic);
  let hasMsg = needRetry && hasMsgFromTopic(broker, retryConfig(), randomQ, h);
  if (!hasMsg) {
    hasMsg =
      queueId < 0
        ? hasMsgFromTopic(broker, checked, randomQ, h)
        : hasMsgFromQueue(broker, h.topic, h, queueId);
    if (!hasMsg && !needRetry) hasMsg = hasMsgFromTopic(broker, retryConfig(), randomQ, h);
  }
  let pollingFull = false;
  if (!hasMsg) {
    let settle: (r: RemotingCommand | PromiseLike<RemotingCommand>) => void = () => {};
    const held = new Promise<RemotingCommand>((resolve) => {
      settle = resolve;
    });
    const result = broker.pop.notificationPollingService.polling(
      ctx,
      request,
      { ...h, queueId },
      undefined,
      retryTopic,
      (r) => settle(r),
    );
    if (result === 'POLLING_SUC') {
      ctx.park?.(request);
      return held;
    }
    pollingFull = result === 'POLLING_FULL';
  }
  return createResponse(request, ResponseCode.SUCCESS, {
    extFields: encodeHeader(NotificationResponseHeader, { hasMsg, pollingFull }),
  });
}

export const notification: BrokerRequestHandler = (broker, ctx, request) =>
  processNotificationRequest(broker, ctx, request);

/** Re-runs a woken NOTIFICATION after the current turn. */
export function executeNotificationWhenWakeup(broker: BrokerContext, request: PopRequest): void {
  // A later turn, not a microtask: see executePopRequestWhenWakeup.
  setImmediate(() => {
    if (!request.channelOpen) return;
    request.respond(processNotificationRequest(broker, request.ctx, request.remotingCommand));
  });
}
