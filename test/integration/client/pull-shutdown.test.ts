/**
 * Shutting the lite pull and pull consumers down leaves no timer and no socket behind: a child
 * process that used both (polls, a seek, an iteration, pulls; at shutdown a poll and an iteration
 * waiting and a long poll held at the broker) must end by itself within a deadline, the held pull
 * failed at once with a ClientStateError, the waits ended.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { BrokerController } from '../../../src/broker/broker-controller.js';
import type { Producer } from '../../../src/client/index.js';
import { sendMany } from './consumer-support.js';
import { PullWatch } from './pull-support.js';
import { createTopic, newProducer, startCluster, type TestCluster, uniqueName, until } from './support.js';

/** How long the child may take from its last step to its exit. */
const CHILD_EXIT_DEADLINE_MS = 10_000;

let cluster: TestCluster;
let producer: Producer;
let watch: PullWatch;

before(async () => {
  cluster = await startCluster({ longPollingCheckInterval: 100 });
  watch = new PullWatch(cluster.brokers[0] as BrokerController);
  producer = newProducer({ namesrvAddr: cluster.namesrvAddr });
  await producer.start();
});

after(async () => {
  await producer?.shutdown();
  await cluster?.close();
});

test('a script that shuts its lite pull and pull consumers down exits by itself: no timer or socket left', async () => {
  const topic = uniqueName('PullChild');
  const heldTopic = uniqueName('PullChildHeld');
  await createTopic(cluster, topic, 1);
  await createTopic(cluster, heldTopic, 1);
  await sendMany(producer, 10, (i) => ({ topic, body: `c${i}` }));
  const script = fileURLToPath(new URL('./pull-shutdown-child.js', import.meta.url));
  const child = spawn(
    process.execPath,
    [script, '--pull-shutdown-child', cluster.namesrvAddr, topic, '10', heldTopic],
    { stdio: ['pipe', 'pipe', 'inherit'] },
  );
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const lines: string[] = [];
  createInterface({ input: child.stdout }).on('line', (line) => lines.push(line));
  let killer: NodeJS.Timeout | undefined;
  try {
    await until(() => lines.includes('{"ready":true}'), 'the child consumed and left a pull held', 15_000);
    await until(
      () => watch.arrived(heldTopic, 0) === 1 && !watch.idle(heldTopic, 0),
      'the broker holds the pull',
    );
    child.stdin.end();
    killer = setTimeout(() => child.kill('SIGKILL'), CHILD_EXIT_DEADLINE_MS);
    const { code, signal } = await exited;
    assert.equal(signal, null, `the child did not exit by itself within ${CHILD_EXIT_DEADLINE_MS} ms`);
    assert.equal(code, 0);
  } finally {
    clearTimeout(killer);
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
  const report = JSON.parse(lines[lines.length - 1] ?? '{}') as {
    polled: number;
    iterated: number;
    drained: number;
    pulled: number;
    held: string;
    waits: string[];
    shutdownMs: number;
    before: Record<string, number>;
    after: Record<string, number>;
  };
  assert.equal(report.polled, 10);
  assert.equal(report.iterated, 2);
  assert.equal(report.drained, 9);
  assert.equal(report.pulled, 10);
  assert.equal(report.held, 'ClientStateError', 'the pull held at shutdown fails with a ClientStateError');
  assert.deepEqual(report.waits, ['polled 0', 'done'], 'a poll and an iteration waiting at shutdown end');
  assert.ok(report.shutdownMs < 2000, `shutdown took ${report.shutdownMs} ms`);
  assert.deepEqual(report.after, report.before, 'timers and sockets after shutdown, as before start');
});
