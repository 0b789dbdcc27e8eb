/**
 * The CI smoke of `rmq bench` (issue 13, item 5) against our in-process name server and broker: a
 * 3-second producer run, a batch run stopped by SIGINT, then a consumer reading back everything
 * both sent. The runs are the exported command function in this process (no build/ needed), except
 * the SIGINT run, a child process importing this build's CLI.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { benchFromArgs } from '../../../src/cli/bench/bench-command.js';
import { startEmbedded } from '../../../src/embedded/embedded.js';

const MAIN_URL = new URL('../../../src/cli/main.js', import.meta.url).href;

const PRODUCER_LINE =
  /^Current Time: \d+ Send TPS: \d+ Max RT\(ms\): \d+ Average RT\(ms\): [ \d.NaN]{7,} Send Failed: \d+ Response Failed: \d+ p50\(ms\): \d+\.\d{3} p99\(ms\): \d+\.\d{3} p99\.9\(ms\): \d+\.\d{3}$/m;
const COMPLETE_LINE =
  /^\[Complete\] Send Total: (\d+) Send TPS: \d+ Max RT\(ms\): \d+ Average RT\(ms\): [ \d.]{7,} Send Failed: 0 Response Failed: 0 p50\(ms\): [\d.]+ p99\(ms\): [\d.]+ p99\.9\(ms\): [\d.]+$/m;

interface ProducerJson {
  tool: string;
  role: string;
  sends: number;
  messages: number;
  sendFailed: number;
  responseFailed: number;
  batchSize: number;
  tps: number;
  measuredMs: number;
}

interface ConsumerJson {
  tool: string;
  role: string;
  group: string;
  messages: number;
  failed: number;
  measuredMs: number;
}

/** `rmq bench <argv>` in this process; never stopped by a signal. */
async function bench(argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await benchFromArgs(
    argv,
    { out: (t) => (out += t), err: (t) => (err += t) },
    { signal: new AbortController().signal, isTTY: false, env: {} },
  );
  return { code, out, err };
}

/** `rmq bench <argv>` in a child; SIGINT once its first interval line is out. */
async function benchUntilSigint(argv: string[]): Promise<{ code: number | null; out: string; err: string }> {
  const script = `import { main } from ${JSON.stringify(MAIN_URL)}; main(process.argv.slice(1)).then((c) => { process.exitCode = c; });`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script, 'bench', ...argv], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  let interrupted = false;
  child.stderr.on('data', (d: Buffer) => {
    err += d.toString();
  });
  child.stdout.on('data', (d: Buffer) => {
    out += d.toString();
    if (!interrupted && /^Current Time: /m.test(out)) {
      interrupted = true;
      child.kill('SIGINT');
    }
  });
  const [code] = (await once(child, 'exit')) as [number | null];
  assert.ok(interrupted, `exited before its first interval line: ${err}`);
  return { code, out, err };
}

function readJson<T>(file: string): T {
  return JSON.parse(readFileSync(file, 'utf8')) as T;
}

test('rmq bench producer, batch producer and consumer against our broker', { timeout: 60_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'rmq-bench-smoke-'));
  const mq = await startEmbedded();
  try {
    const common = ['-n', mq.namesrvAddr, '-t', 'BenchSmoke', '--report-interval', '1'];

    const plainJson = join(dir, 'producer.json');
    const plain = await bench([
      'producer',
      ...common,
      '-w',
      '8',
      '-s',
      '256',
      '--duration',
      '3',
      '--json',
      plainJson,
    ]);
    assert.equal(plain.code, 0, plain.err);
    assert.match(plain.out, PRODUCER_LINE);
    assert.doesNotMatch(plain.out, /\r/, 'no live line on a pipe');
    const p = readJson<ProducerJson>(plainJson);
    assert.equal(p.tool, 'rmq');
    assert.equal(p.role, 'producer');
    assert.ok(p.messages > 0, JSON.stringify(p));
    assert.equal(p.sends, p.messages);
    assert.equal(p.sendFailed, 0);
    assert.equal(p.responseFailed, 0);
    assert.ok(p.measuredMs >= 3000, `measured ${p.measuredMs} ms`);
    assert.equal(Number(COMPLETE_LINE.exec(plain.out)?.[1]), p.messages);

    const batchJson = join(dir, 'batch.json');
    const batch = await benchUntilSigint([
      'producer',
      ...common.slice(0, 4),
      '--report-interval',
      '0.5',
      '-w',
      '4',
      '-b',
      '16',
      '--json',
      batchJson,
    ]);
    assert.equal(batch.code, 0, batch.err);
    assert.match(batch.out, /^\[Complete\] /m, 'SIGINT prints the summary');
    const b = readJson<ProducerJson>(batchJson);
    assert.equal(b.batchSize, 16);
    assert.ok(b.sends > 0, JSON.stringify(b));
    assert.equal(b.messages, b.sends * 16);
    assert.equal(b.sendFailed + b.responseFailed, 0);

    const total = p.messages + b.messages;
    const consumerJson = join(dir, 'consumer.json');
    const consumer = await bench([
      'consumer',
      ...common,
      '-g',
      'bench_smoke',
      '--from',
      'first',
      '--count',
      String(total),
      '--duration',
      '40',
      '--json',
      consumerJson,
    ]);
    assert.equal(consumer.code, 0, consumer.err);
    assert.match(consumer.out, /^Consumer Started\.$/m);
    const c = readJson<ConsumerJson>(consumerJson);
    assert.equal(c.role, 'consumer');
    assert.equal(c.group, 'bench_smoke');
    assert.equal(c.failed, 0);
    assert.equal(c.messages, total, 'every message sent, consumed once');
    assert.ok(c.measuredMs < 40_000, 'stopped by --count, not by --duration');
  } finally {
    await mq.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
