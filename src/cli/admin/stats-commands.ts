/** mqadmin's statsAll: each topic's and consuming group's TPS and 24-hour counts, from the brokers' stats. */
import type { BrokerStatsData, MQAdminExt } from '../../admin/mq-admin-ext.js';
import { Stats } from '../../broker/stats/stats-names.js';
import { MixAll } from '../../common/constants.js';
import type { AdminCommand } from './command.js';
import { fixed, frontStringAtLeast, left, right, toJson } from './format.js';

/** StatsAllSubCommand.compute24HourSum: the day's sum, else the hour's, else the minute's. */
export function compute24HourSum(bsd: BrokerStatsData): bigint {
  if (bsd.statsDay.sum !== 0n) return bsd.statsDay.sum;
  if (bsd.statsHour.sum !== 0n) return bsd.statsHour.sum;
  return bsd.statsMinute.sum;
}

interface StatsRow {
  topic: string;
  group: string;
  accumulation: bigint;
  inTps: number;
  outTps: number | undefined;
  inMsg24Hour: bigint;
  outMsg24Hour: bigint | undefined;
}

/** Sums one statistic over the masters of the route; a broker without it counts 0, as upstream. */
async function sumStats(a: MQAdminExt, masters: readonly string[], statsName: string, key: string) {
  let tps = 0;
  let day = 0n;
  for (const addr of masters) {
    try {
      const bsd = await a.viewBrokerStatsData(addr, statsName, key);
      tps += bsd.statsMinute.tps;
      day += compute24HourSum(bsd);
    } catch {}
  }
  return { tps, day };
}

async function topicRows(a: MQAdminExt, topic: string, activeOnly: boolean): Promise<StatsRow[]> {
  const route = await a.examineTopicRouteInfo(topic);
  const groups = await a.queryTopicConsumeByWho(topic);
  const masters = route.brokerDatas.flatMap((b) => {
    const addr = b.brokerAddrs.get(0);
    return addr === undefined ? [] : [addr];
  });
  const put = await sumStats(a, masters, Stats.TOPIC_PUT_NUMS, topic);
  if (groups.length === 0) {
    if (activeOnly && put.day <= 0n) return [];
    return [
      {
        topic,
        group: '',
        accumulation: 0n,
        inTps: put.tps,
        outTps: undefined,
        inMsg24Hour: put.day,
        outMsg24Hour: undefined,
      },
    ];
  }
  const rows: StatsRow[] = [];
  for (const group of groups) {
    const get = await sumStats(a, masters, Stats.GROUP_GET_NUMS, `${topic}@${group}`);
    let accumulation = 0n;
    try {
      const stats = await a.examineConsumeStats(group, topic);
      for (const [, o] of stats.offsetTable) accumulation += o.brokerOffset - o.consumerOffset;
      if (accumulation < 0n) accumulation = 0n;
    } catch {}
    if (activeOnly && put.day <= 0n && get.day <= 0n) continue;
    rows.push({
      topic,
      group,
      accumulation,
      inTps: put.tps,
      outTps: get.tps,
      inMsg24Hour: put.day,
      outMsg24Hour: get.day,
    });
  }
  return rows;
}

export const statsAll: AdminCommand = {
  name: 'statsAll',
  desc: 'Topic and Consumer tps stats',
  read: true,
  options: [
    { short: 'a', long: 'activeTopic', arg: false, desc: 'print active topic only' },
    { short: 't', long: 'topic', arg: true, desc: 'print select topic only' },
  ],
  async run({ opts, io, json, admin }) {
    const a = await admin();
    const only = opts.text('topic');
    const activeOnly = opts.has('activeTopic');
    const line = (c: readonly string[]) =>
      `${left(c[0], 64)}  ${left(c[1], 64)} ${right(c[2], 12)} ${right(c[3], 11)} ${right(c[4], 11)} ${right(c[5], 14)} ${right(c[6], 14)}\n`;
    if (!json)
      io.out(
        line([
          '#Topic',
          '#Consumer Group',
          '#Accumulation',
          '#InTPS',
          '#OutTPS',
          '#InMsg24Hour',
          '#OutMsg24Hour',
        ]),
      );
    const all: StatsRow[] = [];
    for (const topic of (await a.fetchAllTopicList()).topicList) {
      if (
        topic.startsWith(MixAll.RETRY_GROUP_TOPIC_PREFIX) ||
        topic.startsWith(MixAll.DLQ_GROUP_TOPIC_PREFIX)
      )
        continue;
      if (only !== undefined && only !== '' && topic !== only) continue;
      let rows: StatsRow[] = [];
      // As upstream: a topic whose route or stats cannot be read is left out.
      try {
        rows = await topicRows(a, topic, activeOnly);
      } catch {}
      all.push(...rows);
      if (json) continue;
      for (const r of rows) {
        io.out(
          line([
            frontStringAtLeast(r.topic, 64),
            frontStringAtLeast(r.group, 64),
            String(r.accumulation),
            fixed(r.inTps, 2),
            r.outTps === undefined ? '' : fixed(r.outTps, 2),
            String(r.inMsg24Hour),
            r.outMsg24Hour === undefined ? 'NO_CONSUMER' : String(r.outMsg24Hour),
          ]),
        );
      }
    }
    if (json) io.out(toJson(all));
  },
};
