/**
 * Failover with the official 4.9.x servers: two brokers (broker-a, broker-b) of one cluster on one
 * name server, a topic with 4 queues on each. Our producer sends continuously from several loops;
 * broker-a is killed (SIGKILL) mid-stream. With retryTimesWhenSendFailed 2 and only broker-a down,
 * upstream's rule (each retry goes to another broker than the attempt before) allows no send to fail:
 * a send's attempt on broker-a fails at once (connection refused or closed) and the next one goes to
 * broker-b. Then broker-a is started again on its store, and the official push consumer must receive
 * every message a send reported SEND_OK for, from either broker.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createLogger } from '../../src/common/logger.js';
import {
  createProducer,
  Message,
  type Producer,
  type SendMessageContext,
  type SendResult,
} from '../../src/index.js';
import { type BrokerHandle, mqadmin, type NamesrvHandle, startBroker, startNamesrv } from './harness.js';
import { type PushConsumerProbe, startPushConsumerProbe } from './push-consumer-probe.js';

const TOPIC = 'FailoverTopic';
const QUEUES_PER_BROKER = 4;
const SENDERS = 4;
const BEFORE_KILL = 200;
const AFTER_KILL = 400;
/** Upstream's default: 1 + 2 attempts, each on another broker than the one before. */
const RETRY_TIMES_WHEN_SEND_FAILED = 2;

interface Attempt {
  readonly brokerName: string;
  readonly at: number;
  ok?: boolean;
}

interface SendRecord {
  readonly i: number;
  readonly msg: Message;
  readonly startedAt: number;
  readonly attempts: Attempt[];
  result?: SendResult;
  error?: unknown;
}

describe('our producer fails over between two official 4.9.x brokers', { timeout: 400_000 }, () => {
  let namesrv: NamesrvHandle | undefined;
  let brokerA: BrokerHandle | undefined;
  let brokerB: BrokerHandle | undefined;
  let consumer: PushConsumerProbe | undefined;
  let failed = false;
  // Outside broker-a's home dir, so it survives the kill for the restart.
  const storeA = mkdtempSync(join(tmpdir(), 'rmq-interop-failover-store-a-'));

  before(
    async () => {
      namesrv = await startNamesrv();
      const ns = namesrv.addr;
      [brokerA, brokerB] = await Promise.all([
        startBroker({ namesrvAddr: ns, brokerName: 'broker-a', storeDir: storeA }),
        startBroker({ namesrvAddr: ns, brokerName: 'broker-b' }),
      ]);
      const r = await mqadmin(ns, [
        'updateTopic',
        '-c',
        'DefaultCluster',
        '-t',
        TOPIC,
        '-r',
        String(QUEUES_PER_BROKER),
        '-w',
        String(QUEUES_PER_BROKER),
      ]);
      assert.equal(r.exitCode, 0, r.stdout + r.stderr);
      assert.equal((r.stdout.match(/create topic to .* success/g) ?? []).length, 2, r.stdout + r.stderr);
    },
    { timeout: 240_000 },
  );

  after(
    async () => {
      if (failed) {
        for (const h of [namesrv, brokerA, brokerB])
          if (h !== undefined) process.stderr.write(`${h.logTail(40)}\n`);
      }
      await consumer?.close();
      await brokerA?.close();
      await brokerB?.close();
      await namesrv?.close();
      if (process.env.RMQ_INTEROP_KEEP !== '1') rmSync(storeA, { recursive: true, force: true });
    },
    { timeout: 60_000 },
  );

  test('broker-a killed mid-stream: no send fails, each needs at most one retry, from broker-a to broker-b; every SEND_OK message is consumed after broker-a restarts', {
    timeout: 300_000,
  }, async (t) => {
    try {
      assert.ok(namesrv !== undefined && brokerA !== undefined && brokerB !== undefined);
      const ns = namesrv.addr;
      const producer: Producer = createProducer({
        namesrvAddr: ns,
        producerGroup: 'pg_failover',
        retryTimesWhenSendFailed: RETRY_TIMES_WHEN_SEND_FAILED,
        retryTimesWhenSendAsyncFailed: RETRY_TIMES_WHEN_SEND_FAILED,
        // every failed attempt on broker-a would log a warning
        logger: createLogger('failover', { level: 'error' }),
      });
      const byMessage = new Map<Message, SendRecord>();
      producer.registerSendMessageHook({
        hookName: () => 'failover-attempts',
        sendMessageBefore(ctx: SendMessageContext) {
          byMessage.get(ctx.message)?.attempts.push({ brokerName: ctx.mq.brokerName, at: Date.now() });
        },
        sendMessageAfter(ctx: SendMessageContext) {
          const attempts = byMessage.get(ctx.message)?.attempts;
          const last = attempts?.[attempts.length - 1];
          if (last !== undefined) last.ok = ctx.exception === undefined;
        },
      });
      await producer.start();
      const records: SendRecord[] = [];
      try {
        const queues = await producer.fetchPublishMessageQueues(TOPIC);
        assert.equal(queues.length, 2 * QUEUES_PER_BROKER);

        let stop = false;
        let next = 0;
        const loop = async (): Promise<void> => {
          while (!stop) {
            const i = next++;
            const msg = new Message(TOPIC, Buffer.from(`failover-${i}`), {
              tags: 'Failover',
              keys: `fo-${i}`,
            });
            const record: SendRecord = { i, msg, startedAt: Date.now(), attempts: [] };
            byMessage.set(msg, record);
            records.push(record);
            try {
              record.result = await producer.send(msg, { communicationMode: i % 2 === 0 ? 'SYNC' : 'ASYNC' });
            } catch (error) {
              record.error = error;
            }
            await new Promise((r) => setTimeout(r, 2));
          }
        };
        const until = async (done: () => boolean, what: string): Promise<void> => {
          const deadline = Date.now() + 60_000;
          while (!done()) {
            if (Date.now() > deadline) throw new Error(`no ${what} within 60 s`);
            await new Promise((r) => setTimeout(r, 10));
          }
        };
        const loops = Array.from({ length: SENDERS }, loop);
        let killedAt = 0;
        try {
          await until(() => records.filter((r) => r.result !== undefined).length >= BEFORE_KILL, 'sends');
          // SIGKILL: the kernel closes its sockets, so sends in flight to it fail at once.
          await brokerA.close();
          killedAt = Date.now();
          await until(
            () => records.filter((r) => r.startedAt > killedAt).length >= AFTER_KILL,
            'sends after the kill',
          );
        } finally {
          stop = true;
          await Promise.all(loops);
        }

        // No send failed: the retry budget covers one dead broker of two.
        const failures = records.filter((r) => r.error !== undefined);
        assert.deepEqual(
          failures.map((r) => `${r.i}: ${String(r.error)}`),
          [],
        );
        for (const r of records) {
          const what = `send ${r.i}: ${JSON.stringify(r.attempts)}`;
          assert.ok(r.result !== undefined && r.result.sendStatus === 'SEND_OK', what);
          assert.ok(r.attempts.length >= 1 && r.attempts.length <= 2, what);
          const [first, second] = r.attempts as [Attempt, Attempt | undefined];
          if (second !== undefined) {
            // Only broker-a fails, and the retry goes to the other broker.
            assert.deepEqual(
              [first.brokerName, first.ok, second.brokerName, second.ok],
              ['broker-a', false, 'broker-b', true],
              what,
            );
          } else {
            assert.equal(first.ok, true, what);
          }
          assert.equal(r.result.messageQueue.brokerName, r.attempts.at(-1)?.brokerName, what);
          if (r.startedAt > killedAt) assert.equal(r.result.messageQueue.brokerName, 'broker-b', what);
        }
        const before = records.filter((r) => r.startedAt < killedAt && r.attempts.length === 1);
        assert.ok(before.some((r) => r.result?.messageQueue.brokerName === 'broker-a'));
        assert.ok(before.some((r) => r.result?.messageQueue.brokerName === 'broker-b'));
        const retried = records.filter((r) => r.attempts.length === 2);
        assert.ok(retried.length >= 10, `only ${retried.length} sends needed a retry`);
        t.diagnostic(
          `${records.length} sends, ${records.filter((r) => r.startedAt > killedAt).length} after the kill, ` +
            `${retried.length} retried from broker-a to broker-b, none failed`,
        );
      } finally {
        await producer.shutdown();
      }

      // broker-a again, on its store: every SEND_OK message is there to consume, from either broker.
      brokerA = await startBroker({ namesrvAddr: ns, brokerName: 'broker-a', storeDir: storeA });
      consumer = await startPushConsumerProbe({
        namesrvAddr: ns,
        topic: TOPIC,
        group: 'cg_failover',
        queues: 2 * QUEUES_PER_BROKER,
      });
      const sentOk = records.filter((r) => r.result !== undefined);
      const got = await consumer.waitForMsgIds(
        sentOk.map((r) => r.result?.msgId as string),
        60_000,
      );
      for (const r of sentOk) {
        const deliveries = got.get(r.result?.msgId as string) ?? [];
        // A send whose attempt on broker-a was stored there before the kill, yet failed, is stored
        // on broker-b as well: the same message twice, never another one.
        for (const m of deliveries) {
          assert.equal(m.keys, `fo-${r.i}`);
          assert.equal(m.bodyHex, Buffer.from(`failover-${r.i}`).toString('hex'));
        }
        const onResultBroker = deliveries.filter(
          (m) =>
            m.brokerName === r.result?.messageQueue.brokerName &&
            m.queueId === r.result?.messageQueue.queueId &&
            BigInt(m.queueOffset) === r.result.queueOffset,
        );
        assert.ok(onResultBroker.length >= 1, `send ${r.i}: not at the queue offset its SendResult named`);
      }
    } catch (error) {
      failed = true;
      throw error;
    }
  });
});
