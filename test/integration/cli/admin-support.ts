/**
 * What the `rmq admin` CLI tests share: an in-process name server and broker, and the CLI's main
 * function run in this process (so the tests need no build/ and no child process).
 */
import assert from 'node:assert/strict';
import { main } from '../../../src/cli/main.js';
import {
  createPushConsumer,
  type PushConsumer,
  type PushConsumerOptions,
} from '../../../src/client/index.js';
import { createLogger } from '../../../src/common/logger.js';
import { type Embedded, startEmbedded } from '../../../src/embedded/embedded.js';

export const quiet = createLogger('test', { level: 'silent' });

let seq = 0;
export const unique = (prefix: string) => `${prefix}_${process.pid}_${++seq}`;

export interface Run {
  code: number;
  out: string;
  err: string;
}

/** `rmq <args>`: its exit code, stdout and stderr. */
export async function rmq(...args: string[]): Promise<Run> {
  let out = '';
  let err = '';
  const code = await main(args, {
    out: (t) => {
      out += t;
    },
    err: (t) => {
      err += t;
    },
  });
  return { code, out, err };
}

/** `rmq <args>`, which must exit 0: its stdout. */
export async function ok(...args: string[]): Promise<string> {
  const run = await rmq(...args);
  assert.equal(run.code, 0, `${args.join(' ')} failed: ${run.err}`);
  return run.out;
}

/** `rmq <args> --json`, which must exit 0: its stdout parsed. */
export async function json<T>(...args: string[]): Promise<T> {
  return JSON.parse(await ok(...args, '--json')) as T;
}

/** Polls `check` until it holds or the deadline passes (brokers learn of clients on their own schedule). */
export async function until(what: string, check: () => Promise<boolean>, deadlineMs = 20_000): Promise<void> {
  const end = Date.now() + deadlineMs;
  while (!(await check())) {
    if (Date.now() > end) assert.fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export interface AdminCluster {
  embedded: Embedded;
  /** `-n <name server>`, for every command. */
  n: string[];
  brokerName: string;
}

/** An in-process name server and its one broker, whose name comes from clusterList as users read it. */
export async function startAdminCluster(): Promise<AdminCluster> {
  const embedded = await startEmbedded({ logger: quiet });
  try {
    const n = ['-n', embedded.namesrvAddr];
    const rows = await json<Array<{ brokerName: string; addr: string }>>('admin', 'clusterList', ...n);
    assert.equal(rows.length, 1);
    assert.equal(rows[0]?.addr, embedded.brokerAddr);
    return { embedded, n, brokerName: rows[0]?.brokerName as string };
  } catch (error) {
    await embedded.close();
    throw error;
  }
}

/** Client timers the tests shorten, so that brokers see members and offsets within seconds. */
type Timers = Pick<
  PushConsumerOptions,
  'rebalanceWaitInterval' | 'heartbeatBrokerInterval' | 'persistConsumerOffsetInterval'
>;

/** A started member of `group` that reads `topic` from its first offset and acks every message. */
export async function startConsumer(
  namesrvAddr: string,
  group: string,
  topic: string,
  timers: Timers,
): Promise<PushConsumer> {
  const consumer = createPushConsumer({
    consumerGroup: group,
    namesrvAddr,
    clientIP: '127.0.0.1',
    instanceName: unique('inst'),
    logger: quiet,
    consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
    ...timers,
  });
  consumer.subscribe(topic, '*');
  consumer.registerMessageListener({ type: 'concurrently', consumeMessage: async () => 'CONSUME_SUCCESS' });
  await consumer.start();
  return consumer;
}
