/**
 * Child process of producer-shutdown.test.ts: a user's script. It starts a producer, sends (sync,
 * oneway, batch, many in flight), fires 64 sends to a topic whose sends the parent's broker holds,
 * waits for the parent to close its stdin (the broker then holds all 64), shuts the producer down
 * and returns without calling process.exit: the process must end by itself, which it only does when
 * the producer left no timer and no socket behind. Prints one JSON line with what it saw.
 *
 * Arguments: --shutdown-child <namesrvAddr> <topic> <held topic>. Imported or run by the test runner
 * without them it does nothing.
 */
import { once } from 'node:events';
import { createLogger } from '../../../src/common/logger.js';
import { ClientStateError, createProducer, Message, SendStatus } from '../../../src/index.js';

/** Active handles of the kinds a client could leak, by kind. */
function leakable(): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const kind of process.getActiveResourcesInfo()) {
    if (kind === 'TCPSocketWrap' || kind === 'Timeout' || kind === 'TCPWRAP')
      counts[kind] = (counts[kind] ?? 0) + 1;
  }
  return counts;
}

async function main(namesrvAddr: string, topic: string, heldTopic: string): Promise<void> {
  const before = leakable();
  const producer = createProducer({
    namesrvAddr,
    producerGroup: `shutdown-child-${process.pid}`,
    logger: createLogger('child', { level: 'silent' }),
  });
  await producer.start();
  const ok: string[] = [];
  ok.push((await producer.send({ topic, body: 'sync' })).sendStatus);
  await producer.sendOneway({ topic, body: 'oneway' });
  ok.push(
    (await producer.send([new Message(topic, Buffer.from('b1')), new Message(topic, Buffer.from('b2'))]))
      .sendStatus,
  );
  const many = await Promise.all(
    Array.from({ length: 64 }, (_, i) => producer.send({ topic, body: `m${i}` })),
  );
  ok.push(...many.map((r) => r.sendStatus));
  await producer.fetchPublishMessageQueues(heldTopic);

  const pending = Array.from({ length: 64 }, (_, i) =>
    producer.send(
      { topic: heldTopic, body: `held-${i}` },
      { communicationMode: i % 2 === 0 ? 'SYNC' : 'ASYNC' },
    ),
  );
  const outcomes = Promise.allSettled(pending);
  process.stdout.write('{"ready":true}\n');
  process.stdin.resume();
  await once(process.stdin, 'end');
  const shutdownStarted = Date.now();
  await producer.shutdown();
  const shutdownMs = Date.now() - shutdownStarted;
  const settled = await outcomes;
  // Closed sockets release their handles on the next turns of the loop.
  await new Promise((resolve) => setImmediate(resolve));
  const result = {
    sendOk: ok.filter((s) => s === SendStatus.SEND_OK).length,
    sends: ok.length,
    stateErrors: settled.filter((s) => s.status === 'rejected' && s.reason instanceof ClientStateError)
      .length,
    other: settled
      .filter((s) => !(s.status === 'rejected' && s.reason instanceof ClientStateError))
      .map((s) => (s.status === 'rejected' ? String(s.reason) : 'fulfilled')),
    shutdownMs,
    before,
    after: leakable(),
  };
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

const flag = process.argv.indexOf('--shutdown-child');
if (flag >= 0) {
  const [namesrvAddr, topic, heldTopic] = process.argv.slice(flag + 1);
  if (namesrvAddr === undefined || topic === undefined || heldTopic === undefined) {
    throw new Error('usage: --shutdown-child <namesrvAddr> <topic> <held topic>');
  }
  await main(namesrvAddr, topic, heldTopic);
}
