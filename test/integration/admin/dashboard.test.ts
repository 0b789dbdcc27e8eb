/**
 * The dashboard's JSON API against our name server and broker in this process: what it shows is what
 * the cluster holds (a topic created through it, a group's lag falling as it consumes, a message's
 * body and properties and who consumed it), reads are GET and changes POST only, and attacker-chosen
 * text comes back as JSON data.
 */
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { createAdmin, type MQAdminExt } from '../../../src/admin/index.js';
import type { Producer, PushConsumer } from '../../../src/client/index.js';
import { MessageQueue } from '../../../src/common/message/message-queue.js';
import { newConsumer, shutdownAll } from '../client/consumer-support.js';
import { newProducer, quiet, uniqueName } from '../client/support.js';
import { api, type DashboardFixture, poll, startDashboardFixture } from './dashboard-support.js';

const MESSAGES = 20;
const QUEUES = 4;
const SCRIPT_BODY = '<script>alert("body")</script>';
const SCRIPT_PROP = '<img src=x onerror=alert(1)>';

interface TopicRow {
  topic: string;
  kind: string;
  readQueueNums: number;
  writeQueueNums: number;
}
interface GroupDetail {
  totalLag: number;
  totalInflight: number;
  online: boolean;
  members: Array<{ clientId: string; version: string; language: string }>;
  queues: Array<{ topic: string; queueId: number; lag: number; inflight: number | null }>;
}
interface MessageRow {
  msgId: string;
  topic: string;
  keys: string | null;
}

let fx: DashboardFixture;
let admin: MQAdminExt;
let producer: Producer;
let consumer: PushConsumer;
const topic = uniqueName('DashTopic');
const group = uniqueName('DashGroup');
const producerGroup = uniqueName('DashProducer');
let release: () => void = () => {};
const gate = new Promise<void>((resolve) => {
  release = resolve;
});
let consumed = 0;

before(async () => {
  fx = await startDashboardFixture();
  admin = createAdmin({ namesrvAddr: fx.cluster.namesrvAddr, clientIP: '127.0.0.1', logger: quiet });
  await admin.start();
});

after(async () => {
  release();
  await shutdownAll();
  await producer?.shutdown();
  await admin?.shutdown();
  await fx?.close();
});

describe('topics', () => {
  test('a topic created through the API is listed with its queue count and its queues', async () => {
    const created = await api<{ brokers: string[] }>(fx.base, '/api/topic/update', {
      method: 'POST',
      body: { topic, readQueueNums: QUEUES, writeQueueNums: QUEUES },
    });
    assert.equal(created.status, 200, JSON.stringify(created.body));
    assert.deepEqual(created.body.brokers, ['broker-a']);
    const list = await api<{ topics: TopicRow[] }>(fx.base, '/api/topics');
    const row = list.body.topics.find((t) => t.topic === topic);
    assert.deepEqual(row && { kind: row.kind, r: row.readQueueNums, w: row.writeQueueNums }, {
      kind: 'normal',
      r: QUEUES,
      w: QUEUES,
    });
    const detail = await poll(async () => {
      const r = await api<{ queues: unknown[] }>(fx.base, `/api/topic?topic=${encodeURIComponent(topic)}`);
      return r.status === 200 && r.body.queues.length === QUEUES ? r.body : undefined;
    }, 'the topic is routed');
    assert.equal(detail.queues.length, QUEUES);
  });

  test('an unknown topic is an error with the name server’s reason, not a crash', async () => {
    const r = await api(fx.base, '/api/topic?topic=NoSuchTopic_dash');
    assert.equal(r.status, 502);
    assert.match(r.body.error ?? '', /NoSuchTopic_dash|route|exist/i);
  });
});

describe('consumer groups and messages', () => {
  before(async () => {
    producer = newProducer({ namesrvAddr: fx.cluster.namesrvAddr, producerGroup, clientIP: '127.0.0.1' });
    await producer.start();
    for (let i = 0; i < MESSAGES; i++) {
      const message = { topic, body: i === 0 ? SCRIPT_BODY : `m${i}`, keys: `key-${i}`, tags: 'T' };
      await producer.send(i === 0 ? { ...message, properties: { evil: SCRIPT_PROP } } : message);
    }
    // Offsets committed at 0 make the group's backlog visible before its consumer commits anything.
    const route = await admin.examineTopicRouteInfo(topic);
    const brokerAddr = route.brokerDatas[0]?.brokerAddrs.get(0) ?? assert.fail('no master');
    for (let q = 0; q < QUEUES; q++)
      await admin.updateConsumeOffset(brokerAddr, group, new MessageQueue(topic, 'broker-a', q), 0);
    consumer = newConsumer(fx.cluster, { consumerGroup: group });
    consumer.subscribe(topic, '*');
    consumer.registerMessageListener({
      type: 'concurrently',
      async consumeMessage(msgs) {
        await gate;
        consumed += msgs.length;
        return 'CONSUME_SUCCESS';
      },
    });
    await consumer.start();
  });

  test('the group is shown with its members and client versions, and its lag falls as it consumes', async () => {
    const path = `/api/group?group=${encodeURIComponent(group)}`;
    const before = await poll(async () => {
      const r = await api<GroupDetail>(fx.base, path);
      return r.status === 200 && r.body.online && r.body.totalLag === MESSAGES ? r.body : undefined;
    }, 'the group is online with its whole backlog');
    assert.equal(before.members.length, 1);
    assert.match(before.members[0]?.version ?? '', /^V\d+_\d+_\d+/);
    assert.equal(before.queues.length, QUEUES);
    const listed = await api<{ groups: Array<{ group: string; lag: number | null }> }>(
      fx.base,
      '/api/groups',
    );
    assert.deepEqual(
      listed.body.groups.find((g) => g.group === group),
      { ...listed.body.groups.find((g) => g.group === group), lag: MESSAGES },
    );
    release();
    const after = await poll(async () => {
      const r = await api<GroupDetail>(fx.base, path);
      return r.body.totalLag === 0 ? r.body : undefined;
    }, 'the lag falls to 0');
    assert.equal(after.totalLag, 0);
    // Our broker writes 5.x's pullOffset: a PULL group has nothing in flight.
    assert.equal(after.totalInflight, 0);
    assert.ok(after.queues.every((q) => q.inflight === 0));
    assert.ok(consumed >= MESSAGES);
  });

  test('a group created through the API that never ran a consumer shows its config, offsets and lag', async () => {
    const offline = uniqueName('OfflineGroup');
    const created = await api<{ brokers: string[] }>(fx.base, '/api/group/update', {
      method: 'POST',
      body: { group: offline, retryMaxTimes: 3 },
    });
    assert.deepEqual(created.body.brokers, ['broker-a']);
    const route = await admin.examineTopicRouteInfo(topic);
    const brokerAddr = route.brokerDatas[0]?.brokerAddrs.get(0) ?? assert.fail('no master');
    for (let q = 0; q < QUEUES; q++) {
      await admin.updateConsumeOffset(brokerAddr, offline, new MessageQueue(topic, 'broker-a', q), 0);
    }
    const r = await api<GroupDetail & { errors: string[] }>(
      fx.base,
      `/api/group?group=${encodeURIComponent(offline)}`,
    );
    assert.equal(r.status, 200);
    assert.deepEqual(
      {
        online: r.body.online,
        totalLag: r.body.totalLag,
        queues: r.body.queues.length,
        errors: r.body.errors,
      },
      { online: false, totalLag: MESSAGES, queues: QUEUES, errors: [] },
    );
  });

  test('message search by topic and time, by key and by id; bodies with <script> come back as data', async () => {
    const begin = Date.now() - 600_000;
    const byTopic = await api<{ messages: MessageRow[] }>(
      fx.base,
      `/api/messages/by-topic?topic=${encodeURIComponent(topic)}&begin=${begin}&end=${Date.now()}`,
    );
    assert.equal(byTopic.status, 200);
    assert.equal(byTopic.body.messages.length, MESSAGES);
    const byKey = await poll(async () => {
      const r = await api<{ messages: MessageRow[] }>(
        fx.base,
        `/api/messages/by-key?topic=${encodeURIComponent(topic)}&key=key-0`,
      );
      return r.body.messages?.length === 1 ? r.body.messages[0] : undefined;
    }, 'the key is indexed');
    const view = await api<{
      body: { text: string; size: number; truncated: boolean };
      properties: Record<string, string>;
      track: Array<{ consumerGroup: string; trackType: string }>;
    }>(fx.base, `/api/message?msgId=${encodeURIComponent(byKey.msgId)}&topic=${encodeURIComponent(topic)}`);
    assert.equal(view.status, 200);
    assert.match(view.headers.get('content-type') ?? '', /^application\/json/);
    assert.equal(view.headers.get('x-content-type-options'), 'nosniff');
    assert.deepEqual(view.body.body, {
      text: SCRIPT_BODY,
      size: Buffer.byteLength(SCRIPT_BODY),
      truncated: false,
    });
    assert.equal(view.body.properties.evil, SCRIPT_PROP);
    assert.deepEqual(
      view.body.track.find((t) => t.consumerGroup === group),
      { consumerGroup: group, trackType: 'CONSUMED', exceptionDesc: null },
    );
  });

  test("system topics and groups are marked; the dashboard's own TOOLS_CONSUMER consumes nothing; key results name the broker", async () => {
    const topics = await api<{ topics: TopicRow[] }>(fx.base, '/api/topics');
    const kinds = new Map(topics.body.topics.map((t) => [t.topic, t.kind]));
    for (const name of [
      'DefaultCluster',
      'broker-a',
      'DefaultCluster_REPLY_TOPIC',
      'SCHEDULE_TOPIC_XXXX',
      'TBW102',
    ])
      assert.equal(kinds.get(name), 'system', name);
    assert.equal(kinds.get(topic), 'normal');
    const groups = await api<{ groups: Array<{ group: string; kind: string }> }>(fx.base, '/api/groups');
    const groupKinds = new Map(groups.body.groups.map((g) => [g.group, g.kind]));
    for (const name of ['SELF_TEST_C_GROUP', 'TOOLS_CONSUMER', 'CID_ONSAPI_OWNER'])
      assert.equal(groupKinds.get(name), 'system', name);
    assert.equal(groupKinds.get(group), 'normal');

    // A search by topic pulls with TOOLS_CONSUMER; it is no consumer of the topic for all that.
    await api(fx.base, `/api/messages/by-topic?topic=${encodeURIComponent(topic)}`);
    const detail = await api<{ consumerGroups: string[] }>(
      fx.base,
      `/api/topic?topic=${encodeURIComponent(topic)}`,
    );
    assert.ok(detail.body.consumerGroups.includes(group));
    assert.ok(!detail.body.consumerGroups.includes('TOOLS_CONSUMER'), detail.body.consumerGroups.join());
    const byKey = await api<{ messages: Array<MessageRow & { brokerName: string | null }> }>(
      fx.base,
      `/api/messages/by-key?topic=${encodeURIComponent(topic)}&key=key-1`,
    );
    assert.equal(byKey.body.messages[0]?.brokerName, 'broker-a');
    const view = await api<{ track: Array<{ consumerGroup: string }> }>(
      fx.base,
      `/api/message?msgId=${encodeURIComponent(byKey.body.messages[0]?.msgId ?? '')}&topic=${encodeURIComponent(topic)}`,
    );
    const tracked = view.body.track.map((t) => t.consumerGroup);
    assert.ok(tracked.includes(group) && !tracked.includes('TOOLS_CONSUMER'), tracked.join());
  });

  test('a message id that is none is 400 with what is wrong; an id of no message is 404', async () => {
    for (const bad of ['not-an-id', 'ABCDEF', '7F0000010000']) {
      const r = await api(fx.base, `/api/message?msgId=${bad}`);
      assert.equal(r.status, 400, bad);
      assert.match(r.body.error ?? '', /message id/);
    }
    // 127.0.0.1, port 1, offset 0: well-formed, no broker there.
    const none = await api(fx.base, `/api/message?msgId=${'7F000001'}${'00000001'}${'0'.repeat(16)}`);
    assert.notEqual(none.status, 400);
  });

  test('the producers of a group, with their client versions', async () => {
    const r = await api<{ producers: Array<{ clientId: string; version: string }> }>(
      fx.base,
      `/api/producers?group=${encodeURIComponent(producerGroup)}&topic=${encodeURIComponent(topic)}`,
    );
    assert.equal(r.status, 200);
    assert.equal(r.body.producers.length, 1);
    assert.match(r.body.producers[0]?.version ?? '', /^V\d+_\d+_\d+/);
  });

  test('reset offset by time moves the group back to the first message', async () => {
    const r = await api<{ queues: Array<{ queueId: number; offset: number }> }>(
      fx.base,
      '/api/group/reset-offset',
      {
        method: 'POST',
        body: { group, topic, timestamp: 0 },
      },
    );
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.queues.length, QUEUES);
    assert.ok(r.body.queues.every((q) => q.offset === 0));
  });
});

describe('cluster and TPS', () => {
  test('the broker with its version, TPS and disk ratio', async () => {
    const r = await api<{
      brokers: Array<{ brokerName: string; version: string; putTps: number; diskRatio: number }>;
    }>(fx.base, '/api/cluster');
    assert.equal(r.status, 200);
    const b = r.body.brokers[0];
    assert.equal(b?.brokerName, 'broker-a');
    assert.match(b?.version ?? '', /^V\d+_\d+_\d+/);
    assert.equal(typeof b?.putTps, 'number');
    assert.ok(typeof b?.diskRatio === 'number' && b.diskRatio >= 0 && b.diskRatio <= 1);
  });

  test('the TPS series starts with a sample when first asked for', async () => {
    const r = await api<{ intervalMs: number; points: Array<{ brokers: Record<string, unknown> }> }>(
      fx.base,
      '/api/tps',
    );
    assert.equal(r.body.intervalMs, 5000);
    assert.ok(r.body.points.length >= 1);
    assert.ok('broker-a/0' in (r.body.points[0]?.brokers ?? {}));
  });
});

describe('methods, routes and the front end', () => {
  test('a read route refuses other methods and a mutation route refuses GET (405)', async () => {
    const post = await api(fx.base, '/api/topics', { method: 'POST', body: {} });
    assert.equal(post.status, 405);
    assert.equal(post.headers.get('allow'), 'GET');
    const get = await api(fx.base, `/api/topic/update?topic=${encodeURIComponent(uniqueName('ByGet'))}`);
    assert.equal(get.status, 405);
    assert.equal(get.headers.get('allow'), 'POST');
    const del = await api(fx.base, '/api/group/reset-offset', { method: 'GET' });
    assert.equal(del.status, 405);
  });

  test('a POST that is not JSON is refused (a form on another site cannot change the cluster)', async () => {
    const res = await fetch(`${fx.base}/api/topic/update`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: JSON.stringify({ topic: uniqueName('Form') }),
    });
    assert.equal(res.status, 415);
  });

  test('unknown API routes are 404; unknown pages are left to the host server', async () => {
    assert.equal((await api(fx.base, '/api/nope')).status, 404);
    const res = await fetch(`${fx.base}/nope.html`);
    assert.equal(res.status, 404);
  });

  test('the page and its scripts are served with a content security policy', async () => {
    const res = await fetch(`${fx.base}/`);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/html/);
    assert.match(res.headers.get('content-security-policy') ?? '', /script-src 'self'/);
    assert.match(await res.text(), /<script type="module" src="\/app.js">/);
    const js = await fetch(`${fx.base}/app.js`);
    assert.match(js.headers.get('content-type') ?? '', /^text\/javascript/);
    assert.doesNotMatch(await js.text(), /innerHTML/);
  });

  test('a request naming another host is refused (DNS rebinding); addresses and localhost are served', async () => {
    const status = (host: string) =>
      new Promise<number>((resolve, reject) => {
        const req = request(`${fx.base}/api/cluster`, { headers: { host } }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        });
        req.on('error', reject);
        req.end();
      });
    const port = new URL(fx.base).port;
    assert.equal(await status(`evil.example:${port}`), 403);
    assert.equal(await status(`localhost:${port}`), 200);
    assert.equal(await status(`127.0.0.1:${port}`), 200);
  });
});
