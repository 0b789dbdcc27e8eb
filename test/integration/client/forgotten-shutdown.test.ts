/**
 * What keeps a process alive (docs/producer.md): a test file that forgets to shut its producer, pull
 * and lite pull consumers and admin down still ends (a child runs `node --test` on
 * forgotten-shutdown-child.js), while `await using` shuts every client and startEmbedded's handle
 * down at the end of its scope.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createAdmin } from '../../../src/admin/admin.js';
import {
  ClientStateError,
  createLitePullConsumer,
  createProducer,
  createPullConsumer,
  createPushConsumer,
  createTransactionProducer,
} from '../../../src/client/index.js';
import { activeClientIds } from '../../../src/client/instance/mq-client-manager.js';
import { createLogger } from '../../../src/common/logger.js';
import { startEmbedded } from '../../../src/embedded/embedded.js';

/** The child's whole run: the embedded broker's start, four clients, close; far below forever. */
const CHILD_DEADLINE_MS = 60_000;
const logger = createLogger('dispose', { level: 'silent' });

test('a test file that forgets shutdown() on its clients exits by itself', async () => {
  const file = fileURLToPath(new URL('./forgotten-shutdown-child.js', import.meta.url));
  // A run of its own, not a subtest of this one: node:test marks its children through this variable.
  const env = { ...process.env };
  delete env.NODE_TEST_CONTEXT;
  const child = spawn(process.execPath, ['--test', '--test-reporter=tap', file], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env,
  });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  const begin = Date.now();
  let killer: NodeJS.Timeout | undefined;
  const code = await new Promise<number | string | null>((resolve) => {
    killer = setTimeout(() => {
      child.kill('SIGKILL');
      resolve('killed: still alive after the deadline');
    }, CHILD_DEADLINE_MS);
    child.once('exit', (exitCode) => resolve(exitCode));
  });
  clearTimeout(killer);
  assert.equal(code, 0, out);
  assert.match(out, /\{"left":"running"\}/, 'the clients were left running');
  assert.match(out, /# pass 1/);
  process.stdout.write(`# forgotten-shutdown child exited in ${Date.now() - begin} ms\n`);
});

test('await using shuts each client and the embedded pair down at the end of its scope', async () => {
  const ids: Array<string | undefined> = [];
  let producerRef: ReturnType<typeof createProducer> | undefined;
  let closedEmbedded: { storeDir: string } | undefined;
  {
    await using embedded = await startEmbedded();
    closedEmbedded = embedded;
    const namesrvAddr = embedded.namesrvAddr;
    const common = { namesrvAddr, logger, clientIP: '127.0.0.1' };
    await using producer = createProducer({ ...common, producerGroup: 'using-pg', instanceName: 'using-p' });
    await producer.start();
    producerRef = producer;
    await using tx = createTransactionProducer({
      ...common,
      producerGroup: 'using-tx',
      instanceName: 'using-tx',
      checkListener: () => 'COMMIT_MESSAGE',
    });
    await tx.start();
    await using push = createPushConsumer({
      ...common,
      consumerGroup: 'using-push',
      instanceName: 'using-push',
    });
    push.subscribe('UsingTopic', '*');
    push.registerMessageListener({ type: 'concurrently', consumeMessage: async () => 'CONSUME_SUCCESS' });
    await push.start();
    await using pull = createPullConsumer({
      ...common,
      consumerGroup: 'using-pull',
      instanceName: 'using-pull',
    });
    await pull.start();
    await using lite = createLitePullConsumer({
      ...common,
      consumerGroup: 'using-lite',
      instanceName: 'using-lite',
    });
    lite.subscribe('UsingTopic', '*');
    await lite.start();
    await using admin = createAdmin({ ...common, instanceName: 'using-admin' });
    await admin.start();
    ids.push(producer.clientId, tx.clientId, push.clientId, pull.clientId, lite.clientId);
    for (const id of ids) assert.ok(id !== undefined && activeClientIds().includes(id), `${id} runs`);
  }
  for (const id of ids) assert.ok(!activeClientIds().includes(id as string), `${id} still runs`);
  await assert.rejects(
    (producerRef as ReturnType<typeof createProducer>).send({ topic: 'UsingTopic', body: 'x' }),
    (error: unknown) => error instanceof ClientStateError,
  );
  const { existsSync } = await import('node:fs');
  assert.equal(
    existsSync((closedEmbedded as { storeDir: string }).storeDir),
    false,
    'the embedded pair was not closed',
  );
});
