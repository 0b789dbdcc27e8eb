/**
 * Child process of pop-crash.test.ts: a broker over `<dir>` (real metadata files, offsets persisted
 * every 100 ms) puts POP_CRASH_MESSAGES messages, pops them in checkpoints of five, lets the revive
 * service bring back the short-lived ones, acks through its own port, and keeps acking until it is
 * killed. One line per event on stdout, written with a blocking write so every line the parent
 * reads happened:
 *
 *   P <uniq> <short|long>   popped (short: 300 ms invisible, never acked; long: 10 min)
 *   A <uniq>                the broker answered SUCCESS to the ACK_MESSAGE
 *   S <uniq>                an ACK_MESSAGE is about to be sent (may or may not have landed)
 *   R                       the short ones were revived; the acks after this line race the kill
 *
 * Arguments: --pop-crash-child <dir>. Imported by the test runner (without the flag) it does nothing.
 */
import * as fs from 'node:fs';
import { createBroker } from '../../../src/broker/broker-controller.js';
import { createLogger } from '../../../src/common/logger.js';
import { ResponseCode } from '../../../src/remoting/protocol/response-code.js';
import { RemotingClient } from '../../../src/remoting/transport/index.js';
import { runChild } from '../store/crash-support.js';
import { ackRequest, createTopicAndGroup, fakePop, type Popped, putMessages } from './pop-revive-support.js';

export const POP_CRASH_TOPIC = 'PopCrash';
export const POP_CRASH_GROUP = 'PopCrashG';
export const POP_CRASH_MESSAGES = 100;
export const POP_CRASH_SHORT_CHECKPOINTS = 4;
const QUEUES = 4;
const PER_CHECKPOINT = 5;

export function popCrashConfig(dir: string) {
  return {
    storePathRootDir: dir,
    listenPort: 0,
    listenHost: '127.0.0.1',
    brokerIP1: '127.0.0.1',
    brokerName: 'broker-crash',
    haListenHost: '127.0.0.1',
    mappedFileSizeCommitLog: 1 << 20,
    mappedFileSizeConsumeQueue: 20 * 1024,
    flushConsumerOffsetInterval: 100,
    reviveInterval: 50,
  } as const;
}

function line(text: string): void {
  fs.writeSync(1, `${text}\n`);
}

const uniq = (p: Popped, i: number, prefix: string) => `${prefix}${p.queueId}-${p.offsets[i]}`;

async function main(args: string[]): Promise<void> {
  const [dir] = args;
  if (dir === undefined) throw new Error('usage: --pop-crash-child <dir>');
  const broker = createBroker({
    config: popCrashConfig(dir),
    logger: createLogger('pop-crash-child', { level: 'error' }),
  });
  await broker.start();
  createTopicAndGroup(broker, POP_CRASH_TOPIC, POP_CRASH_GROUP, QUEUES);
  for (let q = 0; q < QUEUES; q++)
    await putMessages(broker, POP_CRASH_TOPIC, q, POP_CRASH_MESSAGES / QUEUES, `q${q}`);
  const pops: Popped[] = [];
  for (let c = 0; c < POP_CRASH_MESSAGES / PER_CHECKPOINT; c++) {
    const short = c < POP_CRASH_SHORT_CHECKPOINTS;
    const p = await fakePop(broker, {
      topic: POP_CRASH_TOPIC,
      group: POP_CRASH_GROUP,
      queueId: c % QUEUES,
      count: PER_CHECKPOINT,
      invisibleTime: short ? 300 : 600_000,
      reviveQid: c % broker.popRevive.reviveQueueNum,
    });
    pops.push(p);
    // Bodies are `q<queueId>-<i>` with i the queue offset (one put run per queue from offset 0).
    for (let i = 0; i < p.offsets.length; i++) line(`P ${uniq(p, i, 'q')} ${short ? 'short' : 'long'}`);
  }
  const client = new RemotingClient({}, { logger: createLogger('pop-crash-client', { level: 'error' }) });
  const addr = `127.0.0.1:${broker.listenPort}`;
  const ack = async (p: Popped, i: number) => {
    line(`S ${uniq(p, i, 'q')}`);
    const r = await client.invoke(
      addr,
      ackRequest(POP_CRASH_GROUP, p.topic, p.queueId, p.handles[i]!, p.offsets[i]!),
    );
    if (r.code === ResponseCode.SUCCESS) line(`A ${uniq(p, i, 'q')}`);
  };
  const long = pops.slice(POP_CRASH_SHORT_CHECKPOINTS);
  for (const p of long) for (let i = 0; i < p.offsets.length; i += 2) await ack(p, i);
  const shortMessages = POP_CRASH_SHORT_CHECKPOINTS * PER_CHECKPOINT;
  const deadline = Date.now() + 20_000;
  while (broker.popRevive.stats.revived < shortMessages) {
    if (Date.now() > deadline)
      throw new Error(`revived ${broker.popRevive.stats.revived} of ${shortMessages}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  line('R');
  // Until killed: the odd ones, one after the other.
  for (const p of long) for (let i = 1; i < p.offsets.length; i += 2) await ack(p, i);
  line('D');
  await new Promise(() => undefined);
}

runChild('--pop-crash-child', main);
