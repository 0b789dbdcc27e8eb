/**
 * Consumer groups: the list (every master's subscription groups, with their lag and consume TPS from
 * one brokerConsumeStats call per broker), one group's members with their client
 * versions and lag per queue, create/update, and reset of its offsets to a time.
 */
import { MQClientError } from '../../client/errors.js';
import { mqVersionName } from '../../common/constants.js';
import { RocketMQError } from '../../common/errors.js';
import type { SubscriptionGroupConfig } from '../../common/protocol/subscription-group-config.js';
import { ResponseCode } from '../../remoting/protocol/response-code.js';
import type { ConsumeStats } from '../mq-admin-ext.js';
import { type ApiContext, type BrokerAddress, mastersOf } from './api-context.js';
import { errorText } from './api-errors.js';
import { HttpError, type Params } from './http-json.js';
import { isSystemGroup } from './system-names.js';

export interface GroupSummary {
  group: string;
  /** `system`: a built-in group (TOOLS_CONSUMER, SELF_TEST_C_GROUP, CID_ONS...), the page hides it by default. */
  kind: 'normal' | 'system';
  brokers: string[];
  /** Messages not yet consumed, summed over its queues (null when no broker holds offsets of it). */
  lag: number | null;
  consumeTps: number;
}

export async function listGroups(ctx: ApiContext): Promise<unknown> {
  const masters = mastersOf(await ctx.admin.examineBrokerClusterInfo());
  const byGroup = new Map<string, GroupSummary>();
  const errors: Array<{ brokerName: string; error: string }> = [];
  const entry = (group: string): GroupSummary => {
    let g = byGroup.get(group);
    if (g === undefined) {
      g = { group, kind: isSystemGroup(group) ? 'system' : 'normal', brokers: [], lag: null, consumeTps: 0 };
      byGroup.set(group, g);
    }
    return g;
  };
  await Promise.all(
    masters.map(async (m) => {
      const [groups, stats] = await Promise.all([
        ctx.admin.getAllSubscriptionGroup(m.addr).catch((error: unknown) => {
          errors.push({ brokerName: m.brokerName, error: errorText(error) });
          return undefined;
        }),
        ctx.admin.fetchConsumeStatsInBroker(m.addr, false).catch(() => undefined),
      ]);
      for (const name of groups?.subscriptionGroupTable.keys() ?? []) entry(name).brokers.push(m.brokerName);
      for (const [name, perTopic] of stats?.consumeStatsList ?? []) {
        const g = entry(name);
        for (const s of perTopic) {
          g.consumeTps += s.consumeTps;
          for (const [, o] of s.offsetTable) g.lag = (g.lag ?? 0) + lagOf(o.brokerOffset, o.consumerOffset);
        }
      }
    }),
  );
  return { groups: [...byGroup.values()].sort((a, b) => a.group.localeCompare(b.group)), errors };
}

/**
 * Messages taken out and not settled (5.x brokers' pullOffset - consumerOffset: on ours, a POP
 * group's popped, un-acked messages); null when the broker does not say (4.x).
 */
function inflightOf(o: { consumerOffset: bigint; pullOffset?: bigint }): number | null {
  if (o.pullOffset === undefined) return null;
  const n = o.pullOffset - (o.consumerOffset < 0n ? 0n : o.consumerOffset);
  return n > 0n ? Number(n) : 0;
}

function lagOf(brokerOffset: bigint, consumerOffset: bigint): number {
  // A queue the group never committed in counts from 0, as upstream's diff does.
  const diff = brokerOffset - (consumerOffset < 0n ? 0n : consumerOffset);
  return diff > 0n ? Number(diff) : 0;
}

/** No consumer of the group is connected, or it never had one (no retry topic to look it up by). */
function notOnline(error: unknown): boolean {
  return (
    error instanceof RocketMQError &&
    (error.responseCode === ResponseCode.CONSUMER_NOT_ONLINE ||
      error.responseCode === ResponseCode.TOPIC_NOT_EXIST)
  );
}

/** The group's offsets from each master's consume stats list; undefined when none holds any. */
async function offsetsFromBrokers(
  ctx: ApiContext,
  masters: readonly BrokerAddress[],
  group: string,
): Promise<ConsumeStats | undefined> {
  const offsetTable: ConsumeStats['offsetTable'] = [];
  let consumeTps = 0;
  for (const m of masters) {
    const list = await ctx.admin.fetchConsumeStatsInBroker(m.addr, false).catch(() => undefined);
    for (const [name, perTopic] of list?.consumeStatsList ?? []) {
      if (name !== group) continue;
      for (const s of perTopic) {
        offsetTable.push(...s.offsetTable);
        consumeTps += s.consumeTps;
      }
    }
  }
  return offsetTable.length === 0 ? undefined : { offsetTable, consumeTps };
}

export async function getGroup(ctx: ApiContext, params: Params): Promise<unknown> {
  const group = params.string('group');
  const masters = mastersOf(await ctx.admin.examineBrokerClusterInfo());
  const [configs, connection, stats] = await Promise.all([
    Promise.all(
      masters.map(async (m) => ({
        brokerName: m.brokerName,
        config: await ctx.admin.examineSubscriptionGroupConfig(m.addr, group).catch(() => undefined),
      })),
    ),
    ctx.admin.examineConsumerConnectionInfo(group).then(
      (c) => ({ value: c, error: null }),
      (error: unknown) => ({ value: undefined, error: notOnline(error) ? null : errorText(error) }),
    ),
    ctx.admin.examineConsumeStats(group).then(
      (s): { value: ConsumeStats | undefined; error: string | null } => ({ value: s, error: null }),
      async (error: unknown) => {
        // A group that never ran a consumer has no retry topic to find its brokers by: its offsets
        // are still on the masters, in their consume stats lists.
        const offline = await offsetsFromBrokers(ctx, masters, group);
        if (offline !== undefined) return { value: offline, error: null };
        return { value: undefined, error: notOnline(error) ? null : errorText(error) };
      },
    ),
  ]);
  const queues = (stats.value?.offsetTable ?? [])
    .map(([mq, o]) => ({
      topic: mq.topic,
      brokerName: mq.brokerName,
      queueId: mq.queueId,
      brokerOffset: o.brokerOffset,
      consumerOffset: o.consumerOffset,
      lag: lagOf(o.brokerOffset, o.consumerOffset),
      inflight: inflightOf(o),
      lastTimestamp: o.lastTimestamp,
    }))
    .sort(
      (a, b) =>
        a.topic.localeCompare(b.topic) || a.brokerName.localeCompare(b.brokerName) || a.queueId - b.queueId,
    );
  const c = connection.value;
  return {
    group,
    configs: configs.filter(
      (x): x is { brokerName: string; config: SubscriptionGroupConfig } => x.config !== undefined,
    ),
    online: c !== undefined && c.connectionSet.length > 0,
    members: (c?.connectionSet ?? []).map((m) => ({
      clientId: m.clientId,
      clientAddr: m.clientAddr,
      language: m.language,
      version: mqVersionName(m.version) ?? String(m.version),
    })),
    consumeType: c?.consumeType ?? null,
    messageModel: c?.messageModel ?? null,
    consumeFromWhere: c?.consumeFromWhere ?? null,
    subscriptions: [...(c?.subscriptionTable.values() ?? [])].map((s) => ({
      topic: s.topic,
      expressionType: s.expressionType,
      subString: s.subString,
    })),
    queues,
    totalLag: queues.reduce((sum, q) => sum + q.lag, 0),
    totalInflight: queues.reduce((sum, q) => sum + (q.inflight ?? 0), 0),
    consumeTps: stats.value?.consumeTps ?? 0,
    errors: [connection.error, stats.error].filter((e) => e !== null),
  };
}

/** Creates or updates the subscription group on every master of the cluster (all when none is named). */
export async function updateGroup(ctx: ApiContext, params: Params): Promise<unknown> {
  const group = params.string('group');
  const clusterName = params.optionalString('clusterName');
  const masters = mastersOf(await ctx.admin.examineBrokerClusterInfo(), clusterName);
  if (masters.length === 0) throw new HttpError(404, 'no broker to create the group on');
  const fields = {
    groupName: group,
    ...(params.optionalBool('consumeEnable') === undefined
      ? {}
      : { consumeEnable: params.optionalBool('consumeEnable') }),
    ...(params.optionalBool('consumeBroadcastEnable') === undefined
      ? {}
      : { consumeBroadcastEnable: params.optionalBool('consumeBroadcastEnable') }),
    ...(params.optionalInt('retryQueueNums') === undefined
      ? {}
      : { retryQueueNums: params.optionalInt('retryQueueNums') }),
    ...(params.optionalInt('retryMaxTimes') === undefined
      ? {}
      : { retryMaxTimes: params.optionalInt('retryMaxTimes') }),
  };
  for (const m of masters) await ctx.admin.createAndUpdateSubscriptionGroupConfig(m.addr, fields);
  return { group, brokers: masters.map((m) => m.brokerName) };
}

/**
 * Deletes the subscription group and its offsets on every master of `clusterName` (every cluster
 * when none is given). Its retry and DLQ topics stay: they may hold messages someone still wants,
 * and the topic page deletes them.
 */
export async function deleteGroup(ctx: ApiContext, params: Params): Promise<unknown> {
  const group = params.string('group');
  const masters = mastersOf(await ctx.admin.examineBrokerClusterInfo(), params.optionalString('clusterName'));
  if (masters.length === 0) throw new HttpError(404, 'no broker to delete the group from');
  for (const m of masters) await ctx.admin.deleteSubscriptionGroup(m.addr, group, true);
  return { group, brokers: masters.map((m) => m.brokerName) };
}

/**
 * Moves the group's offsets in `topic` to the first message stored at or after `timestamp` (ms, -1
 * for the end): mqadmin resetOffsetByTime, through the brokers when the group is online.
 */
export async function resetOffset(ctx: ApiContext, params: Params): Promise<unknown> {
  const group = params.string('group');
  const topic = params.string('topic');
  const timestamp = params.int('timestamp');
  const force = params.optionalBool('force') ?? true;
  try {
    const queues = await ctx.admin.resetOffsetByTimestamp(topic, group, timestamp, force);
    return {
      group,
      topic,
      online: true,
      queues: queues.map(([mq, offset]) => ({ brokerName: mq.brokerName, queueId: mq.queueId, offset })),
    };
  } catch (error) {
    if (!notOnline(error)) throw error;
    const rolled = await ctx.admin.resetOffsetByTimestampOld(group, topic, timestamp, force);
    return {
      group,
      topic,
      online: false,
      queues: rolled.map((r) => ({ brokerName: r.brokerName, queueId: r.queueId, offset: r.rollbackOffset })),
    };
  }
}

export async function getProducers(ctx: ApiContext, params: Params): Promise<unknown> {
  const group = params.string('group');
  const topic = params.string('topic');
  try {
    const c = await ctx.admin.examineProducerConnectionInfo(group, topic);
    return {
      group,
      topic,
      producers: c.connectionSet.map((m) => ({
        clientId: m.clientId,
        clientAddr: m.clientAddr,
        language: m.language,
        version: mqVersionName(m.version) ?? String(m.version),
      })),
    };
  } catch (error) {
    if (error instanceof MQClientError) return { group, topic, producers: [] };
    throw error;
  }
}
