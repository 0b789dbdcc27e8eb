/** mqadmin's offset commands: resetOffsetByTime, cloneGroupOffset, brokerConsumeStats. */
import { ResponseCode } from '../../remoting/protocol/response-code.js';
import type { AdminCommand } from './command.js';
import { formatDate, frontStringAtLeast, left, parseMqadminDate, toJson } from './format.js';
import { AdminUsageError } from './options.js';
import { compareQueues } from './topic-commands.js';

/**
 * resetOffsetByTime's -s: `now` (-1, the max offset), milliseconds, or `yyyy-MM-dd#HH:mm:ss:SSS`
 * in local time (UtilAll.YYYY_MM_DD_HH_MM_SS_SSS).
 */
export function parseResetTimestamp(text: string): number {
  if (text === 'now') return -1;
  if (/^-?\d+$/.test(text)) return Number(text);
  const ms = parseMqadminDate(text);
  if (ms === undefined)
    throw new AdminUsageError(`-s: expected now, milliseconds or yyyy-MM-dd#HH:mm:ss:SSS, got ${text}`);
  return ms;
}

export const resetOffsetByTime: AdminCommand = {
  name: 'resetOffsetByTime',
  desc: 'Reset consumer offset by timestamp(without client restart).',
  read: false,
  options: [
    { short: 'g', long: 'group', arg: true, required: true, desc: 'set the consumer group' },
    { short: 't', long: 'topic', arg: true, required: true, desc: 'set the topic' },
    {
      short: 's',
      long: 'timestamp',
      arg: true,
      required: true,
      desc: 'set the timestamp[now|currentTimeMillis|yyyy-MM-dd#HH:mm:ss:SSS]',
    },
    { short: 'f', long: 'force', arg: true, desc: 'set the force rollback by timestamp switch[true|false]' },
  ],
  async run({ opts, io, admin }) {
    const group = opts.required('group');
    const topic = opts.required('topic');
    const text = opts.required('timestamp');
    const timestamp = parseResetTimestamp(text);
    const force = opts.bool('force', true);
    const a = await admin();
    let table: Awaited<ReturnType<typeof a.resetOffsetByTimestamp>>;
    try {
      table = await a.resetOffsetByTimestamp(topic, group, timestamp, force);
    } catch (error) {
      if ((error as { responseCode?: number }).responseCode !== ResponseCode.CONSUMER_NOT_ONLINE) throw error;
      // As upstream: a group with no client online is reset by the admin itself (the "old" way).
      const stats = await a.resetOffsetByTimestampOld(group, topic, timestamp, force);
      io.out(
        `rollback consumer offset by specified consumerGroup[${group}], topic[${topic}], force[${force}], timestamp(string)[${text}], timestamp(long)[${timestamp}]\n`,
      );
      const w = (cells: unknown[]) => `${cells.map((c) => left(c, 20)).join('  ')}\n`;
      io.out(
        w([
          '#brokerName',
          '#queueId',
          '#brokerOffset',
          '#consumerOffset',
          '#timestampOffset',
          '#rollbackOffset',
        ]),
      );
      for (const r of stats) {
        io.out(
          w([
            frontStringAtLeast(r.brokerName, 32),
            r.queueId,
            r.brokerOffset,
            r.consumerOffset,
            r.timestampOffset,
            r.rollbackOffset,
          ]),
        );
      }
      return;
    }
    io.out(
      `rollback consumer offset by specified group[${group}], topic[${topic}], force[${force}], timestamp(string)[${text}], timestamp(long)[${timestamp}]\n`,
    );
    io.out(`${left('#brokerName', 40)}  ${left('#queueId', 40)}  ${left('#offset', 40)}\n`);
    for (const [mq, offset] of table) {
      io.out(
        `${left(frontStringAtLeast(mq.brokerName, 32), 40)}  ${left(mq.queueId, 40)}  ${left(offset, 40)}\n`,
      );
    }
  },
};

export const cloneGroupOffset: AdminCommand = {
  name: 'cloneGroupOffset',
  desc: 'clone offset from other group.',
  read: false,
  options: [
    { short: 's', long: 'srcGroup', arg: true, required: true, desc: 'set source consumer group' },
    { short: 'd', long: 'destGroup', arg: true, required: true, desc: 'set destination consumer group' },
    { short: 't', long: 'topic', arg: true, required: true, desc: 'set the topic' },
    { short: 'o', long: 'offline', arg: true, desc: 'the group or the topic is offline' },
  ],
  async run({ opts, io, admin }) {
    const src = opts.required('srcGroup');
    const dest = opts.required('destGroup');
    const topic = opts.required('topic');
    const a = await admin();
    // As upstream's command: the source's committed offsets written for the destination, queue by queue.
    const stats = await a.examineConsumeStats(src);
    if (stats.offsetTable.length > 0) {
      const route = await a.examineTopicRouteInfo(topic);
      for (const [mq, o] of stats.offsetTable) {
        const broker = route.brokerDatas.find((b) => b.brokerName === mq.brokerName);
        const addr = broker?.brokerAddrs.get(0) ?? broker?.brokerAddrs.values().next().value;
        if (addr === undefined || o.consumerOffset < 0n) continue;
        await a.updateConsumeOffset(addr, dest, mq, o.consumerOffset);
      }
    }
    io.out(`clone group offset success. srcGroup[${src}], destGroup=[${dest}], topic[${topic}]`);
  },
};

/** Upstream's brokerConsumeStats timeout, ms. */
export const BROKER_CONSUME_STATS_TIMEOUT_MS = 50_000;

export const brokerConsumeStats: AdminCommand = {
  name: 'brokerConsumeStats',
  desc: 'Fetch broker consume stats data',
  read: true,
  options: [
    { short: 'b', long: 'brokerAddr', arg: true, required: true, desc: 'Broker address' },
    { short: 't', long: 'timeoutMillis', arg: true, desc: 'request timeout Millis' },
    { short: 'l', long: 'level', arg: true, desc: 'threshold of print diff' },
    { short: 'o', long: 'order', arg: true, desc: 'order topic' },
  ],
  async run({ opts, io, json, admin }) {
    const timeoutMs = opts.integer('timeoutMillis', BROKER_CONSUME_STATS_TIMEOUT_MS, 1);
    const level = BigInt(opts.integer('level', 0));
    const list = await (await admin()).fetchConsumeStatsInBroker(
      opts.required('brokerAddr'),
      opts.bool('order', false),
      {
        timeoutMs,
      },
    );
    const out: Array<{
      topic: string;
      group: string;
      brokerName: string;
      queueId: number;
      brokerOffset: bigint;
      consumerOffset: bigint;
      diff: bigint;
      lastTimestamp: bigint;
    }> = [];
    for (const [group, statsArray] of list.consumeStatsList) {
      for (const stats of statsArray) {
        for (const [mq, o] of [...stats.offsetTable].sort(([x], [y]) => compareQueues(x, y))) {
          const diff = o.brokerOffset - o.consumerOffset;
          if (diff < level || o.lastTimestamp <= 0n) continue;
          out.push({ topic: mq.topic, group, brokerName: mq.brokerName, queueId: mq.queueId, ...o, diff });
        }
      }
    }
    if (json) {
      io.out(toJson({ rows: out, totalDiff: list.totalDiff }));
      return;
    }
    const head = [
      left('#Topic', 64),
      left('#Group', 64),
      left('#Broker Name', 32),
      left('#QID', 4),
      left('#Broker Offset', 20),
      left('#Consumer Offset', 20),
      left('#Diff', 20),
    ];
    io.out(`${head.join('  ')}  #LastTime\n`);
    for (const r of out) {
      const cells = [
        left(frontStringAtLeast(r.topic, 64), 64),
        left(r.group, 64),
        left(frontStringAtLeast(r.brokerName, 32), 32),
        left(r.queueId, 4),
        left(r.brokerOffset, 20),
        left(r.consumerOffset, 20),
        left(r.diff, 20),
      ];
      io.out(`${cells.join('  ')}  ${formatDate(r.lastTimestamp)}\n`);
    }
    io.out(`\nDiff Total: ${list.totalDiff}\n`);
  },
};
