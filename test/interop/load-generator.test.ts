/**
 * The Java load generator (interop LoadProducer / LoadConsumer: the official 4.9.8 client under the
 * flags and lines of `rmq bench`) against our broker in this process, started the way bench:compare
 * starts it (javaLoadCommand): single sends for a fixed duration, batch sends until its stdin closes,
 * then a consumer reading the whole backlog back; the printed lines and the JSON summaries are checked.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { after, before, describe, test } from 'node:test';
import { javaLoadCommand } from './harness.js';
import { type LoopbackPair, startLoopbackPair } from './loopback-pair.js';

/** Start-up time matters here, not throughput: these runs check the tool, they measure nothing. */
const TEST_JVM = ['-Xms32m', '-Xmx256m', '-XX:+UseSerialGC', '-XX:TieredStopAtLevel=1'];
/** A run that has not ended by then is killed and fails the test. */
const RUN_TIMEOUT_MS = 30_000;

const NUMBER = String.raw`\d+\.\d{3}`;
const PRODUCER_LINE = new RegExp(
  String.raw`^Current Time: \d{13} Send TPS: \d+ Max RT\(ms\): \d+ Average RT\(ms\): +(${NUMBER}|NaN) ` +
    String.raw`Send Failed: 0 Response Failed: 0 p50\(ms\): ${NUMBER} p99\(ms\): ${NUMBER} p99\.9\(ms\): ${NUMBER}$`,
);
const CONSUMER_LINE = new RegExp(
  String.raw`^Current Time: \d{13} TPS: \d+ FAIL: 0 AVG\(B2C\) RT\(ms\): +(${NUMBER}|NaN) ` +
    String.raw`AVG\(S2C\) RT\(ms\): +(${NUMBER}|NaN) MAX\(B2C\) RT\(ms\): \d+ MAX\(S2C\) RT\(ms\): \d+ ` +
    String.raw`p99\(S2C\)\(ms\): ${NUMBER}$`,
);

interface Ended {
  readonly code: number | null;
  readonly lines: readonly string[];
  readonly stderr: string;
}

interface Running {
  readonly lines: readonly string[];
  /** Resolves once `count` stdout lines match `pattern`; rejects if the run ends first. */
  waitFor(pattern: RegExp, count: number): Promise<void>;
  /** Closes its stdin: ParentWatchdog then stops the run as SIGTERM does. */
  closeStdin(): void;
  readonly ended: Promise<Ended>;
}

function startLoad(
  mainClass: 'LoadProducer' | 'LoadConsumer',
  args: readonly string[],
  home: string,
): Running {
  const child = spawn('java', javaLoadCommand(mainClass, args, { home, jvmArgs: TEST_JVM }), {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  let stderr = '';
  const wakers = new Set<() => void>();
  let exited = false;
  child.stderr.setEncoding('utf8').on('data', (d: string) => {
    stderr = (stderr + d).slice(-8000);
  });
  const stdoutClosed = new Promise<void>((resolve) => {
    createInterface({ input: child.stdout })
      .on('line', (line) => {
        lines.push(line);
        for (const w of wakers) w();
      })
      .once('close', resolve);
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), RUN_TIMEOUT_MS);
  const ended = new Promise<Ended>((resolve) => {
    child.once('exit', (code) => {
      clearTimeout(timer);
      exited = true;
      for (const w of wakers) w();
      void stdoutClosed.then(() => resolve({ code, lines, stderr }));
    });
  });
  return {
    lines,
    ended,
    closeStdin: () => child.stdin.end(),
    waitFor: (pattern, count) =>
      new Promise<void>((resolve, reject) => {
        const check = () => {
          if (lines.filter((l) => pattern.test(l)).length >= count) {
            wakers.delete(check);
            resolve();
          } else if (exited) {
            wakers.delete(check);
            reject(
              new Error(
                `${mainClass} ended before ${count} lines ${pattern}\n${lines.join('\n')}\n${stderr}`,
              ),
            );
          }
        };
        wakers.add(check);
        check();
      }),
  };
}

/** A run that ends by itself (a duration, a count, a bad flag). */
function runLoad(
  mainClass: 'LoadProducer' | 'LoadConsumer',
  args: readonly string[],
  home: string,
): Promise<Ended> {
  return startLoad(mainClass, args, home).ended;
}

function readSummary(file: string): Record<string, unknown> {
  return JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
}

function num(summary: Record<string, unknown>, key: string): number {
  const v = summary[key];
  assert.equal(typeof v, 'number', `${key} in ${JSON.stringify(summary)}`);
  return v as number;
}

function checkProducer(summary: Record<string, unknown>, batchSize: number): void {
  assert.equal(summary.tool, 'java');
  assert.equal(summary.role, 'producer');
  assert.equal(summary.batchSize, batchSize);
  assert.equal(num(summary, 'sendFailed'), 0);
  assert.equal(num(summary, 'responseFailed'), 0);
  assert.ok(num(summary, 'sends') > 0);
  assert.equal(num(summary, 'messages'), num(summary, 'sends') * batchSize);
  assert.ok(num(summary, 'tps') > 0);
  assert.ok(num(summary, 'avgRtMs') > 0);
  assert.ok(num(summary, 'p50Ms') <= num(summary, 'p99Ms'));
  assert.ok(num(summary, 'p99Ms') <= num(summary, 'p999Ms'));
  assert.ok(num(summary, 'maxRtMs') >= num(summary, 'p50Ms'));
}

describe('Java load generator against our broker', { timeout: 120_000 }, () => {
  let pair: LoopbackPair | undefined;
  let home = '';

  before(async () => {
    pair = await startLoopbackPair('load-generator');
    home = join(pair.dir, 'java-home');
    mkdirSync(home);
  });
  after(async () => {
    await pair?.close();
  });

  test('a bad flag is one line on stderr and exit status 2', async () => {
    const ended = await runLoad('LoadProducer', ['-w', '0'], home);
    assert.equal(ended.code, 2);
    assert.match(
      ended.stderr.trim(),
      /^LoadProducer: -w takes an integer from 1 to \d+, not 0 \(--help lists the flags\)$/,
    );
  });

  test('single and batch sends, then a consumer reads every message back', async () => {
    assert.ok(pair !== undefined);
    const topic = 'LoadGeneratorTopic';
    const common = ['-n', pair.namesrvAddr, '-t', topic, '-w', '4', '--report-interval', '1'];

    const singleFile = join(pair.dir, 'single.json');
    const single = await runLoad('LoadProducer', [...common, '--duration', '3', '--json', singleFile], home);
    assert.equal(single.code, 0, single.stderr);
    const singleSummary = readSummary(singleFile);
    checkProducer(singleSummary, 1);
    assert.ok(num(singleSummary, 'measuredMs') >= 3000);
    assert.ok(single.lines.filter((l) => PRODUCER_LINE.test(l)).length >= 2, single.lines.join('\n'));
    const complete = `[Complete] Send Total: ${num(singleSummary, 'messages')} `;
    assert.ok(
      single.lines.some((l) => l.startsWith(complete)),
      single.lines.join('\n'),
    );

    // stopped from outside, as a SIGTERM would: it still prints and writes its summary, and exits 0
    const batchFile = join(pair.dir, 'batch.json');
    const batch = startLoad('LoadProducer', [...common, '-b', '16', '--json', batchFile], home);
    await batch.waitFor(PRODUCER_LINE, 2);
    batch.closeStdin();
    const batchEnded = await batch.ended;
    assert.equal(batchEnded.code, 0, batchEnded.stderr);
    const batchSummary = readSummary(batchFile);
    checkProducer(batchSummary, 16);
    assert.ok(
      batchEnded.lines.some((l) =>
        l.startsWith(
          `Summary: ${num(batchSummary, 'messages')} messages (${num(batchSummary, 'sends')} sends of 16)`,
        ),
      ),
      batchEnded.lines.join('\n'),
    );

    const sent = num(singleSummary, 'messages') + num(batchSummary, 'messages');
    const consumerFile = join(pair.dir, 'consumer.json');
    const consumer = await runLoad(
      'LoadConsumer',
      [
        ...common,
        '-g',
        'load_generator_consumer',
        '--from',
        'first',
        '--count',
        String(sent),
        '--json',
        consumerFile,
      ],
      home,
    );
    assert.equal(consumer.code, 0, consumer.stderr);
    const consumed = readSummary(consumerFile);
    assert.equal(consumed.tool, 'java');
    assert.equal(consumed.role, 'consumer');
    assert.equal(consumed.group, 'load_generator_consumer');
    assert.equal(num(consumed, 'messages'), sent);
    assert.equal(num(consumed, 'failed'), 0);
    assert.ok(num(consumed, 'tps') > 0);
    assert.ok(num(consumed, 'maxS2CMs') >= num(consumed, 'avgS2CMs'));
    assert.ok(
      consumer.lines.some((l) => l.startsWith(`Summary: ${sent} messages in `)),
      consumer.lines.join('\n'),
    );
    for (const line of consumer.lines.filter((l) => l.startsWith('Current Time: '))) {
      assert.match(line, CONSUMER_LINE);
    }
  });
});
