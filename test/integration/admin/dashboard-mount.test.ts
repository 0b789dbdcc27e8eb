/**
 * The dashboard mounted on the broker's route-table HTTP server (as `rmq start` hosts it): the page
 * and the API are served next to the server's own exact routes (/metrics), which keep answering.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createDashboard, type Dashboard, mountDashboard } from '../../../src/admin/dashboard/index.js';
import { HttpServer } from '../../../src/common/platform/http-server.js';
import { quiet, startCluster, type TestCluster } from '../client/support.js';

let cluster: TestCluster;
let server: HttpServer;
let dashboard: Dashboard;
let base: string;

before(async () => {
  cluster = await startCluster();
  server = new HttpServer({ what: 'test', portSetting: 'dashboardPort' });
  server.route('GET', '/metrics', (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain' }).end('metric 1\n');
  });
  dashboard = createDashboard({ namesrvAddr: cluster.namesrvAddr, clientIP: '127.0.0.1', logger: quiet });
  mountDashboard(server, dashboard);
  const a = await server.listen(0);
  base = `http://127.0.0.1:${a.port}`;
});

after(async () => {
  await server?.close();
  await dashboard?.close();
  await cluster?.close();
});

test('the page, the API and /metrics on one server; unknown paths 404; methods checked by the dashboard', async () => {
  assert.equal(await (await fetch(`${base}/metrics`)).text(), 'metric 1\n');
  const page = await fetch(`${base}/`);
  assert.equal(page.status, 200);
  assert.match(page.headers.get('content-type') ?? '', /^text\/html/);
  const clusterInfo = (await (await fetch(`${base}/api/cluster`)).json()) as { brokers: unknown[] };
  assert.equal(clusterInfo.brokers.length, 1);
  assert.equal((await fetch(`${base}/nope`)).status, 404);
  assert.equal((await fetch(`${base}/api/topic/update`)).status, 405);
  assert.equal((await fetch(`${base}/api/topics`, { method: 'DELETE' })).status, 405);
});
