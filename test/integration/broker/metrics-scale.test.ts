/**
 * What one /metrics scrape costs with 1,000 topics and 200 groups (each group with offsets in 5
 * topics, 1,000 group/topic pairs, messages waiting in 200 of the topics), all made through the
 * broker's own managers in this process. Prints the figures; fails only when a scrape takes more
 * than a second, far above what it should cost.
 */
import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';
import { test } from 'node:test';
import type { BrokerController } from '../../../src/broker/broker-controller.js';
import { createSubscriptionGroupConfig } from '../../../src/common/protocol/subscription-group-config.js';
import { createTopicConfig } from '../../../src/common/protocol/topic-config.js';
import { sendMany } from '../client/consumer-support.js';
import { newProducer, startCluster } from '../client/support.js';
import { parseMetrics, sampleValue, urlOf } from './metrics-support.js';

const TOPICS = 1000;
const GROUPS = 200;
const TOPICS_PER_GROUP = 5;
const QUEUES = 4;
const TOPICS_WITH_MESSAGES = 200;
const SCRAPES = 10;

test('a scrape stays cheap with 1,000 topics and 200 groups', async (t) => {
  const cluster = await startCluster({ dashboardPort: 0 });
  try {
    const broker = cluster.brokers[0] as BrokerController;
    const topic = (i: number) => `ScaleTopic-${i}`;
    for (let i = 0; i < TOPICS; i++) {
      broker.topicConfigManager.updateTopicConfig(
        createTopicConfig(topic(i), { readQueueNums: QUEUES, writeQueueNums: QUEUES }),
      );
    }
    await broker.registerBrokerAll(true, false, true);
    const producer = newProducer({ namesrvAddr: cluster.namesrvAddr });
    await producer.start();
    try {
      await sendMany(producer, TOPICS_WITH_MESSAGES * 8, (i) => ({
        topic: topic(i % TOPICS_WITH_MESSAGES),
        body: 'x'.repeat(100),
      }));
    } finally {
      await producer.shutdown();
    }
    for (let g = 0; g < GROUPS; g++) {
      const group = `ScaleGroup-${g}`;
      broker.subscriptionGroupManager.updateSubscriptionGroupConfig(createSubscriptionGroupConfig(group));
      for (let k = 0; k < TOPICS_PER_GROUP; k++) {
        const name = topic((g * TOPICS_PER_GROUP + k) % TOPICS);
        for (let q = 0; q < QUEUES; q++)
          broker.consumerOffsetManager.commitOffset('test', group, name, q, 1n);
      }
    }
    const url = urlOf(broker.http.metricsServer?.address, '/metrics');
    // The first scrape also loads prom-client and builds the registry.
    let t0 = performance.now();
    let body = await (await fetch(url)).text();
    const first = performance.now() - t0;
    const times: number[] = [];
    for (let i = 0; i < SCRAPES; i++) {
      t0 = performance.now();
      const res = await fetch(url);
      body = await res.text();
      times.push(performance.now() - t0);
      assert.equal(res.status, 200);
    }
    const samples = parseMetrics(body);
    assert.equal(samples.filter((s) => s.name === 'rocketmq_producer_offset').length >= TOPICS, true);
    assert.equal(samples.filter((s) => s.name === 'rocketmq_group_diff').length, GROUPS * TOPICS_PER_GROUP);
    assert.equal(
      sampleValue(samples, 'rocketmq_group_diff', { group: 'ScaleGroup-0', topic: topic(0) }),
      8 - QUEUES,
    );
    times.sort((a, b) => a - b);
    const median = times[Math.floor(times.length / 2)] as number;
    const max = times.at(-1) as number;
    t.diagnostic(
      `${TOPICS} topics, ${GROUPS} groups: ${samples.length} series, ${(body.length / 1024).toFixed(0)} KiB; ` +
        `first scrape ${first.toFixed(1)} ms (loads prom-client), then median ${median.toFixed(1)} ms, max ${max.toFixed(1)} ms over ${SCRAPES}`,
    );
    assert.ok(max < 1000, `a scrape took ${max.toFixed(0)} ms`);
  } finally {
    await cluster.close();
  }
});
