import { MixAll, PermName, TopicSysFlag } from '../../common/constants.js';
import { ValidationError } from '../../common/errors.js';
import { decodeHeartbeatData } from '../../common/protocol/heartbeat-data.js';
import { createResponse } from '../../remoting/protocol/command.js';
import { ResponseCode } from '../../remoting/protocol/response-code.js';
import type { ClientChannelInfo } from '../client/client-channel-info.js';
import { validateGroup } from '../subscription/subscription-group-manager.js';
import type { BrokerRequestHandler } from './broker-context.js';

/**
 * HEART_BEAT (34): registers the client's producer and consumer groups on this connection. Each
 * consumer group gets its subscription group (auto-created) and its retry topic `%RETRY%<group>`
 * with the group's retryQueueNums. The answer is a plain SUCCESS whose `version` (409) the Java
 * client keeps as the broker's version (it refuses SQL92 pulls from brokers it thinks older).
 *
 * Every group name is checked before anything is registered (a group name becomes a topic name and
 * a store directory): a bad one fails the whole heartbeat with SYSTEM_ERROR. Upstream trusts the
 * client to have checked.
 */
export const heartBeat: BrokerRequestHandler = (broker, ctx, request) => {
  const heartbeat = decodeHeartbeatData(request.body);
  for (const data of heartbeat.consumerDataSet) validateGroup(data.groupName);
  for (const data of heartbeat.producerDataSet) validateGroup(data.groupName);
  const info: ClientChannelInfo = {
    channel: ctx.connection,
    clientId: heartbeat.clientID,
    language: request.language,
    version: request.version,
    lastUpdateTimestamp: broker.clock.now(),
  };
  for (const data of heartbeat.consumerDataSet) {
    const groupConfig = broker.subscriptionGroupManager.findSubscriptionGroupConfig(data.groupName);
    let notify = true;
    if (groupConfig !== undefined) {
      notify = groupConfig.notifyConsumerIdsChangedEnable;
      const retryTopic = MixAll.getRetryTopic(data.groupName);
      try {
        broker.topicConfigManager.createTopicInSendMessageBackMethod(
          retryTopic,
          groupConfig.retryQueueNums,
          PermName.PERM_WRITE | PermName.PERM_READ,
          data.unitMode ? TopicSysFlag.buildSysFlag(false, true) : 0,
        );
      } catch (error) {
        if (!(error instanceof ValidationError)) throw error;
        // A group name of 121..255 characters is valid but its retry topic is not.
        broker.logger.warn('no retry topic for a consumer group', {
          group: data.groupName,
          error: error.message,
        });
      }
    }
    const changed = broker.consumerManager.registerConsumer(
      data.groupName,
      info,
      data.consumeType,
      data.messageModel,
      data.consumeFromWhere,
      data.subscriptionDataSet,
      notify,
    );
    if (changed) {
      broker.logger.info('registerConsumer info changed', {
        group: data.groupName,
        clientId: heartbeat.clientID,
        remoteAddress: ctx.remoteAddress,
      });
    }
  }
  for (const data of heartbeat.producerDataSet) broker.producerManager.registerProducer(data.groupName, info);
  return createResponse(request, ResponseCode.SUCCESS);
};
