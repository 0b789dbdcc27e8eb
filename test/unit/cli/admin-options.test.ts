import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import {
  adminFromArgs,
  adminHelp,
  commandHelp,
  findAdminCommand,
} from '../../../src/cli/admin/admin-command.js';
import { resolveCredentials, toolsYmlCredentials } from '../../../src/cli/admin/command.js';
import {
  type AdminOption,
  AdminUsageError,
  COMMON_OPTIONS,
  optionsHelp,
  parseOptions,
} from '../../../src/cli/admin/options.js';

const SPECS: readonly AdminOption[] = [
  ...COMMON_OPTIONS,
  { short: 't', long: 'topic', arg: true, required: true, desc: 'topic name' },
  { short: 'l', long: 'list', arg: false, desc: 'list format' },
  { short: 'r', long: 'readQueueNums', arg: true, desc: 'read queues' },
];

test('short, long and --long=value forms; flags without a value; values are trimmed', () => {
  const a = parseOptions(['-t', ' TopicA ', '-l', '-n', '127.0.0.1:9876'], SPECS);
  assert.equal(a.required('topic'), 'TopicA');
  assert.equal(a.has('list'), true);
  assert.equal(a.text('namesrvAddr'), '127.0.0.1:9876');
  const b = parseOptions(['--topic=TopicB', '--readQueueNums', '4'], SPECS);
  assert.equal(b.text('topic'), 'TopicB');
  assert.equal(b.integer('readQueueNums', 8), 4);
  assert.equal(b.has('list'), false);
  // A value may start with a dash (a negative number), as commons-cli takes it after an option.
  assert.equal(parseOptions(['-t', 'x', '-r', '-1'], SPECS).integer('readQueueNums', 8), -1);
});

test('refusals are AdminUsageError naming the option', () => {
  const refuse = (argv: string[], message: RegExp) =>
    assert.throws(
      () => parseOptions(argv, SPECS),
      (e: unknown) => e instanceof AdminUsageError && message.test(e.message),
    );
  refuse(['-t', 'x', '--nope'], /^unknown option --nope$/);
  refuse(['-t', 'x', '-z', '1'], /^unknown option -z$/);
  refuse(['-t'], /^missing argument for option -t$/);
  refuse([], /^missing required option: -t$/);
  refuse(['-t', 'x', 'stray'], /^unexpected argument "stray"$/);
  refuse(['-t', 'x', '--list=yes'], /takes no value/);
  assert.throws(
    () => parseOptions(['-t', 'x', '-r', 'four'], SPECS).integer('readQueueNums', 8),
    /not a whole number: four/,
  );
  // -h skips the required check: help is always reachable.
  assert.equal(parseOptions(['-h'], SPECS).has('help'), true);
});

test('booleans as Java Boolean.parseBoolean', () => {
  const specs: AdminOption[] = [{ short: 'o', long: 'order', arg: true, desc: '' }];
  assert.equal(parseOptions(['-o', 'TRUE'], specs).bool('order', false), true);
  assert.equal(parseOptions(['-o', 'yes'], specs).bool('order', true), false);
  assert.equal(parseOptions([], specs).bool('order', true), true);
});

test('help: the command list as mqadmin prints it, and each command with its options', () => {
  assert.match(adminHelp(), /^ {3}updateTopic {10}Update or create topic$/m);
  assert.match(adminHelp(), /See 'rmq admin help <command>'/);
  const route = findAdminCommand('topicRoute');
  assert.ok(route !== undefined);
  const help = commandHelp(route);
  assert.match(
    help,
    /^Examine topic route info\nusage: rmq admin topicRoute \[-h\] \[-n <arg>\].* -t <arg> \[-l\]\n/,
  );
  assert.match(help, /^ -l,--list +Use list format to print data$/m);
  assert.match(help, /^ {5}--json +print the result as JSON/m);
  assert.equal(findAdminCommand('updateTopic')?.read, false);
  assert.doesNotMatch(commandHelp(findAdminCommand('updateTopic') as never), /--json/);
  assert.match(optionsHelp('x', SPECS), /-r,--readQueueNums <arg> +read queues/);
});

test('ACL account: our flags, else accessKey/secretKey of $ROCKETMQ_HOME/conf/tools.yml', () => {
  const home = mkdtempSync(join(tmpdir(), 'rmq-admin-home-'));
  try {
    assert.equal(toolsYmlCredentials(home), undefined);
    mkdirSync(join(home, 'conf'));
    writeFileSync(join(home, 'conf', 'tools.yml'), 'accessKey: RocketMQ\nsecretKey: 12345678\n');
    assert.deepEqual(toolsYmlCredentials(home), { accessKey: 'RocketMQ', secretKey: '12345678' });
    const none = parseOptions([], COMMON_OPTIONS);
    assert.deepEqual(resolveCredentials(none, { ROCKETMQ_HOME: home }), {
      accessKey: 'RocketMQ',
      secretKey: '12345678',
    });
    assert.equal(resolveCredentials(none, {}), undefined);
    const flags = parseOptions(['--access-key', 'ak', '--secret-key', 'sk'], COMMON_OPTIONS);
    assert.deepEqual(resolveCredentials(flags, { ROCKETMQ_HOME: home }), {
      accessKey: 'ak',
      secretKey: 'sk',
    });
    assert.throws(
      () => resolveCredentials(parseOptions(['--access-key', 'ak'], COMMON_OPTIONS), {}),
      AdminUsageError,
    );
    writeFileSync(join(home, 'conf', 'tools.yml'), 'accessKey: RocketMQ\nsecretKey: ""\n');
    assert.equal(toolsYmlCredentials(home), undefined);
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
});

test('a bad topic or group name is a usage error (exit 2, one line and the usage) before any request', async () => {
  const cases: Array<[string[], RegExp]> = [
    [
      ['deleteTopic', '-t', 'bad topic!', '-c', 'C'],
      /--topic: The specified topic\[bad topic!\] contains illegal/,
    ],
    [
      ['topicRoute', '-t', 'x'.repeat(256)],
      /--topic: The specified topic is longer than topic max length 127/,
    ],
    [['deleteSubGroup', '-g', 'bad group!', '-c', 'C'], /--groupName: the specified group\[bad group!\]/],
    [
      ['consumerProgress', '-g', 'x'.repeat(256)],
      /--groupName: the specified group is longer than group max/,
    ],
    [['cloneGroupOffset', '-s', 'g1', '-d', 'bad!', '-t', 'T'], /--destGroup: the specified group\[bad!\]/],
  ];
  for (const [argv, message] of cases) {
    let err = '';
    // The name server is a closed port: a request made before the check would fail otherwise.
    const code = await adminFromArgs(
      [...argv, '-n', '127.0.0.1:1'],
      {
        out: () => undefined,
        err: (t) => {
          err += t;
        },
      },
      {},
    );
    assert.equal(code, 2, `${argv[0]}: ${err}`);
    const lines = err.trimEnd().split('\n');
    assert.equal(lines.length, 2, err);
    assert.match(lines[0] ?? '', message);
    assert.match(lines[0] ?? '', new RegExp(`^rmq admin ${argv[0]}: `));
    assert.match(lines[1] ?? '', /^usage: rmq admin /);
  }
  // System topics and groups are names the admin reads.
  const ok = parseOptions(['-t', '%RETRY%g1'], SPECS);
  assert.equal(ok.required('topic'), '%RETRY%g1');
});
