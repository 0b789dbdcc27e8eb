/**
 * Child process of pull-shutdown.test.ts: a user's script with both pull consumers. The lite pull
 * consumer subscribes, polls every message, seeks, iterates and breaks, then leaves a poll and an
 * iteration waiting; the pull consumer pulls and leaves a pullBlockIfNotFound held at the broker. Once the parent closes its stdin, it shuts both
 * down and returns without process.exit: the process must end by itself, which it only does when the
 * consumers left no timer and no socket behind. Prints one JSON line with what it saw.
 *
 * Arguments: --pull-shutdown-child <namesrvAddr> <topic> <count> <held topic>. Imported or run by the
 * test runner without them it does nothing.
 */
import { once } from 'node:events';
import { createLogger } from '../../../src/common/logger.js';
import { createLitePullConsumer, createPullConsumer, MessageQueue } from '../../../src/index.js';

/** Active handles of the kinds a client could leak, by kind. */
function leakable(): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const kind of process.getActiveResourcesInfo()) {
    if (kind === 'TCPSocketWrap' || kind === 'Timeout' || kind === 'TCPWRAP')
      counts[kind] = (counts[kind] ?? 0) + 1;
  }
  return counts;
}

async function main(namesrvAddr: string, topic: string, count: number, heldTopic: string): Promise<void> {
  const before = leakable();
  const logger = createLogger('child', { level: 'silent' });
  const lite = createLitePullConsumer({
    namesrvAddr,
    consumerGroup: `lp-child-${process.pid}`,
    consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
    brokerSuspendMaxTimeMillis: 1000,
    consumerTimeoutMillisWhenSuspend: 3000,
    logger,
  });
  lite.subscribe(topic, '*');
  await lite.start();
  let polled = 0;
  const deadline = Date.now() + 10_000;
  while (polled < count && Date.now() < deadline) polled += (await lite.poll({ timeoutMs: 200 })).length;
  const mq = lite.assignment()[0] as MessageQueue;
  await lite.seek(mq, 0);
  let iterated = 0;
  for await (const _msg of lite) {
    iterated += 1;
    if (iterated === 2) break;
  }
  // The loop passed one message and broke on the second: the other nine come back to poll.
  let drained = 0;
  while (drained < count - 1 && Date.now() < deadline + 10_000)
    drained += (await lite.poll({ timeoutMs: 200 })).length;

  const pull = createPullConsumer({
    namesrvAddr,
    consumerGroup: `pc-child-${process.pid}`,
    registerTopics: [topic],
    logger,
  });
  await pull.start();
  const queues = await pull.fetchSubscribeMessageQueues(topic);
  let pulled = 0;
  for (const q of queues) pulled += (await pull.pull(q, '*', 0, 32)).msgFoundList.length;
  // Held by the broker for brokerSuspendMaxTimeMillis (20 s): shutdown must not wait for it.
  const brokerName = (queues[0] as MessageQueue).brokerName;
  const held = pull.pullBlockIfNotFound(new MessageQueue(heldTopic, brokerName, 0), '*', 0, 1);
  const heldOutcome = held.then(
    (r) => `answered ${r.pullStatus}`,
    (e: unknown) => (e as { name?: string }).name ?? String(e),
  );
  // Waits of a minute under way at shutdown: they must end, and their timers with them.
  const waitingPoll = lite.poll({ timeoutMs: 60_000 }).then((msgs) => `polled ${msgs.length}`);
  const waitingIteration = lite[Symbol.asyncIterator]()
    .next()
    .then((r) => (r.done === true ? 'done' : 'a message'));
  process.stdout.write('{"ready":true}\n');
  process.stdin.resume();
  await once(process.stdin, 'end');
  const shutdownStarted = Date.now();
  await Promise.all([lite.shutdown(), pull.shutdown()]);
  const shutdownMs = Date.now() - shutdownStarted;
  const heldResult = await heldOutcome;
  const waits = [await waitingPoll, await waitingIteration];
  // Closed sockets release their handles on the next turns of the loop.
  await new Promise((resolve) => setImmediate(resolve));
  const result = {
    polled,
    iterated,
    drained,
    pulled,
    held: heldResult,
    waits,
    shutdownMs,
    before,
    after: leakable(),
  };
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

const flag = process.argv.indexOf('--pull-shutdown-child');
if (flag >= 0) {
  const [namesrvAddr, topic, count, heldTopic] = process.argv.slice(flag + 1);
  if (namesrvAddr === undefined || topic === undefined || count === undefined || heldTopic === undefined) {
    throw new Error('usage: --pull-shutdown-child <namesrvAddr> <topic> <count> <held topic>');
  }
  await main(namesrvAddr, topic, Number(count), heldTopic);
}
