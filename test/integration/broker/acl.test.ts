/**
 * Plain ACL on a real in-process broker (aclEnable, rocketmqHome): our client with `credentials`
 * sends and consumes; each kind of denial reaches the client as upstream's SYSTEM_ERROR with the
 * AclException remark; the ACL admin requests 50-53 round trip and rewrite the file; an edited file
 * is picked up by the watcher.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { createBroker } from '../../../src/broker/broker-controller.js';
import { createProducer, createPushConsumer } from '../../../src/client/index.js';
import { createLogger } from '../../../src/common/logger.js';
import { createRequest, type RemotingCommand } from '../../../src/remoting/protocol/command.js';
import { encodeHeader } from '../../../src/remoting/protocol/header-schema.js';
import {
  CreateAccessConfigRequestHeader,
  DeleteAccessConfigRequestHeader,
  UpdateGlobalWhiteAddrsConfigRequestHeader,
} from '../../../src/remoting/protocol/headers/acl-config-headers.js';
import { CreateTopicRequestHeader } from '../../../src/remoting/protocol/headers/index.js';
import { RequestCode } from '../../../src/remoting/protocol/request-code.js';
import { AclClientRPCHook } from '../../../src/remoting/transport/acl-client-rpc-hook.js';
import { RemotingClient } from '../../../src/remoting/transport/index.js';
import { createTopic, startCluster, type TestCluster, until } from '../client/support.js';

const ACL_FILE = `accounts:
  - accessKey: adminUser1
    secretKey: adminSecret1
    admin: true
  - accessKey: pubsubUser
    secretKey: pubsubSecret
    defaultTopicPerm: DENY
    defaultGroupPerm: SUB
    topicPerms:
      - TopicAcl=PUB|SUB
      - TopicDenied=DENY
    groupPerms:
      - GroupAcl=SUB
  - accessKey: subOnlyUser
    secretKey: subOnlySecret
    defaultTopicPerm: SUB
    defaultGroupPerm: SUB
`;

const quiet = createLogger('test', { level: 'silent' });
const PLAIN = 'org.apache.rocketmq.acl.plain.PlainPermissionManager';
const REMARK = 'org.apache.rocketmq.acl.common.AclException: ';

let home: string;
let cluster: TestCluster;
const clients: RemotingClient[] = [];

function client(credentials?: { accessKey: string; secretKey: string }): RemotingClient {
  const c = new RemotingClient({}, { logger: quiet });
  if (credentials !== undefined) c.registerRPCHook(new AclClientRPCHook(credentials));
  clients.push(c);
  return c;
}

const admin = () => client({ accessKey: 'adminUser1', secretKey: 'adminSecret1' });
const pubsub = () => client({ accessKey: 'pubsubUser', secretKey: 'pubsubSecret' });

function brokerAddr(): string {
  return cluster.brokers[0]?.brokerAddr as string;
}

function createTopicRequest(topic: string): RemotingCommand {
  return createRequest(RequestCode.UPDATE_AND_CREATE_TOPIC, {
    extFields: encodeHeader(CreateTopicRequestHeader, {
      topic,
      defaultTopic: 'TBW102',
      readQueueNums: 1,
      writeQueueNums: 1,
      perm: 6,
      topicFilterType: 'SINGLE_TAG',
      topicSysFlag: 0,
      order: false,
    }),
  });
}

function assertDenied(response: RemotingCommand, message: string, frame: string): void {
  assert.equal(response.code, 1, response.remark);
  assert.equal(response.remark, `${REMARK}${message}, ${PLAIN}.${frame}`);
}

before(async () => {
  home = mkdtempSync(join(tmpdir(), 'rmq-acl-home-'));
  mkdirSync(join(home, 'conf'), { recursive: true });
  writeFileSync(join(home, 'conf', 'plain_acl.yml'), ACL_FILE);
  cluster = await startCluster({ aclEnable: true, rocketmqHome: home, aclFileWatchInterval: 50 });
  await createTopic(cluster, 'TopicAcl', 2);
  await createTopic(cluster, 'TopicDenied', 1);
});

after(async () => {
  for (const c of clients) await c.close();
  await cluster?.close();
  rmSync(home, { recursive: true, force: true });
});

test('an allowed account sends and consumes with our client', async () => {
  const credentials = { accessKey: 'pubsubUser', secretKey: 'pubsubSecret' };
  const producer = createProducer({
    namesrvAddr: cluster.namesrvAddr,
    producerGroup: 'PG_ACL',
    credentials,
    logger: quiet,
  });
  const consumer = createPushConsumer({
    namesrvAddr: cluster.namesrvAddr,
    consumerGroup: 'GroupAcl',
    credentials,
    logger: quiet,
  });
  try {
    await producer.start();
    const received: string[] = [];
    consumer.subscribe('TopicAcl', '*');
    consumer.registerMessageListener({
      type: 'concurrently',
      async consumeMessage(msgs) {
        for (const m of msgs) received.push(m.body.toString());
        return 'CONSUME_SUCCESS';
      },
    });
    await consumer.start();
    const result = await producer.send({ topic: 'TopicAcl', body: 'hello acl' });
    assert.equal(result.sendStatus, 'SEND_OK');
    await until(() => received.includes('hello acl'), 'the consumer got the message', 15_000);
  } finally {
    await consumer.shutdown();
    await producer.shutdown();
  }
});

test('denied sends reach our producer with the upstream remark', async () => {
  const cases = [
    {
      credentials: { accessKey: 'pubsubUser', secretKey: 'wrongSecret' },
      topic: 'TopicAcl',
      remark: 'Check signature failed for accessKey=pubsubUser',
    },
    {
      credentials: { accessKey: 'nobodyUser', secretKey: 'nobodySecret' },
      topic: 'TopicAcl',
      remark: 'No acl config for nobodyUser',
    },
    {
      credentials: { accessKey: 'pubsubUser', secretKey: 'pubsubSecret' },
      topic: 'TopicDenied',
      remark: 'No default permission for topic:TopicDenied',
    },
    {
      credentials: { accessKey: 'subOnlyUser', secretKey: 'subOnlySecret' },
      topic: 'TopicAcl',
      remark: 'No default permission for topic:TopicAcl',
    },
  ];
  for (const c of cases) {
    const producer = createProducer({
      namesrvAddr: cluster.namesrvAddr,
      producerGroup: 'PG_DENIED',
      credentials: c.credentials,
      retryTimesWhenSendFailed: 0,
      logger: quiet,
    });
    try {
      await producer.start();
      await assert.rejects(producer.send({ topic: c.topic, body: 'x' }), (e: unknown) => {
        assert.ok(e instanceof Error);
        assert.ok(e.message.includes(`${REMARK}${c.remark}, ${PLAIN}.`), e.message);
        return true;
      });
    } finally {
      await producer.shutdown();
    }
  }
});

test('a non-admin account cannot create a topic; an admin can; unsigned requests are refused', async () => {
  assertDenied(
    await pubsub().invoke(brokerAddr(), createTopicRequest('TopicByUser')),
    `Need admin permission for request code=${RequestCode.UPDATE_AND_CREATE_TOPIC}, but accessKey=pubsubUser is not`,
    'checkPerm(PlainPermissionManager.java:581)',
  );
  assertDenied(
    await client().invoke(brokerAddr(), createTopicRequest('TopicByNobody')),
    'No accessKey is configured',
    'validate(PlainPermissionManager.java:664)',
  );
  const ok = await admin().invoke(brokerAddr(), createTopicRequest('TopicByAdmin'));
  assert.equal(ok.code, 0, ok.remark);
  // The VIP channel is guarded too.
  const vip = cluster.brokers[0]?.vipAddress;
  assert.ok(vip !== undefined);
  assertDenied(
    await pubsub().invoke(`127.0.0.1:${vip.port}`, createTopicRequest('TopicByUserVip')),
    `Need admin permission for request code=${RequestCode.UPDATE_AND_CREATE_TOPIC}, but accessKey=pubsubUser is not`,
    'checkPerm(PlainPermissionManager.java:581)',
  );
});

test('a malformed or huge signature, or a missing header field, is a clear denial', async () => {
  const c = client();
  const huge = createRequest(RequestCode.GET_BROKER_RUNTIME_INFO, {
    extFields: { AccessKey: 'pubsubUser', Signature: 'x'.repeat(200_000) },
  });
  assertDenied(
    await c.invoke(brokerAddr(), huge),
    'Check signature failed for accessKey=pubsubUser',
    'validate(PlainPermissionManager.java:684)',
  );
  const missing = createRequest(RequestCode.GET_CONSUMER_LIST_BY_GROUP, {
    extFields: { AccessKey: 'pubsubUser' },
  });
  const r = await c.invoke(brokerAddr(), missing);
  assert.equal(r.code, 1);
  assert.equal(
    r.remark,
    `${REMARK}the custom field <consumerGroup> is null, org.apache.rocketmq.acl.plain.PlainAccessValidator.parse(PlainAccessValidator.java:134)`,
  );
  // The broker still answers afterwards.
  assert.equal(
    (await pubsub().invoke(brokerAddr(), createRequest(RequestCode.GET_BROKER_RUNTIME_INFO))).code,
    0,
  );
});

test('ACL admin requests 50-53 round trip, rewrite the file, and need an admin account', async () => {
  const a = admin();
  const create = createRequest(RequestCode.UPDATE_AND_CREATE_ACL_CONFIG, {
    extFields: encodeHeader(CreateAccessConfigRequestHeader, {
      accessKey: 'createdUser',
      secretKey: 'createdSecret',
      admin: false,
      defaultTopicPerm: 'DENY',
      topicPerms: 'TopicAcl=PUB',
    }),
  });
  assertDenied(
    await pubsub().invoke(brokerAddr(), create),
    `Need admin permission for request code=${RequestCode.UPDATE_AND_CREATE_ACL_CONFIG}, but accessKey=pubsubUser is not`,
    'checkPerm(PlainPermissionManager.java:581)',
  );
  const created = await a.invoke(brokerAddr(), { ...create, extFields: { ...create.extFields } });
  assert.equal(created.code, 0, created.remark);
  const text = readFileSync(join(home, 'conf', 'plain_acl.yml'), 'utf8');
  assert.match(text, /accessKey: createdUser/);
  assert.match(text, /dataVersion:\n\s+- counter: 1/);
  const user = client({ accessKey: 'createdUser', secretKey: 'createdSecret' });
  assert.equal((await user.invoke(brokerAddr(), createRequest(RequestCode.GET_BROKER_RUNTIME_INFO))).code, 0);

  const info = await a.invoke(brokerAddr(), createRequest(RequestCode.GET_BROKER_CLUSTER_ACL_INFO));
  assert.equal(info.code, 0);
  assert.match(info.extFields?.version ?? '', /^\{"counter":1,"timestamp":\d+\}$/);
  assert.equal(info.extFields?.brokerName, 'broker-a');
  assert.ok(info.extFields?.allAclFileVersion?.includes('plain_acl.yml'));

  const del = () =>
    createRequest(RequestCode.DELETE_ACL_CONFIG, {
      extFields: encodeHeader(DeleteAccessConfigRequestHeader, { accessKey: 'createdUser' }),
    });
  assert.equal((await a.invoke(brokerAddr(), del())).code, 0);
  assertDenied(
    await user.invoke(brokerAddr(), createRequest(RequestCode.GET_BROKER_RUNTIME_INFO)),
    'No acl config for createdUser',
    'validate(PlainPermissionManager.java:668)',
  );
  const again = await a.invoke(brokerAddr(), del());
  assert.equal(again.code, 210);
  assert.equal(
    again.remark,
    'The accesskey[createdUser] corresponding to accessConfig has been deleted failed.',
  );

  const short = await a.invoke(
    brokerAddr(),
    createRequest(RequestCode.UPDATE_AND_CREATE_ACL_CONFIG, {
      extFields: encodeHeader(CreateAccessConfigRequestHeader, {
        accessKey: 'shortie',
        secretKey: 'tiny',
        admin: false,
      }),
    }),
  );
  assert.equal(short.code, 209);
  assert.ok(
    short.remark?.includes('length should longer than 6') && !short.remark.includes('tiny'),
    short.remark,
  );

  // Global whitelist: 127.0.0.1 then bypasses every check, unsigned requests included.
  const white = (addrs: string) =>
    createRequest(RequestCode.UPDATE_GLOBAL_WHITE_ADDRS_CONFIG, {
      extFields: encodeHeader(UpdateGlobalWhiteAddrsConfigRequestHeader, {
        globalWhiteAddrs: addrs,
        aclFileFullPath: '',
      }),
    });
  assert.equal((await a.invoke(brokerAddr(), white('127.0.0.1'))).code, 0);
  assert.equal((await client().invoke(brokerAddr(), createTopicRequest('TopicWhitelisted'))).code, 0);
  const bad = await a.invoke(brokerAddr(), white('10.0.0.0/8'));
  assert.equal(bad.code, 211);
  assert.equal(bad.remark, 'Netaddress examine Exception netaddress is 10.0.0.0/8');
  // While whitelisted, anyone may also clear the list (upstream's bypass); do it as admin anyway.
  assert.equal((await a.invoke(brokerAddr(), white('192.168.254.254'))).code, 0);
  assertDenied(
    await client().invoke(brokerAddr(), createTopicRequest('TopicNotWhitelisted')),
    'No accessKey is configured',
    'validate(PlainPermissionManager.java:664)',
  );
});

test('an edited file is reloaded by the watcher; a broken one keeps the last good accounts', async () => {
  const file = join(home, 'conf', 'plain_acl.yml');
  const good = readFileSync(file, 'utf8');
  const later = client({ accessKey: 'laterUser', secretKey: 'laterSecret' });
  const probe = () => later.invoke(brokerAddr(), createRequest(RequestCode.GET_BROKER_RUNTIME_INFO));
  assert.equal((await probe()).code, 1);
  // ACL_FILE ends inside its accounts list.
  writeFileSync(file, `${ACL_FILE}  - accessKey: laterUser\n    secretKey: laterSecret\n`);
  await until(async () => (await probe()).code === 0, 'the new account is loaded', 10_000);
  writeFileSync(file, 'accounts: [ broken\n');
  // The watcher path is unit-tested with a manual clock; here the reload it would run.
  const acl = cluster.brokers[0]?.acl;
  assert.ok(acl !== undefined);
  assert.equal(await acl.manager.reload(), false);
  assert.equal((await probe()).code, 0);
  writeFileSync(file, good);
  await until(async () => (await probe()).code === 1, 'the account is gone again', 10_000);
});

test('with aclEnable=false the ACL admin requests fail as upstream (no validator)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'rmq-noacl-'));
  const broker = createBroker({
    config: {
      listenPort: 0,
      listenHost: '127.0.0.1',
      brokerIP1: '127.0.0.1',
      storePathRootDir: dir,
      namesrvAddr: undefined,
    },
    logger: quiet,
  });
  try {
    await broker.start();
    const c = client();
    const r = await c.invoke(
      broker.brokerAddr,
      createRequest(RequestCode.DELETE_ACL_CONFIG, {
        extFields: encodeHeader(DeleteAccessConfigRequestHeader, { accessKey: 'whoever1' }),
      }),
    );
    assert.equal(r.code, 210);
    assert.equal(r.remark, undefined);
    await assert.rejects(
      c.invoke(broker.brokerAddr, createRequest(RequestCode.GET_BROKER_CLUSTER_ACL_INFO), { timeoutMs: 300 }),
      /timeout/i,
    );
  } finally {
    await broker.shutdown();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a broker whose ACL file does not load refuses to start, naming the file', async () => {
  const badHome = mkdtempSync(join(tmpdir(), 'rmq-acl-bad-'));
  mkdirSync(join(badHome, 'conf'), { recursive: true });
  writeFileSync(join(badHome, 'conf', 'plain_acl.yml'), 'accounts:\n  - accessKey: ab\n    secretKey: cd\n');
  const broker = createBroker({
    config: {
      listenPort: 0,
      listenHost: '127.0.0.1',
      storePathRootDir: join(badHome, 'store'),
      aclEnable: true,
      rocketmqHome: badHome,
    },
    logger: quiet,
  });
  try {
    await assert.rejects(
      broker.start(),
      /plain ACL could not load .*plain_acl\.yml.*The accessKey=ab and secretKey=\*\*\*\*\*\*/,
    );
  } finally {
    await broker.shutdown();
    rmSync(badHome, { recursive: true, force: true });
  }
});
