/** mqadmin's topic commands: updateTopic, deleteTopic, topicList, topicRoute, topicStatus, topicClusterList. */
import { MixAll, PermName, TopicSysFlag } from '../../common/constants.js';
import { createTopicConfig, type TopicConfig } from '../../common/protocol/topic-config.js';
import { type AdminCommand, clusterMasterAddrs } from './command.js';
import { frontStringAtLeast, javaMap, left, timeMillisToHumanString2, toJson } from './format.js';
import { AdminUsageError } from './options.js';

/** TopicConfig.toString, which updateTopic prints. */
export function topicConfigString(tc: TopicConfig): string {
  return (
    `TopicConfig [topicName=${tc.topicName}, readQueueNums=${tc.readQueueNums}, ` +
    `writeQueueNums=${tc.writeQueueNums}, perm=${PermName.perm2String(tc.perm)}, ` +
    `topicFilterType=${tc.topicFilterType}, topicSysFlag=${tc.topicSysFlag}, order=${tc.order}]`
  );
}

/** The perms -p offers (its help text): write, read, both. */
const TOPIC_PERMS: readonly number[] = [
  PermName.PERM_WRITE,
  PermName.PERM_READ,
  PermName.PERM_READ | PermName.PERM_WRITE,
];

/** mqadmin creates topics with 8 queues, not TopicConfig's 16. */
const UPDATE_TOPIC_QUEUE_NUMS = 8;

export const updateTopic: AdminCommand = {
  name: 'updateTopic',
  desc: 'Update or create topic',
  read: false,
  options: [
    { short: 'b', long: 'brokerAddr', arg: true, desc: 'create topic to which broker' },
    { short: 'c', long: 'clusterName', arg: true, desc: 'create topic to which cluster' },
    { short: 't', long: 'topic', arg: true, required: true, desc: 'topic name' },
    { short: 'r', long: 'readQueueNums', arg: true, desc: 'set read queue nums' },
    { short: 'w', long: 'writeQueueNums', arg: true, desc: 'set write queue nums' },
    { short: 'p', long: 'perm', arg: true, desc: "set topic's permission(2|4|6), intro[2:W 4:R; 6:RW]" },
    { short: 'o', long: 'order', arg: true, desc: "set topic's order(true|false)" },
    { short: 'u', long: 'unit', arg: true, desc: 'is unit topic (true|false)' },
    { short: 's', long: 'hasUnitSub', arg: true, desc: 'has unit sub (true|false)' },
  ],
  async run({ opts, io, admin }) {
    const brokerAddr = opts.text('brokerAddr');
    const clusterName = opts.text('clusterName');
    if ((brokerAddr === undefined) === (clusterName === undefined)) {
      throw new AdminUsageError('give exactly one of -b and -c');
    }
    const order = opts.bool('order', false);
    if (order) throw new AdminUsageError('-o true (order conf in the name server) is not supported yet');
    const perm = opts.integer('perm', PermName.PERM_READ | PermName.PERM_WRITE, 0);
    if (!TOPIC_PERMS.includes(perm)) {
      throw new AdminUsageError(`-p must be 2 (W), 4 (R) or 6 (RW), got ${perm}`);
    }
    const config = createTopicConfig(opts.required('topic'), {
      readQueueNums: opts.integer('readQueueNums', UPDATE_TOPIC_QUEUE_NUMS, 0),
      writeQueueNums: opts.integer('writeQueueNums', UPDATE_TOPIC_QUEUE_NUMS, 0),
      perm,
      topicSysFlag: TopicSysFlag.buildSysFlag(opts.bool('unit', false), opts.bool('hasUnitSub', false)),
      order,
    });
    const a = await admin();
    const targets =
      brokerAddr !== undefined ? [brokerAddr] : await clusterMasterAddrs(a, clusterName as string);
    for (const addr of targets) {
      await a.createAndUpdateTopicConfig(addr, config);
      io.out(`create topic to ${addr} success.\n`);
    }
    io.out(topicConfigString(config));
  },
};

export const deleteTopic: AdminCommand = {
  name: 'deleteTopic',
  desc: 'Delete topic from broker and NameServer.',
  read: false,
  options: [
    { short: 't', long: 'topic', arg: true, required: true, desc: 'topic name' },
    { short: 'c', long: 'clusterName', arg: true, required: true, desc: 'delete topic from which cluster' },
  ],
  async run({ opts, io, admin }) {
    const topic = opts.required('topic');
    const clusterName = opts.required('clusterName');
    const a = await admin();
    await a.deleteTopicInBroker(await clusterMasterAddrs(a, clusterName), topic);
    io.out(`delete topic [${topic}] from cluster [${clusterName}] success.\n`);
    await a.deleteTopicInNameServer(undefined, topic, clusterName);
    io.out(`delete topic [${topic}] from NameServer success.\n`);
  },
};

export const topicList: AdminCommand = {
  name: 'topicList',
  desc: 'Fetch all topic list from name server',
  read: true,
  options: [{ short: 'c', long: 'clusterModel', arg: false, desc: 'clusterModel' }],
  async run({ opts, io, json, admin }) {
    const a = await admin();
    const { topicList: topics } = await a.fetchAllTopicList();
    if (!opts.has('clusterModel')) {
      io.out(json ? toJson({ topicList: topics }) : topics.map((t) => `${t}\n`).join(''));
      return;
    }
    const clusterInfo = await a.examineBrokerClusterInfo();
    const rows: Array<{ clusterName: string; topic: string; consumerGroup: string }> = [];
    for (const topic of topics) {
      if (
        topic.startsWith(MixAll.RETRY_GROUP_TOPIC_PREFIX) ||
        topic.startsWith(MixAll.DLQ_GROUP_TOPIC_PREFIX)
      ) {
        continue;
      }
      let clusterName = '';
      let groups: string[] = [];
      // As upstream: a topic whose route or consumers cannot be read is still listed, blank.
      try {
        const route = await a.examineTopicRouteInfo(topic);
        const brokerName = route.brokerDatas[0]?.brokerName;
        for (const [cluster, names] of clusterInfo.clusterAddrTable) {
          if (brokerName !== undefined && names.includes(brokerName)) {
            clusterName = cluster;
            break;
          }
        }
        groups = await a.queryTopicConsumeByWho(topic);
      } catch {}
      for (const group of groups.length === 0 ? [''] : groups)
        rows.push({ clusterName, topic, consumerGroup: group });
    }
    if (json) {
      io.out(toJson(rows));
      return;
    }
    io.out(`${left('#Cluster Name', 20)}  ${left('#Topic', 48)}  ${left('#Consumer Group', 48)}\n`);
    for (const r of rows) {
      io.out(
        `${left(frontStringAtLeast(r.clusterName, 20), 20)}  ${left(frontStringAtLeast(r.topic, 64), 64)}  ${left(frontStringAtLeast(r.consumerGroup, 64), 64)}\n`,
      );
    }
  },
};

const ROUTE_FORMAT_WIDTHS = [45, 32, 50, 10, 11, 5] as const;
const routeLine = (cells: readonly unknown[]): string =>
  `${cells.map((c, i) => left(c, ROUTE_FORMAT_WIDTHS[i] as number)).join(' ')}\n`;

export const topicRoute: AdminCommand = {
  name: 'topicRoute',
  desc: 'Examine topic route info',
  read: true,
  options: [
    { short: 't', long: 'topic', arg: true, required: true, desc: 'topic name' },
    { short: 'l', long: 'list', arg: false, desc: 'Use list format to print data' },
  ],
  async run({ opts, io, json, admin }) {
    const route = await (await admin()).examineTopicRouteInfo(opts.required('topic'));
    if (json || !opts.has('list')) {
      // Upstream prints the route's JSON (fastjson, pretty); ours has the same field names.
      io.out(toJson(route));
      return;
    }
    const queues = new Map(route.queueDatas.map((q) => [q.brokerName, q]));
    const brokers = [...route.brokerDatas].sort((x, y) => (x.brokerName < y.brokerName ? -1 : 1));
    let totalRead = 0;
    let totalWrite = 0;
    io.out(routeLine(['#ClusterName', '#BrokerName', '#BrokerAddrs', '#ReadQueue', '#WriteQueue', '#Perm']));
    for (const b of brokers) {
      const q = queues.get(b.brokerName);
      if (q === undefined) continue;
      totalRead += q.readQueueNums;
      totalWrite += q.writeQueueNums;
      io.out(
        routeLine([
          b.cluster,
          b.brokerName,
          javaMap(b.brokerAddrs),
          q.readQueueNums,
          q.writeQueueNums,
          q.perm,
        ]),
      );
    }
    io.out(`${'-'.repeat(158)}\n`);
    io.out(routeLine(['Total:', queues.size, '', totalRead, totalWrite, '']));
  },
};

export const topicStatus: AdminCommand = {
  name: 'topicStatus',
  desc: 'Examine topic Status info',
  read: true,
  options: [{ short: 't', long: 'topic', arg: true, required: true, desc: 'topic name' }],
  async run({ opts, io, json, admin }) {
    const stats = await (await admin()).examineTopicStats(opts.required('topic'));
    const rows = [...stats.offsetTable].sort(([x], [y]) => compareQueues(x, y));
    if (json) {
      io.out(
        toJson(
          rows.map(([mq, o]) => ({
            brokerName: mq.brokerName,
            queueId: mq.queueId,
            minOffset: o.minOffset,
            maxOffset: o.maxOffset,
            lastUpdateTimestamp: o.lastUpdateTimestamp,
          })),
        ),
      );
      return;
    }
    io.out(
      `${left('#Broker Name', 32)}  ${left('#QID', 4)}  ${left('#Min Offset', 20)}  ${left('#Max Offset', 20)}    #Last Updated\n`,
    );
    for (const [mq, o] of rows) {
      const when = o.lastUpdateTimestamp > 0n ? timeMillisToHumanString2(o.lastUpdateTimestamp) : '';
      io.out(
        `${left(frontStringAtLeast(mq.brokerName, 32), 32)}  ${left(mq.queueId, 4)}  ${left(o.minOffset, 20)}  ${left(o.maxOffset, 20)}    ${when}\n`,
      );
    }
  },
};

/** MessageQueue.compareTo: topic, then broker name, then queue id. */
export function compareQueues(
  x: { topic: string; brokerName: string; queueId: number },
  y: { topic: string; brokerName: string; queueId: number },
): number {
  if (x.topic !== y.topic) return x.topic < y.topic ? -1 : 1;
  if (x.brokerName !== y.brokerName) return x.brokerName < y.brokerName ? -1 : 1;
  return x.queueId - y.queueId;
}

export const topicClusterList: AdminCommand = {
  name: 'topicClusterList',
  desc: 'get cluster info for topic',
  read: true,
  options: [{ short: 't', long: 'topic', arg: true, required: true, desc: 'topic name' }],
  async run({ opts, io, json, admin }) {
    const clusters = [...(await (await admin()).getTopicClusterList(opts.required('topic')))];
    io.out(json ? toJson({ clusters }) : clusters.map((c) => `${c}\n`).join(''));
  },
};
