/**
 * shutdown() of push consumers: it commits every held queue's offset, unlocks the orderly queues on
 * the broker, leaves the group, and leaves no timer or socket behind: a child process running a
 * concurrent and an orderly consumer must end by itself once it shut them down.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { BrokerController } from '../../../src/broker/broker-controller.js';
import type { Producer } from '../../../src/client/index.js';
import { MessageQueue } from '../../../src/common/message/message-queue.js';
import { RequestCode } from '../../../src/remoting/protocol/request-code.js';
import { BROKER_FAST, sendMany } from './consumer-support.js';
import {
  createTopic,
  newProducer,
  startCluster,
  type TestCluster,
  uniqueName,
  until,
  wrapHandler,
} from './support.js';

/** How long the child may take from its last step to its exit. */
const CHILD_EXIT_DEADLINE_MS = 10_000;

let cluster: TestCluster;
let broker: BrokerController;
let producer: Producer;
/** Requests the broker received from consumers, in order: `code group`. */
const requests: string[] = [];

before(async () => {
  cluster = await startCluster(BROKER_FAST);
  broker = cluster.brokers[0] as BrokerController;
  for (const code of [
    RequestCode.UPDATE_CONSUMER_OFFSET,
    RequestCode.UNLOCK_BATCH_MQ,
    RequestCode.UNREGISTER_CLIENT,
  ]) {
    wrapHandler(broker, code, (real) => (b, ctx, request) => {
      const group =
        request.extFields?.consumerGroup ??
        (JSON.parse(request.body?.toString() || '{}') as { consumerGroup?: string }).consumerGroup;
      requests.push(`${code} ${group}`);
      return real(b, ctx, request);
    });
  }
  producer = newProducer({ namesrvAddr: cluster.namesrvAddr });
  await producer.start();
});

after(async () => {
  await producer?.shutdown();
  await cluster?.close();
});

test('a script that shuts its push consumers down exits by itself, offsets committed and orderly queues unlocked', async () => {
  const topic = uniqueName('ChildConsume');
  const orderlyTopic = uniqueName('ChildOrderly');
  await createTopic(cluster, topic, 4, [broker]);
  await createTopic(cluster, orderlyTopic, 4, [broker]);
  const count = 40;
  await sendMany(producer, count, (i) => ({ topic, body: `c${i}` }));
  await sendMany(producer, count, (i) => ({ topic: orderlyTopic, body: `o${i}` }));
  const script = fileURLToPath(new URL('./push-consumer-shutdown-child.js', import.meta.url));
  const child = spawn(
    process.execPath,
    [script, '--push-consumer-shutdown-child', cluster.namesrvAddr, topic, orderlyTopic, String(count)],
    { stdio: ['pipe', 'pipe', 'inherit'] },
  );
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const lines: string[] = [];
  createInterface({ input: child.stdout }).on('line', (line) => lines.push(line));
  let killer: NodeJS.Timeout | undefined;
  let groups: string[] = [];
  try {
    const startedLine = await until(
      () => lines.find((l) => l.includes('"started"')),
      'the child started',
      10_000,
    );
    groups = (JSON.parse(startedLine) as { groups: string[] }).groups;
    await until(() => lines.includes('{"ready":true}'), 'the child consumed everything', 10_000);
    const [group, orderlyGroup] = groups as [string, string];
    for (let q = 0; q < 4; q++) {
      assert.ok(
        broker.rebalanceLockManager.lockHolder(
          orderlyGroup,
          new MessageQueue(orderlyTopic, 'broker-a', q),
        ) !== undefined,
        `orderly queue ${q} locked while running`,
      );
    }
    const from = requests.length;
    child.stdin.end();
    killer = setTimeout(() => child.kill('SIGKILL'), CHILD_EXIT_DEADLINE_MS);
    const { code, signal } = await exited;
    assert.equal(signal, null, `the child did not exit by itself within ${CHILD_EXIT_DEADLINE_MS} ms`);
    assert.equal(code, 0);

    // What shutdown sent: the offsets of both groups, the orderly unlock, then leaving the group.
    const sentAtShutdown = requests.slice(from);
    for (const g of [group, orderlyGroup]) {
      assert.ok(sentAtShutdown.includes(`${RequestCode.UPDATE_CONSUMER_OFFSET} ${g}`), `offsets of ${g}`);
      const lastUpdate = sentAtShutdown.lastIndexOf(`${RequestCode.UPDATE_CONSUMER_OFFSET} ${g}`);
      const unregister = sentAtShutdown.indexOf(`${RequestCode.UNREGISTER_CLIENT} ${g}`);
      assert.ok(unregister > lastUpdate, `${g} left the group after committing`);
    }
    assert.ok(
      sentAtShutdown.includes(`${RequestCode.UNLOCK_BATCH_MQ} ${orderlyGroup}`),
      'orderly queues unlocked',
    );
    for (let q = 0; q < 4; q++) {
      assert.equal(
        broker.consumerOffsetManager.queryOffset(group, topic, q),
        broker.messageStore.getMaxOffsetInQueue(topic, q),
      );
      assert.equal(
        broker.consumerOffsetManager.queryOffset(orderlyGroup, orderlyTopic, q),
        broker.messageStore.getMaxOffsetInQueue(orderlyTopic, q),
      );
      assert.equal(
        broker.rebalanceLockManager.lockHolder(orderlyGroup, new MessageQueue(orderlyTopic, 'broker-a', q)),
        undefined,
        `orderly queue ${q} unlocked`,
      );
    }
  } finally {
    clearTimeout(killer);
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
  const report = JSON.parse(lines[lines.length - 1] ?? '{}') as {
    consumed: number;
    consumedOrderly: number;
    shutdownMs: number;
    before: Record<string, number>;
    after: Record<string, number>;
  };
  assert.equal(report.consumed, count);
  assert.equal(report.consumedOrderly, count);
  assert.ok(report.shutdownMs < 3000, `shutdown took ${report.shutdownMs} ms`);
  assert.deepEqual(report.after, report.before, 'timers and sockets after shutdown, as before start');
});
