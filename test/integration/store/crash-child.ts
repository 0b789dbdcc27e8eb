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
import { encodeBatch } from '../../../src/common/message/batch.js';
import { Message } from '../../../src/common/message/message.js';
import { MessageSysFlag } from '../../../src/common/message/sysflag.js';
import { tagsString2tagsCode } from '../../../src/common/message/tag-hash.js';
import { abortFileExists, createAbortFile } from '../../../src/store/abort-file.js';
import { StoreCheckpoint } from '../../../src/store/checkpoint.js';
import { CommitLog } from '../../../src/store/commit-log.js';
import { type FlushDiskType, messageStoreConfig } from '../../../src/store/config.js';

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

/** The body of message `id` (`k`-th of a batch when given) with `length` bytes. */
export function crashBody(id: string, length: number, k?: number): Buffer {
  const head = k === undefined ? `${id}:` : `${id}#${k}:`;
  const fill = String.fromCharCode(97 + ((id.length + (k ?? 0) + length) % 26));
  return Buffer.from(
    (head + fill.repeat(Math.max(0, length - head.length))).slice(0, Math.max(length, head.length)),
  );
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
  let seed = Number(seedText ?? 1) >>> 0;
  const random = (): number => {
    seed = (seed + 0x6d2b79f5) >>> 0;
    let t = seed;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const out = (line: string): void => {
    fs.writeSync(1, `${line}\n`);
  };
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
  out(`R ${cl.getMaxOffset()}`);
  const run = `${process.pid}-${seed}`;
  const host = { address: '127.0.0.1', port: 10911 };
  const appender = async (a: number): Promise<void> => {
    for (let seq = 0; ; seq++) {
      const id = `${run}-${a}-${seq}`;
      const queueId = Math.floor(random() * CRASH_QUEUES);
      const bodyLen = 20 + Math.floor(random() * 1500);
      if (random() < 0.1) {
        const count = 2 + Math.floor(random() * 4);
        const messages = Array.from({ length: count }, (_, k) => {
          const m = new Message();
          m.body = crashBody(id, bodyLen, k);
          m.properties.set('KEYS', id);
          return m;
        });
        const r = await cl.putMessages({
          topic: CRASH_TOPIC,
          queueId,
          body: encodeBatch(messages),
          propertiesString: 'CLUSTER\u0001crash',
          sysFlag: 0,
          bornTimestamp: BigInt(Date.now()),
          bornHost: host,
          storeHost: host,
          reconsumeTimes: 0,
        });
        const x = r.appendMessageResult;
        if (r.putMessageStatus === 'PUT_OK' && x !== undefined) {
          out(`B ${id} ${x.wroteOffset} ${x.wroteBytes} ${queueId} ${x.logicsOffset} ${count} ${bodyLen}`);
        } else {
          out(`N ${r.putMessageStatus}`);
        }
        continue;
      }
      const r = await cl.putMessage({
        topic: CRASH_TOPIC,
        queueId,
        flag: 0,
        body: crashBody(id, bodyLen),
        propertiesString: `TAGS\u0001t${queueId}\u0002KEYS\u0001${id}`,
        tagsCode: tagsString2tagsCode(`t${queueId}`),
        sysFlag: MessageSysFlag.TRANSACTION_NOT_TYPE,
        bornTimestamp: BigInt(Date.now()),
        bornHost: host,
        storeHost: host,
        reconsumeTimes: 0,
        preparedTransactionOffset: 0n,
      });
      const x = r.appendMessageResult;
      if (r.putMessageStatus === 'PUT_OK' && x !== undefined) {
        out(`A ${id} ${x.wroteOffset} ${x.wroteBytes} ${queueId} ${x.logicsOffset} ${bodyLen}`);
      } else {
        out(`N ${r.putMessageStatus}`);
      }
    }
  };
  const concurrency = Number(concurrencyText ?? 8);
  await Promise.all(Array.from({ length: concurrency }, (_, a) => appender(a)));
}

const flag = process.argv.indexOf('--crash-child');
if (flag >= 0) {
  main(process.argv.slice(flag + 1)).catch((err: unknown) => {
    fs.writeSync(
      2,
      `crash child failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
    );
    process.exit(3);
  });
}
