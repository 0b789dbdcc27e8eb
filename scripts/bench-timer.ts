/**
 * Figures of the timer store (timer messages, 5.x): memory per pending message and how long a
 * restart takes to rebuild the wheel, for N pending messages (1,000,000 by default), once with their
 * due times packed into 60 s (dense: many per slot) and once spread over timerMaxDelaySec (3 days:
 * a few per slot). Messages go straight into the store's timer topic as the send path parks them,
 * due an hour or more from now so none is given out during the measurement. Prints figures; it is
 * not a test.
 *
 *   node --expose-gc <build>/scripts/bench-timer.js [--messages 1000000] [--dir D]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger } from '../src/common/logger.js';
import { messageStoreConfig } from '../src/store/config.js';
import { DefaultMessageStore } from '../src/store/default-message-store.js';
import type { MessageExtBrokerInner } from '../src/store/stored-record-writer.js';
import { TIMER_TOPIC } from '../src/store/timer/timer-config.js';
import { TimerMessageStore } from '../src/store/timer/timer-message-store.js';

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  const v = i >= 0 ? Number(process.argv[i + 1]) : fallback;
  return Number.isFinite(v) && v > 0 ? v : fallback;
}
function textArg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? (process.argv[i + 1] ?? fallback) : fallback;
}

const MESSAGES = arg('messages', 1_000_000);
const PUT_WINDOW = 2000;
const HOST = { address: '127.0.0.1', port: 10911 };
const quiet = createLogger('bench-timer', { level: 'error' });
const gc = (globalThis as { gc?: () => void }).gc;

function heap(): number {
  gc?.();
  gc?.();
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
}

function timerMessage(i: number, outMs: number): MessageExtBrokerInner {
  const props = [
    `UNIQ_KEY\u0001BT${String(i).padStart(30, '0')}`,
    `TIMER_DELAY_SEC\u00013600`,
    `TIMER_OUT_MS\u0001${outMs}`,
    'REAL_TOPIC\u0001BenchTimer',
    'REAL_QID\u00010',
  ].join('\u0002');
  return {
    topic: TIMER_TOPIC,
    queueId: 0,
    flag: 0,
    body: Buffer.from(`timer-${i}`),
    propertiesString: props,
    tagsCode: 0n,
    sysFlag: 0,
    bornTimestamp: BigInt(Date.now()),
    bornHost: HOST,
    storeHost: HOST,
    reconsumeTimes: 0,
    preparedTransactionOffset: 0n,
  };
}

function openStore(root: string): DefaultMessageStore {
  return new DefaultMessageStore(messageStoreConfig({ storePathRootDir: root }), {
    logger: quiet,
    brokerStoreHost: HOST,
  });
}

async function scenario(name: string, spreadMs: number, dir: string): Promise<void> {
  const root = mkdtempSync(join(dir, `rmq-bench-timer-${name}-`));
  try {
    let store = openStore(root);
    await store.load();
    await store.start();
    const base = Math.ceil((Date.now() + 3_600_000) / 1000) * 1000;
    const slots = spreadMs / 1000;
    const putStarted = performance.now();
    for (let i = 0; i < MESSAGES; i += PUT_WINDOW) {
      const puts: Array<Promise<unknown>> = [];
      for (let k = i; k < Math.min(MESSAGES, i + PUT_WINDOW); k++) {
        puts.push(store.putMessage(timerMessage(k, base + (k % slots) * 1000)));
      }
      await Promise.all(puts);
    }
    const putMs = performance.now() - putStarted;
    await store.shutdown();

    // A restart: the store opens, then the timer rebuilds its wheel from the timer queue.
    const storeStarted = performance.now();
    store = openStore(root);
    await store.load();
    await store.start();
    const storeMs = performance.now() - storeStarted;
    const before = heap();
    const timer = new TimerMessageStore(store, { logger: quiet });
    const loadStarted = performance.now();
    await timer.load();
    const loadMs = performance.now() - loadStarted;
    const after = heap();
    const stats = timer.recoveryStats;
    const per = (after - before) / MESSAGES;
    console.log(
      `${name.padEnd(6)} ${MESSAGES} pending over ${slots} slots: ${per.toFixed(1)} B/pending ` +
        `(arrays ${(timer.wheelBytes() / MESSAGES).toFixed(1)} B), wheel rebuilt in ${loadMs.toFixed(0)} ms ` +
        `(${stats?.scanned} entries read, ${stats?.pending} pending); store reopened in ${storeMs.toFixed(0)} ms; ` +
        `put ${Math.round(MESSAGES / (putMs / 1000))}/s${gc === undefined ? ' (run with --expose-gc for exact memory)' : ''}`,
    );
    await store.shutdown();
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const dir = textArg('dir', tmpdir());
  await scenario('dense', 60_000, dir);
  await scenario('sparse', 259_200_000, dir);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
