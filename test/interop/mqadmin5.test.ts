/**
 * The official mqadmin of the newest 5.x tools (rocketmq-tools 5.5.0, from interop/server5) against our
 * name server and broker, for what the 5.x tools ask differently from 4.9.8: topicStatus reads each
 * broker's topic config first (GET_TOPIC_CONFIG, 351, a 5.x code), and brokerConsumeStats
 * (GET_BROKER_CONSUME_STATS, 317). Messages come from the official 4.9.8 producer; the group's offsets
 * are committed over our RemotingClient.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { decodeMessageRequestModeTable } from '../../src/common/protocol/set-message-request-mode-body.js';
import { createRequest } from '../../src/remoting/protocol/command.js';
import { encodeHeader } from '../../src/remoting/protocol/header-schema.js';
import { UpdateConsumerOffsetRequestHeader } from '../../src/remoting/protocol/headers/index.js';
import { RequestCode } from '../../src/remoting/protocol/request-code.js';
import { ResponseCode } from '../../src/remoting/protocol/response-code.js';
import type { RemotingClient } from '../../src/remoting/transport/index.js';
import { officialProduce } from './client-probe.js';
import type { LoopbackPair } from './loopback-pair.js';
import { type AdminPeer, startAdminPeer } from './mqadmin-support.js';

const TOPIC = 'Admin5Topic';
const GROUP = 'admin5_cg';
const COUNT = 20;

describe('official 5.x mqadmin against our name server and broker', () => {
  let pair: LoopbackPair;
  let client: RemotingClient;

  let peer: AdminPeer | undefined;
  const admin = (...args: string[]): Promise<string> => (peer as AdminPeer).admin(...args);

  before(async () => {
    peer = await startAdminPeer('mqadmin5', 5);
    ({ pair, client } = peer);
  });

  after(async () => {
    await peer?.close();
  });

  test('updateTopic, then topicStatus (GET_TOPIC_CONFIG before the stats) shows every queue', async () => {
    const created = await admin('updateTopic', '-c', 'DefaultCluster', '-t', TOPIC, '-r', '4', '-w', '4');
    assert.match(created, /create topic to .* success\./);
    const sent = await officialProduce(pair.namesrvAddr, TOPIC, COUNT, { tags: ['TagA'] });
    assert.ok(sent.every((r) => r.status === 'SEND_OK'));
    const out = await admin('topicStatus', '-t', TOPIC);
    const rows = [...out.matchAll(/^broker-ts\s+(\d+)\s+(\d+)\s+(\d+)\s/gm)];
    assert.equal(rows.length, 4, out);
    assert.equal(
      rows.reduce((sum, m) => sum + Number(m[3]), 0),
      COUNT,
      out,
    );
  });

  test("brokerConsumeStats: the group's consumed queue and the total diff", async () => {
    const commit = createRequest(RequestCode.UPDATE_CONSUMER_OFFSET, {
      extFields: encodeHeader(UpdateConsumerOffsetRequestHeader, {
        consumerGroup: GROUP,
        topic: TOPIC,
        queueId: 1,
        commitOffset: 1n,
      }),
    });
    assert.equal(
      (await client.invoke(pair.brokerAddr, commit, { timeoutMs: 5000 })).code,
      ResponseCode.SUCCESS,
    );
    await admin('updateSubGroup', '-c', 'DefaultCluster', '-g', GROUP);
    const out = await admin('brokerConsumeStats', '-b', pair.brokerAddr);
    const rows = [
      ...out.matchAll(
        new RegExp(`^${TOPIC}\\s+${GROUP}\\s+broker-ts\\s+(\\d+)\\s+(\\d+)\\s+(\\d+)\\s+(\\d+)\\s`, 'gm'),
      ),
    ];
    assert.equal(rows.length, 1, out);
    const [, qid, , consumerOffset] = (rows[0] ?? []).map(Number);
    assert.equal(qid, 1, out);
    assert.equal(consumerOffset, 1, out);
    assert.match(out, new RegExp(`^Diff Total: ${COUNT - 1}$`, 'm'));
  });

  test("consumerProgress: 5.x's #Inflight column (pullOffset - consumerOffset) reads 0 for a PULL group", async () => {
    // examineConsumeStats finds the group's brokers by its retry topic's route.
    await admin('updateTopic', '-c', 'DefaultCluster', '-t', `%RETRY%${GROUP}`, '-r', '1', '-w', '1');
    const out = await admin('consumerProgress', '-g', GROUP);
    const rows = [
      ...out.matchAll(
        new RegExp(`^${TOPIC}\\s+broker-ts\\s+(\\d+)\\s+(\\d+)\\s+(\\d+)\\s+(-?\\d+)\\s+(-?\\d+)\\s`, 'gm'),
      ),
    ];
    assert.equal(rows.length, 4, out);
    for (const row of rows) assert.equal(row[5], '0', out);
    assert.match(out, /^Consume Inflight Total: 0$/m);
  });

  test('queryCq (QUERY_CONSUME_QUEUE) lists raw entries; an offline group is said to be', async () => {
    const out = await admin('queryCq', '-t', TOPIC, '-q', '1', '-i', '0', '-c', '3', '-g', GROUP);
    assert.match(out, new RegExp(`^${GROUP}@${TOPIC} is not online!$`, 'm'));
    assert.match(out, /^max: \d+, min: 0$/m);
    const entries = [...out.matchAll(/^ConsumeQueueData\{physicOffset=\d+, physicSize=\d+, tagsCode=\d+/gm)];
    assert.equal(entries.length, 3, out);
  });

  test('setConsumeMode (SET_MESSAGE_REQUEST_MODE, fastjson body of the 5.5.0 tools) is stored as sent', async () => {
    const out = await admin(
      'setConsumeMode',
      '-b',
      pair.brokerAddr,
      '-t',
      TOPIC,
      '-g',
      GROUP,
      '-m',
      'POP',
      '-q',
      '1',
    );
    assert.match(out, new RegExp(`set consume mode to ${pair.brokerAddr.replace(/\./g, '\\.')} success\\.`));
    const all = await client.invoke(
      pair.brokerAddr,
      createRequest(RequestCode.GET_ALL_MESSAGE_REQUEST_MODE),
      {
        timeoutMs: 5000,
      },
    );
    assert.equal(all.code, ResponseCode.SUCCESS);
    assert.deepEqual(
      decodeMessageRequestModeTable(all.body ?? Buffer.alloc(0))
        .get(TOPIC)
        ?.get(GROUP),
      {
        topic: TOPIC,
        consumerGroup: GROUP,
        mode: 'POP',
        popShareQueueNum: 1,
      },
    );
  });

  test('clusterList shows our broker', async () => {
    const out = await admin('clusterList');
    assert.match(
      out,
      new RegExp(
        `^DefaultCluster\\s+broker-ts\\s+0\\s+${pair.brokerAddr.replace(/\./g, '\\.')}\\s+V4_9_8`,
        'm',
      ),
    );
  });
});
