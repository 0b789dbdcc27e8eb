/**
 * shutdown() during sends: the sends still waiting fail at once with a ClientStateError, and the
 * producer leaves no timer and no socket behind: a child process running a small producer script
 * must end by itself within a deadline.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { BrokerController } from '../../../src/broker/broker-controller.js';
import { ClientStateError, type SendResult } from '../../../src/index.js';
import { RequestCode } from '../../../src/remoting/protocol/request-code.js';
import {
  createTopic,
  newProducer,
  startCluster,
  type TestCluster,
  timed,
  uniqueName,
  until,
  wrapHandler,
} from './support.js';

/** How long the child may take from its last step to its exit. */
const CHILD_EXIT_DEADLINE_MS = 10_000;

let cluster: TestCluster;
let broker: BrokerController;
const heldTopics = new Set<string>();
const held: Array<() => void> = [];
const heldBy = new Map<string, number>();

before(async () => {
  cluster = await startCluster();
  broker = cluster.brokers[0] as BrokerController;
  wrapHandler(broker, RequestCode.SEND_MESSAGE_V2, (real) => (b, ctx, request) => {
    const topic = request.extFields?.b ?? '';
    if (!heldTopics.has(topic)) return real(b, ctx, request);
    heldBy.set(topic, (heldBy.get(topic) ?? 0) + 1);
    return new Promise((resolve, reject) => {
      held.push(() => {
        Promise.resolve(real(b, ctx, request)).then(resolve, reject);
      });
    });
  });
});

after(async () => {
  for (const release of held.splice(0)) release();
  await cluster?.close();
});

test('shutdown() with 64 sends waiting at the broker fails each with a ClientStateError at once', async () => {
  const topic = uniqueName('HeldShutdown');
  await createTopic(cluster, topic, 4);
  const producer = newProducer({ namesrvAddr: cluster.namesrvAddr });
  await producer.start();
  await producer.fetchPublishMessageQueues(topic);
  heldTopics.add(topic);
  const sends: Promise<SendResult>[] = Array.from({ length: 64 }, (_, i) =>
    producer.send({ topic, body: `pending-${i}` }, { communicationMode: i % 2 === 0 ? 'SYNC' : 'ASYNC' }),
  );
  const outcomes = Promise.allSettled(sends);
  await until(() => heldBy.get(topic) === 64, 'the broker holds all 64 sends');
  const stopping = timed(producer.shutdown());
  const late = producer.send({ topic, body: 'after shutdown began' });
  const settled = await outcomes;
  for (const s of settled) {
    assert.equal(s.status, 'rejected');
    assert.ok(s.reason instanceof ClientStateError, String(s.reason));
    assert.equal(s.reason.state, 'SHUTDOWN_ALREADY');
    assert.equal(s.reason.retriable, false);
    assert.equal(s.reason.topic, topic);
  }
  await assert.rejects(late, ClientStateError);
  const shutdown = await stopping;
  assert.equal(shutdown.ok, true, String(shutdown.error));
  assert.ok(shutdown.ms < 2000, `shutdown took ${shutdown.ms} ms`);
  await producer.shutdown();
});

test('a script that shuts its producer down (sends waiting included) exits by itself: no timer or socket left', async () => {
  const topic = uniqueName('ChildTopic');
  const heldTopic = uniqueName('ChildHeld');
  await createTopic(cluster, topic, 4);
  await createTopic(cluster, heldTopic, 4);
  heldTopics.add(heldTopic);
  const script = fileURLToPath(new URL('./shutdown-child.js', import.meta.url));
  const child = spawn(process.execPath, [script, '--shutdown-child', cluster.namesrvAddr, topic, heldTopic], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const lines: string[] = [];
  createInterface({ input: child.stdout }).on('line', (line) => lines.push(line));
  let killer: NodeJS.Timeout | undefined;
  try {
    await until(() => lines.includes('{"ready":true}'), 'the child fired its sends', 10_000);
    await until(() => heldBy.get(heldTopic) === 64, 'the broker holds the child 64 sends');
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
    sendOk: number;
    sends: number;
    stateErrors: number;
    other: string[];
    shutdownMs: number;
    before: Record<string, number>;
    after: Record<string, number>;
  };
  assert.equal(report.sends, 66);
  assert.equal(report.sendOk, 66);
  assert.equal(report.stateErrors, 64, report.other.join('; '));
  assert.ok(report.shutdownMs < 2000, `shutdown took ${report.shutdownMs} ms`);
  assert.deepEqual(report.after, report.before, 'timers and sockets after shutdown, as before start');
});
