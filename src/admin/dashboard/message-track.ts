/**
 * Where a message went (upstream DefaultMQAdminExtImpl.messageTrackDetail): for each group consuming
 * its topic, whether the group's committed offset of the message's queue is past the message's
 * offset on the broker that stored it, and whether the group's tags filter it out.
 */
import { MixAll } from '../../common/constants.js';
import { RocketMQError } from '../../common/errors.js';
import { hostToString } from '../../common/message/host.js';
import type { MessageExt } from '../../common/message/message.js';
import { ConsumeType } from '../../common/protocol/heartbeat-data.js';
import type { ClusterInfo } from '../../common/protocol/route.js';
import { ResponseCode } from '../../remoting/protocol/response-code.js';
import type { MQAdminExt } from '../mq-admin-ext.js';
import { errorText } from './api-errors.js';
import { isSystemGroup } from './system-names.js';

/** Upstream TrackType. */
export type TrackType =
  | 'CONSUMED'
  | 'CONSUMED_BUT_FILTERED'
  | 'PULL'
  | 'NOT_CONSUME_YET'
  | 'NOT_ONLINE'
  | 'CONSUME_BROADCASTING'
  | 'UNKNOWN';

export interface MessageTrack {
  consumerGroup: string;
  trackType: TrackType;
  exceptionDesc: string | null;
}

function failure(group: string, error: unknown): MessageTrack {
  const code = error instanceof RocketMQError ? error.responseCode : undefined;
  return {
    consumerGroup: group,
    trackType: code === ResponseCode.CONSUMER_NOT_ONLINE ? 'NOT_ONLINE' : 'UNKNOWN',
    exceptionDesc: code === undefined ? errorText(error) : `CODE:${code} DESC:${errorText(error)}`,
  };
}

/** Whether `group` consumed `msg`: its offset of the message's queue, on the broker that stored it, is past it. */
async function consumed(
  admin: MQAdminExt,
  msg: MessageExt,
  group: string,
  cluster: ClusterInfo,
): Promise<boolean> {
  const stats = await admin.examineConsumeStats(group);
  const storeHost = hostToString(msg.storeHost);
  for (const [mq, offsets] of stats.offsetTable) {
    if (mq.topic !== msg.topic || mq.queueId !== msg.queueId) continue;
    const master = cluster.brokerAddrTable.get(mq.brokerName)?.brokerAddrs.get(Number(MixAll.MASTER_ID));
    if (master === storeHost && offsets.consumerOffset > msg.queueOffset) return true;
  }
  return false;
}

export async function messageTrackDetail(admin: MQAdminExt, msg: MessageExt): Promise<MessageTrack[]> {
  const groups = await admin.queryTopicConsumeByWho(msg.topic);
  const cluster = await admin.examineBrokerClusterInfo();
  return Promise.all(
    [...groups]
      .filter((g) => !isSystemGroup(g))
      .sort()
      .map(async (group): Promise<MessageTrack> => {
        let connection: Awaited<ReturnType<MQAdminExt['examineConsumerConnectionInfo']>>;
        try {
          connection = await admin.examineConsumerConnectionInfo(group);
        } catch (error) {
          return failure(group, error);
        }
        if (connection.consumeType === ConsumeType.CONSUME_ACTIVELY)
          return { consumerGroup: group, trackType: 'PULL', exceptionDesc: null };
        if (connection.consumeType !== ConsumeType.CONSUME_PASSIVELY)
          return { consumerGroup: group, trackType: 'UNKNOWN', exceptionDesc: null };
        let done: boolean;
        try {
          done = await consumed(admin, msg, group, cluster);
        } catch (error) {
          return failure(group, error);
        }
        if (!done) return { consumerGroup: group, trackType: 'NOT_CONSUME_YET', exceptionDesc: null };
        const sub = connection.subscriptionTable.get(msg.topic);
        const tags = sub?.tagsSet ?? [];
        const filtered =
          sub !== undefined && tags.length > 0 && !tags.includes('*') && !tags.includes(msg.tags ?? '');
        return {
          consumerGroup: group,
          trackType: filtered ? 'CONSUMED_BUT_FILTERED' : 'CONSUMED',
          exceptionDesc: null,
        };
      }),
  );
}
