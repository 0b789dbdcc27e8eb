/**
 * The dashboard in headless Chromium (Debian's /usr/bin/chromium, or $CHROMIUM_PATH), driven by
 * playwright-core: a topic created from the page is listed with its queue count, a consumer group's
 * lag shown falls as it consumes, and a message body with markup is shown as text. Not part of
 * `npm test` (a machine without Chromium must pass it): `npm run test:browser`.
 * DASHBOARD_SCREENSHOT=docs/dashboard.png also saves the screenshot where the docs show it.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { type Browser, chromium, type Page } from 'playwright-core';
import { createAdmin, type MQAdminExt } from '../../src/admin/index.js';
import type { Producer } from '../../src/client/index.js';
import { MessageQueue } from '../../src/common/message/message-queue.js';
import { type DashboardFixture, startDashboardFixture } from '../integration/admin/dashboard-support.js';
import { newConsumer, shutdownAll } from '../integration/client/consumer-support.js';
import { newProducer, quiet, uniqueName } from '../integration/client/support.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
// The machine's network is closed: without these Chromium keeps trying Google's hosts at every start.
const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
const MESSAGES = 12;
const QUEUES = 3;
const SCRIPT_BODY = '<script>window.__pwned = 1</script><img src=x onerror="window.__pwned = 2">';

let fx: DashboardFixture;
let browser: Browser;
let page: Page;
let admin: MQAdminExt;
let producer: Producer;
/** The topic and group of the lag test, which the later tests read again. */
let lagTopic = '';
let lagGroup = '';
const shots = mkdtempSync(join(tmpdir(), 'rmq-dashboard-shots-'));
const dialogs: string[] = [];
/** Whether the next confirm() is accepted (the delete buttons); dismissed otherwise. */
let acceptDialogs = false;

before(async () => {
  assert.ok(
    existsSync(CHROMIUM),
    `no Chromium at ${CHROMIUM}: apt-get install -y chromium, or set CHROMIUM_PATH`,
  );
  fx = await startDashboardFixture();
  admin = createAdmin({ namesrvAddr: fx.cluster.namesrvAddr, clientIP: '127.0.0.1', logger: quiet });
  await admin.start();
  // --no-sandbox: CI runs as root, where Chromium's sandbox cannot start.
  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
  page = await browser.newPage({ viewport: { width: 1100, height: 720 } });
  page.on('dialog', (d) => {
    dialogs.push(d.message());
    void (acceptDialogs ? d.accept() : d.dismiss());
  });
});

after(async () => {
  await shutdownAll();
  await producer?.shutdown();
  await browser?.close();
  await admin?.shutdown();
  await fx?.close();
  rmSync(shots, { recursive: true, force: true });
});

/** Reloads `hash` until `selector`'s text is `want` (the page shows the API's answer as of its load). */
async function untilShown(hash: string, selector: string, want: string, what: string, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  let last: string | null = null;
  for (;;) {
    await page.goto(`${fx.base}/${hash}`);
    await page.reload();
    const el = await page.waitForSelector(`${selector}, .error`, { timeout: 10_000 });
    last = await el.textContent();
    if (last === want) return;
    if (Date.now() > deadline) assert.fail(`${what}: ${selector} shows ${JSON.stringify(last)}, not ${want}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

test('a topic created from the page is listed with its queue count', async () => {
  const topic = uniqueName('BrowserTopic');
  await page.goto(`${fx.base}/#/topics`);
  await page.fill('#topic-name', topic);
  await page.fill('#topic-queues', String(QUEUES));
  await page.click('#topic-form button[type=submit]');
  const row = await page.waitForSelector(`tr[data-topic="${topic}"]`, { timeout: 15_000 });
  assert.equal(await row.$eval('.read-queues', (td) => td.textContent), String(QUEUES));
  assert.equal(await row.$eval('.write-queues', (td) => td.textContent), String(QUEUES));
});

test('a consumer group’s lag shown falls as it consumes; a body with markup is shown as text', async () => {
  const topic = uniqueName('BrowserLag');
  const group = uniqueName('BrowserGroup');
  lagTopic = topic;
  lagGroup = group;
  const created = await fetch(`${fx.base}/api/topic/update`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ topic, queueNums: QUEUES }),
  });
  assert.equal(created.status, 200);
  producer = newProducer({ namesrvAddr: fx.cluster.namesrvAddr, clientIP: '127.0.0.1' });
  await producer.start();
  let first: { msgId: string } | undefined;
  for (let i = 0; i < MESSAGES; i++) {
    const r = await producer.send({ topic, body: i === 0 ? SCRIPT_BODY : `m${i}`, keys: `k${i}` });
    first ??= r;
  }
  const route = await admin.examineTopicRouteInfo(topic);
  const brokerAddr = route.brokerDatas[0]?.brokerAddrs.get(0) ?? assert.fail('no master');
  for (let q = 0; q < QUEUES; q++)
    await admin.updateConsumeOffset(brokerAddr, group, new MessageQueue(topic, 'broker-a', q), 0);
  let release: () => void = () => {};
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  const consumer = newConsumer(fx.cluster, { consumerGroup: group });
  consumer.subscribe(topic, '*');
  consumer.registerMessageListener({
    type: 'concurrently',
    async consumeMessage() {
      await gate;
      return 'CONSUME_SUCCESS';
    },
  });
  await consumer.start();

  const groupHash = `#/group?${new URLSearchParams({ group })}`;
  await untilShown(groupHash, '#group-lag', String(MESSAGES), 'the whole backlog');
  assert.equal(await page.locator('#members tbody tr').count(), 1);
  release();
  await untilShown(groupHash, '#group-lag', '0', 'the lag after consuming');
  assert.equal(await page.locator('#group-queues tbody tr').count(), QUEUES);
  // Our broker says what is in flight (5.x pullOffset): nothing, for a PULL group.
  assert.equal(await page.locator('#group-inflight').textContent(), '0');

  await page.goto(`${fx.base}/#/message?${new URLSearchParams({ msgId: first?.msgId ?? '', topic })}`);
  const body = await page.waitForSelector('#message-body', { timeout: 10_000 });
  assert.equal(await body.textContent(), SCRIPT_BODY);
  assert.equal(await page.locator('#main script, #main img').count(), 0);
  assert.equal(await page.evaluate('window.__pwned'), undefined);
  assert.deepEqual(dialogs, []);

  await page.goto(`${fx.base}/${groupHash}`);
  await page.waitForSelector('#group-lag');
  const file = process.env.DASHBOARD_SCREENSHOT ?? join(shots, 'dashboard.png');
  await page.screenshot({ path: file });
  const png = readFileSync(file);
  assert.equal(png.subarray(1, 4).toString('latin1'), 'PNG');
});

test('the cluster page lists the broker and draws the TPS chart', async () => {
  await page.goto(`${fx.base}/#/cluster`);
  const row = await page.waitForSelector('#brokers tbody tr', { timeout: 10_000 });
  assert.match((await row.textContent()) ?? '', /broker-a/);
  assert.equal(await page.locator('#tps-chart').count(), 1);
});

test('system topics and groups are hidden until asked for; key results name the broker; the reset form starts at the group topic; a malformed id says why', async () => {
  await page.goto(`${fx.base}/#/topics`);
  await page.waitForSelector(`tr[data-topic="${lagTopic}"]`, { timeout: 10_000 });
  for (const system of ['DefaultCluster', 'broker-a', 'DefaultCluster_REPLY_TOPIC', 'TBW102'])
    assert.equal(await page.locator(`tr[data-topic="${system}"]`).count(), 0, system);
  await page.goto(`${fx.base}/#/topics?all=1`);
  await page.waitForSelector('tr[data-topic="DefaultCluster"]', { timeout: 10_000 });

  await page.goto(`${fx.base}/#/groups`);
  await page.waitForSelector(`tr[data-group="${lagGroup}"]`, { timeout: 10_000 });
  for (const system of ['SELF_TEST_C_GROUP', 'TOOLS_CONSUMER', 'CID_ONSAPI_OWNER'])
    assert.equal(await page.locator(`tr[data-group="${system}"]`).count(), 0, system);
  await page.goto(`${fx.base}/#/groups?all=1`);
  await page.waitForSelector('tr[data-group="SELF_TEST_C_GROUP"]', { timeout: 10_000 });

  await page.goto(`${fx.base}/#/messages`);
  await page.fill('#search-key input[name=topic]', lagTopic);
  await page.fill('#search-key input[name=key]', 'k1');
  await page.click('#search-key button[type=submit]');
  const cell = await page.waitForSelector('#messages tbody tr td:nth-child(4)', { timeout: 10_000 });
  assert.equal(await cell.textContent(), 'broker-a');

  await page.goto(`${fx.base}/#/group?${new URLSearchParams({ group: lagGroup })}`);
  const select = await page.waitForSelector('#reset-form select[name=topic]', { timeout: 10_000 });
  assert.equal(await select.inputValue(), lagTopic);

  await page.goto(`${fx.base}/#/message?msgId=not-an-id`);
  const error = await page.waitForSelector('#main .error', { timeout: 10_000 });
  assert.match((await error.textContent()) ?? '', /"not-an-id" is no message id/);
});

test('the delete buttons ask first, then delete the topic and the group through the API', async () => {
  const topic = uniqueName('BrowserDelete');
  const group = uniqueName('BrowserDeleteGroup');
  const post = (path: string, body: object) =>
    fetch(`${fx.base}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  assert.equal((await post('/api/topic/update', { topic, queueNums: 1 })).status, 200);
  assert.equal((await post('/api/group/update', { group })).status, 200);
  const asked = dialogs.length;

  await page.goto(`${fx.base}/#/topic?${new URLSearchParams({ topic })}`);
  await page.click('#delete-topic button[type=submit]');
  await page.waitForSelector('#delete-topic .form-message:text("kept")', { timeout: 10_000 });
  assert.equal(dialogs.length, asked + 1, 'a confirm before anything is deleted');
  acceptDialogs = true;
  try {
    await page.click('#delete-topic button[type=submit]');
    await page.waitForSelector('#topics', { timeout: 10_000 });
    assert.equal(await page.locator(`tr[data-topic="${topic}"]`).count(), 0);
    await page.goto(`${fx.base}/#/group?${new URLSearchParams({ group })}`);
    await page.click('#delete-group button[type=submit]');
    await page.waitForSelector('#groups', { timeout: 10_000 });
    assert.equal(await page.locator(`tr[data-group="${group}"]`).count(), 0);
  } finally {
    acceptDialogs = false;
  }
  const groups = (await (await fetch(`${fx.base}/api/groups`)).json()) as {
    groups: Array<{ group: string }>;
  };
  assert.ok(!groups.groups.some((g) => g.group === group));
});
