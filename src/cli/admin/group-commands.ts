/**
 * mqadmin's group and connection commands: updateSubGroup, deleteSubGroup, consumerProgress,
 * consumerConnection, producerConnection.
 */
import type { ConsumerConnection, MQAdminExt } from '../../admin/mq-admin-ext.js';
import { MixAll, mqVersionName } from '../../common/constants.js';
import { ConsumeType } from '../../common/protocol/heartbeat-data.js';
import { parseMessageRequestMode } from '../../common/protocol/message-request-mode.js';
import {
  createSubscriptionGroupConfig,
  type SubscriptionGroupConfig,
} from '../../common/protocol/subscription-group-config.js';
import { type AdminCommand, clusterMasterAddrs } from './command.js';
import { fixed, formatDate, frontStringAtLeast, left, toJson } from './format.js';
import { AdminUsageError } from './options.js';
import { compareQueues } from './topic-commands.js';

/** SubscriptionGroupConfig.toString, which updateSubGroup prints. */
export function subscriptionGroupConfigString(c: SubscriptionGroupConfig): string {
  return (
    `SubscriptionGroupConfig [groupName=${c.groupName}, consumeEnable=${c.consumeEnable}, ` +
    `consumeFromMinEnable=${c.consumeFromMinEnable}, consumeBroadcastEnable=${c.consumeBroadcastEnable}, ` +
    `retryQueueNums=${c.retryQueueNums}, retryMaxTimes=${c.retryMaxTimes}, brokerId=${c.brokerId}, ` +
    `whichBrokerWhenConsumeSlowly=${c.whichBrokerWhenConsumeSlowly}, ` +
    `notifyConsumerIdsChangedEnable=${c.notifyConsumerIdsChangedEnable}]`
  );
}

/** MQVersion.getVersionDesc of a client's version ordinal. */
export function versionDesc(version: number): string {
  return mqVersionName(version) ?? String(version);
}

function oneTarget(brokerAddr: string | undefined, clusterName: string | undefined): void {
  if (brokerAddr === undefined && clusterName === undefined) throw new AdminUsageError('give -b or -c');
}

export const updateSubGroup: AdminCommand = {
  name: 'updateSubGroup',
  desc: 'Update or create subscription group',
  read: false,
  options: [
    { short: 'b', long: 'brokerAddr', arg: true, desc: 'create subscription group to which broker' },
    { short: 'c', long: 'clusterName', arg: true, desc: 'create subscription group to which cluster' },
    { short: 'g', long: 'groupName', arg: true, required: true, desc: 'consumer group name' },
    { short: 's', long: 'consumeEnable', arg: true, desc: 'consume enable' },
    { short: 'm', long: 'consumeFromMinEnable', arg: true, desc: 'from min offset' },
    { short: 'd', long: 'consumeBroadcastEnable', arg: true, desc: 'broadcast' },
    { short: 'q', long: 'retryQueueNums', arg: true, desc: 'retry queue nums' },
    { short: 'r', long: 'retryMaxTimes', arg: true, desc: 'retry max times' },
    { short: 'i', long: 'brokerId', arg: true, desc: 'consumer from which broker id' },
    {
      short: 'w',
      long: 'whichBrokerWhenConsumeSlowly',
      arg: true,
      desc: 'which broker id when consume slowly',
    },
    { short: 'a', long: 'notifyConsumerIdsChanged', arg: true, desc: 'notify consumerId changed' },
  ],
  async run({ opts, io, admin }) {
    const brokerAddr = opts.text('brokerAddr');
    const clusterName = opts.text('clusterName');
    oneTarget(brokerAddr, clusterName);
    const defaults = createSubscriptionGroupConfig(opts.required('groupName'));
    const config = createSubscriptionGroupConfig(defaults.groupName, {
      consumeEnable: opts.bool('consumeEnable', defaults.consumeEnable),
      consumeFromMinEnable: opts.bool('consumeFromMinEnable', false),
      consumeBroadcastEnable: opts.bool('consumeBroadcastEnable', false),
      retryQueueNums: opts.integer('retryQueueNums', defaults.retryQueueNums, 0),
      retryMaxTimes: opts.integer('retryMaxTimes', defaults.retryMaxTimes),
      brokerId: BigInt(opts.integer('brokerId', Number(defaults.brokerId))),
      whichBrokerWhenConsumeSlowly: BigInt(
        opts.integer('whichBrokerWhenConsumeSlowly', Number(defaults.whichBrokerWhenConsumeSlowly)),
      ),
      notifyConsumerIdsChangedEnable: opts.bool(
        'notifyConsumerIdsChanged',
        defaults.notifyConsumerIdsChangedEnable,
      ),
    });
    const a = await admin();
    const targets =
      brokerAddr !== undefined ? [brokerAddr] : await clusterMasterAddrs(a, clusterName as string);
    for (const addr of targets) {
      await a.createAndUpdateSubscriptionGroupConfig(addr, config);
      io.out(`create subscription group to ${addr} success.\n`);
    }
    io.out(subscriptionGroupConfigString(config));
  },
};

export const deleteSubGroup: AdminCommand = {
  name: 'deleteSubGroup',
  desc: 'Delete subscription group from broker.',
  read: false,
  options: [
    { short: 'b', long: 'brokerAddr', arg: true, desc: 'delete subscription group from which broker' },
    { short: 'c', long: 'clusterName', arg: true, desc: 'delete subscription group from which cluster' },
    { short: 'g', long: 'groupName', arg: true, required: true, desc: 'subscription group name' },
    { short: 'r', long: 'removeOffset', arg: true, desc: 'remove offset' },
  ],
  async run({ opts, io, admin }) {
    const brokerAddr = opts.text('brokerAddr');
    const clusterName = opts.text('clusterName');
    oneTarget(brokerAddr, clusterName);
    const group = opts.required('groupName');
    const removeOffset = opts.bool('removeOffset', false);
    const a = await admin();
    if (brokerAddr !== undefined) {
      await a.deleteSubscriptionGroup(brokerAddr, group, removeOffset);
      io.out(`delete subscription group [${group}] from broker [${brokerAddr}] success.\n`);
      return;
    }
    const cluster = clusterName as string;
    for (const master of await clusterMasterAddrs(a, cluster)) {
      await a.deleteSubscriptionGroup(master, group, removeOffset);
      io.out(
        `delete subscription group [${group}] from broker [${master}] in cluster [${cluster}] success.\n`,
      );
    }
    // As upstream: the group's retry and dead-letter topics go too, each as deleteTopic reports it.
    // A failure there does not undo the group's deletion: reported, and the command goes on.
    for (const topic of [MixAll.getRetryTopic(group), MixAll.getDLQTopic(group)]) {
      try {
        await a.deleteTopic(topic, cluster);
        io.out(`delete topic [${topic}] from cluster [${cluster}] success.\n`);
        io.out(`delete topic [${topic}] from NameServer success.\n`);
      } catch (error) {
        io.err(`delete topic [${topic}]: ${(error as Error).message}\n`);
      }
    }
  },
};

/** The client IP consuming each queue (consumerProgress -s true), from every member's running info. */
async function queueOwners(a: MQAdminExt, group: string): Promise<Map<string, string>> {
  const owners = new Map<string, string>();
  const cc = await a.examineConsumerConnectionInfo(group);
  for (const conn of cc.connectionSet) {
    const info = await a.getConsumerRunningInfo(group, conn.clientId, false);
    const ip = conn.clientId.split('@')[0] ?? conn.clientId;
    for (const [mq] of info.mqTable) owners.set(`${mq.topic}\u0000${mq.brokerName}\u0000${mq.queueId}`, ip);
  }
  return owners;
}

interface GroupSummary {
  group: string;
  count: number;
  version: string;
  type: string;
  model: string;
  tps: number;
  diffTotal: bigint;
}

async function groupSummary(a: MQAdminExt, group: string): Promise<GroupSummary> {
  let tps = 0;
  let diffTotal = 0n;
  // As upstream: a group offline or unknown on a broker still gets its line.
  try {
    const stats = await a.examineConsumeStats(group);
    tps = Math.trunc(stats.consumeTps);
    for (const [, o] of stats.offsetTable) diffTotal += o.brokerOffset - o.consumerOffset;
  } catch {}
  let cc: ConsumerConnection | undefined;
  try {
    cc = await a.examineConsumerConnectionInfo(group);
  } catch {}
  const count = cc?.connectionSet.length ?? 0;
  if (cc === undefined || count === 0) {
    return { group, count, version: 'OFFLINE', type: '', model: '', tps, diffTotal };
  }
  const minVersion = Math.min(...cc.connectionSet.map((c) => c.version));
  const push = cc.consumeType !== ConsumeType.CONSUME_ACTIVELY;
  return {
    group,
    count,
    version: versionDesc(minVersion),
    type: push ? 'PUSH' : 'PULL',
    model: push ? String(cc.messageModel ?? '') : '',
    tps,
    diffTotal,
  };
}

export const consumerProgress: AdminCommand = {
  name: 'consumerProgress',
  desc: "Query consumers's progress, speed",
  read: true,
  options: [
    { short: 'g', long: 'groupName', arg: true, desc: 'consumer group name' },
    { short: 's', long: 'showClientIP', arg: true, desc: 'Show Client IP per Queue' },
  ],
  async run({ opts, io, json, admin }) {
    const a = await admin();
    const group = opts.text('groupName');
    if (group === undefined) {
      const { topicList } = await a.fetchAllTopicList();
      const groups = topicList
        .filter((t) => t.startsWith(MixAll.RETRY_GROUP_TOPIC_PREFIX))
        .map((t) => t.slice(MixAll.RETRY_GROUP_TOPIC_PREFIX.length));
      const rows: GroupSummary[] = [];
      if (!json) {
        io.out(
          `${left('#Group', 64)}  ${left('#Count', 6)}  ${left('#Version', 24)} ${left('#Type', 5)}  ${left('#Model', 14)}  ${left('#TPS', 7)}  #Diff Total\n`,
        );
      }
      for (const g of groups) {
        const s = await groupSummary(a, g);
        rows.push(s);
        if (!json) {
          io.out(
            `${left(frontStringAtLeast(s.group, 64), 64)}  ${left(s.count, 6)}  ${left(s.version, 24)} ${left(s.type, 5)}  ${left(s.model, 14)}  ${left(s.tps, 7)}  ${s.diffTotal}\n`,
          );
        }
      }
      if (json) io.out(toJson(rows));
      return;
    }
    const showClientIP = opts.text('showClientIP')?.toLowerCase() === 'true';
    const stats = await a.examineConsumeStats(group);
    const owners = showClientIP ? await queueOwners(a, group) : undefined;
    const rows = [...stats.offsetTable].sort(([x], [y]) => compareQueues(x, y));
    let diffTotal = 0n;
    const out = rows.map(([mq, o]) => {
      const diff = o.brokerOffset - o.consumerOffset;
      diffTotal += diff;
      const clientIP = owners?.get(`${mq.topic}\u0000${mq.brokerName}\u0000${mq.queueId}`) ?? 'N/A';
      const lastTime = o.lastTimestamp === 0n ? 'N/A' : formatDate(o.lastTimestamp);
      return { mq, o, diff, clientIP, lastTime };
    });
    if (json) {
      io.out(
        toJson({
          queues: out.map(({ mq, o, diff, clientIP }) => ({
            topic: mq.topic,
            brokerName: mq.brokerName,
            queueId: mq.queueId,
            brokerOffset: o.brokerOffset,
            consumerOffset: o.consumerOffset,
            ...(showClientIP ? { clientIP } : {}),
            diff,
            // 5.x brokers: mqadmin 5.x's #Inflight (ours: a POP group's popped, un-acked messages).
            ...(o.pullOffset === undefined ? {} : { inflight: o.pullOffset - o.consumerOffset }),
            lastTimestamp: o.lastTimestamp,
          })),
          consumeTps: stats.consumeTps,
          diffTotal,
        }),
      );
      return;
    }
    const head = [
      left('#Topic', 64),
      left('#Broker Name', 32),
      left('#QID', 4),
      left('#Broker Offset', 20),
      left('#Consumer Offset', 20),
    ];
    io.out(
      showClientIP
        ? `${head.join('  ')}  ${left('#Client IP', 20)} ${left('#Diff', 20)}  #LastTime\n`
        : `${head.join('  ')}  ${left('#Diff', 20)}  #LastTime\n`,
    );
    for (const { mq, o, diff, clientIP, lastTime } of out) {
      const cells = [
        left(frontStringAtLeast(mq.topic, 64), 64),
        left(frontStringAtLeast(mq.brokerName, 32), 32),
        left(mq.queueId, 4),
        left(o.brokerOffset, 20),
        left(o.consumerOffset, 20),
      ];
      io.out(
        showClientIP
          ? `${cells.join('  ')}  ${left(clientIP, 20)} ${left(diff, 20)}  ${lastTime}\n`
          : `${cells.join('  ')}  ${left(diff, 20)}  ${lastTime}\n`,
      );
    }
    io.out(`\nConsume TPS: ${fixed(stats.consumeTps, 2)}\nDiff Total: ${diffTotal}\n`);
  },
};

export const consumerConnection: AdminCommand = {
  name: 'consumerConnection',
  desc: "Query consumer's socket connection, client version and subscription",
  read: true,
  options: [
    { short: 'g', long: 'consumerGroup', arg: true, required: true, desc: 'consumer group name' },
    { short: 'b', long: 'brokerAddr', arg: true, desc: 'broker address' },
  ],
  async run({ opts, io, json, admin }) {
    const cc = await (await admin()).examineConsumerConnectionInfo(
      opts.required('consumerGroup'),
      opts.text('brokerAddr'),
    );
    if (json) {
      io.out(
        toJson({
          connectionSet: cc.connectionSet.map((c) => ({ ...c, versionDesc: versionDesc(c.version) })),
          subscriptionTable: cc.subscriptionTable,
          consumeType: cc.consumeType,
          messageModel: cc.messageModel,
          consumeFromWhere: cc.consumeFromWhere,
        }),
      );
      return;
    }
    const row = (a: string, b: string, c: string, d: string): string =>
      `${left(a, 36)} ${left(b, 22)} ${left(c, 10)} ${d}\n`;
    io.out(row('#ClientId', '#ClientAddr', '#Language', '#Version'));
    for (const c of cc.connectionSet)
      io.out(row(c.clientId, c.clientAddr, c.language, versionDesc(c.version)));
    io.out('\nBelow is subscription:\n');
    io.out(`${left('#Topic', 20)} #SubExpression\n`);
    for (const sd of cc.subscriptionTable.values()) io.out(`${left(sd.topic, 20)} ${sd.subString}\n`);
    io.out('\n');
    io.out(`ConsumeType: ${cc.consumeType ?? 'null'}\n`);
    io.out(`MessageModel: ${cc.messageModel ?? 'null'}\n`);
    io.out(`ConsumeFromWhere: ${cc.consumeFromWhere ?? 'null'}\n`);
  },
};

export const producerConnection: AdminCommand = {
  name: 'producerConnection',
  desc: "Query producer's socket connection and client version",
  read: true,
  options: [
    { short: 'g', long: 'producerGroup', arg: true, required: true, desc: 'producer group name' },
    { short: 't', long: 'topic', arg: true, required: true, desc: 'topic name' },
  ],
  async run({ opts, io, json, admin }) {
    const pc = await (await admin()).examineProducerConnectionInfo(
      opts.required('producerGroup'),
      opts.required('topic'),
    );
    if (json) {
      io.out(
        toJson({
          connectionSet: pc.connectionSet.map((c) => ({ ...c, versionDesc: versionDesc(c.version) })),
        }),
      );
      return;
    }
    pc.connectionSet.forEach((c, i) => {
      io.out(
        `${String(i + 1).padStart(4, '0')}  ${left(c.clientId, 32)} ${left(c.clientAddr, 22)} ${left(c.language, 8)} ${versionDesc(c.version)}\n`,
      );
    });
  },
};

/**
 * mqadmin setConsumeMode: PULL or POP for a topic and group on one broker (-b) or every master of a
 * cluster (-c); upstream's output, a cluster's failing broker reported and skipped as upstream does.
 */
export const setConsumeMode: AdminCommand = {
  name: 'setConsumeMode',
  desc: 'Set consume message mode. pull/pop etc.',
  read: false,
  options: [
    { short: 'b', long: 'brokerAddr', arg: true, desc: 'create subscription group to which broker' },
    { short: 'c', long: 'clusterName', arg: true, desc: 'create subscription group to which cluster' },
    { short: 't', long: 'topicName', arg: true, required: true, desc: 'topic name' },
    { short: 'g', long: 'groupName', arg: true, required: true, desc: 'consumer group name' },
    { short: 'm', long: 'mode', arg: true, required: true, desc: 'consume mode. PULL/POP' },
    { short: 'q', long: 'popShareQueueNum', arg: true, desc: 'num of queue which share in pop mode' },
  ],
  async run({ opts, io, admin }) {
    const brokerAddr = opts.text('brokerAddr');
    const clusterName = opts.text('clusterName');
    oneTarget(brokerAddr, clusterName);
    const topic = opts.required('topicName');
    const group = opts.required('groupName');
    const modeName = opts.required('mode');
    const mode = parseMessageRequestMode(modeName);
    if (mode === undefined) throw new AdminUsageError(`--mode: not PULL or POP: ${modeName}`);
    const popShareQueueNum = opts.integer('popShareQueueNum', 0, -2147483648, 2147483647);
    const a = await admin();
    const summary = `topic[${topic}] group[${group}] consume mode[${mode}] popShareQueueNum[${popShareQueueNum}]`;
    if (brokerAddr !== undefined) {
      await a.setMessageRequestMode(brokerAddr, topic, group, mode, popShareQueueNum);
      io.out(`set consume mode to ${brokerAddr} success.\n`);
      io.out(summary);
      return;
    }
    for (const master of await clusterMasterAddrs(a, clusterName as string)) {
      try {
        await a.setMessageRequestMode(master, topic, group, mode, popShareQueueNum);
        io.out(`set consume mode to ${master} success.\n`);
      } catch (error) {
        io.err(`set consume mode to ${master} failed: ${(error as Error).message}\n`);
      }
    }
    io.out(summary);
  },
};
