/**
 * `rmq admin` queryMsgByOffset, printMsg, consumeMessage and consumerStatus against a real
 * in-process name server and broker, through the CLI's main function, with real messages and real
 * consumers: what each prints (mqadmin's layout), its --json facts, and its refusals.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { createProducer, type PushConsumer } from '../../../src/client/index.js';
import { MessageQueue } from '../../../src/common/message/message-queue.js';
import type { Embedded } from '../../../src/embedded/embedded.js';
import { json, ok, quiet, rmq, startAdminCluster, startConsumer, unique, until } from './admin-support.js';

const LIMIT = { timeout: 60_000 };
let embedded: Embedded;
let n: string[];
let brokerName: string;
let topic: string;
let sentAt: number;
/** Bodies by queue: queue 0 gets three messages, queue 1 two; even ones are TagA, odd ones TagB. */
const BODIES = [
  ['q0-m0', 'q0-m1', 'q0-m2'],
  ['q1-m0', 'q1-m1'],
];

/** `-t -b -i`: one queue of the test topic, on our broker unless told. */
function queueArgs(queueId: number, broker = brokerName): string[] {
  return ['-t', topic, '-b', broker, '-i', String(queueId)];
}

/** The BODY of every `MSGID: ... BODY: x` line. */
const bodies = (out: string): string[] =>
  out
    .split('\n')
    .filter((l) => l.startsWith('MSGID: '))
    .map((l) => l.slice(l.lastIndexOf(' BODY: ') + 7));

before(async () => {
  ({ embedded, n, brokerName } = await startAdminCluster());
  topic = unique('PullCmdTopic');
  await ok('admin', 'updateTopic', ...n, '-b', embedded.brokerAddr, '-t', topic, '-r', '2', '-w', '2');
  const producer = createProducer({
    producerGroup: unique('pg'),
    namesrvAddr: embedded.namesrvAddr,
    logger: quiet,
  });
  await producer.start();
  sentAt = Date.now();
  try {
    for (const [queueId, list] of BODIES.entries()) {
      for (const [i, body] of list.entries()) {
        await producer.send(
          { topic, body, tags: i % 2 === 0 ? 'TagA' : 'TagB', keys: `k-${body}` },
          { messageQueue: new MessageQueue(topic, brokerName, queueId) },
        );
      }
    }
  } finally {
    await producer.shutdown();
  }
});
after(() => embedded.close());

test('queryMsgByOffset prints the message at that offset as queryMsgById does', LIMIT, async () => {
  const out = await ok('admin', 'queryMsgByOffset', ...n, ...queueArgs(0), '-o', '1');
  assert.match(out, /^OffsetID: {12}[0-9A-F]{32}\n/);
  assert.match(out, new RegExp(`\\nTopic: {15}${topic}\\nTags: {16}\\[TagB\\]\\nKeys: {16}\\[k-q0-m1\\]\\n`));
  assert.match(out, /\nQueue ID: {12}0\nQueue Offset: {8}1\n/);
  type Facts = { queueOffset: string; offsetMsgId: string; bodyPath: string };
  const facts = await json<Facts>('admin', 'queryMsgByOffset', ...n, ...queueArgs(1), '-o', '0');
  assert.equal(facts.queueOffset, '0');
  assert.equal(readFileSync(facts.bodyPath, 'utf8'), 'q1-m0');
  // The same message through the offset id.
  assert.match(await ok('admin', 'queryMsgById', ...n, '-i', facts.offsetMsgId), /\nQueue ID: {12}1\n/);

  const past = await rmq('admin', 'queryMsgByOffset', ...n, ...queueArgs(0), '-o', '9');
  assert.deepEqual([past.code, past.out], [0, '']);
  assert.match(
    past.err,
    /^no message at offset 9 of MessageQueue \[topic=.*queueId=0\]: (NO_NEW_MSG|OFFSET_ILLEGAL)\n$/,
  );
});

test('printMsg reads every queue from min to max, with -s, -d, -b, -e and -c', LIMIT, async () => {
  const out = await ok('admin', 'printMsg', ...n, '-t', topic);
  const lines = out.split('\n');
  assert.equal(
    lines[0],
    `minOffset=0, maxOffset=3, MessageQueue [topic=${topic}, brokerName=${brokerName}, queueId=0]`,
  );
  assert.equal(lines.filter((l) => l === '-'.repeat(56)).length, 2);
  assert.ok(
    lines.includes(
      `minOffset=0, maxOffset=2, MessageQueue [topic=${topic}, brokerName=${brokerName}, queueId=1]`,
    ),
  );
  assert.deepEqual(bodies(out), BODIES.flat());
  assert.match(
    lines[1] as string,
    new RegExp(
      `^MSGID: [0-9A-F]{32} MessageExt \\[brokerName=${brokerName}, queueId=0, storeSize=\\d+, queueOffset=0, .*bornHost=/[\\d.]+:\\d+, .*toString\\(\\)=Message\\{topic='${topic}', flag=0, properties=\\{.*TAGS=TagA.*\\}, body=\\[113, 48, 45, 109, 48\\], transactionId='null'\\}\\] BODY: q0-m0$`,
    ),
  );

  assert.deepEqual(bodies(await ok('admin', 'printMsg', ...n, '-t', topic, '-s', 'TagB')), [
    'q0-m1',
    'q1-m1',
  ]);
  assert.deepEqual(
    bodies(await ok('admin', 'printMsg', ...n, '-t', topic, '-d', 'false')),
    Array(5).fill('NOT PRINT BODY'),
  );
  // Timestamps become offsets through searchOffset: nothing was stored before the sends began.
  assert.deepEqual(
    bodies(await ok('admin', 'printMsg', ...n, '-t', topic, '-e', String(sentAt - 60_000))),
    [],
  );
  assert.deepEqual(
    bodies(await ok('admin', 'printMsg', ...n, '-t', topic, '-b', String(sentAt - 60_000))),
    BODIES.flat(),
  );
  assert.deepEqual(
    bodies(await ok('admin', 'printMsg', ...n, '-t', topic, '-c', 'ISO-8859-1')),
    BODIES.flat(),
  );

  const reports = await json<
    Array<{
      queueId: number;
      minOffset: string;
      maxOffset: string;
      messages: Array<{ body: string; queueOffset: string }>;
    }>
  >('admin', 'printMsg', ...n, '-t', topic);
  assert.deepEqual(
    reports.map((r) => [r.queueId, r.minOffset, r.maxOffset, r.messages.map((m) => m.body)]),
    [
      [0, '0', '3', BODIES[0]],
      [1, '0', '2', BODIES[1]],
    ],
  );
});

test(
  "consumeMessage's three modes: the topic (-c caps it), a queue, a queue from an offset",
  LIMIT,
  async () => {
    const all = await ok('admin', 'consumeMessage', ...n, '-t', topic);
    assert.deepEqual(bodies(all), BODIES.flat());
    assert.match(all, /^Consume ok\nMSGID: /);
    assert.match(
      all,
      new RegExp(
        `\\nMessageQueue \\[topic=${topic}, brokerName=${brokerName}, queueId=1\\] print msg finished\\. status=NO_NEW_MSG, offset=2\\n$`,
      ),
    );

    const capped = await ok('admin', 'consumeMessage', ...n, '-t', topic, '-c', '2');
    assert.match(capped, /^The older 2 message of the 0 queue will be provided\n/);
    assert.deepEqual(bodies(capped), ['q0-m0', 'q0-m1']);

    // -b alone reads the whole topic, as upstream.
    assert.deepEqual(
      bodies(await ok('admin', 'consumeMessage', ...n, '-t', topic, '-b', brokerName)),
      BODIES.flat(),
    );
    const queue = await ok('admin', 'consumeMessage', ...n, ...queueArgs(1));
    assert.deepEqual(bodies(queue), BODIES[1]);
    const fromOffset = await ok('admin', 'consumeMessage', ...n, ...queueArgs(0), '-o', '1');
    assert.deepEqual(bodies(fromOffset), ['q0-m1', 'q0-m2']);
    const oneOnly = await ok('admin', 'consumeMessage', ...n, ...queueArgs(0), '-o', '0', '-c', '1');
    assert.match(oneOnly, /^The oldler 1 message will be provided\n/);
    assert.deepEqual(bodies(oneOnly), ['q0-m0']);
    assert.equal(
      await ok('admin', 'consumeMessage', ...n, ...queueArgs(0), '-o', '9'),
      `MessageQueue [topic=${topic}, brokerName=${brokerName}, queueId=0] no matched msg, offset=9\n`,
    );

    const group = unique('cm_group');
    type Report = { queueId: number; messages: Array<{ body: string }>; status: string };
    const reports = await json<Report[]>('admin', 'consumeMessage', ...n, ...queueArgs(0), '-g', group);
    assert.deepEqual(
      reports.map((r) => [r.queueId, r.messages.map((m) => m.body), r.status]),
      [[0, BODIES[0], 'NO_NEW_MSG']],
    );

    const refused = await rmq('admin', 'consumeMessage', ...n, '-t', topic, '-i', '1');
    assert.equal(refused.code, 2);
    assert.match(
      refused.err,
      /^rmq admin consumeMessage: Please set the brokerName before queueId!\nusage: rmq admin consumeMessage /,
    );
    const future = await rmq(
      'admin',
      'consumeMessage',
      ...n,
      '-t',
      topic,
      '-s',
      String(Date.now() + 3_600_000),
    );
    assert.equal(future.code, 2);
    assert.match(future.err, /Please set the beginTimestamp before now!/);
  },
);

test('consumerStatus: every member of the group, its running info, and the analysis', LIMIT, async () => {
  const group = unique('StatusGroup');
  const consumers: PushConsumer[] = [];
  const cwd = process.cwd();
  const dir = mkdtempSync(join(tmpdir(), 'rmq-consumer-status-'));
  process.chdir(dir);
  try {
    const timers = { rebalanceWaitInterval: 500, heartbeatBrokerInterval: 500 };
    for (let i = 0; i < 2; i++) {
      consumers.push(await startConsumer(embedded.namesrvAddr, group, topic, timers));
    }
    const ids = consumers.map((c) => c.clientId as string).sort();
    type Status = {
      clients: Array<{
        clientId: string;
        runningInfo: { mqTable: Array<{ topic: string }> };
      }>;
      subscriptionSame: boolean;
    };
    // Each member holds one of the topic's two queues once rebalancing settles (and the group's retry
    // queue goes to one of them).
    await until('both members to hold a queue', async () => {
      const run = await rmq('admin', 'consumerStatus', ...n, '-g', group, '--json');
      if (run.code !== 0) return false;
      const s = JSON.parse(run.out) as Status;
      return (
        s.clients.length === 2 &&
        s.clients.every((c) => c.runningInfo.mqTable.filter((q) => q.topic === topic).length === 1)
      );
    });

    const out = await ok('admin', 'consumerStatus', ...n, '-g', group);
    const lines = out.split('\n');
    assert.equal(
      lines[0],
      '#Index     #ClientId                                #Version             #ConsumerRunningInfoFile',
    );
    const rows = lines.slice(1, 3).map((l) => l.split(/ +/));
    assert.deepEqual(
      rows.map((r) => [r[0], r[1], r[2]]),
      [
        ['1', ids[0], 'V4_9_8'],
        ['2', ids[1], 'V4_9_8'],
      ],
    );
    assert.match(rows[0]?.[3] as string, new RegExp(`^\\d{13}/${ids[0]}$`));
    assert.match(readFileSync(join(dir, rows[0]?.[3] as string), 'utf8'), /^#Consumer Properties#\n/);
    assert.ok(out.endsWith('\n\nSame subscription in the same group of consumer\n\nRebalance OK\n'), out);

    const one = await ok('admin', 'consumerStatus', ...n, '-g', group, '-i', ids[0] as string);
    assert.match(one, /^#Consumer Properties#\n/);
    assert.match(one, /^PROP_CONSUME_TYPE {23}: CONSUME_PASSIVELY$/m);
    assert.match(
      one,
      new RegExp(
        `\\n\\n#Consumer Subscription#\\n(\\d{3} .*\\n)*\\d{3} Topic: ${topic} +ClassFilter: false +SubExpression: \\*\\n`,
      ),
    );
    assert.match(
      one,
      new RegExp(
        `\\n\\n#Consumer Offset#\\n#Topic {58}  #Broker Name {20}  #QID  #Consumer Offset *\\n(.+\\n)*${topic} +${brokerName} +[01] +-?\\d+ *\\n`,
      ),
    );
    assert.match(one, /\n\n#Consumer MQ Detail#\n.*\n.* ProcessQueueInfo \[commitOffset=/);
    assert.match(
      one,
      new RegExp(
        `\\n\\n#Consumer RT&TPS#\\n#Topic .*#ConsumeFailedMsgsInHour\\n(.+\\n)*${topic} +\\d+\\.\\d\\d `,
      ),
    );
    const facts = await json<{
      properties: Record<string, string>;
      subscriptionSet: Array<{ topic: string; subString: string }>;
    }>('admin', 'consumerStatus', ...n, '-g', group, '-i', ids[1] as string);
    assert.equal(facts.properties.PROP_CONSUME_TYPE, 'CONSUME_PASSIVELY');
    assert.deepEqual(
      facts.subscriptionSet.filter((s) => s.topic === topic).map((s) => s.subString),
      ['*'],
    );
  } finally {
    for (const c of consumers) await c.shutdown();
    process.chdir(cwd);
    rmSync(dir, { recursive: true, force: true });
  }
  const offline = await rmq('admin', 'consumerStatus', ...n, '-g', group);
  assert.equal(offline.code, 1);
  assert.match(offline.err, /^rmq admin consumerStatus: .+\n$/);
});

test(
  'bad input: usage and exit 2; a missing broker or dead name server: one line naming it, exit 1',
  LIMIT,
  async () => {
    for (const name of ['queryMsgByOffset', 'printMsg', 'consumeMessage', 'consumerStatus']) {
      const flag = await rmq('admin', name, ...n, '--nope');
      assert.equal(flag.code, 2, name);
      assert.match(
        flag.err,
        new RegExp(`^rmq admin ${name}: unknown option --nope\\nusage: rmq admin ${name} `),
      );
      const missing = await rmq('admin', name, ...n);
      assert.equal(missing.code, 2, name);
      assert.match(missing.err, /missing required options?: -/);
    }
    const badOffset = await rmq('admin', 'queryMsgByOffset', ...n, ...queueArgs(0), '-o', 'x');
    assert.equal(badOffset.code, 2);
    const badCharset = await rmq('admin', 'printMsg', ...n, '-t', topic, '-c', 'NOPE-8');
    assert.equal(badCharset.code, 2);
    assert.match(badCharset.err, /unsupported charset NOPE-8/);

    const started = Date.now();
    const noBroker = await rmq('admin', 'queryMsgByOffset', ...n, ...queueArgs(0, 'NoSuchBroker'), '-o', '0');
    assert.equal(noBroker.code, 1);
    assert.match(noBroker.err, /^rmq admin queryMsgByOffset: .*NoSuchBroker.*\n$/);
    for (const name of ['printMsg', 'consumeMessage']) {
      const deadNs = await rmq('admin', name, '-n', '127.0.0.1:1', '-t', topic);
      assert.equal(deadNs.code, 1, name);
      assert.match(deadNs.err, new RegExp(`^rmq admin ${name}: .*127\\.0\\.0\\.1:1.*\\n$`));
    }
    assert.ok(Date.now() - started < 30_000);
  },
);
