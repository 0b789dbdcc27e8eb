/**
 * The official 4.9.8 push consumer's failure, delay, filter and order features against our broker
 * (issue 5): SQL92 subscriptions, orderly consumption with queue locks, retry and dead-letter
 * queues, delay levels. Each case runs interop ConsumeFeaturesProbe against one shared pair of our
 * name server and broker (enablePropertyFilter on).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createLogger } from '../../src/common/logger.js';
import { type Standalone, startStandalone } from '../../src/embedded/standalone.js';
import { ResponseCode } from '../../src/remoting/protocol/response-code.js';
import { runJava } from './harness.js';

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
  let dir: string;
  let pair: Standalone;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'rmq-interop-features-'));
    pair = await startStandalone({
      dataDir: dir,
      namesrvPort: 0,
      host: '127.0.0.1',
      broker: {
        listenPort: 0,
        brokerIP1: '127.0.0.1',
        brokerIP2: '127.0.0.1',
        brokerName: 'broker-ts',
        enablePropertyFilter: true,
      },
      logger: createLogger('features', { level: 'error' }),
    });
  });

  after(async () => {
    await pair?.close();
    rmSync(dir, { recursive: true, force: true });
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
});
