/** mqadmin's cluster and broker commands: clusterList, brokerStatus, getBrokerConfig, updateBrokerConfig. */
import type { ClusterInfo, MQAdminExt } from '../../admin/mq-admin-ext.js';
import { type AdminCommand, clusterMasterAddrs } from './command.js';
import { fixed, left, right, toJson } from './format.js';
import { AdminUsageError } from './options.js';

/** The brokers of a cluster, by name (sorted, as upstream's TreeSet), each with its addresses by id. */
function brokersOf(
  info: ClusterInfo,
  cluster: string,
): Array<{ brokerName: string; addrs: Array<[number, string]> }> {
  const names = [...(info.clusterAddrTable.get(cluster) ?? [])].sort();
  const out: Array<{ brokerName: string; addrs: Array<[number, string]> }> = [];
  for (const brokerName of names) {
    const data = info.brokerAddrTable.get(brokerName);
    if (data === undefined) continue;
    out.push({ brokerName, addrs: [...data.brokerAddrs].sort(([x], [y]) => x - y) });
  }
  return out;
}

async function clusterBrokers(a: MQAdminExt, cluster: string) {
  const info = await a.examineBrokerClusterInfo();
  if (!info.clusterAddrTable.has(cluster)) throw new Error(`no cluster named ${cluster} in the name server`);
  return brokersOf(info, cluster);
}

interface BrokerRow {
  clusterName: string;
  brokerName: string;
  brokerId: number;
  addr: string;
  version: string;
  inTps: number;
  outTps: number;
  sendThreadPoolQueueSize: string;
  sendThreadPoolQueueHeadWaitTimeMills: string;
  pullThreadPoolQueueSize: string;
  pullThreadPoolQueueHeadWaitTimeMills: string;
  pageCacheLockTimeMills: string;
  hour: number;
  space: number;
}

const firstNumber = (tps: string | undefined): number => Number.parseFloat(tps?.split(' ')[0] ?? '') || 0;

async function brokerRow(
  a: MQAdminExt,
  clusterName: string,
  brokerName: string,
  brokerId: number,
  addr: string,
  now: number,
): Promise<BrokerRow> {
  let kv = new Map<string, string>();
  // As upstream: a broker that does not answer keeps its line, with zeros.
  try {
    kv = await a.fetchBrokerRuntimeStats(addr);
  } catch {}
  const earliest = kv.get('earliestMessageTimeStamp');
  const ratio = kv.get('commitLogDiskRatio');
  return {
    clusterName,
    brokerName,
    brokerId,
    addr,
    version: kv.get('brokerVersionDesc') ?? '',
    inTps: firstNumber(kv.get('putTps')),
    outTps: firstNumber(kv.get('getTransferedTps')),
    sendThreadPoolQueueSize: kv.get('sendThreadPoolQueueSize') ?? '',
    sendThreadPoolQueueHeadWaitTimeMills: kv.get('sendThreadPoolQueueHeadWaitTimeMills') ?? '',
    pullThreadPoolQueueSize: kv.get('pullThreadPoolQueueSize') ?? '',
    pullThreadPoolQueueHeadWaitTimeMills: kv.get('pullThreadPoolQueueHeadWaitTimeMills') ?? '',
    pageCacheLockTimeMills: kv.get('pageCacheLockTimeMills') ?? '',
    hour: earliest === undefined || earliest === '' ? 0 : (now - Number(earliest)) / 3_600_000,
    space: ratio === undefined || ratio === '' ? 0 : Number(ratio),
  };
}

export function clusterListLine(cells: readonly string[]): string {
  const [c, b, id, addr, v, i, o, pc, h, s] = cells;
  return `${left(c, 16)}  ${left(b, 22)}  ${left(id, 4)}  ${left(addr, 22)} ${left(v, 16)} ${right(i, 19)} ${right(o, 19)} ${right(pc, 10)} ${right(h, 5)} ${right(s, 6)}\n`;
}

export const clusterList: AdminCommand = {
  name: 'clusterList',
  desc: 'List all of clusters',
  read: true,
  options: [
    { short: 'm', long: 'moreStats', arg: false, desc: 'Print more stats' },
    { short: 'i', long: 'interval', arg: true, desc: 'specify intervals numbers, it is in seconds' },
  ],
  async run({ opts, io, json, admin }) {
    if (opts.has('interval'))
      throw new AdminUsageError('-i (repeat every N seconds) is not supported; use watch(1)');
    const a = await admin();
    const info = await a.examineBrokerClusterInfo();
    if (opts.has('moreStats')) {
      const rows: Array<Record<string, string | number>> = [];
      for (const cluster of info.clusterAddrTable.keys()) {
        for (const { brokerName, addrs } of brokersOf(info, cluster)) {
          for (const [, addr] of addrs) {
            let kv = new Map<string, string>();
            try {
              kv = await a.fetchBrokerRuntimeStats(addr);
            } catch {}
            const n = (k: string): bigint => {
              const v = kv.get(k);
              return v === undefined || !/^-?\d+$/.test(v) ? 0n : BigInt(v);
            };
            const ok = [
              'msgPutTotalYesterdayMorning',
              'msgPutTotalTodayMorning',
              'msgPutTotalTodayNow',
            ].every((k) => kv.has(k));
            rows.push({
              clusterName: cluster,
              brokerName,
              inTotalYest: ok ? String(n('msgPutTotalTodayMorning') - n('msgPutTotalYesterdayMorning')) : '0',
              outTotalYest: ok
                ? String(n('msgGetTotalTodayMorning') - n('msgGetTotalYesterdayMorning'))
                : '0',
              inTotalToday: ok ? String(n('msgPutTotalTodayNow') - n('msgPutTotalTodayMorning')) : '0',
              outTotalToday: ok ? String(n('msgGetTotalTodayNow') - n('msgGetTotalTodayMorning')) : '0',
            });
          }
        }
      }
      if (json) {
        io.out(toJson(rows));
        return;
      }
      const line = (r: readonly unknown[]): string =>
        `${left(r[0], 16)}  ${left(r[1], 32)} ${right(r[2], 14)} ${right(r[3], 14)} ${right(r[4], 14)} ${right(r[5], 14)}\n`;
      io.out(
        line([
          '#Cluster Name',
          '#Broker Name',
          '#InTotalYest',
          '#OutTotalYest',
          '#InTotalToday',
          '#OutTotalToday',
        ]),
      );
      for (const r of rows)
        io.out(
          line([r.clusterName, r.brokerName, r.inTotalYest, r.outTotalYest, r.inTotalToday, r.outTotalToday]),
        );
      return;
    }
    const now = Date.now();
    const rows: BrokerRow[] = [];
    for (const cluster of info.clusterAddrTable.keys()) {
      for (const { brokerName, addrs } of brokersOf(info, cluster)) {
        for (const [id, addr] of addrs) rows.push(await brokerRow(a, cluster, brokerName, id, addr, now));
      }
    }
    if (json) {
      io.out(toJson(rows));
      return;
    }
    io.out(
      clusterListLine([
        '#Cluster Name',
        '#Broker Name',
        '#BID',
        '#Addr',
        '#Version',
        '#InTPS(LOAD)',
        '#OutTPS(LOAD)',
        '#PCWait(ms)',
        '#Hour',
        '#SPACE',
      ]),
    );
    for (const r of rows) {
      io.out(
        clusterListLine([
          r.clusterName,
          r.brokerName,
          String(r.brokerId),
          r.addr,
          r.version,
          `${fixed(r.inTps, 2).padStart(9)}(${r.sendThreadPoolQueueSize},${r.sendThreadPoolQueueHeadWaitTimeMills}ms)`,
          `${fixed(r.outTps, 2).padStart(9)}(${r.pullThreadPoolQueueSize},${r.pullThreadPoolQueueHeadWaitTimeMills}ms)`,
          r.pageCacheLockTimeMills,
          fixed(r.hour, 2).padStart(2),
          fixed(r.space, 4),
        ]),
      );
    }
  },
};

const TARGET_OPTIONS = (what: string) =>
  [
    { short: 'b', long: 'brokerAddr', arg: true, desc: `${what} which broker` },
    { short: 'c', long: 'clusterName', arg: true, desc: `${what} which cluster` },
  ] as const;

export const brokerStatus: AdminCommand = {
  name: 'brokerStatus',
  desc: 'Fetch broker runtime status data',
  read: true,
  options: [
    { short: 'b', long: 'brokerAddr', arg: true, desc: 'Broker address' },
    { short: 'c', long: 'clusterName', arg: true, desc: 'which cluster' },
  ],
  async run({ opts, io, json, admin }) {
    const brokerAddr = opts.text('brokerAddr');
    const clusterName = opts.text('clusterName');
    if (brokerAddr === undefined && clusterName === undefined) throw new AdminUsageError('give -b or -c');
    const a = await admin();
    const addrs =
      brokerAddr !== undefined
        ? [brokerAddr]
        : (await clusterBrokers(a, clusterName as string)).flatMap((b) => b.addrs.map(([, addr]) => addr));
    const all: Record<string, Map<string, string>> = {};
    for (const addr of addrs) {
      const kv = await a.fetchBrokerRuntimeStats(addr);
      const sorted = new Map([...kv].sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0)));
      all[addr] = sorted;
      if (json) continue;
      for (const [k, v] of sorted) {
        io.out(
          brokerAddr !== undefined ? `${left(k, 32)}: ${v}\n` : `${left(addr, 24)} ${left(k, 32)}: ${v}\n`,
        );
      }
    }
    if (json) io.out(toJson(brokerAddr !== undefined ? all[brokerAddr] : all));
  },
};

export const getBrokerConfig: AdminCommand = {
  name: 'getBrokerConfig',
  desc: 'Get broker config by cluster or special broker!',
  read: true,
  options: TARGET_OPTIONS('get'),
  async run({ opts, io, json, admin }) {
    const brokerAddr = opts.text('brokerAddr');
    const clusterName = opts.text('clusterName');
    if (brokerAddr === undefined && clusterName === undefined) throw new AdminUsageError('give -b or -c');
    const a = await admin();
    const targets: Array<{ addr: string; banner: string }> = [];
    if (brokerAddr !== undefined) {
      targets.push({ addr: brokerAddr, banner: `============${brokerAddr}============\n` });
    } else {
      for (const { addrs } of await clusterBrokers(a, clusterName as string)) {
        const master = addrs.find(([id]) => id === 0)?.[1];
        if (master === undefined) continue;
        targets.push({ addr: master, banner: `============Master: ${master}============\n` });
        for (const [id, slave] of addrs) {
          if (id !== 0)
            targets.push({
              addr: slave,
              banner: `============My Master: ${master}=====Slave: ${slave}============\n`,
            });
        }
      }
    }
    const all: Record<string, Map<string, string>> = {};
    for (const { addr, banner } of targets) {
      const config = await a.getBrokerConfig(addr);
      all[addr] = config;
      if (json) continue;
      io.out(banner);
      if (config.size === 0) {
        io.out(`Broker[${addr}] has no config property!\n`);
        continue;
      }
      for (const [k, v] of config) io.out(`${left(k, 50)}=  ${v}\n`);
      io.out('\n');
    }
    if (json) io.out(toJson(brokerAddr !== undefined ? all[brokerAddr] : all));
  },
};

export const updateBrokerConfig: AdminCommand = {
  name: 'updateBrokerConfig',
  desc: "Update broker's config",
  read: false,
  options: [
    ...TARGET_OPTIONS('update'),
    { short: 'k', long: 'key', arg: true, required: true, desc: 'config key' },
    { short: 'v', long: 'value', arg: true, required: true, desc: 'config value' },
  ],
  async run({ opts, io, admin }) {
    const brokerAddr = opts.text('brokerAddr');
    const clusterName = opts.text('clusterName');
    if (brokerAddr === undefined && clusterName === undefined) throw new AdminUsageError('give -b or -c');
    const properties = { [opts.required('key')]: opts.required('value') };
    const a = await admin();
    const targets =
      brokerAddr !== undefined ? [brokerAddr] : await clusterMasterAddrs(a, clusterName as string);
    for (const addr of targets) {
      await a.updateBrokerConfig(addr, properties);
      io.out(`update broker config success, ${addr}\n`);
    }
  },
};
