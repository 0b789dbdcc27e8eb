/**
 * Our push consumer (createPushConsumer) under the official 4.9.8 tools and retry rules, on our broker
 * and on the official 4.9.x one (issue 11, "Interop in CI"):
 * - `mqadmin consumerProgress -s true` shows our committed offsets and reads our running info for the
 *   owner of each queue; `resetOffsetByTime` rewinds our running consumer, which consumes again from
 *   that time; `consumerStatus -i` prints our GET_CONSUMER_RUNNING_INFO answer; `queryMsgById -d`
 *   (CONSUME_MESSAGE_DIRECTLY) reaches our listener and reports its result;
 * - retry and dead-letter timings as the official client shows them: RECONSUME_LATER brings the
 *   message back after about 10 s, then about 30 s; with maxReconsumeTimes 2 the third failure sends it
 *   to %DLQ%<group> (found there with mqadmin queryMsgByUniqueKey). The official consumer
 *   (ConsumeFeaturesProbe retry) runs the same case at the same time on the same broker, and ours must
 *   keep its timings.
 * The retry cases take 40 s of real time and start with each suite, so they run while the mqadmin case does.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createLogger } from '../../src/common/logger.js';
import type { MessageQueue } from '../../src/common/message/message-queue.js';
import { createProducer, type Producer, type PushConsumer } from '../../src/index.js';
import { CONSUMER_PEERS, type ConsumerPeer, until } from './consumer-peers.js';
import { runJava } from './harness.js';
import { deliveryOf, type OurDelivery, ourConsumer, queueIdsOf } from './push-consumer-support.js';

const CONSUME_MS = 60_000;

/** One delivery of the retried message, ms after its first delivery. */
interface RetryDelivery {
  readonly reconsumeTimes: number;
  readonly atMs: number;
  readonly topic: string;
  readonly body: string;
}

interface RetryOutcome {
  readonly msgId: string;
  readonly deliveries: readonly RetryDelivery[];
}

/** The official consumer's run of the case (ConsumeFeaturesProbe retry, maxReconsumeTimes 2, RECONSUME_LATER). */
async function javaRetry(peer: ConsumerPeer): Promise<RetryOutcome> {
  const r = await runJava(
    'org.rocketmqts.interop.ConsumeFeaturesProbe',
    ['retry', peer.namesrvAddr, 'PcRetryJava', 'pc_retry_java_cg', '2', 'later', '90000'],
    { timeoutMs: 120_000 },
  );
  const line = r.stdout.split('\n').find((l) => l.startsWith('{'));
  assert.ok(
    line,
    `ConsumeFeaturesProbe retry printed nothing (exit ${String(r.exitCode)})\n${r.stderr.slice(-4000)}`,
  );
  const out = JSON.parse(line) as { complete?: boolean; msgId: string; deliveries: RetryDelivery[] };
  assert.equal(out.complete, true, line);
  return out;
}

/** Our consumer's run of the same case; resolves once the message is in the DLQ's index. */
async function ourRetry(peer: ConsumerPeer, producer: Producer): Promise<RetryOutcome> {
  const topic = 'PcRetry';
  const group = 'pc_retry_cg';
  await peer.createTopic(topic, 4);
  const got: OurDelivery[] = [];
  const consumer = ourConsumer(peer.namesrvAddr, group, { instanceName: 'ts-retry', maxReconsumeTimes: 2 });
  consumer.subscribe(topic, '*');
  consumer.registerMessageListener({
    type: 'concurrently',
    async consumeMessage(msgs) {
      for (const m of msgs) got.push(deliveryOf('ts', m));
      return 'RECONSUME_LATER';
    },
  });
  try {
    await consumer.start();
    // As the Java probe does: the message goes out once the consumer pulls the topic and its retry topic.
    const retryTopic = `%RETRY%${group}`;
    await until(
      async () => {
        const held = (await peer.runningInfo(group, consumer.clientId as string)).mqTable.map(([mq]) => mq);
        return queueIdsOf(held, topic).length === 4 && queueIdsOf(held, retryTopic).length > 0
          ? true
          : undefined;
      },
      `the consumer holds ${topic} and ${retryTopic}`,
      30_000,
      250,
    );
    const sent = await producer.send({ topic, body: 'retry-body', keys: 'retry-key' });
    await until(
      () => (got.length >= 3 ? true : undefined),
      () => `3 deliveries (${JSON.stringify(got)})`,
      90_000,
      50,
    );
    // The third failure sent it to the DLQ; a delivery beyond the limit would show meanwhile.
    const dlq = `%DLQ%${group}`;
    const found = await until(
      async () => {
        const r = await peer.admin('queryMsgByUniqueKey', '-i', sent.msgId, '-t', dlq);
        return /^Topic:\s+%DLQ%/m.test(r.stdout) ? r.stdout : undefined;
      },
      `${sent.msgId} in ${dlq}`,
      30_000,
      500,
    );
    assert.match(found, new RegExp(`^Topic:\\s+${dlq}$`, 'm'), found);
    assert.match(found, /^Keys:\s+\[retry-key\]$/m, found);
    const first = got[0]?.receivedAt ?? 0;
    return {
      msgId: sent.msgId,
      deliveries: got.map((d) => ({
        reconsumeTimes: d.reconsumeTimes,
        atMs: d.receivedAt - first,
        topic: d.topic,
        body: d.body,
      })),
    };
  } finally {
    await consumer.shutdown();
  }
}

for (const kind of CONSUMER_PEERS) {
  describe(`official tools and retry rules against our push consumer, on ${kind.name}`, () => {
    let peer: ConsumerPeer;
    let producer: Producer;
    let ours: Promise<RetryOutcome>;
    let theirs: Promise<RetryOutcome>;

    before(async () => {
      peer = await kind.start();
      producer = createProducer({
        namesrvAddr: peer.namesrvAddr,
        producerGroup: 'pg_push_consumer_admin',
        logger: createLogger('producer', { level: 'error' }),
      });
      await producer.start();
      ours = ourRetry(peer, producer);
      theirs = javaRetry(peer);
      // Failures surface in the test that awaits them.
      for (const p of [ours, theirs]) p.catch(() => undefined);
    });

    after(async () => {
      await Promise.allSettled([ours, theirs]);
      await producer?.shutdown();
      await peer?.close();
    });

    test('mqadmin consumerProgress, resetOffsetByTime, consumerStatus and queryMsgById -d against our consumer', {
      timeout: 150_000,
    }, async () => {
      const topic = 'PcAdmin';
      const group = 'pc_admin_cg';
      const queues = 4;
      const count = 12;
      const mqs = await peer.createTopic(topic, queues);
      const got: OurDelivery[] = [];
      const consumer: PushConsumer = ourConsumer(peer.namesrvAddr, group, { instanceName: 'ts-admin' });
      consumer.subscribe(topic, '*');
      consumer.registerMessageListener({
        type: 'concurrently',
        async consumeMessage(msgs) {
          for (const m of msgs) got.push(deliveryOf('ts', m));
          return 'CONSUME_SUCCESS';
        },
      });
      try {
        await consumer.start();
        const clientId = consumer.clientId as string;
        await until(
          async () =>
            queueIdsOf(
              (await peer.runningInfo(group, clientId)).mqTable.map(([mq]) => mq),
              topic,
            ).length === queues
              ? true
              : undefined,
          `the consumer holds the ${queues} queues`,
          30_000,
          250,
        );
        const startedAt = Date.now() - 1000;
        const offsetMsgIds: string[] = [];
        for (let i = 0; i < count; i++) {
          const r = await producer.send(
            { topic, body: `body-${i}`, keys: `k${i}` },
            { messageQueue: mqs[i % queues] as MessageQueue },
          );
          offsetMsgIds.push(r.offsetMsgId);
        }
        const times = (body: string) => got.filter((d) => d.body === body).length;
        await until(
          () => (got.length >= count ? true : undefined),
          () => `${count} deliveries (${got.length})`,
          CONSUME_MS,
        );
        // The brokers reset only queues the group committed an offset for.
        await until(
          async () => {
            const offsets = await Promise.all(mqs.map((mq) => peer.committedOffset(group, mq)));
            return offsets.every((o) => o === BigInt(count / queues)) ? true : undefined;
          },
          'our offsets committed',
          30_000,
          250,
        );

        const progress = (await peer.admin('consumerProgress', '-g', group, '-s', 'true')).stdout;
        const rows = [
          ...progress.matchAll(
            new RegExp(
              `^${topic}\\s+${peer.brokerName}\\s+(\\d+)\\s+(\\d+)\\s+(\\d+)\\s+(\\S+)\\s+(-?\\d+)`,
              'gm',
            ),
          ),
        ];
        assert.deepEqual(
          rows.map(([, qid, brokerOffset, consumerOffset, ip, diff]) => [
            Number(qid),
            Number(brokerOffset),
            Number(consumerOffset),
            ip,
            Number(diff),
          ]),
          Array.from({ length: queues }, (_, q) => [
            q,
            count / queues,
            count / queues,
            clientId.split('@')[0],
            0,
          ]),
          progress,
        );

        const reset = await peer.admin(
          'resetOffsetByTime',
          '-g',
          group,
          '-t',
          topic,
          '-s',
          String(startedAt),
        );
        assert.match(
          reset.stdout,
          new RegExp(`rollback consumer offset by specified group\\[${group}\\]`),
          reset.stderr,
        );
        await until(
          () => (got.length >= 2 * count ? true : undefined),
          () => `every message consumed again after the reset (${got.length} deliveries)`,
          CONSUME_MS,
        );
        for (let i = 0; i < count; i++) assert.equal(times(`body-${i}`), 2, `body-${i}`);

        const status = await peer.admin('consumerStatus', '-g', group, '-i', clientId);
        assert.doesNotMatch(status.stdout + status.stderr, /Exception/, status.stdout + status.stderr);
        assert.match(status.stdout, /#Consumer Properties#/);
        assert.match(status.stdout, /PROP_CONSUME_TYPE\s+: CONSUME_PASSIVELY/);
        assert.match(
          status.stdout,
          new RegExp(`Topic: ${topic}\\s+ClassFilter: false\\s+SubExpression: \\*`),
        );
        assert.match(status.stdout, /#Consumer Offset#/);
        for (let q = 0; q < queues; q++) {
          assert.match(
            status.stdout,
            new RegExp(`^${topic}\\s+${peer.brokerName}\\s+${q}\\s+${count / queues}\\s*$`, 'm'),
          );
        }
        assert.match(status.stdout, /#Consumer RT&TPS#/);

        const direct = await peer.admin(
          'queryMsgById',
          '-g',
          group,
          '-d',
          clientId,
          '-i',
          offsetMsgIds[0] as string,
        );
        assert.match(direct.stdout, /consumeResult=CR_SUCCESS/, direct.stdout + direct.stderr);
        await until(
          () => (times('body-0') === 3 ? true : undefined),
          'body-0 consumed directly a third time',
          10_000,
          50,
        );
      } finally {
        await consumer.shutdown();
      }
    });

    test('RECONSUME_LATER: again after about 10 s, then about 30 s, as the official consumer on the same broker; then %DLQ%', {
      timeout: 150_000,
    }, async (t) => {
      const [mine, java] = await Promise.all([ours, theirs]);
      t.diagnostic(`ours: ${JSON.stringify(mine.deliveries.map((d) => d.atMs))} ms`);
      t.diagnostic(`official: ${JSON.stringify(java.deliveries.map((d) => d.atMs))} ms`);
      for (const out of [mine, java]) {
        assert.deepEqual(
          out.deliveries.map((d) => d.reconsumeTimes),
          [0, 1, 2],
          JSON.stringify(out),
        );
        assert.ok(out.deliveries.every((d) => d.body === 'retry-body'));
      }
      // Ours sees the original topic back, as the Java client restores it from RETRY_TOPIC.
      assert.deepEqual(
        mine.deliveries.map((d) => d.topic),
        ['PcRetry', 'PcRetry', 'PcRetry'],
      );
      const gaps = (o: RetryOutcome) => {
        const [a, b, c] = o.deliveries.map((d) => d.atMs) as [number, number, number];
        return [b - a, c - b];
      };
      const [mineFirst, mineSecond] = gaps(mine) as [number, number];
      const [javaFirst, javaSecond] = gaps(java) as [number, number];
      assert.ok(mineFirst >= 9_500 && mineFirst <= 13_000, `first retry after ${mineFirst} ms`);
      assert.ok(mineSecond >= 29_500 && mineSecond <= 33_000, `second retry after ${mineSecond} ms`);
      assert.ok(
        Math.abs(mineFirst - javaFirst) <= 2_000,
        `first retry: ours ${mineFirst} ms, official ${javaFirst} ms`,
      );
      assert.ok(
        Math.abs(mineSecond - javaSecond) <= 2_000,
        `second retry: ours ${mineSecond} ms, official ${javaSecond} ms`,
      );
    });
  });
}
