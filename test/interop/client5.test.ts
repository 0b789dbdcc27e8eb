/**
 * The newest official 5.x remoting client (rocketmq-client, pinned in interop/client5/pom.xml)
 * against our name server and broker: producer sync/async/oneway/batch and two push consumers
 * (TagA || TagB) exactly once and intact, an orderly consumer with heartbeat V2 on, a lite pull
 * consumer, a SQL92 subscription. Each case runs interop/client5's Client5Probe in its own JVM with
 * the client's log in a temp dir; a case fails on any ERROR the client logged (they are printed).
 * Needs `node scripts/interop-prepare.mjs` (it builds interop/client5 too).
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { moduleClasspath, runJava } from './harness.js';
import { type LoopbackPair, startLoopbackPair } from './loopback-pair.js';

const PROBE = 'org.rocketmqts.interop.client5.Client5Probe';

/** An ERROR entry of the client's log: its first line and the few lines (stack) under it. */
function errorEntries(log: string): string[] {
  const lines = log.split('\n');
  const entries: string[] = [];
  const isEntryStart = (l: string) => /^\d{2,4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3} /.test(l);
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i] ?? '';
    if (!isEntryStart(l) || !/^\S+ \S+ ERROR /.test(l)) continue;
    const stack = [];
    for (let j = i + 1; j < lines.length && j <= i + 4 && !isEntryStart(lines[j] ?? ''); j++) {
      stack.push(lines[j]);
    }
    entries.push([l, ...stack].join('\n'));
  }
  return entries;
}

/** Client5Probe.SHUTDOWN_MARK: the probe logs it before it shuts its clients down. */
const SHUTDOWN_MARK = 'client5-probe: shutting down the clients';

/**
 * Errors a 5.x client logs while it shuts down, whatever the server: a lite pull thread still
 * running sends on the channel the shutdown just closed (DefaultLitePullConsumerImpl does not wait
 * for its pull tasks).
 */
const SHUTDOWN_NOISE = /RemotingSendRequestException|RemotingConnectException|has shutdown/;

/** The client log's ERROR entries that fail a case: all before the shutdown mark, unknown ones after. */
function judgeErrors(log: string): { failing: string[]; tolerated: string[] } {
  const mark = log.indexOf(SHUTDOWN_MARK);
  const before = mark < 0 ? log : log.slice(0, mark);
  const after = mark < 0 ? '' : log.slice(mark);
  const late = errorEntries(after);
  return {
    failing: [...errorEntries(before), ...late.filter((e) => !SHUTDOWN_NOISE.test(e))],
    tolerated: late.filter((e) => SHUTDOWN_NOISE.test(e)),
  };
}

interface ProbeRun {
  readonly out: Record<string, unknown>;
  readonly line: string;
  /** the client's whole log (INFO and up) */
  readonly log: string;
  /** ERROR entries logged during the shutdown that SHUTDOWN_NOISE explains */
  readonly tolerated: readonly string[];
}

describe('official 5.x client (remoting) against our name server and broker', () => {
  let pair: LoopbackPair;
  let classpath: string;

  before(async () => {
    classpath = moduleClasspath('client5');
    pair = await startLoopbackPair('client5', { enablePropertyFilter: true });
  });

  after(async () => {
    // RMQ_INTEROP_KEEP=1 keeps the clients' logs (log-<mode>-*/rocketmq_client.log) with the store.
    await pair?.close();
  });

  async function probe(
    args: string[],
    timeoutMs: number,
    opts: { heartbeatV2?: boolean } = {},
  ): Promise<ProbeRun> {
    const logRoot = mkdtempSync(join(pair.dir, `log-${args[0]}-`));
    const r = await runJava(PROBE, args, {
      timeoutMs,
      classpath,
      jvmArgs: [
        // 5.x reads rocketmq.log.root / rocketmq.log.level (rmq.client.logback.xml); the 4.x names
        // rocketmq.client.logRoot / logLevel are set too in case a release goes back to them.
        `-Drocketmq.log.root=${logRoot}`,
        '-Drocketmq.log.level=INFO',
        `-Drocketmq.client.logRoot=${logRoot}`,
        '-Drocketmq.client.logLevel=INFO',
        ...(opts.heartbeatV2 === true ? ['-Dcom.rocketmq.heartbeat.v2=true'] : []),
      ],
    });
    const logFile = join(logRoot, 'rocketmq_client.log');
    const log = existsSync(logFile) ? readFileSync(logFile, 'utf8') : '';
    const line = r.stdout.split('\n').find((l) => l.startsWith('{'));
    assert.ok(
      line,
      `Client5Probe ${args[0]} printed nothing (exit ${String(r.exitCode)}, timed out ${r.timedOut})\n` +
        `${r.stderr.slice(-4000)}\n--- client log ---\n${log.slice(-4000)}`,
    );
    const out = JSON.parse(line) as Record<string, unknown>;
    assert.equal(
      out.error,
      undefined,
      `${line}\n${r.stderr.slice(-4000)}\n--- client log ---\n${log.slice(-4000)}`,
    );
    assert.equal(r.exitCode, 0, r.stderr.slice(-4000));
    assert.ok(log.length > 0, `the 5.x client wrote no log under ${logRoot}`);
    assert.ok(log.includes(SHUTDOWN_MARK), 'the probe marked its shutdown in the client log');
    const { failing, tolerated } = judgeErrors(log);
    assert.deepEqual(failing, [], `the 5.x client logged errors:\n${failing.join('\n')}`);
    return { out, line, log, tolerated };
  }

  test('producer sync/async/oneway/batch; two push consumers "TagA || TagB" get each match once, intact', {
    timeout: 90_000,
  }, async (t) => {
    const { out, line } = await probe(
      ['traffic', pair.namesrvAddr, 'C5Traffic', 'c5_traffic_cg', '400', '60000'],
      80_000,
    );
    assert.match(String(out.clientVersion), /^V5_/, line);
    assert.equal(out.warmUp, 'SEND_OK', line);
    assert.equal(out.consumerIds, 2, line);
    assert.deepEqual(out.sendFailures, { sync: 0, async: 0, batch: 0 }, line);
    assert.deepEqual(out.sendProblems, [], line);
    assert.equal(out.complete, true, line);
    assert.equal(out.missing, 0, line);
    assert.equal(out.duplicated, 0, line);
    assert.equal(out.unexpected, 0, line);
    assert.equal(out.corrupted, 0, line);
    assert.deepEqual(out.problems, [], line);
    const per = out.perConsumer as number[];
    assert.ok((per[0] ?? 0) > 0 && (per[1] ?? 0) > 0, `both consumers got messages: ${line}`);
    assert.equal((per[0] ?? 0) + (per[1] ?? 0), out.expected, line);
    t.diagnostic(line);
  });

  test('orderly consumers (queue locks) with heartbeat V2: every key in send order', {
    timeout: 90_000,
  }, async (t) => {
    const { out, line, log } = await probe(
      ['orderly', pair.namesrvAddr, 'C5Order', 'c5_order_cg', '320', '60000'],
      80_000,
      { heartbeatV2: true },
    );
    assert.equal(out.complete, true, line);
    assert.equal(out.missing, 0, line);
    assert.deepEqual(out.outOfOrderKeys, [], line);
    assert.equal(out.lockedAtStart, out.queues, line);
    // The broker says it supports V2, so after the first full heartbeat the clients send the short
    // one (no subscriptions) while nothing changed, and consumption goes on.
    const v2 = log.split('\n').filter((l) => l.includes('sendHeartbeatToAllBrokerV2'));
    assert.ok(
      v2.some((l) => /sendHeartbeatToAllBrokerV2 simple .*subChange: false/.test(l)),
      `no short V2 heartbeat accepted:\n${v2.slice(0, 5).join('\n')}`,
    );
    // subChange: true shows up when a rebalance's full heartbeat lost the client's heartbeat lock
    // race and a pull then found the broker's subVersion stale (ConsumerGroupHeartbeatTable.markStale).
    const asked = v2.filter((l) => /subChange: true/.test(l)).length;
    t.diagnostic(line);
    t.diagnostic(
      `${v2.length} V2 heartbeats, ${v2.filter((l) => l.includes(' simple ')).length} short, ` +
        `${asked} answered IS_SUB_CHANGE=true`,
    );
  });

  test('lite pull consumer: subscribe, poll, commit', { timeout: 90_000 }, async (t) => {
    const { out, line, tolerated } = await probe(
      ['litepull', pair.namesrvAddr, 'C5Lite', 'c5_lite_cg', '100', '60000'],
      80_000,
    );
    if (tolerated.length > 0) t.diagnostic(`${tolerated.length} shutdown-race errors in the client log`);
    assert.equal(out.received, 100, line);
    assert.equal(out.duplicated, 0, line);
    assert.deepEqual(out.problems, [], line);
    // 100 TagL messages and the warm-up message before them
    assert.equal(out.committed, 101, line);
    t.diagnostic(line);
  });

  test('SQL92 subscription receives exactly the matching messages', { timeout: 90_000 }, async (t) => {
    const { out, line } = await probe(
      ['sql', pair.namesrvAddr, 'C5Sql', 'c5_sql_cg', "a > 5 AND b = 'x'", '60000'],
      80_000,
    );
    assert.equal(out.startError, undefined, line);
    assert.deepEqual(out.received, [6, 9, 12, 15, 18], line);
    t.diagnostic(line);
  });
});
