/**
 * Child process of store-crash.test.ts: opens a DefaultMessageStore (recovering as its abort file
 * says), then puts from several concurrent appenders until it is killed, writing one line per
 * acknowledged put to stdout with a blocking write, so every line the parent reads was acknowledged:
 *
 *   R                                             the store is open, appends start
 *   A <id> <queueId> <queueOffset> <bodyLen>       one message
 *   B <id> <queueId> <queueOffset> <count> <bodyLen>  a batch of `count` messages
 *
 * Arguments: --store-crash-child <store dir> <seed> <appenders>. Imported or run by the test runner
 * (without the flag) it does nothing.
 */
import * as fs from 'node:fs';
import { createLogger } from '../../../src/common/logger.js';
import { messageStoreConfig } from '../../../src/store/config.js';
import { DefaultMessageStore } from '../../../src/store/default-message-store.js';
import { appendPlanned, runAppenders, runChild } from './crash-support.js';

export const STORE_CRASH_TOPIC = 'StoreCrash';
export const STORE_CRASH_QUEUES = 4;

export function storeCrashConfig(root: string) {
  return messageStoreConfig({
    storePathRootDir: root,
    mappedFileSizeCommitLog: 128 * 1024,
    mappedFileSizeConsumeQueue: 50 * 20,
    maxMessageSize: 16 * 1024,
    maxHashSlotNum: 512,
    maxIndexNum: 2048,
    flushIntervalCommitLog: 20,
    flushCommitLogThoroughInterval: 200,
    flushIntervalConsumeQueue: 30,
    flushConsumeQueueThoroughInterval: 150,
  });
}

async function main(args: string[]): Promise<void> {
  const [root, seedText, concurrencyText] = args;
  if (root === undefined) throw new Error('usage: --store-crash-child <dir> <seed> <appenders>');
  const store = new DefaultMessageStore(storeCrashConfig(root), {
    logger: createLogger('store-crash-child', { level: 'error' }),
  });
  await store.load();
  await store.start();
  fs.writeSync(1, 'R\n');
  await runAppenders({
    seed: Number(seedText ?? 1),
    concurrency: Number(concurrencyText ?? 8),
    queues: STORE_CRASH_QUEUES,
    maxBodyLen: 1220,
    append: async (plan) => {
      const r = await appendPlanned(store, STORE_CRASH_TOPIC, plan);
      const x = r.appendMessageResult;
      if (r.putMessageStatus !== 'PUT_OK' || x === undefined) return `N ${r.putMessageStatus}`;
      const { id, queueId, bodyLen, count } = plan;
      return count === undefined
        ? `A ${id} ${queueId} ${x.logicsOffset} ${bodyLen}`
        : `B ${id} ${queueId} ${x.logicsOffset} ${count} ${bodyLen}`;
    },
  });
}

runChild('--store-crash-child', main);
