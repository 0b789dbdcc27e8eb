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
import { encodeBatch } from '../../../src/common/message/batch.js';
import { Message } from '../../../src/common/message/message.js';
import { tagsString2tagsCode } from '../../../src/common/message/tag-hash.js';
import { messageStoreConfig } from '../../../src/store/config.js';
import { DefaultMessageStore } from '../../../src/store/default-message-store.js';

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

/** The body of message `id` (`k`-th of a batch when given) with `length` bytes. */
export function storeCrashBody(id: string, length: number, k?: number): Buffer {
  const head = k === undefined ? `${id}:` : `${id}#${k}:`;
  const fill = String.fromCharCode(97 + ((id.length + (k ?? 0) + length) % 26));
  return Buffer.from(head + fill.repeat(Math.max(0, length - head.length)));
}

async function main(args: string[]): Promise<void> {
  const [root, seedText, concurrencyText] = args;
  if (root === undefined) throw new Error('usage: --store-crash-child <dir> <seed> <appenders>');
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
  const store = new DefaultMessageStore(storeCrashConfig(root), {
    logger: createLogger('store-crash-child', { level: 'error' }),
  });
  await store.load();
  await store.start();
  out('R');
  const run = `${process.pid}-${seed}`;
  const host = { address: '127.0.0.1', port: 10911 };
  const appender = async (a: number): Promise<void> => {
    for (let seq = 0; ; seq++) {
      const id = `${run}-${a}-${seq}`;
      const queueId = Math.floor(random() * STORE_CRASH_QUEUES);
      const bodyLen = 20 + Math.floor(random() * 1200);
      if (random() < 0.1) {
        const count = 2 + Math.floor(random() * 4);
        const messages = Array.from({ length: count }, (_, k) => {
          const m = new Message(STORE_CRASH_TOPIC, storeCrashBody(id, bodyLen, k), { keys: `${id}#${k}` });
          m.putProperty('UNIQ_KEY', `U${id}#${k}`);
          return m;
        });
        const r = await store.putMessages({
          topic: STORE_CRASH_TOPIC,
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
          out(`B ${id} ${queueId} ${x.logicsOffset} ${count} ${bodyLen}`);
        } else {
          out(`N ${r.putMessageStatus}`);
        }
        continue;
      }
      const r = await store.putMessage({
        topic: STORE_CRASH_TOPIC,
        queueId,
        flag: 0,
        body: storeCrashBody(id, bodyLen),
        propertiesString: `TAGS\u0001t${queueId}\u0002KEYS\u0001${id}\u0002UNIQ_KEY\u0001U${id}`,
        tagsCode: tagsString2tagsCode(`t${queueId}`),
        sysFlag: 0,
        bornTimestamp: BigInt(Date.now()),
        bornHost: host,
        storeHost: host,
        reconsumeTimes: 0,
        preparedTransactionOffset: 0n,
      });
      const x = r.appendMessageResult;
      if (r.putMessageStatus === 'PUT_OK' && x !== undefined) {
        out(`A ${id} ${queueId} ${x.logicsOffset} ${bodyLen}`);
      } else {
        out(`N ${r.putMessageStatus}`);
      }
    }
  };
  const concurrency = Number(concurrencyText ?? 8);
  await Promise.all(Array.from({ length: concurrency }, (_, a) => appender(a)));
}

const flag = process.argv.indexOf('--store-crash-child');
if (flag >= 0) {
  main(process.argv.slice(flag + 1)).catch((err: unknown) => {
    fs.writeSync(
      2,
      `store crash child failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
    );
    process.exit(3);
  });
}
