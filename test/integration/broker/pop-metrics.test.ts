/**
 * The POP and timer series of the broker's /metrics registry over a real store (hand-driven clock):
 * a pop raises the group's in-flight gauge, an ack lowers it and counts, an un-acked message revived
 * after its invisible time counts as a revive to the retry topic, and the timer gauges are there.
 */
import assert from 'node:assert/strict';
import { afterEach, test } from 'node:test';
import * as prom from 'prom-client';
import { createBrokerRegistry } from '../../../src/broker/http/broker-metrics.js';
import { ResponseCode } from '../../../src/remoting/protocol/response-code.js';
import { cleanUp, type RunningBroker, startBroker } from '../../unit/broker/store-broker.js';
import { parseMetrics, type Sample, sampleValue } from './metrics-support.js';
import { ackRequest, createTopicAndGroup, fakePop, putMessages } from './pop-revive-support.js';
import { popRequest, readPop } from './pop-support.js';

const TOPIC = 'PopMetricsT';
const GROUP = 'PopMetricsG';

afterEach(cleanUp);

/** One registry per broker, as the HTTP service keeps one. */
const registries = new WeakMap<RunningBroker, prom.Registry>();

async function samples(b: RunningBroker): Promise<Sample[]> {
  let registry = registries.get(b);
  if (registry === undefined) {
    registry = createBrokerRegistry(prom, b.broker);
    registries.set(b, registry);
  }
  return parseMetrics(await registry.metrics());
}

test('pop, ack and revive move the POP series', async () => {
  const b = await startBroker({ config: { reviveInterval: 3_600_000 } });
  createTopicAndGroup(b.broker, TOPIC, GROUP, 1);
  const at = { group: GROUP, topic: TOPIC };
  const idle = await samples(b);
  assert.equal(sampleValue(idle, 'rocketmq_consumer_inflight_messages', at), undefined, 'no pops, no series');
  assert.equal(sampleValue(idle, 'rocketmq_pop_revive_messages_total', { destination: 'retry' }), 0);

  await putMessages(b.broker, TOPIC, 0, 3);
  const p = await fakePop(b.broker, {
    topic: TOPIC,
    group: GROUP,
    queueId: 0,
    count: 3,
    invisibleTime: 1000,
  });
  assert.equal(sampleValue(await samples(b), 'rocketmq_consumer_inflight_messages', at), 3);

  const r = await b.client.call(ackRequest(GROUP, TOPIC, 0, p.handles[0]!, p.offsets[0]!));
  assert.equal(r.code, ResponseCode.SUCCESS, r.remark);
  b.clock.advance(1100);
  await b.broker.popRevive.reviveNow();

  const after = await samples(b);
  // One acked, two revived to the retry topic: nothing left in flight, the series still there.
  assert.equal(sampleValue(after, 'rocketmq_consumer_inflight_messages', at), 0);
  assert.equal(sampleValue(after, 'rocketmq_pop_ack_messages_total'), 1);
  assert.equal(sampleValue(after, 'rocketmq_pop_acked_messages_total'), 1);
  assert.equal(sampleValue(after, 'rocketmq_pop_revive_messages_total', { destination: 'retry' }), 2);
  assert.equal(sampleValue(after, 'rocketmq_pop_revive_messages_total', { destination: 'dlq' }), 0);
  assert.equal(sampleValue(after, 'rocketmq_pop_checkpoints_total'), 1);
  assert.equal(sampleValue(after, 'rocketmq_pop_unmatched_acks_total'), 0);
  assert.equal(sampleValue(after, 'rocketmq_timing_messages'), 0);
  assert.equal(sampleValue(after, 'rocketmq_timer_dequeue_total'), 0);
  for (const s of after.filter((x) => x.name.startsWith('rocketmq_pop_'))) {
    assert.equal(s.labels.cluster, b.broker.config.brokerClusterName, s.name);
  }
});

test('POP_MESSAGE counts its requests and messages per group and topic', async () => {
  const b = await startBroker({ config: { reviveInterval: 3_600_000 } });
  createTopicAndGroup(b.broker, TOPIC, GROUP, 1);
  await putMessages(b.broker, TOPIC, 0, 2);
  const r = await b.client.call(
    popRequest({ consumerGroup: GROUP, topic: TOPIC, queueId: 0, maxMsgNums: 8 }),
  );
  assert.equal(readPop(r, b.broker.config.brokerName).messages.length, 2, r.remark);
  const at = { group: GROUP, topic: TOPIC };
  const s = await samples(b);
  assert.equal(sampleValue(s, 'rocketmq_pop_requests_total', at), 1);
  assert.equal(sampleValue(s, 'rocketmq_pop_messages_total', at), 2);
  assert.equal(sampleValue(s, 'rocketmq_consumer_inflight_messages', at), 2);
});
