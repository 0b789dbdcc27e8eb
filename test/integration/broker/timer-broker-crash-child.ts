/**
 * Child process of timer-broker-crash.test.ts: a whole broker over `<dir>` (timerPrecisionMs 100,
 * checkpoint every 100 ms) takes TIMER_CRASH_MESSAGES timer messages with SEND_MESSAGE over its own
 * port (even ones TIMER_DELIVER_MS, odd ones TIMER_DELAY_MS), due over about two seconds, then reports
 * how many reached the real topic until it is killed. One line per event, with a blocking write so
 * every line the parent reads happened:
 *
 *   S <i> <due>   the broker answered SUCCESS; <due> is the earliest time message i may be given out
 *   D             every message was sent and confirmed
 *   N <count>     messages in the real topic so far (after D)
 *
 * Arguments: --timer-broker-crash-child <dir>. Imported by the test runner it does nothing.
 */
import * as fs from 'node:fs';
import { createBroker } from '../../../src/broker/broker-controller.js';
import { createLogger } from '../../../src/common/logger.js';
import { MessageConst } from '../../../src/common/message/message-const.js';
import { ResponseCode } from '../../../src/remoting/protocol/response-code.js';
import { RemotingClient } from '../../../src/remoting/transport/index.js';
import { runChild } from '../store/crash-support.js';
import { createTopicAndGroup } from './pop-revive-support.js';
import { sendRequest } from './pop-support.js';

export const TIMER_BROKER_CRASH_TOPIC = 'TimerBrokerCrash';
export const TIMER_BROKER_CRASH_MESSAGES = 300;
export const TIMER_BROKER_CRASH_QUEUES = 2;
export const TIMER_BROKER_CRASH_PRECISION = 100;
/** The first message is due this long after the child starts sending, the last SPREAD_MS later. */
const LEAD_MS = 1200;
const SPREAD_MS = 2000;
const SENDERS = 8;

export function timerBrokerCrashConfig(dir: string) {
  return {
    storePathRootDir: dir,
    listenPort: 0,
    listenHost: '127.0.0.1',
    brokerIP1: '127.0.0.1',
    brokerName: 'broker-timer-crash',
    haListenHost: '127.0.0.1',
    mappedFileSizeCommitLog: 1 << 20,
    mappedFileSizeConsumeQueue: 20 * 1024,
    timerPrecisionMs: TIMER_BROKER_CRASH_PRECISION,
    timerFlushIntervalMs: 100,
  } as const;
}

function line(text: string): void {
  fs.writeSync(1, `${text}\n`);
}

async function main(args: string[]): Promise<void> {
  const [dir] = args;
  if (dir === undefined) throw new Error('usage: --timer-broker-crash-child <dir>');
  const broker = createBroker({
    config: timerBrokerCrashConfig(dir),
    logger: createLogger('timer-broker-crash-child', { level: 'error' }),
  });
  await broker.start();
  createTopicAndGroup(broker, TIMER_BROKER_CRASH_TOPIC, 'TimerBrokerCrashG', TIMER_BROKER_CRASH_QUEUES);
  const client = new RemotingClient({}, { logger: createLogger('timer-crash-client', { level: 'error' }) });
  const addr = `127.0.0.1:${broker.listenPort}`;
  const base = Date.now() + LEAD_MS;
  let next = 0;
  const sender = async (): Promise<void> => {
    for (let i = next++; i < TIMER_BROKER_CRASH_MESSAGES; i = next++) {
      const at = base + Math.floor((i * SPREAD_MS) / TIMER_BROKER_CRASH_MESSAGES);
      const before = Date.now();
      // TIMER_DELAY_MS counts from the broker's receipt, which is after `before`.
      const [name, value, due] =
        i % 2 === 0
          ? [MessageConst.PROPERTY_TIMER_DELIVER_MS, String(at), at]
          : [MessageConst.PROPERTY_TIMER_DELAY_MS, String(at - before), at];
      const r = await client.invoke(
        addr,
        sendRequest(TIMER_BROKER_CRASH_TOPIC, `t-${i}`, {
          queueId: i % TIMER_BROKER_CRASH_QUEUES,
          properties: { [name]: value },
        }),
      );
      if (r.code !== ResponseCode.SUCCESS) throw new Error(`send ${i}: ${r.code} ${r.remark}`);
      line(`S ${i} ${due}`);
    }
  };
  await Promise.all(Array.from({ length: SENDERS }, sender));
  line('D');
  for (;;) {
    let n = 0n;
    for (let q = 0; q < TIMER_BROKER_CRASH_QUEUES; q++)
      n += broker.messageStore.getMaxOffsetInQueue(TIMER_BROKER_CRASH_TOPIC, q);
    line(`N ${n}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

runChild('--timer-broker-crash-child', main);
