/**
 * The broker's /metrics over real HTTP against a real in-process broker and name server: put and
 * get figures move with traffic, a group's lag falls as it consumes, the process metrics are there,
 * and the server's bad-input answers (404, 405, loopback binding, a busy port named).
 */
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { createServer, type Server } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { brokerConfig, loadBrokerConfig } from '../../../src/broker/broker-config.js';
import type { BrokerController } from '../../../src/broker/broker-controller.js';
import { ConsumeConcurrentlyStatus } from '../../../src/client/index.js';
import { HttpPortInUseError } from '../../../src/common/platform/http-server.js';
import { newConsumer, sendMany, shutdownAll } from '../client/consumer-support.js';
import {
  createTopic,
  newProducer,
  startCluster,
  type TestCluster,
  uniqueName,
  until,
} from '../client/support.js';
import { sampleValue, scrape, urlOf } from './metrics-support.js';

function metricsUrl(broker: BrokerController): string {
  return urlOf(broker.http.metricsServer?.address, '/metrics');
}

describe('broker /metrics', () => {
  let cluster: TestCluster;

  before(async () => {
    cluster = await startCluster({ dashboardPort: 0, longPollingCheckInterval: 100 });
  });

  after(async () => {
    await shutdownAll();
    await cluster.close();
  });

  test('binds 127.0.0.1 by default and labels every series with cluster and broker', async () => {
    const broker = cluster.brokers[0] as BrokerController;
    assert.equal(broker.http.dashboardServer?.address?.address, '127.0.0.1');
    assert.equal(broker.http.metricsServer, broker.http.dashboardServer);
    const samples = await scrape(metricsUrl(broker));
    for (const s of samples) {
      assert.equal(s.labels.cluster, 'DefaultCluster', s.name);
      assert.equal(s.labels.broker, 'broker-a', s.name);
      if (s.name.startsWith('rocketmq_brokeruntime_'))
        assert.equal(s.labels.brokerIP, broker.brokerAddr, s.name);
    }
    assert.equal(sampleValue(samples, 'rocketmq_broker_tps', { brokerIP: broker.brokerAddr }), 0);
    // The process: prom-client's default metrics.
    for (const name of ['process_resident_memory_bytes', 'nodejs_heap_size_used_bytes']) {
      assert.ok((sampleValue(samples, name) ?? 0) > 0, name);
    }
    // Event-loop delay: its figures are there (the first scrape may read 0).
    for (const name of ['nodejs_eventloop_lag_seconds', 'nodejs_eventloop_lag_p99_seconds']) {
      assert.ok(sampleValue(samples, name) !== undefined, name);
    }
    assert.equal(
      sampleValue(samples, 'rocketmq_broker_info', { broker_version: '409', brokerIP: broker.brokerAddr }),
      1,
    );
    const ratio = sampleValue(samples, 'rocketmq_brokeruntime_commitlog_disk_ratio');
    assert.ok(ratio !== undefined && ratio >= 0 && ratio <= 1, `disk ratio ${ratio}`);
    assert.ok((sampleValue(samples, 'rocketmq_brokeruntime_commitlogdir_capacity_total') ?? 0) > 0);
    assert.equal(sampleValue(samples, 'rocketmq_brokeruntime_dispatch_behind_bytes'), 0);
  });

  test('a topic created and messages sent raise the put counts', async () => {
    const broker = cluster.brokers[0] as BrokerController;
    const topic = uniqueName('MetricsTopic');
    const before = await scrape(metricsUrl(broker));
    assert.equal(sampleValue(before, 'rocketmq_producer_offset', { topic }), undefined);
    const putBefore = sampleValue(before, 'rocketmq_brokeruntime_msg_put_total_today_now') ?? 0;
    await createTopic(cluster, topic, 4);
    const created = await scrape(metricsUrl(broker));
    assert.equal(sampleValue(created, 'rocketmq_producer_offset', { topic }), 0);
    assert.equal(sampleValue(created, 'rocketmq_topic_put_messages_total', { topic }), 0);
    const producer = newProducer({ namesrvAddr: cluster.namesrvAddr });
    await producer.start();
    try {
      await sendMany(producer, 12, (i) => ({ topic, body: `m${i}` }));
    } finally {
      await producer.shutdown();
    }
    const sent = await scrape(metricsUrl(broker));
    assert.equal(sampleValue(sent, 'rocketmq_producer_offset', { topic }), 12);
    assert.equal(sampleValue(sent, 'rocketmq_topic_put_messages_total', { topic }), 12);
    assert.ok((sampleValue(sent, 'rocketmq_topic_put_bytes_total', { topic }) ?? 0) > 12 * 2);
    assert.ok((sampleValue(sent, 'rocketmq_brokeruntime_msg_put_total_today_now') ?? 0) >= putBefore + 12);
    assert.ok((sampleValue(sent, 'rocketmq_broker_put_messages_total') ?? 0) >= putBefore + 12);
    assert.ok(sampleValue(sent, 'rocketmq_producer_tps', { topic }) !== undefined);
  });

  test("a consumer group's lag falls as it consumes", async () => {
    const broker = cluster.brokers[0] as BrokerController;
    const topic = uniqueName('LagTopic');
    await createTopic(cluster, topic, 2);
    const producer = newProducer({ namesrvAddr: cluster.namesrvAddr });
    await producer.start();
    try {
      await sendMany(producer, 20, (i) => ({ topic, body: `m${i}` }));
    } finally {
      await producer.shutdown();
    }
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const consumer = newConsumer(cluster);
    const group = consumer.consumerGroup;
    consumer.subscribe(topic, '*');
    consumer.registerMessageListener({
      type: 'concurrently',
      async consumeMessage() {
        await gate;
        return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
      },
    });
    await consumer.start();
    const waiting = await until(async () => {
      const s = await scrape(metricsUrl(broker));
      return sampleValue(s, 'rocketmq_group_count', { group }) === 1 ? s : undefined;
    }, 'the group online in /metrics');
    assert.equal(sampleValue(waiting, 'rocketmq_group_diff', { group, topic }), 20);
    assert.ok((sampleValue(waiting, 'rocketmq_group_get_latency_by_storetime', { group, topic }) ?? -1) >= 0);
    release();
    const done = await until(
      async () => {
        const s = await scrape(metricsUrl(broker));
        return sampleValue(s, 'rocketmq_group_diff', { group, topic }) === 0 ? s : undefined;
      },
      'the lag at 0',
      15_000,
    );
    assert.equal(sampleValue(done, 'rocketmq_consumer_offset', { group, topic }), 20);
    assert.equal(sampleValue(done, 'rocketmq_group_get_latency_by_storetime', { group, topic }), 0);
    assert.equal(sampleValue(done, 'rocketmq_consumer_get_messages_total', { group, topic }), 20);
    await consumer.shutdown();
  });

  test('an unknown path is 404, another method 405 with Allow, HEAD is served', async () => {
    const broker = cluster.brokers[0] as BrokerController;
    const base = urlOf(broker.http.dashboardServer?.address, '');
    const missing = await fetch(`${base}/nope`);
    assert.equal(missing.status, 404);
    await missing.arrayBuffer();
    const post = await fetch(`${base}/metrics`, { method: 'POST', body: 'x' });
    assert.equal(post.status, 405);
    assert.equal(post.headers.get('allow'), 'GET, HEAD');
    await post.arrayBuffer();
    const head = await fetch(`${base}/metrics`, { method: 'HEAD' });
    assert.equal(head.status, 200);
  });
});

describe('broker HTTP settings', () => {
  test('broker.conf keys dashboardPort, dashboardHost and metricsPort, checked', () => {
    const env = { hostName: 'h', localAddress: '10.0.0.1', homeDir: '/tmp', namesrvAddr: undefined };
    const loaded = loadBrokerConfig('dashboardPort=9090\ndashboardHost=0.0.0.0\nmetricsPort=9091\n', { env });
    assert.deepEqual(loaded.unknownKeys, []);
    assert.equal(loaded.config.dashboardPort, 9090);
    assert.equal(loaded.config.dashboardHost, '0.0.0.0');
    assert.equal(loaded.config.metricsPort, 9091);
    assert.throws(() => brokerConfig({ dashboardPort: -2 }, env), /dashboardPort must be -1 \(off\)/);
    assert.throws(() => brokerConfig({ metricsPort: 65536 }, env), /metricsPort must be/);
    assert.throws(() => brokerConfig({ dashboardHost: ' ' }, env), /dashboardHost must not be blank/);
  });

  test('off by default: no HTTP server', async () => {
    const cluster = await startCluster();
    try {
      const broker = cluster.brokers[0] as BrokerController;
      assert.equal(broker.config.dashboardPort, -1);
      assert.equal(broker.config.metricsPort, -1);
      assert.equal(broker.http.dashboardServer, undefined);
      assert.equal(broker.http.metricsServer, undefined);
    } finally {
      await cluster.close();
    }
  });

  test('metricsPort alone opens a server answering /metrics only', async () => {
    const cluster = await startCluster({ metricsPort: 0 });
    try {
      const broker = cluster.brokers[0] as BrokerController;
      assert.equal(broker.http.dashboardServer, undefined);
      assert.equal(broker.http.metricsServer?.address?.address, '127.0.0.1');
      const samples = await scrape(metricsUrl(broker));
      assert.ok(sampleValue(samples, 'rocketmq_broker_held_pulls') !== undefined);
      const other = await fetch(urlOf(broker.http.metricsServer?.address, '/'));
      assert.equal(other.status, 404);
      await other.arrayBuffer();
    } finally {
      await cluster.close();
    }
  });

  test('/metrics checks Host as the dashboard does: IP addresses, localhost, httpAllowedHosts', async () => {
    const cluster = await startCluster({ metricsPort: 0, httpAllowedHosts: 'scrape.example, Other.Example' });
    try {
      const broker = cluster.brokers[0] as BrokerController;
      const port = broker.http.metricsServer?.address?.port as number;
      const get = (host: string) =>
        new Promise<{ status: number; body: string }>((resolve, reject) => {
          const req = request({ host: '127.0.0.1', port, path: '/metrics', headers: { host } }, (res) => {
            let body = '';
            res.setEncoding('utf8');
            res.on('data', (chunk: string) => {
              body += chunk;
            });
            res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
          });
          req.on('error', reject);
          req.end();
        });
      const refused = await get('attacker.example:8080');
      assert.equal(refused.status, 403);
      assert.equal(refused.body, 'Host not allowed: add it to httpAllowedHosts\n');
      assert.ok(!refused.body.includes('rocketmq_'));
      for (const host of [`127.0.0.1:${port}`, 'localhost', '[::1]:1', 'scrape.example:9', 'other.example']) {
        assert.equal((await get(host)).status, 200, host);
      }
    } finally {
      await cluster.close();
    }
  });

  test('a busy port fails the start with an error naming the port and the setting', async () => {
    const blocker: Server = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as { port: number }).port;
    try {
      await assert.rejects(startCluster({ dashboardPort: port }), (error: unknown) => {
        assert.ok(error instanceof HttpPortInUseError, String(error));
        assert.equal(error.port, port);
        assert.equal(error.code, 'EADDRINUSE');
        assert.match(error.message, new RegExp(`dashboardPort ${port} on 127\\.0\\.0\\.1 is already in use`));
        return true;
      });
    } finally {
      await new Promise<void>((resolve) => blocker.close(() => resolve()));
    }
  });
});
