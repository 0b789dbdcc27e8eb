/**
 * What the crash children (crash-child.ts: the commit log alone; store-crash-child.ts: the whole store)
 * share: the seeded choice of what to append, the bodies the parents rebuild to compare, the loop of
 * concurrent appenders reporting each acknowledgement with a blocking write, and the child's entry.
 */
import * as fs from 'node:fs';
import { encodeBatch } from '../../../src/common/message/batch.js';
import { Message } from '../../../src/common/message/message.js';
import { tagsString2tagsCode } from '../../../src/common/message/tag-hash.js';
import type { MessageExtBatch, MessageExtBrokerInner } from '../../../src/store/commit-log.js';
import type { PutMessageResult } from '../../../src/store/put-message-result.js';
import { rng } from '../../unit/store/commit-log-support.js';

export { rng };

/** The body of message `id` (`k`-th of a batch when given) with `length` bytes. */
export function crashBody(id: string, length: number, k?: number): Buffer {
  const head = k === undefined ? `${id}:` : `${id}#${k}:`;
  const fill = String.fromCharCode(97 + ((id.length + (k ?? 0) + length) % 26));
  return Buffer.from(head + fill.repeat(Math.max(0, length - head.length)));
}

/** One append the loop decided on: a single message, or a batch of `count`. */
export interface AppendPlan {
  id: string;
  queueId: number;
  bodyLen: number;
  /** undefined for a single message. */
  count: number | undefined;
}

/** The commit log and the whole store take appends the same way. */
export interface AppendTarget {
  putMessage(message: MessageExtBrokerInner): Promise<PutMessageResult>;
  putMessages(batch: MessageExtBatch): Promise<PutMessageResult>;
}

const HOST = { address: '127.0.0.1', port: 10911 };

/** Appends what `plan` says to `topic`, with keys and unique keys the index can be checked by. */
export function appendPlanned(
  target: AppendTarget,
  topic: string,
  plan: AppendPlan,
): Promise<PutMessageResult> {
  const { id, queueId, bodyLen, count } = plan;
  if (count !== undefined) {
    const messages = Array.from({ length: count }, (_, k) => {
      const m = new Message(topic, crashBody(id, bodyLen, k), { keys: `${id}#${k}` });
      m.putProperty('UNIQ_KEY', `U${id}#${k}`);
      return m;
    });
    return target.putMessages({
      topic,
      queueId,
      body: encodeBatch(messages),
      propertiesString: 'CLUSTER\u0001crash',
      sysFlag: 0,
      bornTimestamp: BigInt(Date.now()),
      bornHost: HOST,
      storeHost: HOST,
      reconsumeTimes: 0,
    });
  }
  return target.putMessage({
    topic,
    queueId,
    flag: 0,
    body: crashBody(id, bodyLen),
    propertiesString: `TAGS\u0001t${queueId}\u0002KEYS\u0001${id}\u0002UNIQ_KEY\u0001U${id}`,
    tagsCode: tagsString2tagsCode(`t${queueId}`),
    sysFlag: 0,
    bornTimestamp: BigInt(Date.now()),
    bornHost: HOST,
    storeHost: HOST,
    reconsumeTimes: 0,
    preparedTransactionOffset: 0n,
  });
}

/**
 * Runs `concurrency` appenders until the process is killed. Each plans its next append from the seeded
 * generator (a batch of 2-5 one time in ten), has `append` store it, and writes the line `append`
 * returns to stdout with a blocking write: a line the parent reads was acknowledged before.
 */
export async function runAppenders(options: {
  seed: number;
  concurrency: number;
  queues: number;
  maxBodyLen: number;
  append: (plan: AppendPlan) => Promise<string>;
}): Promise<void> {
  const random = rng(options.seed);
  const run = `${process.pid}-${options.seed}`;
  const appender = async (a: number): Promise<void> => {
    for (let seq = 0; ; seq++) {
      const queueId = Math.floor(random() * options.queues);
      const bodyLen = 20 + Math.floor(random() * (options.maxBodyLen - 20));
      const count = random() < 0.1 ? 2 + Math.floor(random() * 4) : undefined;
      const line = await options.append({ id: `${run}-${a}-${seq}`, queueId, bodyLen, count });
      fs.writeSync(1, `${line}\n`);
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, (_, a) => appender(a)));
}

/** Runs `main` with the arguments after `flag` when the process was started with it; else nothing. */
export function runChild(flag: string, main: (args: string[]) => Promise<void>): void {
  const at = process.argv.indexOf(flag);
  if (at < 0) return;
  main(process.argv.slice(at + 1)).catch((err: unknown) => {
    fs.writeSync(2, `${flag} failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(3);
  });
}
