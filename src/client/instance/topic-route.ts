/**
 * What MQClientInstance derives from a topic route: the producers' TopicPublishInfo (writable
 * queues of brokers with a master), the consumers' readable queues, and whether a new route differs
 * from the cached one.
 */
import { PermName } from '../../common/constants.js';
import { javaStringCompare } from '../../common/message/java-lang.js';
import { MessageQueue } from '../../common/message/message-queue.js';
import type { BrokerData, QueueData, TopicRouteData } from '../../common/protocol/route.js';
import { type SendQueueIndex, TopicPublishInfo } from '../producer/topic-publish-info.js';

const MASTER_ID = 0;

function byBrokerName(a: { brokerName: string }, b: { brokerName: string }): number {
  return javaStringCompare(a.brokerName, b.brokerName);
}

/**
 * `topicRouteData2TopicPublishInfo`. With orderTopicConf (`brokerA:4;brokerB:4`) the queues are those,
 * in that order; otherwise, brokers sorted by name, every write queue of a writable queue data whose
 * broker has a master.
 */
export function topicRouteData2TopicPublishInfo(
  topic: string,
  route: TopicRouteData,
  sendWhichQueue?: SendQueueIndex,
): TopicPublishInfo {
  const info = new TopicPublishInfo(sendWhichQueue);
  info.topicRouteData = route;
  const conf = route.orderTopicConf;
  if (conf !== undefined && conf.length > 0) {
    for (const broker of conf.split(';')) {
      const [name, count] = broker.split(':');
      const nums = Number(count);
      if (name === undefined || name.length === 0 || !Number.isInteger(nums)) continue;
      for (let i = 0; i < nums; i++) info.messageQueueList.push(new MessageQueue(topic, name, i));
    }
    info.orderTopic = true;
    return info;
  }
  for (const qd of [...route.queueDatas].sort(byBrokerName)) {
    if (!PermName.isWriteable(qd.perm)) continue;
    const bd = route.brokerDatas.find((b) => b.brokerName === qd.brokerName);
    if (bd === undefined || !bd.brokerAddrs.has(MASTER_ID)) continue;
    for (let i = 0; i < qd.writeQueueNums; i++)
      info.messageQueueList.push(new MessageQueue(topic, qd.brokerName, i));
  }
  return info;
}

/** `topicRouteData2TopicSubscribeInfo`: every read queue of every readable queue data. */
export function topicRouteData2TopicSubscribeInfo(topic: string, route: TopicRouteData): MessageQueue[] {
  const out: MessageQueue[] = [];
  for (const qd of route.queueDatas) {
    if (!PermName.isReadable(qd.perm)) continue;
    for (let i = 0; i < qd.readQueueNums; i++) out.push(new MessageQueue(topic, qd.brokerName, i));
  }
  return out;
}

function queueDataEquals(a: QueueData, b: QueueData): boolean {
  return (
    a.brokerName === b.brokerName &&
    a.readQueueNums === b.readQueueNums &&
    a.writeQueueNums === b.writeQueueNums &&
    a.perm === b.perm &&
    a.topicSysFlag === b.topicSysFlag
  );
}

function brokerDataEquals(a: BrokerData, b: BrokerData): boolean {
  if (a.brokerName !== b.brokerName || a.cluster !== b.cluster || a.brokerAddrs.size !== b.brokerAddrs.size) {
    return false;
  }
  for (const [id, addr] of a.brokerAddrs) if (b.brokerAddrs.get(id) !== addr) return false;
  return true;
}

function listEquals<T extends { brokerName: string }>(a: T[], b: T[], eq: (x: T, y: T) => boolean): boolean {
  if (a.length !== b.length) return false;
  const sa = [...a].sort(byBrokerName);
  const sb = [...b].sort(byBrokerName);
  return sa.every((x, i) => eq(x, sb[i] as T));
}

function filterServersEqual(a: Map<string, string[]>, b: Map<string, string[]>): boolean {
  if (a.size !== b.size) return false;
  for (const [addr, servers] of a) {
    const other = b.get(addr);
    if (other === undefined || other.length !== servers.length || other.some((s, i) => s !== servers[i]))
      return false;
  }
  return true;
}

/** `topicRouteDataIsChange`: compared with queue and broker data sorted by broker name. */
export function topicRouteDataIsChange(old: TopicRouteData | undefined, now: TopicRouteData): boolean {
  if (old === undefined) return true;
  return !(
    (old.orderTopicConf ?? undefined) === (now.orderTopicConf ?? undefined) &&
    listEquals(old.queueDatas, now.queueDatas, queueDataEquals) &&
    listEquals(old.brokerDatas, now.brokerDatas, brokerDataEquals) &&
    filterServersEqual(old.filterServerTable, now.filterServerTable)
  );
}

/** A deep copy, so the cached route never shares a map or list with one a caller may change. */
export function cloneTopicRouteData(route: TopicRouteData): TopicRouteData {
  return {
    orderTopicConf: route.orderTopicConf,
    queueDatas: route.queueDatas.map((q) => ({ ...q })),
    brokerDatas: route.brokerDatas.map((b) => ({ ...b, brokerAddrs: new Map(b.brokerAddrs) })),
    filterServerTable: new Map([...route.filterServerTable].map(([k, v]) => [k, [...v]])),
  };
}
