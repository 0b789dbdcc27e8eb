/**
 * The routes QUERY_ASSIGNMENT assigns from: every broker's readable queues from the name server
 * (a write-only broker left out), cached and refreshed after loadBalancePollNameServerInterval, and
 * this broker's own queues without a name server or when none answers.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { TopicRouteInfoManager } from '../../../src/broker/loadbalance/topic-route-info-manager.js';
import { createLogger } from '../../../src/common/logger.js';
import { MessageQueue } from '../../../src/common/message/message-queue.js';
import type { TopicRouteData } from '../../../src/common/protocol/route.js';

const quiet = createLogger('test', { level: 'silent' });
const route = (queues: Array<[string, number, number]>): TopicRouteData => ({
  queueDatas: queues.map(([brokerName, readQueueNums, perm]) => ({
    brokerName,
    readQueueNums,
    writeQueueNums: readQueueNums,
    perm,
    topicSysFlag: 0,
  })),
  brokerDatas: [],
  filterServerTable: new Map(),
});
const ids = (mqs: MessageQueue[] | undefined) => mqs?.map((q) => `${q.brokerName}:${q.queueId}`);
const local = () => [new MessageQueue('T', 'me', 0)];

test('every readable broker of the route, cached, refreshed after the interval', async () => {
  let now = 0;
  let asked = 0;
  let answer: TopicRouteData | undefined = route([
    ['a', 2, 6],
    ['b', 1, 4],
    ['c', 3, 2], // write only: not subscribable
  ]);
  const m = new TopicRouteInfoManager(
    {
      nameServerAddressList: ['ns:1'],
      getTopicRouteInfoFromNameServer: async () => {
        asked++;
        return answer;
      },
    },
    { loadBalancePollNameServerInterval: 1000 },
    () => now,
    quiet,
  );
  assert.deepEqual(ids(await m.getTopicSubscribeInfo('T', local)), ['a:0', 'a:1', 'b:0']);
  await m.getTopicSubscribeInfo('T', local);
  assert.equal(asked, 1, 'cached');
  answer = route([['a', 1, 6]]);
  now = 2000;
  await m.getTopicSubscribeInfo('T', local); // stale: answered from the cache, refreshed behind
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(ids(await m.getTopicSubscribeInfo('T', local)), ['a:0']);
  assert.equal(asked, 2);
});

test('no name server, a failing one, or a topic it does not know yet: our own queues', async () => {
  const none = new TopicRouteInfoManager(
    { nameServerAddressList: [], getTopicRouteInfoFromNameServer: async () => assert.fail('not asked') },
    { loadBalancePollNameServerInterval: 1000 },
    () => 0,
    quiet,
  );
  assert.deepEqual(ids(await none.getTopicSubscribeInfo('T', local)), ['me:0']);
  const failing = new TopicRouteInfoManager(
    {
      nameServerAddressList: ['ns:1'],
      getTopicRouteInfoFromNameServer: async () => {
        throw new Error('down');
      },
    },
    { loadBalancePollNameServerInterval: 1000 },
    () => 0,
    quiet,
  );
  assert.deepEqual(ids(await failing.getTopicSubscribeInfo('T', local)), ['me:0']);
  const unknown = new TopicRouteInfoManager(
    { nameServerAddressList: ['ns:1'], getTopicRouteInfoFromNameServer: async () => undefined },
    { loadBalancePollNameServerInterval: 1000 },
    () => 0,
    quiet,
  );
  assert.deepEqual(ids(await unknown.getTopicSubscribeInfo('T', local)), ['me:0']);
  assert.equal(await unknown.getTopicSubscribeInfo('T', () => undefined), undefined);
});
