/**
 * Route bodies of the name server: TopicRouteData (GET_ROUTEINFO_BY_TOPIC) and ClusterInfo
 * (GET_BROKER_CLUSTER_INFO), read from either form Java writes (fastjson bare keys `{0:"addr"}`, or the
 * standard form of a 4.9.4+ name server) and written in the form a peer of a given version expects.
 */
import { FjMap, stringifyFastjson } from '../fastjson/index.js';
import { BodyReader } from './body-reader.js';

export interface QueueData {
  brokerName: string;
  readQueueNums: number;
  writeQueueNums: number;
  perm: number;
  topicSysFlag: number;
}

export interface BrokerData {
  cluster: string;
  brokerName: string;
  /** brokerId (0 = master) -> "ip:port". */
  brokerAddrs: Map<number, string>;
}

export interface TopicRouteData {
  orderTopicConf?: string | undefined;
  queueDatas: QueueData[];
  brokerDatas: BrokerData[];
  /** broker address -> filter server addresses. */
  filterServerTable: Map<string, string[]>;
}

export interface ClusterInfo {
  brokerAddrTable: Map<string, BrokerData>;
  clusterAddrTable: Map<string, string[]>;
}

/** Body forms: `fastjson` = default features (bare non-string keys); `standard` = BrowserCompatible. */
export type BodyForm = 'fastjson' | 'standard';

function readBrokerData(r: BodyReader): BrokerData {
  const brokerAddrs = new Map<number, string>();
  for (const [id, addr] of r.field('brokerAddrs').entries()) {
    const brokerId = Number(id);
    // Number() also takes "", " ", "0x1" and "1e2"; a Java long key is only ever its decimal text.
    if (!Number.isSafeInteger(brokerId) || String(brokerId) !== id) r.fail(`broker id ${id} is not a number`);
    brokerAddrs.set(brokerId, addr.string());
  }
  return { cluster: r.field('cluster').string(), brokerName: r.field('brokerName').string(), brokerAddrs };
}

function readQueueData(r: BodyReader): QueueData {
  // Brokers up to 4.8 wrote the misspelt `topicSynFlag`.
  const flag = r.optional('topicSysFlag') ?? r.optional('topicSynFlag');
  return {
    brokerName: r.field('brokerName').string(),
    readQueueNums: r.field('readQueueNums').int(),
    writeQueueNums: r.field('writeQueueNums').int(),
    perm: r.field('perm').int(),
    topicSysFlag: flag?.int() ?? 0,
  };
}

function readStringList(r: BodyReader): string[] {
  return r.array().map((e) => e.string());
}

export function decodeTopicRouteData(body: Buffer | undefined): TopicRouteData {
  const r = BodyReader.parse('TopicRouteData', body);
  const filterServerTable = new Map<string, string[]>();
  for (const [addr, servers] of r.optional('filterServerTable')?.entries() ?? []) {
    filterServerTable.set(addr, readStringList(servers));
  }
  return {
    orderTopicConf: r.optional('orderTopicConf')?.string(),
    queueDatas: r.optional('queueDatas')?.array().map(readQueueData) ?? [],
    brokerDatas: r.optional('brokerDatas')?.array().map(readBrokerData) ?? [],
    filterServerTable,
  };
}

export function decodeClusterInfo(body: Buffer | undefined): ClusterInfo {
  const r = BodyReader.parse('ClusterInfo', body);
  const brokerAddrTable = new Map<string, BrokerData>();
  for (const [name, data] of r.optional('brokerAddrTable')?.entries() ?? [])
    brokerAddrTable.set(name, readBrokerData(data));
  const clusterAddrTable = new Map<string, string[]>();
  for (const [cluster, names] of r.optional('clusterAddrTable')?.entries() ?? []) {
    clusterAddrTable.set(cluster, readStringList(names));
  }
  return { brokerAddrTable, clusterAddrTable };
}

function brokerDataValue(b: BrokerData) {
  return {
    brokerAddrs: new FjMap<number, string>([...b.brokerAddrs]),
    brokerName: b.brokerName,
    cluster: b.cluster,
  };
}

export function encodeTopicRouteData(route: TopicRouteData, form: BodyForm = 'fastjson'): Buffer {
  const value = {
    brokerDatas: route.brokerDatas.map(brokerDataValue),
    filterServerTable: new FjMap<string, string[]>([...route.filterServerTable]),
    orderTopicConf: route.orderTopicConf,
    queueDatas: route.queueDatas.map((q) => ({ ...q })),
  };
  return Buffer.from(stringifyFastjson(value, { form }), 'utf8');
}

export function encodeClusterInfo(info: ClusterInfo, form: BodyForm = 'fastjson'): Buffer {
  const value = {
    brokerAddrTable: new FjMap(
      [...info.brokerAddrTable].map(([name, b]) => [name, brokerDataValue(b)] as const),
    ),
    clusterAddrTable: new FjMap<string, string[]>([...info.clusterAddrTable]),
  };
  return Buffer.from(stringifyFastjson(value, { form }), 'utf8');
}
