/** The admin's offset calls: reset by time (through the broker, or queue by queue), commit, clone. */

import type { CallOptions } from '../../client/instance/mq-client-api.js';
import {
  buildUpdateConsumerOffsetRequest,
  parseUpdateConsumerOffsetResponse,
} from '../../client/instance/requests/consumer-offset.js';
import {
  buildGetMaxOffsetRequest,
  buildSearchOffsetRequest,
  parseGetMaxOffsetResponse,
  parseSearchOffsetResponse,
} from '../../client/instance/requests/queue-offsets.js';
import { MixAll } from '../../common/constants.js';
import { MessageQueue } from '../../common/message/message-queue.js';
import { checkGroupArg, checkTopicArg } from '../../common/validators.js';
import { ResponseCode } from '../../remoting/protocol/response-code.js';
import { type AdminContext, selectBrokerAddr } from '../admin-context.js';
import type { RollbackStats } from '../mq-admin-ext.js';
import {
  buildCloneGroupOffsetRequest,
  parseCloneGroupOffsetResponse,
} from '../requests/clone-group-offset.js';
import { buildGetConsumeStatsRequest, parseGetConsumeStatsResponse } from '../requests/get-consume-stats.js';
import {
  buildGetTopicStatsInfoRequest,
  parseGetTopicStatsInfoResponse,
} from '../requests/get-topic-stats-info.js';
import {
  buildInvokeBrokerToResetOffsetRequest,
  parseInvokeBrokerToResetOffsetResponse,
} from '../requests/invoke-broker-to-reset-offset.js';

/** On every broker of the topic; the broker answers CONSUMER_NOT_ONLINE for a group with no member. */
export async function resetOffsetByTimestamp(
  ctx: AdminContext,
  call: CallOptions,
  topic: string,
  group: string,
  timestamp: bigint,
  isForce: boolean,
): Promise<Array<[MessageQueue, bigint]>> {
  checkGroupArg('group', group);
  checkTopicArg('topic', topic);
  const route = await ctx.routeOf(topic, call);
  const tables = await Promise.all(
    ctx
      .routeBrokerAddrs(route)
      .map((addr) =>
        ctx.onBroker(
          addr,
          buildInvokeBrokerToResetOffsetRequest(topic, group, timestamp, isForce),
          parseInvokeBrokerToResetOffsetResponse,
          call,
          { topic, group },
        ),
      ),
  );
  return tables.flat();
}

interface QueueProgress {
  brokerOffset: bigint;
  consumerOffset: bigint;
}

/** The group's queues of `topic` on one broker; a group that never consumed there starts at the min offsets. */
async function queuesOf(
  ctx: AdminContext,
  call: CallOptions,
  addr: string,
  brokerName: string,
  readQueueNums: number,
  topic: string,
  group: string,
): Promise<Array<[MessageQueue, QueueProgress]>> {
  const subject = { topic, group };
  const stats = await ctx.onBroker(
    addr,
    buildGetConsumeStatsRequest(group),
    parseGetConsumeStatsResponse,
    call,
    subject,
  );
  const consumed = stats.offsetTable.filter(([mq]) => mq.topic === topic);
  if (consumed.length > 0) return consumed;
  const table = await ctx.onBroker(
    addr,
    buildGetTopicStatsInfoRequest(topic),
    parseGetTopicStatsInfoResponse,
    call,
    subject,
  );
  const byQueue = new Map(table.map(([mq, o]) => [mq.queueId, o] as const));
  const out: Array<[MessageQueue, QueueProgress]> = [];
  for (let queueId = 0; queueId < readQueueNums; queueId++) {
    const o = byQueue.get(queueId);
    if (o === undefined) continue;
    out.push([
      new MessageQueue(topic, brokerName, queueId),
      { brokerOffset: o.maxOffset, consumerOffset: o.minOffset },
    ]);
  }
  return out;
}

/** upstream resetOffsetByTimestampOld: the admin works out and commits each queue's offset itself. */
export async function resetOffsetByTimestampOld(
  ctx: AdminContext,
  call: CallOptions,
  group: string,
  topic: string,
  timestamp: bigint,
  force: boolean,
): Promise<RollbackStats[]> {
  checkGroupArg('consumerGroup', group);
  checkTopicArg('topic', topic);
  const route = await ctx.routeOf(topic, call);
  const out: RollbackStats[] = [];
  for (const bd of route.brokerDatas) {
    const addr = selectBrokerAddr(bd.brokerAddrs);
    if (addr === undefined) continue;
    const readQueueNums = route.queueDatas.find((q) => q.brokerName === bd.brokerName)?.readQueueNums ?? 0;
    for (const [mq, o] of await queuesOf(ctx, call, addr, bd.brokerName, readQueueNums, topic, group)) {
      const target =
        timestamp === -1n
          ? await ctx.onBroker(
              addr,
              buildGetMaxOffsetRequest(mq),
              (r, p) => parseGetMaxOffsetResponse(r, p.brokerAddr, topic),
              call,
            )
          : await ctx.onBroker(
              addr,
              buildSearchOffsetRequest(mq, timestamp),
              (r, p) => parseSearchOffsetResponse(r, p.brokerAddr, topic),
              call,
            );
      const move = force || target <= o.consumerOffset;
      if (move) {
        await ctx.onBroker(
          addr,
          buildUpdateConsumerOffsetRequest(group, mq, target),
          (r, p) => parseUpdateConsumerOffsetResponse(r, { topic, group, brokerAddr: p.brokerAddr }),
          call,
        );
      }
      out.push({
        brokerName: mq.brokerName,
        queueId: mq.queueId,
        brokerOffset: o.brokerOffset,
        consumerOffset: o.consumerOffset,
        timestampOffset: target,
        rollbackOffset: move ? target : o.consumerOffset,
      });
    }
  }
  return out;
}

/** mqadmin resetOffsetByTime: through the broker, else (group not online) queue by queue. */
export async function resetOffsetNew(
  ctx: AdminContext,
  call: CallOptions,
  group: string,
  topic: string,
  timestamp: bigint,
): Promise<void> {
  try {
    await resetOffsetByTimestamp(ctx, call, topic, group, timestamp, true);
  } catch (error) {
    if ((error as { responseCode?: unknown }).responseCode !== ResponseCode.CONSUMER_NOT_ONLINE) throw error;
    await resetOffsetByTimestampOld(ctx, call, group, topic, timestamp, true);
  }
}

export function updateConsumeOffset(
  ctx: AdminContext,
  call: CallOptions,
  brokerAddr: string,
  group: string,
  mq: MessageQueue,
  offset: bigint,
): Promise<void> {
  const subject = {
    topic: checkTopicArg('mq.topic', mq.topic),
    group: checkGroupArg('consumerGroup', group),
  };
  return ctx.onBroker(
    brokerAddr,
    buildUpdateConsumerOffsetRequest(group, mq, offset),
    (r, p) => parseUpdateConsumerOffsetResponse(r, { ...subject, brokerAddr: p.brokerAddr }),
    call,
  );
}

/** On every broker of srcGroup's retry topic, as upstream. */
export async function cloneGroupOffset(
  ctx: AdminContext,
  call: CallOptions,
  srcGroup: string,
  destGroup: string,
  topic: string | undefined,
  isOffline: boolean,
): Promise<void> {
  checkGroupArg('srcGroup', srcGroup);
  checkGroupArg('destGroup', destGroup);
  if (topic !== undefined) checkTopicArg('topic', topic);
  const route = await ctx.routeOf(MixAll.getRetryTopic(srcGroup), call);
  await Promise.all(
    ctx
      .routeBrokerAddrs(route)
      .map((addr) =>
        ctx.onBroker(
          addr,
          buildCloneGroupOffsetRequest(srcGroup, destGroup, topic, isOffline),
          parseCloneGroupOffsetResponse,
          call,
          { group: srcGroup, topic },
        ),
      ),
  );
}
