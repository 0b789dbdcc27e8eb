/** mqadmin's queryCq: consume-queue entries of one queue, as the broker reads them. */
import type { ConsumeQueueData } from '../../common/protocol/query-consume-queue-body.js';
import type { AdminCommand } from './command.js';
import { toJson } from './format.js';

/** queryCq's default entry count. */
export const QUERY_CQ_DEFAULT_COUNT = 10;
const RULE = '======================================\n';

/** ConsumeQueueData.toString. */
export function consumeQueueDataString(d: ConsumeQueueData): string {
  const q = (v: string | undefined) => `'${v ?? 'null'}'`;
  return (
    `ConsumeQueueData{physicOffset=${d.physicOffset}, physicSize=${d.physicSize}, tagsCode=${d.tagsCode}, ` +
    `extendDataJson=${q(d.extendDataJson)}, bitMap=${q(d.bitMap)}, eval=${d.eval}, msg=${q(d.msg)}}`
  );
}

export const queryCq: AdminCommand = {
  name: 'queryCq',
  desc: 'Query cq command.',
  read: true,
  options: [
    { short: 't', long: 'topic', arg: true, required: true, desc: 'topic name' },
    { short: 'q', long: 'queue', arg: true, required: true, desc: 'queue num, ie. 1' },
    { short: 'i', long: 'index', arg: true, required: true, desc: 'start queue index.' },
    { short: 'c', long: 'count', arg: true, desc: 'how many.' },
    { short: 'b', long: 'broker', arg: true, desc: 'broker addr.' },
    { short: 'g', long: 'consumer', arg: true, desc: 'consumer group.' },
  ],
  async run({ opts, io, json, admin }) {
    const topic = opts.required('topic');
    const queueId = opts.integer('queue', 0, 0);
    const index = opts.integer('index', 0);
    const count = opts.integer('count', QUERY_CQ_DEFAULT_COUNT, 1);
    const a = await admin();
    let broker = opts.text('broker');
    if (broker === undefined || broker === '') {
      // As upstream: the master of the topic's first broker.
      const route = await a.examineTopicRouteInfo(topic);
      broker = route.brokerDatas[0]?.brokerAddrs.get(0);
      if (broker === undefined) throw new Error(`No topic route data! (topic ${topic})`);
    }
    const body = await a.queryConsumeQueue(broker, topic, queueId, index, count, opts.text('consumer'));
    if (json) {
      io.out(toJson(body));
      return;
    }
    if (body.subscriptionData !== undefined) {
      io.out(`Subscription data: \n${JSON.stringify(body.subscriptionData, null, '\t')}\n${RULE}`);
    }
    if (body.filterData !== undefined) io.out(`Filter data: \n${body.filterData}\n${RULE}`);
    io.out(`Queue data: \nmax: ${body.maxQueueIndex}, min: ${body.minQueueIndex}\n${RULE}`);
    let i = index;
    for (const d of body.queueData ?? []) {
      io.out(`idx: ${i}\n${consumeQueueDataString(d)}\n${RULE}`);
      i++;
    }
  },
};
