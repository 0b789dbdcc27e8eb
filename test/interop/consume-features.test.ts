/**
 * The official 4.9.8 push consumer's failure, delay, filter and order features against our broker
 * (issue 5): SQL92 subscriptions, orderly consumption with queue locks, retry and dead-letter
 * queues, delay levels. Each case runs interop ConsumeFeaturesProbe against one shared pair of our
 * name server and broker (enablePropertyFilter on).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { readStoredRecordHeader } from '../../src/common/message/index.js';
import { createOffsetMsgId } from '../../src/common/message/message-id.js';
import { ResponseCode } from '../../src/remoting/protocol/response-code.js';
import { officialProduce } from './client-probe.js';
import { mqadmin, runJava, startJavaProgram } from './harness.js';
import { type LoopbackPair, startLoopbackPair } from './loopback-pair.js';

async function probe(args: string[], timeoutMs: number): Promise<Record<string, unknown>> {
  const r = await runJava('org.rocketmqts.interop.ConsumeFeaturesProbe', args, { timeoutMs });
  const line = r.stdout.split('\n').find((l) => l.startsWith('{'));
  assert.ok(
    line,
    `ConsumeFeaturesProbe ${args[0]} printed nothing (exit ${String(r.exitCode)})\n${r.stderr.slice(-4000)}`,
  );
  const out = JSON.parse(line) as Record<string, unknown>;
  assert.equal(out.error, undefined, `${line}\n${r.stderr.slice(-4000)}`);
  return out;
}

describe('official push consumer features against our broker', () => {
  let pair: LoopbackPair;

  before(async () => {
    pair = await startLoopbackPair('features', { enablePropertyFilter: true });
  });

  after(async () => {
    await pair?.close();
  });

  // Messages i = 0..19 carry a = i, b = x when i % 3 == 0 else y, and c only when i is even; the
  // warm-up message before them has no property at all and shows as -1 where it matches.
  const range = (f: (i: number) => boolean) => Array.from({ length: 20 }, (_, i) => i).filter(f);
  const WARM_UP = -1;
  const sqlCases: Array<[string, number[]]> = [
    ["a > 5 AND b = 'x'", range((i) => i > 5 && i % 3 === 0)],
    ['a BETWEEN 3 AND 7', range((i) => i >= 3 && i <= 7)],
    ['c IS NULL', [WARM_UP, ...range((i) => i % 2 === 1)]],
    ['TRUE', [WARM_UP, ...range(() => true)]],
  ];
  for (const [expression, expected] of sqlCases) {
    test(`SQL92 subscription ${expression} receives exactly the matching messages`, {
      timeout: 90_000,
    }, async () => {
      const id = expression.replace(/[^A-Za-z0-9]/g, '').slice(0, 20);
      const out = await probe(
        ['sql', pair.namesrvAddr, `Sql${id}`, `sql_${id}`, expression, '60000'],
        80_000,
      );
      assert.equal(out.startError, undefined, JSON.stringify(out));
      assert.deepEqual(out.received, expected);
    });
  }

  test('an invalid SQL92 expression fails the subscription: SUBSCRIPTION_PARSE_FAILED with the position', {
    timeout: 90_000,
  }, async () => {
    const out = await probe(['sql', pair.namesrvAddr, 'SqlBad', 'sql_bad', 'a > AND', '30000'], 80_000);
    // DefaultMQPushConsumer.start() checks the subscription with CHECK_CLIENT_CONFIG and fails with
    // the broker's code and remark.
    assert.equal(out.startErrorCode, ResponseCode.SUBSCRIPTION_PARSE_FAILED, JSON.stringify(out));
    assert.match(String(out.startError), /line 1, column 5/);
  });

  test('orderly: 2 instances, 8 queues, 64 keys; each key in send order while one instance leaves and returns; suspension redelivers in order', {
    timeout: 180_000,
  }, async () => {
    const out = await probe(
      ['orderly', pair.namesrvAddr, 'OrderTopic', 'order_cg', '1280', '120000'],
      170_000,
    );
    assert.equal(out.queues, 8);
    assert.equal(out.complete, true, JSON.stringify(out));
    assert.deepEqual(out.outOfOrderKeys, []);
    assert.equal(out.missing, 0);
    assert.ok(Number(out.suspensions) > 0);
  });

  describe('retry, dead-letter queue and delay levels (default messageDelayLevel)', () => {
    // Started together: the retries take 40 s of real time and the delays 30 s.
    let later: Promise<Record<string, unknown>>;
    let thrown: Promise<Record<string, unknown>>;
    let nulled: Promise<Record<string, unknown>>;
    let delayed: Promise<Record<string, unknown>>;
    before(() => {
      const ns = pair.namesrvAddr;
      later = probe(['retry', ns, 'RetryLater', 'retry_later_cg', '2', 'later', '90000'], 120_000);
      thrown = probe(['retry', ns, 'RetryThrow', 'retry_throw_cg', '1', 'throw', '60000'], 120_000);
      nulled = probe(['retry', ns, 'RetryNull', 'retry_null_cg', '1', 'null', '60000'], 120_000);
      delayed = probe(['delay', ns, 'DelayTopic', 'delay_cg', '1,4', '60000'], 120_000);
      // Failures surface in the tests that await them.
      for (const p of [later, thrown, nulled, delayed]) p.catch(() => undefined);
    });

    interface Delivery {
      reconsumeTimes: number;
      atMs: number;
      body: string;
    }

    test('RECONSUME_LATER: again after about 10 s, then about 30 s; with maxReconsumeTimes 2 the message ends in %DLQ%, readable with mqadmin queryMsgById', {
      timeout: 150_000,
    }, async () => {
      const out = await later;
      const d = out.deliveries as Delivery[];
      assert.equal(out.complete, true, JSON.stringify(out));
      assert.deepEqual(
        d.map((x) => x.reconsumeTimes),
        [0, 1, 2],
        JSON.stringify(out),
      );
      assert.ok(d.every((x) => x.body === 'retry-body'));
      const [, second, third] = d;
      assert.ok(second !== undefined && second.atMs >= 9_500 && second.atMs <= 13_000, JSON.stringify(d));
      assert.ok(
        third !== undefined && third.atMs - second.atMs >= 29_500 && third.atMs - second.atMs <= 33_000,
        JSON.stringify(d),
      );
      // The third failure sends it to the DLQ (read there through our store, then with mqadmin).
      const dlq = '%DLQ%retry_later_cg';
      let found = await pair.broker.messageStore.getMessage('check', dlq, 0, 0n, 32);
      for (let i = 0; i < 50 && found.messages.length === 0; i++) {
        await new Promise((r) => setTimeout(r, 100));
        found = await pair.broker.messageStore.getMessage('check', dlq, 0, 0n, 32);
      }
      const record = found.messages[0];
      assert.ok(record, 'a message in the DLQ');
      const header = readStoredRecordHeader(record, 0);
      assert.equal(header.kind, 'message');
      const physicalOffset = header.kind === 'message' ? header.physicalOffset : -1n;
      const [host, port] = pair.brokerAddr.split(':');
      const offsetMsgId = createOffsetMsgId({ address: host ?? '', port: Number(port) }, physicalOffset);
      const r = await mqadmin(pair.namesrvAddr, ['queryMsgById', '-i', offsetMsgId]);
      assert.match(r.stdout, /^Topic:\s+%DLQ%retry_later_cg$/m, r.stdout + r.stderr);
      assert.match(r.stdout, /^Keys:\s+\[retry-key\]$/m);
    });

    test('a listener that throws, or returns null, gets the message again after about 10 s', {
      timeout: 150_000,
    }, async () => {
      for (const out of [await thrown, await nulled]) {
        const d = out.deliveries as Delivery[];
        assert.deepEqual(
          d.map((x) => x.reconsumeTimes),
          [0, 1],
          JSON.stringify(out),
        );
        const second = d[1];
        assert.ok(second !== undefined && second.atMs >= 9_500 && second.atMs <= 13_000, JSON.stringify(d));
      }
    });

    test('delay level 1 and 4 messages arrive within 1 s of their due time', {
      timeout: 150_000,
    }, async () => {
      const out = await delayed;
      assert.equal(out.complete, true, JSON.stringify(out));
      const arrivals = out.arrivals as Record<
        string,
        { latenessMs: number; topic: string; delayTimeLevel: number }
      >;
      for (const level of ['1', '4']) {
        const a = arrivals[level];
        assert.ok(a !== undefined, JSON.stringify(out));
        assert.equal(a.topic, 'DelayTopic');
        // The official broker delivers it with DELAY still in its properties.
        assert.equal(a.delayTimeLevel, Number(level), JSON.stringify(a));
        assert.ok(a.latenessMs >= -50 && a.latenessMs <= 1000, `level ${level}: ${JSON.stringify(a)}`);
      }
    });
  });

  test('mqadmin resetOffsetByTime rewinds a running consumer; consumerStatus and a direct consume reach it', {
    timeout: 180_000,
  }, async () => {
    const topic = 'ResetTopic';
    const group = 'reset_cg';
    const count = 12;
    const before = Date.now() - 1000;
    const sent = await officialProduce(pair.namesrvAddr, topic, count);
    const consumer = startJavaProgram('org.rocketmqts.interop.ConsumeFeaturesProbe', [
      'serve',
      pair.namesrvAddr,
      topic,
      group,
      '150',
    ]);
    try {
      const started = JSON.parse(await consumer.waitForLine(/"clientId"/, 60_000)) as { clientId: string };
      await consumer.waitForCount(/"received"/, count, 60_000);
      // The 4.9.8 broker resets only queues the group has committed offsets for; the client commits
      // every 5 s (persistConsumerOffsetInterval), so wait for all four to be stored.
      const offsets = () =>
        [0, 1, 2, 3].map((q) => pair.broker.consumerOffsetManager.queryOffset(group, topic, q));
      for (let i = 0; i < 200 && offsets().reduce((a, b) => a + b, 0n) < BigInt(count); i++) {
        await new Promise((r) => setTimeout(r, 100));
      }
      assert.deepEqual(offsets(), [3n, 3n, 3n, 3n]);

      const reset = await mqadmin(pair.namesrvAddr, [
        'resetOffsetByTime',
        '-g',
        group,
        '-t',
        topic,
        '-s',
        String(before),
      ]);
      assert.equal(reset.exitCode, 0, reset.stdout + reset.stderr);
      assert.match(reset.stdout, /rollback consumer offset by specified group\[reset_cg\]/, reset.stderr);
      await consumer.waitForCount(/"received"/, 2 * count, 60_000);

      const status = await mqadmin(pair.namesrvAddr, ['consumerStatus', '-g', group, '-i', started.clientId]);
      assert.equal(status.exitCode, 0, status.stdout + status.stderr);
      assert.match(status.stdout, /#Consumer Subscription#/);
      assert.ok(status.stdout.includes(topic), status.stdout);

      const first = sent[0];
      assert.ok(first);
      const direct = await mqadmin(pair.namesrvAddr, [
        'queryMsgById',
        '-g',
        group,
        '-d',
        started.clientId,
        '-i',
        first.offsetMsgId,
      ]);
      assert.match(direct.stdout, /consumeResult=CR_SUCCESS/, direct.stdout + direct.stderr);
      await consumer.waitForCount(/"received":"body-0"/, 3, 30_000);
    } finally {
      await consumer.close();
    }
  });
});
