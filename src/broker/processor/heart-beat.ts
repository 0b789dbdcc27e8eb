import { MixAll, PermName, TopicSysFlag } from '../../common/constants.js';
import { ValidationError } from '../../common/errors.js';
import { decodeHeartbeatData } from '../../common/protocol/heartbeat-data.js';
import { createResponse } from '../../remoting/protocol/command.js';
import { ResponseCode } from '../../remoting/protocol/response-code.js';
import type { ClientChannelInfo } from '../client/client-channel-info.js';
import { consumerGroupHeartbeatTable } from '../client/consumer-group-heartbeat-table.js';
import { validateGroup } from '../subscription/subscription-group-manager.js';
import type { BrokerRequestHandler } from './broker-context.js';

/** Response extFields of a 5.x broker's heartbeat answer (MixAll.IS_SUPPORT_HEART_BEAT_V2, IS_SUB_CHANGE). */
export const IS_SUPPORT_HEART_BEAT_V2 = 'IS_SUPPORT_HEART_BEAT_V2';
export const IS_SUB_CHANGE = 'IS_SUB_CHANGE';

/**
 * HEART_BEAT (34): registers the client's producer and consumer groups on this connection. Each
 * consumer group gets its subscription group (auto-created) and its retry topic `%RETRY%<group>`
 * with the group's retryQueueNums. The answer is a SUCCESS whose `version` (409) the Java client
 * keeps as the broker's version (it refuses SQL92 pulls from brokers it thinks older).
 *
 * Heartbeat V2, as the 5.x broker (ClientManageProcessor.heartBeat / heartBeatV2): every answer
 * carries IS_SUPPORT_HEART_BEAT_V2=true, and IS_SUB_CHANGE: true after a 4.x-style heartbeat
 * (fingerprint 0), else whether the group's last fingerprint differed from this one (or a pull found
 * the group's subscription stale, see ConsumerGroupHeartbeatTable.markStale). A 5.x client
 * that enabled V2 then sends `withoutSub` heartbeats while its fingerprint stays the same; those
 * refresh the member and keep the group's subscriptions. 4.x clients ignore the two fields.
 *
 * Every group name is checked before anything is registered (a group name becomes a topic name and
 * a store directory): a bad one fails the whole heartbeat with SYSTEM_ERROR. Upstream trusts the
 * client to have checked.
 */
export const heartBeat: BrokerRequestHandler = (broker, ctx, request) => {
  const heartbeat = decodeHeartbeatData(request.body);
  const fingerprint = heartbeat.heartbeatFingerprint ?? 0;
  const withoutSub = fingerprint !== 0 && heartbeat.withoutSub === true;
  const fingerprints = consumerGroupHeartbeatTable(broker);
  let subChange = fingerprint === 0;
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
    if (fingerprints.update(data.groupName, fingerprint, ctx.connection) && fingerprint !== 0)
      subChange = true;
    // Not upstream: a group that lost its subscriptions here (its last member's connection closed,
    // or it expired) would otherwise be re-registered without any, and its pulls would fail until
    // the client's fingerprint changed; asking for the full heartbeat repairs it on the next one.
    if (withoutSub && broker.consumerManager.findSubscriptionDataCount(data.groupName) === 0) {
      subChange = true;
    }
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
    const changed = withoutSub
      ? broker.consumerManager.registerConsumerWithoutSub(
          data.groupName,
          info,
          data.consumeType,
          data.messageModel,
          data.consumeFromWhere,
          notify,
        )
      : broker.consumerManager.registerConsumer(
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
  return createResponse(request, ResponseCode.SUCCESS, {
    extFields: { [IS_SUPPORT_HEART_BEAT_V2]: 'true', [IS_SUB_CHANGE]: String(subChange) },
  });
};
