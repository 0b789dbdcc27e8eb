/**
 * The official mqadmin (rocketmq-tools 4.9.8) against our name server and broker: topic and group
 * administration, routes, queue status, consumer progress and connections, broker runtime info,
 * cluster listing, and message lookups by offset id and by key. Messages come from the official
 * producer; the consumer whose connection mqadmin lists is registered by a HEART_BEAT over our
 * RemotingClient (a real client connection, as any consumer's).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { encodeHeartbeatData } from '../../src/common/protocol/heartbeat-data.js';
import { createRequest } from '../../src/remoting/protocol/command.js';
import { encodeHeader } from '../../src/remoting/protocol/header-schema.js';
import { UpdateConsumerOffsetRequestHeader } from '../../src/remoting/protocol/headers/index.js';
import { RequestCode } from '../../src/remoting/protocol/request-code.js';
import { ResponseCode } from '../../src/remoting/protocol/response-code.js';
import type { RemotingClient } from '../../src/remoting/transport/index.js';
import { officialProduce, type ProbeSendResult } from './client-probe.js';
import type { LoopbackPair } from './loopback-pair.js';
import { type AdminPeer, startAdminPeer } from './mqadmin-support.js';

const TOPIC = 'AdminTopic';
const GROUP = 'admin_cg';
const CLIENT_ID = '127.0.0.1@admin-test-consumer';
const COUNT = 20;

describe('official mqadmin against our name server and broker', () => {
  let pair: LoopbackPair;
  let client: RemotingClient;
  let sent: ProbeSendResult[] = [];

  let peer: AdminPeer | undefined;
  const admin = (...args: string[]): Promise<string> => (peer as AdminPeer).admin(...args);

  before(async () => {
    peer = await startAdminPeer('mqadmin', 4);
    ({ pair, client } = peer);
  });

  after(async () => {
    await peer?.close();
  });

  test('updateTopic creates the topic on every broker of the cluster; topicList and topicRoute show it', async () => {
    const out = await admin('updateTopic', '-c', 'DefaultCluster', '-t', TOPIC, '-r', '4', '-w', '4');
    assert.match(out, new RegExp(`create topic to ${pair.brokerAddr.replace(/\./g, '\\.')} success\\.`));
    assert.match(out, /TopicConfig \[topicName=AdminTopic, readQueueNums=4, writeQueueNums=4, perm=RW-/);
    const list = await admin('topicList');
    assert.ok(list.split('\n').includes(TOPIC), list);
    const route = await admin('topicRoute', '-t', TOPIC);
    assert.match(route, /"brokerName"\s*:\s*"broker-ts"/);
    assert.match(route, /"readQueueNums"\s*:\s*4/);
    assert.ok(route.includes(pair.brokerAddr), route);
  });

  test('topicStatus shows each queue after the official producer sent', async () => {
    sent = await officialProduce(pair.namesrvAddr, TOPIC, COUNT, { tags: ['TagA'] });
    assert.equal(sent.length, COUNT);
    const out = await admin('topicStatus', '-t', TOPIC);
    // 4.9.8 prints no topic column: #Broker Name, #QID, #Min Offset, #Max Offset, #Last Updated.
    const rows = [...out.matchAll(/^broker-ts\s+(\d+)\s+(\d+)\s+(\d+)\s/gm)];
    assert.equal(rows.length, 4, out);
    assert.equal(
      rows.reduce((sum, m) => sum + Number(m[3]), 0),
      COUNT,
      out,
    );
  });

  test('updateSubGroup; consumerConnection and consumerProgress see a registered consumer and its offsets', async () => {
    const out = await admin('updateSubGroup', '-c', 'DefaultCluster', '-g', GROUP);
    assert.match(out, /create subscription group to .* success\./);
    assert.match(out, /groupName=admin_cg/);

    const heartbeat = createRequest(RequestCode.HEART_BEAT, {
      body: encodeHeartbeatData({
        clientID: CLIENT_ID,
        producerDataSet: [],
        consumerDataSet: [
          {
            groupName: GROUP,
            consumeType: 'CONSUME_PASSIVELY',
            messageModel: 'CLUSTERING',
            consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
            unitMode: false,
            subscriptionDataSet: [
              {
                topic: TOPIC,
                subString: '*',
                tagsSet: [],
                codeSet: [],
                subVersion: BigInt(Date.now()),
                expressionType: 'TAG',
                classFilterMode: false,
              },
            ],
          },
        ],
      }),
    });
    assert.equal(
      (await client.invoke(pair.brokerAddr, heartbeat, { timeoutMs: 5000 })).code,
      ResponseCode.SUCCESS,
    );
    const commit = createRequest(RequestCode.UPDATE_CONSUMER_OFFSET, {
      extFields: encodeHeader(UpdateConsumerOffsetRequestHeader, {
        consumerGroup: GROUP,
        topic: TOPIC,
        queueId: 0,
        commitOffset: 2n,
      }),
    });
    assert.equal(
      (await client.invoke(pair.brokerAddr, commit, { timeoutMs: 5000 })).code,
      ResponseCode.SUCCESS,
    );

    const connections = await admin('consumerConnection', '-g', GROUP);
    assert.ok(connections.includes(CLIENT_ID), connections);
    assert.match(connections, /^AdminTopic\s+\*$/m);
    assert.match(connections, /ConsumeType: CONSUME_PASSIVELY/);
    assert.match(connections, /MessageModel: CLUSTERING/);
    assert.match(connections, /ConsumeFromWhere: CONSUME_FROM_FIRST_OFFSET/);

    const progress = await admin('consumerProgress', '-g', GROUP);
    assert.match(progress, /^AdminTopic\s+broker-ts\s+0\s+\d+\s+2\s/m);
    assert.match(progress, new RegExp(`^Diff Total: ${COUNT - 2}$`, 'm'));
  });

  test("brokerConsumeStats lists the group's queue it consumed from and the broker's total diff", async () => {
    const out = await admin('brokerConsumeStats', '-b', pair.brokerAddr);
    // Only queues whose last consumed message has a store time are printed (queue 0, up to offset 2).
    const rows = [...out.matchAll(/^AdminTopic\s+admin_cg\s+broker-ts\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s/gm)];
    assert.equal(rows.length, 1, out);
    const [, qid, brokerOffset, consumerOffset, diff] = (rows[0] ?? []).map(Number);
    assert.equal(qid, 0);
    assert.equal(consumerOffset, 2);
    assert.equal(diff, (brokerOffset ?? 0) - 2);
    assert.match(out, new RegExp(`^Diff Total: ${COUNT - 2}$`, 'm'));
    const ordered = await admin('brokerConsumeStats', '-b', pair.brokerAddr, '-o', 'true');
    assert.match(ordered, /^Diff Total: 0$/m);
  });

  test('brokerStatus and clusterList report the broker and its traffic', async () => {
    const status = await admin('brokerStatus', '-b', pair.brokerAddr);
    assert.match(status, /^brokerVersionDesc\s*: V4_9_8\s*$/m);
    assert.match(status, new RegExp(`^msgPutTotalTodayNow\\s*: ${COUNT}\\s*$`, 'm'));
    assert.match(status, /^commitLogMaxOffset\s*: [1-9]\d*\s*$/m);
    const cluster = await admin('clusterList');
    assert.match(
      cluster,
      new RegExp(
        `^DefaultCluster\\s+broker-ts\\s+0\\s+${pair.brokerAddr.replace(/\./g, '\\.')}\\s+V4_9_8`,
        'm',
      ),
    );
  });

  test('queryMsgById and queryMsgByKey find what the producer sent', async () => {
    const m = sent[3];
    assert.ok(m);
    const byId = await admin('queryMsgById', '-i', m.offsetMsgId);
    assert.match(byId, /^Topic:\s+AdminTopic$/m);
    assert.match(byId, /^Tags:\s+\[TagA\]$/m);
    assert.match(byId, /^Keys:\s+\[key-3 k2-3\]$/m);
    assert.match(byId, new RegExp(`^Queue ID:\\s+${m.queueId}$`, 'm'));
    assert.match(byId, new RegExp(`^Queue Offset:\\s+${m.queueOffset}$`, 'm'));
    const byKey = await admin('queryMsgByKey', '-t', TOPIC, '-k', 'key-3');
    assert.match(byKey, new RegExp(`^${m.msgId}\\s+${m.queueId}\\s+${m.queueOffset}$`, 'm'));
    assert.doesNotMatch(byKey, /key-13/);
  });

  test("queryCq shows the raw consume-queue entries and the registered group's subscription", async () => {
    const q0 = sent.filter((r) => r.queueId === 0).length;
    assert.ok(q0 >= 2, 'the producer spread its messages over the queues');
    const out = await admin('queryCq', '-t', TOPIC, '-q', '0', '-i', '0', '-c', '2', '-g', GROUP);
    // queryCq prints its exceptions and exits 0
    assert.doesNotMatch(out, /Exception/, out);
    assert.match(out, /^Subscription data: $/m);
    assert.match(out, /"subString":"\*"/);
    assert.match(out, /^Filter data: \nnull$/m);
    assert.match(out, new RegExp(`^max: ${q0}, min: 0$`, 'm'));
    const entries = [
      ...out.matchAll(/^ConsumeQueueData\{physicOffset=(\d+), physicSize=(\d+), tagsCode=(\d+)/gm),
    ];
    assert.equal(entries.length, 2, out);
    const firstOnQueue0 = sent.find((r) => r.queueId === 0 && r.queueOffset === '0');
    assert.ok(firstOnQueue0);
    // the offset message id's last 16 hex digits are the commit-log offset
    assert.equal(BigInt(entries[0]?.[1] ?? -1), BigInt(`0x${firstOnQueue0.offsetMsgId.slice(16)}`));
  });

  test('cleanExpiredCQ, cleanUnusedTopic and deleteExpiredCommitLog succeed and keep live data', async () => {
    for (const cmd of ['cleanExpiredCQ', 'cleanUnusedTopic', 'deleteExpiredCommitLog']) {
      const out = await admin(cmd, '-b', pair.brokerAddr);
      assert.doesNotMatch(out, /Exception/, `${cmd}: ${out}`);
      assert.match(out, /success/, `${cmd}: ${out}`);
    }
    // Nothing here is expired or unused: the topic's messages are all still there.
    const status = await admin('topicStatus', '-t', TOPIC);
    const rows = [...status.matchAll(/^broker-ts\s+(\d+)\s+(\d+)\s+(\d+)\s/gm)];
    assert.equal(
      rows.reduce((sum, m) => sum + Number(m[3]), 0),
      COUNT,
      status,
    );
  });
});
