/**
 * The dashboard against a broker with aclEnable: its changes are signed with the account it was
 * given, so an admin account creates a topic and a plain account is refused with the broker's remark.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { createDashboard, type Dashboard } from '../../../src/admin/dashboard/index.js';
import { type RunningHttpServer, startHttpServer } from '../../../src/cli/dashboard-server.js';
import { quiet, startCluster, type TestCluster, uniqueName } from '../client/support.js';
import { api } from './dashboard-support.js';

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
const running: Array<{ dashboard: Dashboard; server: RunningHttpServer }> = [];

async function dashboardAs(accessKey: string, secretKey: string): Promise<string> {
  const dashboard = createDashboard({
    namesrvAddr: cluster.namesrvAddr,
    clientIP: '127.0.0.1',
    instanceName: uniqueName(accessKey),
    credentials: { accessKey, secretKey },
    logger: quiet,
  });
  const server = await startHttpServer([dashboard], { port: 0 });
  running.push({ dashboard, server });
  return server.url.replace(/\/$/, '');
}

before(async () => {
  home = mkdtempSync(join(tmpdir(), 'rmq-dashboard-acl-'));
  mkdirSync(join(home, 'conf'));
  writeFileSync(join(home, 'conf', 'plain_acl.yml'), ACL_FILE);
  cluster = await startCluster({ aclEnable: true, rocketmqHome: home });
});

after(async () => {
  for (const r of running) {
    await r.server.close();
    await r.dashboard.close();
  }
  await cluster?.close();
  rmSync(home, { recursive: true, force: true });
});

test('a change needs the admin account: a plain account gets the broker’s refusal, the admin succeeds', async () => {
  const topic = uniqueName('AclDashTopic');
  const plain = await dashboardAs('plainUser1', 'plainSecret1');
  const refused = await api<{ error: string; code: number; remark: string | null }>(
    plain,
    '/api/topic/update',
    {
      method: 'POST',
      body: { topic, queueNums: 2 },
    },
  );
  assert.equal(refused.status, 502);
  assert.equal(typeof refused.body.remark, 'string');
  assert.ok((refused.body.remark ?? '').length > 0);
  assert.ok(refused.body.error.includes(refused.body.remark ?? '\u0000'), refused.body.error);

  const admin = await dashboardAs('adminUser1', 'adminSecret1');
  const created = await api<{ readQueueNums: number }>(admin, '/api/topic/update', {
    method: 'POST',
    body: { topic, queueNums: 2 },
  });
  assert.equal(created.status, 200, JSON.stringify(created.body));
  const listed = await api<{ topics: Array<{ topic: string; readQueueNums: number }> }>(admin, '/api/topics');
  assert.equal(listed.body.topics.find((t) => t.topic === topic)?.readQueueNums, 2);
});
