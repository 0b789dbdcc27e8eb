/**
 * A user's test file that forgets to shut its clients down (run by forgotten-shutdown.test.ts as
 * `node --test` on this file): a producer that sent, a pull consumer that pulled, a lite pull
 * consumer that polled and an admin that asked, all left running; only startEmbedded is closed, as a
 * server must be. The file must end by itself: no client timer or idle connection holds the process.
 */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { createAdmin } from '../../../src/admin/admin.js';
import type { MQAdminExt } from '../../../src/admin/mq-admin-ext.js';
import {
  createLitePullConsumer,
  createProducer,
  createPullConsumer,
  type LitePullConsumer,
  type Producer,
  type PullConsumer,
} from '../../../src/client/index.js';
import { createLogger } from '../../../src/common/logger.js';
import { startEmbedded } from '../../../src/embedded/embedded.js';

const logger = createLogger('forgotten', { level: 'silent' });
const embedded = await startEmbedded();
after(() => embedded.close());

/** Kept so nothing is collected before the end: the clients stay reachable and running. */
const leftRunning: Array<Producer | PullConsumer | LitePullConsumer | MQAdminExt> = [];

test('clients left running', async () => {
  const namesrvAddr = embedded.namesrvAddr;
  const topic = 'ForgottenTopic';
  const producer = createProducer({ namesrvAddr, producerGroup: 'forgotten-pg', logger });
  await producer.start();
  await producer.send({ topic, body: 'left running' });
  const pull = createPullConsumer({ namesrvAddr, consumerGroup: 'forgotten-pull', logger });
  await pull.start();
  const [mq] = await pull.fetchSubscribeMessageQueues(topic);
  assert.ok(mq !== undefined);
  await pull.pull(mq, '*', 0n, 1);
  const lite = createLitePullConsumer({
    namesrvAddr,
    consumerGroup: 'forgotten-lite',
    logger,
    pollTimeoutMillis: 200,
  });
  lite.assign([mq]);
  await lite.start();
  await lite.poll();
  const admin = createAdmin({ namesrvAddr, logger });
  await admin.start();
  await admin.examineTopicRouteInfo(topic);
  leftRunning.push(producer, pull, lite, admin);
  process.stdout.write('{"left":"running"}\n');
});
