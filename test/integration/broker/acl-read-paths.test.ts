/**
 * ACL on every request that returns or copies stored messages (issue 26, point 4): an account with
 * DENY on a topic or a group cannot read it by commit-log offset (VIEW_MESSAGE_BY_ID), by sending
 * the offset back into its own group (CONSUMER_SEND_MSG_BACK), by key (QUERY_MESSAGE), through queue
 * locks (LOCK/UNLOCK_BATCH_MQ) or by pulling the group's retry topic; the same requests on what it
 * may read still work.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { pullQueue0 } from '../../../scripts/attack/raw-requests.js';
import type { Producer } from '../../../src/client/index.js';
import { decodeOffsetMsgId } from '../../../src/common/message/message-id.js';
import { MessageQueue } from '../../../src/common/message/message-queue.js';
import { encodeLockBatchRequestBody } from '../../../src/common/protocol/lock-batch-body.js';
import { createRequest, type RemotingCommand } from '../../../src/remoting/protocol/command.js';
import { encodeHeader } from '../../../src/remoting/protocol/header-schema.js';
import {
  ConsumerSendMsgBackRequestHeader,
  ViewMessageRequestHeader,
} from '../../../src/remoting/protocol/headers/index.js';
import { RequestCode } from '../../../src/remoting/protocol/request-code.js';
import { AclClientRPCHook } from '../../../src/remoting/transport/acl-client-rpc-hook.js';
import { RemotingClient } from '../../../src/remoting/transport/index.js';
import { createTopic, newProducer, quiet, startCluster, type TestCluster, until } from '../client/support.js';

const ACL_FILE = `accounts:
  - accessKey: adminUser1
    secretKey: adminSecret1
    admin: true
  - accessKey: readerUser
    secretKey: readerSecret
    defaultTopicPerm: PUB|SUB
    defaultGroupPerm: SUB
    topicPerms:
      - TopicSecret=DENY
    groupPerms:
      - GroupDenied=DENY
`;
const ADMIN = { accessKey: 'adminUser1', secretKey: 'adminSecret1' };
const READER = { accessKey: 'readerUser', secretKey: 'readerSecret' };
const REMARK = 'org.apache.rocketmq.acl.common.AclException: ';

let home: string;
let cluster: TestCluster;
let reader: RemotingClient;
const producers: Producer[] = [];
let secretOffset: bigint;
let openOffset: bigint;

const addr = (): string => cluster.brokers[0]?.brokerAddr as string;

async function sendOne(credentials: typeof ADMIN, topic: string, keys: string): Promise<bigint> {
  const p = newProducer({ namesrvAddr: cluster.namesrvAddr, credentials });
  producers.push(p);
  await p.start();
  const r = await p.send({ topic, body: Buffer.from(`body of ${topic}`), keys });
  const { offset } = decodeOffsetMsgId(r.offsetMsgId as string);
  const broker = cluster.brokers[0];
  assert.ok(broker !== undefined);
  // Reads by offset are checked against the consume queue: wait for the dispatch.
  await until(() => broker.messageStore.getMaxOffsetInQueue(topic, r.messageQueue.queueId) > 0n, 'dispatch');
  return offset;
}

function assertDeniedOn(response: RemotingCommand, resource: string): void {
  assert.equal(response.code, 1, response.remark);
  assert.ok(response.remark?.startsWith(REMARK), response.remark);
  assert.ok(response.remark?.includes(resource), `${response.remark} should name ${resource}`);
}

function assertNotDenied(response: RemotingCommand): void {
  assert.ok(!response.remark?.startsWith(REMARK), response.remark);
}

const view = (offset: bigint) =>
  createRequest(RequestCode.VIEW_MESSAGE_BY_ID, {
    extFields: encodeHeader(ViewMessageRequestHeader, { offset }),
  });

const sendBack = (offset: bigint, group: string) =>
  createRequest(RequestCode.CONSUMER_SEND_MSG_BACK, {
    extFields: encodeHeader(ConsumerSendMsgBackRequestHeader, {
      offset,
      group,
      delayLevel: 0,
      originMsgId: undefined,
      originTopic: undefined,
      unitMode: false,
      maxReconsumeTimes: undefined,
    }),
  });

const lockBody = (group: string, topic: string) =>
  encodeLockBatchRequestBody({
    consumerGroup: group,
    clientId: '127.0.0.1@reader',
    mqSet: [new MessageQueue(topic, 'broker-a', 0)],
  });

before(async () => {
  home = mkdtempSync(join(tmpdir(), 'rmq-acl-read-'));
  mkdirSync(join(home, 'conf'), { recursive: true });
  writeFileSync(join(home, 'conf', 'plain_acl.yml'), ACL_FILE);
  cluster = await startCluster({ aclEnable: true, rocketmqHome: home, aclFileWatchInterval: 50 });
  await createTopic(cluster, 'TopicSecret', 1);
  await createTopic(cluster, 'TopicOpen', 1);
  secretOffset = await sendOne(ADMIN, 'TopicSecret', 'K1');
  openOffset = await sendOne(READER, 'TopicOpen', 'K1');
  reader = new RemotingClient({}, { logger: quiet });
  reader.registerRPCHook(new AclClientRPCHook(READER));
});

after(async () => {
  await reader?.close();
  for (const p of producers) await p.shutdown();
  await cluster?.close();
  rmSync(home, { recursive: true, force: true });
});

test('VIEW_MESSAGE_BY_ID needs SUB on the stored message topic', async () => {
  assertDeniedOn(await reader.invoke(addr(), view(secretOffset)), 'TopicSecret');
  const ok = await reader.invoke(addr(), view(openOffset));
  assert.equal(ok.code, 0, ok.remark);
  assert.ok(ok.body?.includes('body of TopicOpen'));
  // An offset inside a record is not a message: refused rather than read as one.
  const inside = await reader.invoke(addr(), view(openOffset + 8n));
  assert.equal(inside.code, 1, inside.remark);
  assert.ok(!inside.body?.includes('body of'));
});

test('CONSUMER_SEND_MSG_BACK is checked against the original message topic, not only the group', async () => {
  assertDeniedOn(await reader.invoke(addr(), sendBack(secretOffset, 'ReaderGroup')), 'TopicSecret');
  assertDeniedOn(await reader.invoke(addr(), sendBack(openOffset, 'GroupDenied')), 'GroupDenied');
  assertNotDenied(await reader.invoke(addr(), sendBack(openOffset, 'ReaderGroup')));
});

test('QUERY_MESSAGE needs SUB on the topic', async () => {
  const query = (topic: string) =>
    createRequest(RequestCode.QUERY_MESSAGE, {
      extFields: {
        topic,
        key: 'K1',
        maxNum: '32',
        beginTimestamp: '0',
        endTimestamp: `${Date.now() + 60_000}`,
      },
    });
  assertDeniedOn(await reader.invoke(addr(), query('TopicSecret')), 'TopicSecret');
  const ok = await reader.invoke(addr(), query('TopicOpen'));
  assert.equal(ok.code, 0, ok.remark);
  assert.ok(ok.body?.includes('body of TopicOpen'));
  assert.ok(!ok.body?.includes('body of TopicSecret'));
});

test('LOCK_BATCH_MQ and UNLOCK_BATCH_MQ need SUB on the group and on each queue topic', async () => {
  for (const code of [RequestCode.LOCK_BATCH_MQ, RequestCode.UNLOCK_BATCH_MQ]) {
    const req = (group: string, topic: string) => createRequest(code, { body: lockBody(group, topic) });
    assertDeniedOn(await reader.invoke(addr(), req('GroupDenied', 'TopicOpen')), 'GroupDenied');
    assertDeniedOn(await reader.invoke(addr(), req('ReaderGroup', 'TopicSecret')), 'TopicSecret');
    const ok = await reader.invoke(addr(), req('ReaderGroup', 'TopicOpen'));
    assert.equal(ok.code, 0, ok.remark);
  }
});

test("a pull of a group's %RETRY% topic needs SUB on that group", async () => {
  assertDeniedOn(await reader.invoke(addr(), pullQueue0('%RETRY%GroupDenied', 'ReaderGroup')), 'GroupDenied');
  assertDeniedOn(await reader.invoke(addr(), pullQueue0('TopicOpen', 'GroupDenied')), 'GroupDenied');
  assertNotDenied(await reader.invoke(addr(), pullQueue0('%RETRY%ReaderGroup', 'ReaderGroup')));
});
