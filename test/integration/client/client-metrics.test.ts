/**
 * registerClientMetrics against a real in-process broker: sends and consumption show up in the
 * application's own registry, unregister() takes them out, and importing the package loads no
 * prom-client.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Registry } from 'prom-client';
import { ConsumeConcurrentlyStatus, registerClientMetrics } from '../../../src/client/index.js';
import { parseMetrics, sampleValue } from '../broker/metrics-support.js';
import { newConsumer, sendMany, shutdownAll } from './consumer-support.js';
import { createTopic, newProducer, startCluster, type TestCluster, uniqueName, until } from './support.js';

let cluster: TestCluster;

before(async () => {
  cluster = await startCluster({ longPollingCheckInterval: 100 });
});

after(async () => {
  await shutdownAll();
  await cluster.close();
});

test('sends and consumption reach the registry the application passes; unregister takes them out', async () => {
  const registry = new Registry();
  const metrics = registerClientMetrics(registry);
  const topic = uniqueName('ClientMetrics');
  await createTopic(cluster, topic, 2);
  const producer = newProducer({ namesrvAddr: cluster.namesrvAddr });
  await producer.start();
  try {
    await sendMany(producer, 6, (i) => ({ topic, body: `m${i}` }));
    await producer.send([
      { topic, body: 'b1' },
      { topic, body: 'b2' },
    ]);
  } finally {
    await producer.shutdown();
  }
  const group = producer.producerGroup;
  const sent = parseMetrics(await registry.metrics());
  assert.equal(
    sampleValue(sent, 'rocketmq_client_producer_sends_total', { group, topic, result: 'SEND_OK' }),
    7,
  );
  assert.equal(
    sampleValue(sent, 'rocketmq_client_producer_messages_total', { group, topic, result: 'SEND_OK' }),
    8,
  );
  assert.equal(
    sampleValue(sent, 'rocketmq_client_producer_send_duration_seconds_count', { group, topic }),
    7,
  );

  const consumer = newConsumer(cluster);
  consumer.subscribe(topic, '*');
  consumer.registerMessageListener({
    type: 'concurrently',
    async consumeMessage() {
      return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
    },
  });
  await consumer.start();
  const cg = consumer.consumerGroup;
  const consumed = await until(
    async () => {
      const s = parseMetrics(await registry.metrics());
      return sampleValue(s, 'rocketmq_client_consumer_consumed_messages_total', {
        group: cg,
        topic,
        result: 'success',
      }) === 8
        ? s
        : undefined;
    },
    'eight messages consumed in the metrics',
    15_000,
  );
  assert.equal(
    sampleValue(consumed, 'rocketmq_client_consumer_pulled_messages_total', { group: cg, topic }),
    8,
  );
  assert.equal(
    sampleValue(consumed, 'rocketmq_client_consumer_consumed_messages_total', {
      group: cg,
      topic,
      result: 'failure',
    }),
    0,
  );
  assert.ok(sampleValue(consumed, 'rocketmq_client_consume_ok_msg_tps', { group: cg, topic }) !== undefined);
  await consumer.shutdown();
  // A consumer that stopped is no longer read.
  const stopped = parseMetrics(await registry.metrics());
  assert.equal(
    sampleValue(stopped, 'rocketmq_client_consumer_pulled_messages_total', { group: cg, topic }),
    undefined,
  );

  metrics.unregister();
  assert.equal((await registry.metrics()).trim(), '');
});

test('importing the package loads no prom-client', async () => {
  const entry = fileURLToPath(new URL('../../../src/index.js', import.meta.url));
  const script =
    `const { createRequire } = await import('node:module');` +
    `await import(${JSON.stringify(entry)});` +
    `const cache = Object.keys(createRequire(import.meta.url).cache);` +
    `process.stdout.write(String(cache.some((k) => k.includes('prom-client'))));`;
  const out = await new Promise<string>((resolve, reject) => {
    execFile(process.execPath, ['--input-type=module', '-e', script], (error, stdout) =>
      error === null ? resolve(stdout) : reject(error),
    );
  });
  assert.equal(out, 'false');
});
