/**
 * Child process of push-consumer-shutdown.test.ts: a user's script. It starts a concurrent and an
 * orderly push consumer, waits until each consumed the messages the parent sent, prints a ready line,
 * waits for the parent to close its stdin, shuts both down and returns without calling process.exit:
 * the process must end by itself, which it only does when the consumers left no timer and no socket
 * behind. Prints one JSON line with what it saw.
 *
 * Arguments: --push-consumer-shutdown-child <namesrvAddr> <topic> <orderly topic> <count>. Imported or
 * run by the test runner without them it does nothing.
 */
import { once } from 'node:events';
import { createLogger } from '../../../src/common/logger.js';
import { createPushConsumer, type PushConsumer } from '../../../src/index.js';

function leakable(): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const kind of process.getActiveResourcesInfo()) {
    if (kind === 'TCPSocketWrap' || kind === 'Timeout' || kind === 'TCPWRAP')
      counts[kind] = (counts[kind] ?? 0) + 1;
  }
  return counts;
}

async function main(namesrvAddr: string, topic: string, orderlyTopic: string, count: number): Promise<void> {
  const before = leakable();
  const logger = createLogger('child', { level: 'silent' });
  const common = {
    namesrvAddr,
    clientIP: '127.0.0.1',
    logger,
    consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
    rebalanceWaitInterval: 1000,
    heartbeatBrokerInterval: 1000,
    lockInterval: 1000,
  } as const;
  let consumed = 0;
  let consumedOrderly = 0;
  const concurrent: PushConsumer = createPushConsumer({ ...common, consumerGroup: `child-c-${process.pid}` });
  concurrent.subscribe(topic, '*');
  concurrent.registerMessageListener({
    type: 'concurrently',
    async consumeMessage(msgs) {
      consumed += msgs.length;
      return 'CONSUME_SUCCESS' as const;
    },
  });
  const orderly: PushConsumer = createPushConsumer({ ...common, consumerGroup: `child-o-${process.pid}` });
  orderly.subscribe(orderlyTopic, '*');
  orderly.registerMessageListener({
    type: 'orderly',
    async consumeMessage(msgs) {
      consumedOrderly += msgs.length;
      return 'SUCCESS' as const;
    },
  });
  await Promise.all([concurrent.start(), orderly.start()]);
  process.stdout.write(
    `${JSON.stringify({ started: true, groups: [concurrent.consumerGroup, orderly.consumerGroup], clientIds: [concurrent.clientId, orderly.clientId] })}\n`,
  );
  while (consumed < count || consumedOrderly < count) await new Promise((resolve) => setTimeout(resolve, 10));
  process.stdout.write('{"ready":true}\n');
  process.stdin.resume();
  await once(process.stdin, 'end');
  const started = Date.now();
  await Promise.all([concurrent.shutdown(), orderly.shutdown()]);
  const shutdownMs = Date.now() - started;
  // Closed sockets release their handles on the next turns of the loop.
  await new Promise((resolve) => setImmediate(resolve));
  process.stdout.write(
    `${JSON.stringify({ consumed, consumedOrderly, shutdownMs, before, after: leakable() })}\n`,
  );
}

const flag = process.argv.indexOf('--push-consumer-shutdown-child');
if (flag >= 0) {
  const [namesrvAddr, topic, orderlyTopic, count] = process.argv.slice(flag + 1);
  if (namesrvAddr === undefined || topic === undefined || orderlyTopic === undefined || count === undefined) {
    throw new Error('usage: --push-consumer-shutdown-child <namesrvAddr> <topic> <orderly topic> <count>');
  }
  await main(namesrvAddr, topic, orderlyTopic, Number(count));
}
