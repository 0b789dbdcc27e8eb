/** `rmq bench` command lines: upstream's flags and ours read right, bad ones refused in one line. */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { benchFromArgs } from '../../../src/cli/bench/bench-command.js';
import { parseConsumerArgs } from '../../../src/cli/bench/consumer-settings.js';
import { BenchFlagError, type FlagSpec, scanFlags } from '../../../src/cli/bench/flags.js';
import { parseProducerArgs } from '../../../src/cli/bench/producer-settings.js';
import { main } from '../../../src/cli/main.js';

const NO_ENV: NodeJS.ProcessEnv = {};

test('scanFlags takes short flags, upstream long names and --name=value', () => {
  const specs: FlagSpec[] = [
    { name: 'threadCount', short: 'w', value: 'N', help: '' },
    { name: 'json', value: 'FILE', help: '' },
    { name: 'delayLevel', short: 'e', value: 'L', help: '' },
  ];
  const values = scanFlags(['-w', '8', '--json=out.json', '--delayLevel', '-1'], specs);
  assert.deepEqual(Object.fromEntries(values), { threadCount: '8', json: 'out.json', delayLevel: '-1' });
  assert.throws(() => scanFlags(['--nope', '1'], specs), {
    name: 'BenchFlagError',
    message: 'unknown flag --nope',
  });
  assert.throws(() => scanFlags(['-w'], specs), { message: '-w needs a value (N)' });
  assert.throws(() => scanFlags(['8'], specs), { message: 'unexpected argument "8"' });
});

test('producer defaults are upstream Producer defaults', () => {
  const s = parseProducerArgs([], NO_ENV);
  assert.equal(s.namesrvAddr, '127.0.0.1:9876');
  assert.equal(s.topic, 'BenchmarkTest');
  assert.equal(s.threadCount, 64);
  assert.equal(s.inFlight, 64);
  assert.equal(s.messageSize, 128);
  assert.equal(s.keyEnable, false);
  assert.equal(s.tagCount, 0);
  assert.equal(s.messageQuantity, 0);
  assert.equal(s.delayEnable, false);
  assert.equal(s.delayLevel, 1);
  assert.equal(s.batchSize, 1);
  assert.equal(s.propertySize, 0);
  assert.equal(s.asyncEnable, false);
  assert.equal(s.durationS, 0);
  assert.equal(s.warmupS, 0);
  assert.equal(s.reportIntervalS, 10);
  assert.equal(s.jsonFile, undefined);
  assert.equal(s.group, 'benchmark_producer');
  assert.equal(parseProducerArgs([], { NAMESRV_ADDR: '10.0.0.1:9876' }).namesrvAddr, '10.0.0.1:9876');
});

test('producer flags, upstream and ours, are read', () => {
  const s = parseProducerArgs(
    [
      '-n',
      'h:1;h:2',
      '-t',
      'T1',
      '-w',
      '8',
      '-s',
      '1024',
      '-k',
      'TRUE',
      '-l',
      '4',
      '-q',
      '1000',
      '-b',
      '16',
      '-p',
      '64',
      '--duration',
      '2.5',
      '--warmup',
      '1',
      '--in-flight',
      '4',
      '--json',
      'p.json',
      '--report-interval',
      '0.5',
      '--group',
      'pg',
      '-a',
      'false',
    ],
    { NAMESRV_ADDR: 'ignored:1' },
  );
  assert.equal(s.namesrvAddr, 'h:1;h:2');
  assert.equal(s.topic, 'T1');
  assert.equal(s.threadCount, 8);
  assert.equal(s.messageSize, 1024);
  assert.equal(s.keyEnable, true);
  assert.equal(s.tagCount, 4);
  assert.equal(s.messageQuantity, 1000);
  assert.equal(s.batchSize, 16);
  assert.equal(s.propertySize, 64);
  assert.equal(s.durationS, 2.5);
  assert.equal(s.warmupS, 1);
  assert.equal(s.inFlight, 4);
  assert.equal(s.jsonFile, 'p.json');
  assert.equal(s.reportIntervalS, 0.5);
  assert.equal(s.group, 'pg');
  const delayed = parseProducerArgs(['-d', 'true', '-e', '3'], NO_ENV);
  assert.equal(delayed.delayEnable, true);
  assert.equal(delayed.delayLevel, 3);
});

test('producer -y true is upstream async mode: one sender, 10000 outstanding', () => {
  const s = parseProducerArgs(['-y', 'true', '-w', '32'], NO_ENV);
  assert.equal(s.asyncEnable, true);
  assert.equal(s.threadCount, 1);
  assert.equal(s.inFlight, 10_000);
  assert.equal(parseProducerArgs(['-y', 'true', '--in-flight', '100'], NO_ENV).inFlight, 100);
});

test('bad producer flags are refused naming the flag', () => {
  const cases: Array<[string[], string]> = [
    [['-w', '0'], '-w: out of range (in [1, 100000]): 0'],
    [['-w', 'x'], '-w: not a whole number: x'],
    [['-w', '1.5'], '-w: not a whole number: 1.5'],
    [['-s', '0'], '-s: out of range (in [1, 4194304]): 0'],
    [['-k', 'yes'], '-k: expected true or false, got yes'],
    [['-ak', 'x'], '-ak and -sk need -a true'],
    [['-d', 'true', '-b', '16'], '-d true cannot be combined with -b > 1: a batch carries no delay level'],
    [['-e', '-1'], '-e: out of range (in [1, 2147483647]): -1'],
    [['-q', '-5'], '-q: out of range (>= 0): -5'],
    [['--duration', '-1'], '--duration: out of range (in [0, 86400]): -1'],
    [['--duration', 'ten'], '--duration: not a number: ten'],
    [['--report-interval', '0'], '--report-interval: out of range (in [0.1, 86400]): 0'],
    [['--in-flight', '0'], '--in-flight: out of range (in [1, 100000]): 0'],
    [['-t', '  '], '-t must not be empty'],
    [['-g', 'x'], 'unknown flag -g'],
  ];
  for (const [argv, message] of cases) {
    assert.throws(
      () => parseProducerArgs(argv, NO_ENV),
      (error: unknown) => {
        assert.ok(error instanceof BenchFlagError, `${argv.join(' ')}: ${String(error)}`);
        assert.equal(error.message, message);
        return true;
      },
    );
  }
});

test('consumer defaults are upstream Consumer defaults', () => {
  const s = parseConsumerArgs([], NO_ENV);
  assert.equal(s.topic, 'BenchmarkTest');
  assert.equal(s.threadCount, 20);
  assert.equal(s.group, 'benchmark_consumer');
  assert.equal(s.suffixEnable, false);
  assert.equal(s.filterType, undefined);
  assert.equal(s.expression, undefined);
  assert.equal(s.failRate, 0);
  assert.equal(s.count, 0);
  assert.equal(s.from, 'last');
  assert.equal(s.batchMaxSize, 1);
  assert.equal(s.pullBatchSize, 32);
  assert.equal(s.reportIntervalS, 10);
});

test('consumer flags: group suffix, filter from a file or literal, fail rate, ours', () => {
  const dir = mkdtempSync(join(tmpdir(), 'rmq-bench-flags-'));
  try {
    const file = join(dir, 'expr');
    writeFileSync(file, 'a > 5 AND b = 1\n');
    const s = parseConsumerArgs(
      [
        '-g',
        'cg',
        '-p',
        'true',
        '-w',
        '4',
        '-f',
        'SQL92',
        '-e',
        file,
        '-r',
        '0.25',
        '--count',
        '500',
        '--from',
        'first',
        '--batch-max-size',
        '8',
        '--pull-batch-size',
        '64',
      ],
      NO_ENV,
      1_234,
    );
    assert.equal(s.group, 'cg_34');
    assert.equal(s.threadCount, 4);
    assert.equal(s.filterType, 'SQL92');
    assert.equal(s.expression, 'a > 5 AND b = 1');
    assert.equal(s.failRate, 0.25);
    assert.equal(s.count, 500);
    assert.equal(s.from, 'first');
    assert.equal(s.batchMaxSize, 8);
    assert.equal(s.pullBatchSize, 64);
    const literal = parseConsumerArgs(['-f', 'TAG', '-e', 'tag0 || tag1'], NO_ENV);
    assert.equal(literal.expression, 'tag0 || tag1');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('bad consumer flags are refused naming the flag', () => {
  const cases: Array<[string[], string]> = [
    [['-f', 'XML', '-e', 'x'], '-f: expected one of TAG, SQL92, got XML'],
    [['-f', 'TAG'], '-f TAG needs -e (the expression, or a file holding it)'],
    [['-e', 'tag0'], '-e needs -f TAG or -f SQL92'],
    [['-r', '1.5'], '-r: out of range (in [0, 1]): 1.5'],
    [['--from', 'middle'], '--from: expected one of first, last, got middle'],
    [['--count', '-1'], '--count: out of range (>= 0): -1'],
    [['-w', '1001'], '-w: out of range (in [1, 1000]): 1001'],
    [['--pull-batch-size', '0'], '--pull-batch-size: out of range (in [1, 1024]): 0'],
    [['-p', 'maybe'], '-p: expected true or false, got maybe'],
    [['-ak', 'x'], '-ak and -sk need -a true'],
  ];
  for (const [argv, message] of cases) {
    assert.throws(() => parseConsumerArgs(argv, NO_ENV), { name: 'BenchFlagError', message });
  }
});

/** Runs `rmq bench <argv>` in this process, collecting what it prints. */
async function bench(argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await benchFromArgs(
    argv,
    { out: (t) => (out += t), err: (t) => (err += t) },
    { signal: new AbortController().signal, isTTY: false, env: NO_ENV },
  );
  return { code, out, err };
}

test('a bad flag is one line on stderr and exit code 2, before anything connects', async () => {
  for (const argv of [
    ['producer', '-w', 'x'],
    ['producer', '--nope'],
    ['consumer', '-r', '2'],
  ]) {
    const run = await bench(argv);
    assert.equal(run.code, 2, argv.join(' '));
    assert.equal(run.out, '');
    assert.match(run.err, new RegExp(`^rmq bench ${argv[0]}: [^\\n]+\\n$`));
  }
});

test('rmq bench prints its usage; each tool its flags', async () => {
  const none = await bench([]);
  assert.equal(none.code, 2);
  assert.match(none.err, /^Usage: rmq bench <tool>/);
  const unknown = await bench(['frob']);
  assert.equal(unknown.code, 2);
  assert.match(unknown.err, /unknown tool "frob"/);
  const producer = await bench(['producer', '--help']);
  assert.equal(producer.code, 0);
  assert.match(producer.out, /^Usage: rmq bench producer/);
  for (const flag of ['-n', '-t', '-w', '-s', '-k', '-l', '-q', '-d', '-e', '-b', '-p', '-y', '-a']) {
    assert.match(producer.out, new RegExp(`\\n  ${flag}, --`), flag);
  }
  for (const flag of ['--duration', '--warmup', '--in-flight', '--json', '--report-interval', '--group']) {
    assert.match(producer.out, new RegExp(`\\n {6}${flag} `), flag);
  }
  const consumer = await bench(['consumer', '-h']);
  assert.equal(consumer.code, 0);
  for (const flag of [
    '-g',
    '-p',
    '-f',
    '-e',
    '-r',
    '--count',
    '--from',
    '--batch-max-size',
    '--pull-batch-size',
  ]) {
    assert.match(
      consumer.out,
      new RegExp(flag.startsWith('--') ? `\\n {6}${flag} ` : `\\n  ${flag}, --`),
      flag,
    );
  }
  const out: string[] = [];
  assert.equal(await main(['bench', '--help'], { out: (t) => out.push(t), err: () => undefined }), 0);
  assert.match(out.join(''), /rmq bench producer --help/);
});

test('-a true signs with upstream benchmark account unless -ak/-sk name another', () => {
  assert.equal(parseProducerArgs([], NO_ENV).credentials, undefined);
  assert.deepEqual(parseProducerArgs(['-a', 'true'], NO_ENV).credentials, {
    accessKey: 'rocketmq2',
    secretKey: '12345678',
  });
  assert.deepEqual(
    parseConsumerArgs(['-a', 'true', '-ak', 'bench01', '-sk', 'secret01'], NO_ENV).credentials,
    {
      accessKey: 'bench01',
      secretKey: 'secret01',
    },
  );
});
