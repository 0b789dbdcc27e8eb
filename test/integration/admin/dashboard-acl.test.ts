/**
 * The dashboard against a broker with aclEnable: its changes are signed with the account it was
 * given, so an admin account creates a topic and a plain account is refused with the broker's remark.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createDashboard, type Dashboard } from '../../../src/admin/dashboard/index.js';
import { type RunningHttpServer, startHttpServer } from '../../../src/cli/dashboard-server.js';
import { uniqueName } from '../client/support.js';
import { type AclCluster, startAclCluster } from './acl-support.js';
import { api } from './dashboard-support.js';

let acl: AclCluster;
const running: Array<{ dashboard: Dashboard; server: RunningHttpServer }> = [];

async function dashboardAs(accessKey: string, secretKey: string): Promise<string> {
  const dashboard = createDashboard(acl.signedAs(accessKey, secretKey));
  const server = await startHttpServer([dashboard], { port: 0 });
  running.push({ dashboard, server });
  return server.url.replace(/\/$/, '');
}

before(async () => {
  acl = await startAclCluster('rmq-dashboard-acl-');
});

after(async () => {
  for (const r of running) {
    await r.server.close();
    await r.dashboard.close();
  }
  await acl?.close();
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
