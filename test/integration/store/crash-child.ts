/**
 * Child process of crash.test.ts: opens a store directory (recovering as the abort file says), then
 * appends from several concurrent appenders until it is killed, writing one line per acknowledged
 * append to stdout with a blocking write, so every line the parent reads was acknowledged first:
 *
 *   R <maxOffset>                                             recovered, appending starts
 *
 * Arguments: --crash-child <store dir> <ASYNC_FLUSH|SYNC_FLUSH> <seed> <appenders> <sync|async writes>
 *   A <id> <offset> <size> <queueId> <queueOffset> <bodyLen>  one message
 *   B <id> <offset> <size> <queueId> <queueOffset> <count> <bodyLen>  a batch of count messages
 *
 * Bodies are `<id>:` (or `<id>#<k>:` in a batch) padded with a character derived from the id, so the
 * parent can rebuild them. Run only with `--crash-child`; imported or run by the test runner it does
 * nothing.
 */
import * as fs from 'node:fs';
import { join } from 'node:path';
import { createLogger } from '../../../src/common/logger.js';
import { abortFileExists, createAbortFile } from '../../../src/store/abort-file.js';
import { StoreCheckpoint } from '../../../src/store/checkpoint.js';
import { CommitLog } from '../../../src/store/commit-log.js';
import { type FlushDiskType, messageStoreConfig } from '../../../src/store/config.js';
import { appendPlanned, crashBody, runAppenders, runChild } from './crash-support.js';

export { crashBody };

export const CRASH_FILE_SIZE = 128 * 1024;
export const CRASH_TOPIC = 'CrashTopic';
export const CRASH_QUEUES = 4;

export function crashStoreConfig(root: string, flushDiskType: FlushDiskType) {
  return messageStoreConfig({
    storePathRootDir: root,
    mappedFileSizeCommitLog: CRASH_FILE_SIZE,
    maxMessageSize: 16 * 1024,
    flushDiskType,
    flushIntervalCommitLog: 20,
    flushCommitLogThoroughInterval: 200,
  });
}

/** Upstream's normal start: the consume queues know every queue's next offset; rebuilt here by a reput. */
export function rebuildQueueOffsets(cl: CommitLog): void {
  const min = cl.getMinOffset();
  if (min < 0) return;
  cl.forEachRecord(min, (r) => {
    const next = Number(r.consumeQueueOffset) + 1;
    if (next > cl.getTopicQueueOffset(r.topic, r.queueId)) cl.setTopicQueueOffset(r.topic, r.queueId, next);
  });
}

async function main(args: string[]): Promise<void> {
  const [root, mode, seedText, concurrencyText, writeMode] = args;
  if (root === undefined || (mode !== 'ASYNC_FLUSH' && mode !== 'SYNC_FLUSH')) throw new Error('usage');
  const checkpoint = new StoreCheckpoint(join(root, 'checkpoint'));
  const cl = new CommitLog(crashStoreConfig(root, mode), {
    checkpoint,
    logger: createLogger('crash-child', { level: 'error' }),
    writeMode: writeMode === 'async' ? 'async' : 'sync',
  });
  if (abortFileExists(root)) cl.recoverAbnormally();
  else cl.recoverNormally();
  rebuildQueueOffsets(cl);
  createAbortFile(root);
  cl.start();
  const timer = setInterval(() => void checkpoint.flushAsync().catch(() => undefined), 25);
  timer.unref();
  fs.writeSync(1, `R ${cl.getMaxOffset()}\n`);
  await runAppenders({
    seed: Number(seedText ?? 1),
    concurrency: Number(concurrencyText ?? 8),
    queues: CRASH_QUEUES,
    maxBodyLen: 1520,
    append: async (plan) => {
      const r = await appendPlanned(cl, CRASH_TOPIC, plan);
      const x = r.appendMessageResult;
      if (r.putMessageStatus !== 'PUT_OK' || x === undefined) return `N ${r.putMessageStatus}`;
      const { id, queueId, bodyLen, count } = plan;
      return count === undefined
        ? `A ${id} ${x.wroteOffset} ${x.wroteBytes} ${queueId} ${x.logicsOffset} ${bodyLen}`
        : `B ${id} ${x.wroteOffset} ${x.wroteBytes} ${queueId} ${x.logicsOffset} ${count} ${bodyLen}`;
    },
  });
}

runChild('--crash-child', main);
