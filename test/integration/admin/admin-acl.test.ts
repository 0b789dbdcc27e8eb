/**
 * The admin's ACL calls (requests 50-53) against our broker with aclEnable: an admin account adds,
 * changes and deletes an account and the global white list, and reads the data version move; a
 * non-admin account is refused; every admin request is signed by the admin's credentials.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { createAdmin, type MQAdminExt } from '../../../src/admin/index.js';
import { MQBrokerError } from '../../../src/client/errors.js';
import { quiet, startCluster, type TestCluster, uniqueName } from '../client/support.js';

const ACL_FILE = `accounts:
  - accessKey: adminUser1
    secretKey: adminSecret1
    admin: true
  - accessKey: plainUser1
    secretKey: plainSecret1
    defaultTopicPerm: PUB|SUB
    defaultGroupPerm: SUB
`;

let home: string;
let cluster: TestCluster;
let brokerAddr: string;
const admins: MQAdminExt[] = [];

async function adminAs(accessKey: string, secretKey: string): Promise<MQAdminExt> {
  const admin = createAdmin({
    namesrvAddr: cluster.namesrvAddr,
    clientIP: '127.0.0.1',
    instanceName: uniqueName(accessKey),
    credentials: { accessKey, secretKey },
    logger: quiet,
  });
  await admin.start();
  admins.push(admin);
  return admin;
}

before(async () => {
  home = mkdtempSync(join(tmpdir(), 'rmq-admin-acl-'));
  mkdirSync(join(home, 'conf'));
  writeFileSync(join(home, 'conf', 'plain_acl.yml'), ACL_FILE);
  cluster = await startCluster({ aclEnable: true, rocketmqHome: home });
  brokerAddr = cluster.brokers[0]?.brokerAddr as string;
});

after(async () => {
  await Promise.all(admins.map((a) => a.shutdown()));
  await cluster?.close();
  rmSync(home, { recursive: true, force: true });
});

test('an admin account manages accounts and the white list; the data version moves', async () => {
  const admin = await adminAs('adminUser1', 'adminSecret1');
  const before = await admin.examineBrokerClusterAclVersionInfo(brokerAddr);
  assert.equal(before.brokerAddr, brokerAddr);
  assert.equal(before.brokerName, 'broker-a');
  assert.equal(before.clusterName, 'DefaultCluster');

  await admin.createAndUpdatePlainAccessConfig(brokerAddr, {
    accessKey: 'newUser001',
    secretKey: 'newSecret001',
    defaultTopicPerm: 'SUB',
    topicPerms: ['TopicA=PUB|SUB', 'TopicB=DENY'],
    groupPerms: ['GroupA=SUB'],
  });
  const file = readFileSync(join(home, 'conf', 'plain_acl.yml'), 'utf8');
  assert.match(file, /newUser001/);
  assert.match(file, /TopicB=DENY/);
  const after = await admin.examineBrokerClusterAclVersionInfo(brokerAddr);
  assert.ok(after.aclConfigDataVersion.counter > before.aclConfigDataVersion.counter);
  assert.ok(after.allAclConfigDataVersion.size >= 1);

  await admin.updateGlobalWhiteAddrConfig(brokerAddr, '10.10.103.*,192.168.0.*');
  assert.match(readFileSync(join(home, 'conf', 'plain_acl.yml'), 'utf8'), /10\.10\.103\.\*/);

  await admin.deletePlainAccessConfig(brokerAddr, 'newUser001');
  assert.doesNotMatch(readFileSync(join(home, 'conf', 'plain_acl.yml'), 'utf8'), /newUser001/);
  await assert.rejects(admin.deletePlainAccessConfig(brokerAddr, 'newUser001'), MQBrokerError);
});

test('an account without admin rights is refused, and the refusal names the broker', async () => {
  const plain = await adminAs('plainUser1', 'plainSecret1');
  await assert.rejects(
    plain.createAndUpdatePlainAccessConfig(brokerAddr, {
      accessKey: 'sneakyUser1',
      secretKey: 'sneakySecret1',
    }),
    (e: unknown) => e instanceof MQBrokerError && e.brokerAddr === brokerAddr,
  );
  assert.doesNotMatch(readFileSync(join(home, 'conf', 'plain_acl.yml'), 'utf8'), /sneakyUser1/);
});

test('the other admin calls are signed too: an admin account reads the broker config under ACL', async () => {
  const admin = await adminAs('adminUser1', 'adminSecret1');
  assert.equal((await admin.getBrokerConfig(brokerAddr)).get('aclEnable'), 'true');
  const topic = uniqueName('AclTopic');
  await admin.createAndUpdateTopicConfig(brokerAddr, {
    topicName: topic,
    readQueueNums: 1,
    writeQueueNums: 1,
  });
  assert.equal((await admin.examineTopicConfig(brokerAddr, topic))?.readQueueNums, 1);
});
