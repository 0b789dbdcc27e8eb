/**
 * What the client derives from a route (upstream MQClientInstance 4.9.8): the producer's queues
 * (writable, brokers with a master, sorted by broker name, or orderTopicConf), the consumer's queues,
 * whether a route changed, and the round robin of TopicPublishInfo.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  cloneTopicRouteData,
  topicRouteData2TopicPublishInfo,
  topicRouteData2TopicSubscribeInfo,
  topicRouteDataIsChange,
} from '../../../src/client/instance/topic-route.js';
import { SendQueueIndex, TopicPublishInfo } from '../../../src/client/producer/topic-publish-info.js';
import { MessageQueue } from '../../../src/common/message/message-queue.js';
import type { BrokerData, QueueData, TopicRouteData } from '../../../src/common/protocol/route.js';

const RW = 6;
const W = 2;
const R = 4;

function qd(
  brokerName: string,
  writeQueueNums: number,
  perm = RW,
  readQueueNums = writeQueueNums,
): QueueData {
  return { brokerName, readQueueNums, writeQueueNums, perm, topicSysFlag: 0 };
}

function bd(brokerName: string, addrs: Array<[number, string]>): BrokerData {
  return { cluster: 'c1', brokerName, brokerAddrs: new Map(addrs) };
}

function route(queueDatas: QueueData[], brokerDatas: BrokerData[], orderTopicConf?: string): TopicRouteData {
  return { orderTopicConf, queueDatas, brokerDatas, filterServerTable: new Map() };
}

function names(list: readonly MessageQueue[]): string[] {
  return list.map((mq) => `${mq.topic}/${mq.brokerName}/${mq.queueId}`);
}

/** A mixed route: broker-b and broker-B writable, broker-a write-only, c read-only, d no master, e no broker data. */
const MIXED = route(
  [
    qd('broker-b', 2),
    qd('broker-a', 1, W),
    qd('broker-c', 3, R),
    qd('broker-d', 2),
    qd('broker-e', 2),
    qd('broker-B', 1),
  ],
  [
    bd('broker-a', [[0, '10.0.0.1:10911']]),
    bd('broker-b', [
      [0, '10.0.0.2:10911'],
      [1, '10.0.0.3:10911'],
    ]),
    bd('broker-B', [[0, '10.0.0.6:10911']]),
    bd('broker-c', [[0, '10.0.0.4:10911']]),
    bd('broker-d', [[1, '10.0.0.5:10911']]),
  ],
);

describe('topicRouteData2TopicPublishInfo', () => {
  test('writable queues of brokers with a master, brokers sorted as Java Strings', () => {
    const info = topicRouteData2TopicPublishInfo('T', MIXED);
    // Java's String order puts upper case before lower case.
    assert.deepEqual(names(info.messageQueueList), [
      'T/broker-B/0',
      'T/broker-a/0',
      'T/broker-b/0',
      'T/broker-b/1',
    ]);
    assert.equal(info.orderTopic, false);
    assert.equal(info.ok(), true);
    assert.equal(info.topicRouteData, MIXED);
    // The route itself is left in its order.
    assert.equal(MIXED.queueDatas[0]?.brokerName, 'broker-b');
  });

  test('orderTopicConf gives the queues in its order, whatever the perms', () => {
    const r = route([qd('broker-a', 8, R)], [bd('broker-a', [[0, 'x:1']])], 'broker-b:2;broker-a:1');
    const info = topicRouteData2TopicPublishInfo('T', r);
    assert.deepEqual(names(info.messageQueueList), ['T/broker-b/0', 'T/broker-b/1', 'T/broker-a/0']);
    assert.equal(info.orderTopic, true);
  });

  test('a route with no writable master has no queues', () => {
    const info = topicRouteData2TopicPublishInfo('T', route([qd('a', 4, R)], [bd('a', [[0, 'x:1']])]));
    assert.equal(info.ok(), false);
    assert.equal(new TopicPublishInfo().ok(), false);
  });

  test('getQueueIdByBroker: write queues of a writable broker, else -1', () => {
    const info = topicRouteData2TopicPublishInfo('T', MIXED);
    assert.equal(info.getQueueIdByBroker('broker-b'), 2);
    assert.equal(info.getQueueIdByBroker('broker-zz'), -1);
    // Upstream counts only writable queue data: a read-only broker has no queue to send to.
    assert.equal(info.getQueueIdByBroker('broker-c'), -1);
    assert.equal(new TopicPublishInfo().getQueueIdByBroker('broker-b'), -1);
  });
});

describe('topicRouteData2TopicSubscribeInfo', () => {
  test('every read queue of every readable queue data', () => {
    const r = route([qd('a', 2, RW, 3), qd('b', 4, W), qd('c', 0, R, 1)], []);
    assert.deepEqual(names(topicRouteData2TopicSubscribeInfo('T', r)), ['T/a/0', 'T/a/1', 'T/a/2', 'T/c/0']);
  });
});

describe('topicRouteDataIsChange', () => {
  const base = route(
    [qd('a', 4), qd('b', 4)],
    [
      bd('a', [[0, 'h1:1']]),
      bd('b', [
        [0, 'h2:1'],
        [1, 'h3:1'],
      ]),
    ],
  );

  test('no old route is a change; the same route in another order is not', () => {
    assert.equal(topicRouteDataIsChange(undefined, base), true);
    assert.equal(topicRouteDataIsChange(base, cloneTopicRouteData(base)), false);
    const reordered = route(
      [qd('b', 4), qd('a', 4)],
      [
        bd('b', [
          [1, 'h3:1'],
          [0, 'h2:1'],
        ]),
        bd('a', [[0, 'h1:1']]),
      ],
    );
    assert.equal(topicRouteDataIsChange(base, reordered), false);
  });

  test('any field of a queue or broker data, the order conf or filter servers is a change', () => {
    const changes: Array<(r: TopicRouteData) => void> = [
      (r) => {
        (r.queueDatas[0] as QueueData).writeQueueNums = 8;
      },
      (r) => {
        (r.queueDatas[0] as QueueData).readQueueNums = 8;
      },
      (r) => {
        (r.queueDatas[0] as QueueData).perm = R;
      },
      (r) => {
        (r.queueDatas[0] as QueueData).topicSysFlag = 1;
      },
      (r) => {
        r.queueDatas.pop();
      },
      (r) => {
        (r.brokerDatas[1] as BrokerData).brokerAddrs.delete(1);
      },
      (r) => {
        (r.brokerDatas[0] as BrokerData).brokerAddrs.set(0, 'h9:1');
      },
      (r) => {
        (r.brokerDatas[0] as BrokerData).cluster = 'c2';
      },
      (r) => {
        r.orderTopicConf = 'a:4';
      },
      (r) => {
        r.filterServerTable.set('h1:1', ['f:1']);
      },
    ];
    changes.forEach((change, i) => {
      const now = cloneTopicRouteData(base);
      change(now);
      assert.equal(topicRouteDataIsChange(base, now), true, `change ${i}`);
    });
  });

  test('cloneTopicRouteData shares no list or map', () => {
    const copy = cloneTopicRouteData(base);
    (copy.queueDatas[0] as QueueData).perm = 0;
    (copy.brokerDatas[0] as BrokerData).brokerAddrs.clear();
    copy.queueDatas.push(qd('z', 1));
    assert.equal(base.queueDatas.length, 2);
    assert.equal(base.queueDatas[0]?.perm, RW);
    assert.equal(base.brokerDatas[0]?.brokerAddrs.size, 1);
  });
});

describe('TopicPublishInfo queue choice', () => {
  function infoOf(queues: Array<[string, number]>, start = 0): TopicPublishInfo {
    const info = new TopicPublishInfo(new SendQueueIndex(start));
    for (const [broker, id] of queues) info.messageQueueList.push(new MessageQueue('T', broker, id));
    return info;
  }

  test('round robin over every queue in turn', () => {
    const info = infoOf([
      ['a', 0],
      ['a', 1],
      ['b', 0],
      ['b', 1],
    ]);
    const picked = Array.from({ length: 8 }, () => info.selectOneMessageQueue());
    assert.deepEqual(names(picked), ['T/a/1', 'T/b/0', 'T/b/1', 'T/a/0', 'T/a/1', 'T/b/0', 'T/b/1', 'T/a/0']);
  });

  test('lastBrokerName is avoided while another broker has a queue', () => {
    const info = infoOf(
      [
        ['a', 0],
        ['a', 1],
        ['a', 2],
        ['b', 0],
      ],
      123,
    );
    for (let i = 0; i < 20; i++) assert.equal(info.selectOneMessageQueue('a').brokerName, 'b');
    for (let i = 0; i < 20; i++) assert.equal(info.selectOneMessageQueue('b').brokerName, 'a');
    const single = infoOf([
      ['a', 0],
      ['a', 1],
    ]);
    assert.equal(single.selectOneMessageQueue('a').brokerName, 'a');
  });

  test('the index never goes negative, also past int32', () => {
    const index = new SendQueueIndex(0x7ffffffe);
    const values = Array.from({ length: 4 }, () => index.incrementAndGet());
    assert.deepEqual(values, [0x7fffffff, 0, 1, 2]);
    const info = infoOf(
      [
        ['a', 0],
        ['a', 1],
        ['a', 2],
      ],
      0x7ffffffe,
    );
    for (let i = 0; i < 5; i++) assert.ok(info.selectOneMessageQueue() instanceof MessageQueue);
    const random = new SendQueueIndex();
    for (let i = 0; i < 100; i++) assert.ok(random.incrementAndGet() >= 0);
  });
});
