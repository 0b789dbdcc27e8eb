/**
 * Child process of pop-crash.test.ts: a broker over `<dir>` (real metadata files, offsets persisted
 * every 100 ms) puts POP_CRASH_MESSAGES messages, pops them with POP_MESSAGE over its own port in
 * batches of five (one checkpoint each), lets the revive service bring back the short-lived ones,
 * changes message 1 of each long-lived batch to a new checkpoint, acks with ACK_MESSAGE (message 1
 * with its handle from before the change), and keeps acking until it is killed. One line per event on stdout, written with a blocking write so every line the parent
 * reads happened:
 *
 *   P <body> <short|long>   popped (short: 300 ms invisible, never acked; long: 10 min)
 *   A <body>                the broker answered SUCCESS to the ACK_MESSAGE
 *   S <body>                an ACK_MESSAGE is about to be sent (may or may not have landed)
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
import { ackRequest, changeRequest, createTopicAndGroup, putMessages } from './pop-revive-support.js';
import { type Popped as Pop, popRequest, readPop } from './pop-support.js';

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
    flushConsumerOffsetDelay: 100,
    flushConsumerOffsetInterval: 100,
    reviveInterval: 50,
  } as const;
}

function line(text: string): void {
  fs.writeSync(1, `${text}\n`);
}

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
  const client = new RemotingClient({}, { logger: createLogger('pop-crash-client', { level: 'error' }) });
  const addr = `127.0.0.1:${broker.listenPort}`;
  const pops: Pop[] = [];
  for (let c = 0; c < POP_CRASH_MESSAGES / PER_CHECKPOINT; c++) {
    const short = c < POP_CRASH_SHORT_CHECKPOINTS;
    const request = popRequest({
      consumerGroup: POP_CRASH_GROUP,
      topic: POP_CRASH_TOPIC,
      queueId: c % QUEUES,
      maxMsgNums: PER_CHECKPOINT,
      invisibleTime: short ? 300n : 600_000n,
    });
    const p = readPop(await client.invoke(addr, request), broker.config.brokerName);
    if (p.messages.length !== PER_CHECKPOINT)
      throw new Error(`popped ${p.messages.length}: ${p.response.remark}`);
    pops.push(p);
    for (const m of p.messages) line(`P ${m.body.toString()} ${short ? 'short' : 'long'}`);
  }
  const ack = async (p: Pop, i: number) => {
    const m = p.messages[i]!;
    line(`S ${m.body.toString()}`);
    const r = await client.invoke(
      addr,
      ackRequest(POP_CRASH_GROUP, POP_CRASH_TOPIC, m.queueId, p.handles[i]!, m.queueOffset),
    );
    if (r.code === ResponseCode.SUCCESS) line(`A ${m.body.toString()}`);
  };
  const long = pops.slice(POP_CRASH_SHORT_CHECKPOINTS);
  // Message 1 of each long checkpoint gets a new checkpoint (still 10 min); it is acked later with
  // its old handle, which must reach the new checkpoint, also after the restart.
  for (const p of long) {
    const m = p.messages[1]!;
    const request = changeRequest(
      POP_CRASH_GROUP,
      POP_CRASH_TOPIC,
      m.queueId,
      p.handles[1]!,
      m.queueOffset,
      600_000n,
    );
    const r = await client.invoke(addr, request);
    if (r.code !== ResponseCode.SUCCESS) throw new Error(`change: ${r.code} ${r.remark}`);
  }
  for (const p of long) for (let i = 0; i < p.messages.length; i += 2) await ack(p, i);
  const shortMessages = POP_CRASH_SHORT_CHECKPOINTS * PER_CHECKPOINT;
  const deadline = Date.now() + 20_000;
  while (broker.popRevive.stats.revived < shortMessages) {
    if (Date.now() > deadline)
      throw new Error(`revived ${broker.popRevive.stats.revived} of ${shortMessages}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  line('R');
  // Until killed: the odd ones, one after the other.
  // Message 3 first: its old checkpoint is then complete and the revive offset may pass it while
  // the changed message 1 is still pending in its new checkpoint.
  for (const p of long) {
    await ack(p, 3);
    await ack(p, 1);
  }
  line('D');
  await new Promise(() => undefined);
}

runChild('--pop-crash-child', main);
