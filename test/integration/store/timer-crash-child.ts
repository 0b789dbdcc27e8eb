/**
 * Child process of timer-crash.test.ts: opens a DefaultMessageStore and a TimerMessageStore on a
 * directory (recovering as the abort file and the timer checkpoint say) and gives out due timer
 * messages until it is killed. Lines on stdout (blocking writes):
 *
 *   R <scanned> <skipped> <pending>   recovered and started
 *   P                                 `put` mode: every timer message is stored
 *   N <delivered>                     messages given out by this process so far (every 20 ms)
 *   E                                 nothing pending any more (then it shuts down and exits 0)
 *
 * Arguments: --timer-crash-child <store dir> put <count> <baseMs> | recover. Imported or run by the
 * test runner (without the flag) it does nothing.
 */
import * as fs from 'node:fs';
import { createLogger } from '../../../src/common/logger.js';
import { messageStoreConfig } from '../../../src/store/config.js';
import { DefaultMessageStore } from '../../../src/store/default-message-store.js';
import type { MessageExtBrokerInner } from '../../../src/store/stored-record-writer.js';
import { TIMER_TOPIC } from '../../../src/store/timer/timer-config.js';
import { TimerMessageStore } from '../../../src/store/timer/timer-message-store.js';
import { runChild } from './crash-support.js';

export const TIMER_CRASH_TOPIC = 'TimerCrash';
export const TIMER_CRASH_PRECISION = 100;
/** Due times spread over this many slots from the base. */
export const TIMER_CRASH_SLOTS = 30;
const HOST = { address: '127.0.0.1', port: 10911 };

export function timerCrashConfig(root: string) {
  return messageStoreConfig({
    storePathRootDir: root,
    mappedFileSizeCommitLog: 1024 * 1024,
    mappedFileSizeConsumeQueue: 1000 * 20,
    flushIntervalCommitLog: 20,
    flushIntervalConsumeQueue: 30,
  });
}

export function timerCrashOutMs(i: number, baseMs: number): number {
  return baseMs + (i % TIMER_CRASH_SLOTS) * TIMER_CRASH_PRECISION;
}

function timerMessage(i: number, baseMs: number): MessageExtBrokerInner {
  const props: Array<[string, string]> = [
    ['UNIQ_KEY', `TC${String(i).padStart(30, '0')}`],
    ['TIMER_DELIVER_MS', String(timerCrashOutMs(i, baseMs) + 1)],
    ['TIMER_OUT_MS', String(timerCrashOutMs(i, baseMs))],
    ['REAL_TOPIC', TIMER_CRASH_TOPIC],
    ['REAL_QID', String(i % 2)],
  ];
  return {
    topic: TIMER_TOPIC,
    queueId: 0,
    flag: 0,
    body: Buffer.from(`m-${i}`),
    propertiesString: props.map(([k, v]) => `${k}\u0001${v}`).join('\u0002'),
    tagsCode: 0n,
    sysFlag: 0,
    bornTimestamp: BigInt(Date.now()),
    bornHost: HOST,
    storeHost: HOST,
    reconsumeTimes: 0,
    preparedTransactionOffset: 0n,
  };
}

async function main(args: string[]): Promise<void> {
  const [root, mode, countText, baseText] = args;
  if (root === undefined || mode === undefined)
    throw new Error('usage: --timer-crash-child <dir> put|recover ...');
  const logger = createLogger('timer-crash-child', { level: 'error' });
  const store = new DefaultMessageStore(timerCrashConfig(root), { logger, brokerStoreHost: HOST });
  await store.load();
  await store.start();
  const timer = new TimerMessageStore(store, {
    logger,
    timerPrecisionMs: TIMER_CRASH_PRECISION,
    timerFlushIntervalMs: 100,
  });
  await timer.load();
  timer.start();
  const r = timer.recoveryStats;
  fs.writeSync(1, `R ${r?.scanned} ${r?.skipped} ${r?.pending}\n`);
  if (mode === 'put') {
    const count = Number(countText);
    const baseMs = Number(baseText);
    const puts: Array<Promise<unknown>> = [];
    for (let i = 0; i < count; i++) puts.push(store.putMessage(timerMessage(i, baseMs)));
    await Promise.all(puts);
    fs.writeSync(1, 'P\n');
  }
  const report = setInterval(() => {
    fs.writeSync(1, `N ${timer.deliveredCount}\n`);
    if (mode === 'recover' && timer.pending === 0) {
      clearInterval(report);
      fs.writeSync(1, 'E\n');
      void timer
        .shutdown()
        .then(() => store.shutdown())
        .then(() => process.exit(0));
    }
  }, 20);
}

runChild('--timer-crash-child', main);
