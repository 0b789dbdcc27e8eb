/**
 * Topics: the list (every master's topic configs merged, so one call per broker gives queue counts),
 * one topic's route, queue offsets and consumer groups, and create/update/delete on every master of
 * a cluster (upstream dashboard's topic page).
 */
import { MixAll, PermName } from '../../common/constants.js';
import type { TopicConfig } from '../../common/protocol/topic-config.js';
import { type ApiContext, mastersOf } from './api-context.js';
import { errorText } from './api-errors.js';
import { HttpError, type Params } from './http-json.js';
import { clusterTopicNames, isDashboardSystemTopic, isSystemGroup } from './system-names.js';

export type TopicKind = 'normal' | 'retry' | 'dlq' | 'system';

export interface TopicSummary {
  topic: string;
  kind: TopicKind;
  /** Summed over the brokers holding the topic. */
  readQueueNums: number;
  writeQueueNums: number;
  perm: number;
  order: boolean;
  brokers: string[];
}

/** `clusterTopics`: the cluster and broker names, topics the brokers make for themselves. */
export function topicKind(topic: string, clusterTopics: ReadonlySet<string> = new Set()): TopicKind {
  if (topic.startsWith(MixAll.RETRY_GROUP_TOPIC_PREFIX)) return 'retry';
  if (topic.startsWith(MixAll.DLQ_GROUP_TOPIC_PREFIX)) return 'dlq';
  return isDashboardSystemTopic(topic, clusterTopics) ? 'system' : 'normal';
}

export async function listTopics(ctx: ApiContext): Promise<unknown> {
  const info = await ctx.admin.examineBrokerClusterInfo();
  const masters = mastersOf(info);
  const clusterTopics = clusterTopicNames(info);
  const byTopic = new Map<string, TopicSummary>();
  const errors: Array<{ brokerName: string; error: string }> = [];
  const configs = await Promise.all(
    masters.map(async (m) => {
      try {
        return { m, table: (await ctx.admin.getAllTopicConfig(m.addr)).topicConfigTable };
      } catch (error) {
        errors.push({ brokerName: m.brokerName, error: errorText(error) });
        return { m, table: new Map<string, TopicConfig>() };
      }
    }),
  );
  for (const { m, table } of configs) {
    for (const config of table.values()) {
      const t = byTopic.get(config.topicName) ?? {
        topic: config.topicName,
        kind: topicKind(config.topicName, clusterTopics),
        readQueueNums: 0,
        writeQueueNums: 0,
        perm: config.perm,
        order: config.order,
        brokers: [],
      };
      t.readQueueNums += config.readQueueNums;
      t.writeQueueNums += config.writeQueueNums;
      t.brokers.push(m.brokerName);
      byTopic.set(config.topicName, t);
    }
  }
  const topics = [...byTopic.values()].sort((a, b) => a.topic.localeCompare(b.topic));
  return { topics, errors };
}

export async function getTopic(ctx: ApiContext, params: Params): Promise<unknown> {
  const topic = params.string('topic');
  const route = await ctx.admin.examineTopicRouteInfo(topic);
  const [stats, groups, info] = await Promise.all([
    ctx.admin.examineTopicStats(topic).then(
      (s) => s.offsetTable,
      () => [],
    ),
    ctx.admin.queryTopicConsumeByWho(topic).catch(() => []),
    ctx.admin.examineBrokerClusterInfo(),
  ]);
  const queues = stats
    .map(([mq, o]) => ({
      brokerName: mq.brokerName,
      queueId: mq.queueId,
      minOffset: o.minOffset,
      maxOffset: o.maxOffset,
      lastUpdateTimestamp: o.lastUpdateTimestamp,
    }))
    .sort((a, b) => a.brokerName.localeCompare(b.brokerName) || a.queueId - b.queueId);
  return {
    topic,
    kind: topicKind(topic, clusterTopicNames(info)),
    route: {
      queueDatas: route.queueDatas,
      brokerDatas: route.brokerDatas.map((b) => ({
        cluster: b.cluster,
        brokerName: b.brokerName,
        brokerAddrs: Object.fromEntries(b.brokerAddrs),
      })),
    },
    queues,
    // The admin tools' own pulls (this dashboard's message search) are no consumer of the topic.
    consumerGroups: [...groups].filter((g) => !isSystemGroup(g)).sort(),
  };
}

/**
 * Creates or updates the topic on every master of `clusterName` (of every cluster when none is
 * given), as upstream dashboard's topic form does.
 */
export async function updateTopic(ctx: ApiContext, params: Params): Promise<unknown> {
  const topic = params.string('topic');
  const clusterName = params.optionalString('clusterName');
  const readQueueNums = params.optionalInt('readQueueNums') ?? params.optionalInt('queueNums') ?? 8;
  const writeQueueNums = params.optionalInt('writeQueueNums') ?? params.optionalInt('queueNums') ?? 8;
  const perm = params.optionalInt('perm') ?? PermName.PERM_READ | PermName.PERM_WRITE;
  const order = params.optionalBool('order') ?? false;
  const masters = mastersOf(await ctx.admin.examineBrokerClusterInfo(), clusterName);
  if (masters.length === 0)
    throw new HttpError(
      404,
      clusterName === undefined ? 'no broker is registered' : `no cluster ${clusterName}`,
    );
  for (const m of masters) {
    await ctx.admin.createAndUpdateTopicConfig(m.addr, {
      topicName: topic,
      readQueueNums,
      writeQueueNums,
      perm,
      order,
    });
  }
  return { topic, brokers: masters.map((m) => m.brokerName), readQueueNums, writeQueueNums, perm, order };
}

export async function deleteTopic(ctx: ApiContext, params: Params): Promise<unknown> {
  const topic = params.string('topic');
  const clusters = params.optionalString('clusterName');
  const info = await ctx.admin.examineBrokerClusterInfo();
  const names = clusters === undefined ? [...info.clusterAddrTable.keys()] : [clusters];
  for (const name of names) await ctx.admin.deleteTopic(topic, name);
  return { topic, clusters: names };
}
