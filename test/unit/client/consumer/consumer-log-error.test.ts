/**
 * A consumer's warn line carries the failure itself, not only its text: an application's logger gets
 * `err` as the Error with its stack (and `cause`), as pino's `err` serializer prints it. No server is
 * needed: the name server address is a closed port, so the offset fetch fails.
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { test } from 'node:test';
import { createPullConsumer } from '../../../../src/client/consumer/pull-consumer/pull-consumer.js';
import { MessageQueue } from '../../../../src/common/message/message-queue.js';

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  assert.ok(address !== null && typeof address === 'object');
  return address.port;
}

test("a failed offset fetch logs at warn with the Error's stack", async () => {
  const lines: { level: string; msg: string; fields: Record<string, unknown> }[] = [];
  const record = (level: string) => (fields: Record<string, unknown>, msg: string) => {
    lines.push({ level, msg, fields });
  };
  const consumer = createPullConsumer({
    namesrvAddr: `127.0.0.1:${await closedPort()}`,
    consumerGroup: 'log_error_cg',
    logger: { debug: record('debug'), info: record('info'), warn: record('warn'), error: record('error') },
  });
  await consumer.start();
  try {
    const offset = await consumer.fetchConsumeOffset(new MessageQueue('LogErrorTopic', 'broker-a', 0), true);
    assert.equal(offset, -2n, 'a failed fetch answers -2 as upstream');
  } finally {
    await consumer.shutdown();
  }
  const line = lines.find((l) => l.msg === 'fetchConsumeOffsetFromBroker failed');
  assert.ok(line !== undefined, `no fetch failure line in ${JSON.stringify(lines.map((l) => l.msg))}`);
  assert.equal(line.level, 'warn');
  const err = line.fields.err;
  assert.ok(err instanceof Error, 'the Error itself reaches the logger');
  assert.match(err.stack ?? '', /\n\s+at /, 'with its stack');
  assert.equal(line.fields.error, err.message, 'the text stays in the fields');
});
