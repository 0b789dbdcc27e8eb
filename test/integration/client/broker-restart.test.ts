/**
 * A broker restarted on the same port: the consumer's instance sends the broker a heartbeat as soon
 * as its connection is open again, so delivery resumes within about one failed-pull pause instead of
 * at the group's next heartbeat (heartbeatBrokerInterval, 30 s, left at its default here).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { type BrokerController, createBroker } from '../../../src/broker/broker-controller.js';
import { createLogger } from '../../../src/common/logger.js';
import { RequestCode } from '../../../src/remoting/protocol/request-code.js';
import { freeBrokerPort } from '../broker/slave-support.js';
import { BROKER_FAST, newConsumer, recordConcurrently, type Seen, shutdownAll } from './consumer-support.js';
import {
  createTopic,
  newProducer,
  startCluster,
  type TestCluster,
  uniqueName,
  until,
  wrapHandler,
} from './support.js';

/** Well under the 30 s heartbeat interval; the fix takes about pullTimeDelayMillsWhenException. */
const RESUME_BOUND_MS = 8_000;

let cluster: TestCluster;
let dir: string;
let port: number;
let broker: BrokerController;
/** When the running broker answered each HEART_BEAT carrying the consumer's group. */
let heartbeats: number[] = [];
let group = '';

function startBroker(): Promise<BrokerController> {
  const b = createBroker({
    config: {
      ...BROKER_FAST,
      brokerName: 'broker-restart',
      listenPort: port,
      listenHost: '127.0.0.1',
      brokerIP1: '127.0.0.1',
      brokerIP2: '127.0.0.1',
      mappedFileSizeCommitLog: 4 << 20,
      mappedFileSizeConsumeQueue: 60_000,
      storePathRootDir: dir,
      namesrvAddr: cluster.namesrvAddr,
    },
    logger: createLogger('broker', { level: 'silent' }),
  });
  wrapHandler(b, RequestCode.HEART_BEAT, (real) => (broker, ctx, request) => {
    if (request.body?.includes(group) === true) heartbeats.push(Date.now());
    return real(broker, ctx, request);
  });
  return b.start().then(() => b);
}

before(async () => {
  cluster = await startCluster();
  dir = mkdtempSync(join(tmpdir(), 'rmq-restart-'));
  port = await freeBrokerPort();
  broker = await startBroker();
});

after(async () => {
  await shutdownAll();
  await broker.shutdown();
  await cluster.close();
  rmSync(dir, { recursive: true, force: true });
});

test('a restarted broker delivers again within seconds, not at the next heartbeat', async () => {
  const topic = uniqueName('restart');
  await createTopic(cluster, topic, 2, [broker]);
  const producer = newProducer({ namesrvAddr: cluster.namesrvAddr });
  await producer.start();
  // Upstream's intervals, so neither a route poll nor a periodic rebalance happens to heal it first.
  group = uniqueName('cg-restart');
  const consumer = newConsumer(cluster, {
    consumerGroup: group,
    heartbeatBrokerInterval: 30_000,
    pollNameServerInterval: 30_000,
    rebalanceWaitInterval: 20_000,
    pullTimeDelayMillsWhenException: 1000,
  });
  const seen: Seen[] = [];
  recordConcurrently(consumer, 'c', seen);
  consumer.subscribe(topic, '*');
  const started = Date.now();
  await consumer.start();
  try {
    await producer.send({ topic, body: Buffer.from('before') });
    await until(() => seen.some((s) => s.body === 'before'), 'the message sent before the restart', 10_000);
    // Past the periodic heartbeat's first run (1 s after start), so the next one is 30 s away.
    await until(() => heartbeats.some((t) => t >= started + 1000), "the consumer's first periodic heartbeat");

    await broker.shutdown();
    heartbeats = [];
    broker = await startBroker();
    const restarted = Date.now();
    await until(
      async () =>
        (await producer.send({ topic, body: Buffer.from('after') }).catch(() => undefined)) !== undefined,
      'a send to the restarted broker',
      10_000,
    );
    await until(() => seen.some((s) => s.body === 'after'), 'the message sent after the restart', 40_000);
    const resumedMs = (seen.find((s) => s.body === 'after') as Seen).at - restarted;
    assert.ok(resumedMs <= RESUME_BOUND_MS, `first delivery ${resumedMs} ms after the restart`);
  } finally {
    await producer.shutdown();
  }
});
