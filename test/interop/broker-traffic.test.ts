/**
 * The official 4.9.8 producer and push consumers through our name server and broker: 10,000
 * messages sent sync, async, oneway and in batches; two push consumers of one group subscribed
 * "TagA || TagB" get every matching message exactly once, intact, and nothing else. The figures
 * (send and consume rates, RSS) are printed as test diagnostics for the issue note.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { runJava } from './harness.js';
import { type LoopbackPair, startLoopbackPair } from './loopback-pair.js';

const COUNT = 10_000;

interface TrafficSummary {
  warmUp: string;
  queues: number;
  held: number[];
  rebalanceMs: number;
  sendFailures: Record<string, number>;
  sendMs: number;
  expected: number;
  complete: boolean;
  missing: number;
  missingFirst: number[];
  duplicated: number;
  unexpected: number;
  corrupted: number;
  perConsumer: number[];
  problems: string[];
  consumeMs: number;
}

describe('official producer and push consumers through our name server and broker', () => {
  let pair: LoopbackPair;
  const startedAt = process.hrtime.bigint();
  let startupMs = 0;

  before(async () => {
    pair = await startLoopbackPair('traffic');
    startupMs = Number(process.hrtime.bigint() - startedAt) / 1e6;
  });

  after(async () => {
    await pair?.close();
  });

  test(`${COUNT} messages, sync/async/oneway/batch, two push consumers, TagA || TagB`, {
    timeout: 240_000,
  }, async (t) => {
    const rssIdle = process.memoryUsage().rss;
    let rssPeak = rssIdle;
    const sampler = setInterval(() => {
      rssPeak = Math.max(rssPeak, process.memoryUsage().rss);
    }, 200);
    let result: Awaited<ReturnType<typeof runJava>>;
    try {
      result = await runJava(
        'org.rocketmqts.interop.TrafficProbe',
        [pair.namesrvAddr, 'TrafficTopic', 'traffic_cg', String(COUNT), '150000'],
        { timeoutMs: 200_000 },
      );
    } finally {
      clearInterval(sampler);
    }
    const line = result.stdout.split('\n').find((l) => l.startsWith('{'));
    assert.ok(
      line,
      `TrafficProbe printed no summary (exit ${String(result.exitCode)})\n${result.stderr.slice(-4000)}`,
    );
    const s = JSON.parse(line) as TrafficSummary;
    assert.equal(s.warmUp, 'SEND_OK', line);
    assert.deepEqual(s.sendFailures, { sync: 0, async: 0, batch: 0 }, line);
    assert.equal(s.complete, true, line);
    assert.equal(s.missing, 0, line);
    assert.equal(s.duplicated, 0, line);
    assert.equal(s.unexpected, 0, line);
    assert.equal(s.corrupted, 0, line);
    assert.deepEqual(s.problems, [], line);
    assert.ok(
      (s.perConsumer[0] ?? 0) > 0 && (s.perConsumer[1] ?? 0) > 0,
      `both consumers got messages: ${line}`,
    );
    assert.equal((s.perConsumer[0] ?? 0) + (s.perConsumer[1] ?? 0), s.expected);
    assert.equal(result.exitCode, 0, result.stderr.slice(-4000));
    const mib = (n: number) => (n / 1048576).toFixed(0);
    t.diagnostic(
      `startup ${startupMs.toFixed(0)} ms; ${COUNT} sent in ${s.sendMs} ms (${((COUNT * 1000) / s.sendMs).toFixed(0)} msg/s); ` +
        `${s.expected} consumed within ${s.consumeMs} ms of the first send (${((s.expected * 1000) / s.consumeMs).toFixed(0)} msg/s); ` +
        `per consumer ${s.perConsumer.join('/')}; queues held ${s.held.join('+')} after ${s.rebalanceMs} ms; ` +
        `RSS idle ${mib(rssIdle)} MiB, peak ${mib(rssPeak)} MiB`,
    );
  });
});
