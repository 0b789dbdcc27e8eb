/**
 * The admin's ACL calls (requests 50-53) against our broker with aclEnable: an admin account adds,
 * changes and deletes an account and the global white list, and reads the data version move; a
 * non-admin account is refused; every admin request is signed by the admin's credentials.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { createAdmin, type MQAdminExt } from '../../../src/admin/index.js';
import { MQBrokerError } from '../../../src/client/errors.js';
import { uniqueName } from '../client/support.js';
import { type AclCluster, startAclCluster } from './acl-support.js';

let acl: AclCluster;
let brokerAddr: string;
const admins: MQAdminExt[] = [];

async function adminAs(accessKey: string, secretKey: string): Promise<MQAdminExt> {
  const admin = createAdmin(acl.signedAs(accessKey, secretKey));
  await admin.start();
  admins.push(admin);
  return admin;
}

before(async () => {
  acl = await startAclCluster('rmq-admin-acl-');
  brokerAddr = acl.cluster.brokers[0]?.brokerAddr as string;
});

after(async () => {
  await Promise.all(admins.map((a) => a.shutdown()));
  await acl?.close();
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
  const file = readFileSync(acl.aclFile, 'utf8');
  assert.match(file, /newUser001/);
  assert.match(file, /TopicB=DENY/);
  const after = await admin.examineBrokerClusterAclVersionInfo(brokerAddr);
  assert.ok(after.aclConfigDataVersion.counter > before.aclConfigDataVersion.counter);
  assert.ok(after.allAclConfigDataVersion.size >= 1);

  await admin.updateGlobalWhiteAddrConfig(brokerAddr, '10.10.103.*,192.168.0.*');
  assert.match(readFileSync(acl.aclFile, 'utf8'), /10\.10\.103\.\*/);

  await admin.deletePlainAccessConfig(brokerAddr, 'newUser001');
  assert.doesNotMatch(readFileSync(acl.aclFile, 'utf8'), /newUser001/);
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
  assert.doesNotMatch(readFileSync(acl.aclFile, 'utf8'), /sneakyUser1/);
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
