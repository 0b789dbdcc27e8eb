/**
 * Child process of push-consumer-group.test.ts: one of our orderly push consumers in a process of its
 * own, so the test can SIGKILL it (no shutdown, no unlock, no offset persist) and start it again with
 * the same client id. Prints one JSON line per event: {"clientId"} once started, {"held":[queueIds]}
 * whenever its queues of the topic change, {"msg":{..}} per delivery (printed before the listener
 * answers SUCCESS, after `workMs` of pretended work per call). Shuts down when stdin closes.
 *
 * Arguments: --push-consumer-child <namesrvAddr> <topic> <group> <instanceName> <workMs>. Imported or
 * run by the test runner without them it does nothing.
 */
import diagnosticsChannel from 'node:diagnostics_channel';
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { CHANNEL_NAMES } from '../../src/index.js';
import { deliveryOf, ourConsumer, queueIdsOf } from './push-consumer-support.js';

function line(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value)}\n`);
}

async function main(
  namesrvAddr: string,
  topic: string,
  group: string,
  instanceName: string,
  workMs: number,
): Promise<void> {
  diagnosticsChannel.subscribe(CHANNEL_NAMES.rebalance, (event) => {
    const e = event as { topic: string; mqDivided: Parameters<typeof queueIdsOf>[0] };
    if (e.topic === topic) line({ held: queueIdsOf(e.mqDivided, topic) });
  });
  const consumer = ourConsumer(namesrvAddr, group, { instanceName });
  consumer.subscribe(topic, '*');
  consumer.registerMessageListener({
    type: 'orderly',
    async consumeMessage(msgs) {
      const receivedAt = Date.now();
      await sleep(workMs);
      for (const m of msgs) line({ msg: deliveryOf(instanceName, m, receivedAt) });
      return 'SUCCESS' as const;
    },
  });
  await consumer.start();
  line({ clientId: consumer.clientId });
  process.stdin.resume();
  await once(process.stdin, 'end');
  await consumer.shutdown();
}

const at = process.argv.indexOf('--push-consumer-child');
if (at >= 0) {
  const [namesrvAddr, topic, group, instanceName, workMs] = process.argv.slice(at + 1);
  if (
    namesrvAddr === undefined ||
    topic === undefined ||
    group === undefined ||
    instanceName === undefined ||
    workMs === undefined
  ) {
    process.stderr.write(
      'usage: --push-consumer-child <namesrvAddr> <topic> <group> <instanceName> <workMs>\n',
    );
    process.exitCode = 64;
  } else {
    main(namesrvAddr, topic, group, instanceName, Number(workMs)).catch((error: unknown) => {
      process.stderr.write(`push-consumer-child: ${String(error)}\n`);
      process.exitCode = 1;
    });
  }
}
