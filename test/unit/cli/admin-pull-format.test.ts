import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  analyzeProcessQueue,
  analyzeSubscription,
  CONSUME_BLOCKED_AFTER_MS,
  consumerRunningInfoString,
  processQueueInfoString,
  SUBSCRIPTION_CHECK_AFTER_START_MS,
  timeMillisToHumanString,
} from '../../../src/cli/admin/consumer-status-command.js';
import { AdminUsageError, parseOptions } from '../../../src/cli/admin/options.js';
import {
  CONSUME_MESSAGE_DEFAULT_COUNT,
  charsetDecoder,
  consumeMessage,
  javaBytes,
  messageExtString,
  planConsumeMessage,
  printMessageLine,
  timestampFormat,
} from '../../../src/cli/admin/pull-commands.js';
import { MessageExt } from '../../../src/common/message/message.js';
import { MessageQueue } from '../../../src/common/message/message-queue.js';
import type { DecodedConsumerRunningInfo } from '../../../src/common/protocol/consumer-running-info.js';
import { emptyProcessQueueInfo } from '../../../src/common/protocol/process-queue-info.js';
import type { SubscriptionData } from '../../../src/common/protocol/subscription-data.js';

const usage = (message: RegExp) => (e: unknown) => e instanceof AdminUsageError && message.test(e.message);

test('timestampFormat: milliseconds, or yyyy-MM-dd#HH:mm:ss:SSS in local time; anything else refused', () => {
  assert.equal(timestampFormat('1700000000123', 'b'), 1700000000123);
  assert.equal(timestampFormat('2026-03-04#05:06:07:089', 'b'), new Date(2026, 2, 4, 5, 6, 7, 89).getTime());
  assert.throws(() => timestampFormat('yesterday', 's'), usage(/^-s: expected currentTimeMillis/));
});

test('charsetDecoder: Java charset names, the byte order mark kept, an unknown charset refused', () => {
  assert.equal(charsetDecoder('UTF-8')(Buffer.from('héllo', 'utf8')), 'héllo');
  assert.equal(charsetDecoder('GBK')(Buffer.from([0xc4, 0xe3, 0xba, 0xc3])), '你好');
  assert.equal(charsetDecoder('UTF-8')(Buffer.from([0xef, 0xbb, 0xbf, 0x41])), '\ufeffA');
  assert.throws(() => charsetDecoder('EBCDIC-NOPE'), usage(/^-c: unsupported charset EBCDIC-NOPE$/));
});

function pulled(): MessageExt {
  const msg = new MessageExt('T1', Buffer.from([0x6d, 0x30, 0xff]));
  msg.brokerName = 'broker-a';
  msg.queueId = 2;
  msg.storeSize = 180;
  msg.queueOffset = 7n;
  msg.sysFlag = 0;
  msg.bornTimestamp = 1700000000000n;
  msg.bornHost = { address: '127.0.0.1', port: 50000 };
  msg.storeTimestamp = 1700000000005n;
  msg.storeHost = { address: '127.0.0.1', port: 10911 };
  msg.offsetMsgId = '7F00000100002A9F0000000000000123';
  msg.commitLogOffset = 291n;
  msg.bodyCRC = 12345;
  msg.properties = new Map([['UNIQ_KEY', 'AC110001000018B4AAC2']]);
  return msg;
}

test("MessageExt.toString and printMsg's line: signed body bytes, the offset id as msgId inside, the uniq key outside", () => {
  const msg = pulled();
  assert.equal(javaBytes(Buffer.from([0, 127, 128, 255])), '[0, 127, -128, -1]');
  const expected =
    'MessageExt [brokerName=broker-a, queueId=2, storeSize=180, queueOffset=7, sysFlag=0, ' +
    'bornTimestamp=1700000000000, bornHost=/127.0.0.1:50000, storeTimestamp=1700000000005, ' +
    'storeHost=/127.0.0.1:10911, msgId=7F00000100002A9F0000000000000123, commitLogOffset=291, bodyCRC=12345, ' +
    'reconsumeTimes=0, preparedTransactionOffset=0, toString()=Message{topic=' +
    "'T1', flag=0, properties={UNIQ_KEY=AC110001000018B4AAC2}, body=[109, 48, -1], transactionId='null'}]";
  assert.equal(messageExtString(msg), expected);
  assert.equal(printMessageLine(msg, 'm0'), `MSGID: AC110001000018B4AAC2 ${expected} BODY: m0\n`);
  assert.match(printMessageLine(msg, undefined), / BODY: NOT PRINT BODY\n$/);
});

test("consumeMessage's checks: upstream's modes and messages, in its order", () => {
  const plan = (...argv: string[]) => planConsumeMessage(parseOptions(argv, consumeMessage.options), 10_000);
  const byTopic = plan('-t', 'T', '-b', 'broker-a');
  assert.deepEqual([byTopic.mode, byTopic.messageCount], ['DEFAULT', BigInt(CONSUME_MESSAGE_DEFAULT_COUNT)]);
  const byQueue = plan('-t', 'T', '-b', 'broker-a', '-i', '3', '-c', '5');
  assert.deepEqual([byQueue.mode, byQueue.queueId, byQueue.messageCount], ['BYQUEUE', 3, 5n]);
  const byOffset = plan('-t', 'T', '-b', 'broker-a', '-i', '3', '-o', '9', '-s', '100', '-e', '200');
  assert.deepEqual(
    [byOffset.mode, byOffset.offset, byOffset.beginMs, byOffset.endMs],
    ['BYOFFSET', 9n, 100, 200],
  );
  const refused = (message: string, ...argv: string[]) =>
    assert.throws(() => plan(...argv), usage(new RegExp(`^${message.replace(/[!]/g, '\\$&')}$`)));
  refused('Please input a positive messageNumber!', '-t', 'T', '-c', '0');
  refused('Please set the brokerName before queueId!', '-t', 'T', '-i', '1');
  refused('Please set queueId before offset!', '-t', 'T', '-b', 'broker-a', '-o', '1');
  refused('Please set the beginTimestamp before now!', '-t', 'T', '-s', '10001');
  refused('Please set the endTimestamp before now!', '-t', 'T', '-e', '10001');
  refused(
    'Please make sure that the beginTimestamp is less than or equal to the endTimestamp',
    '-t',
    'T',
    '-s',
    '200',
    '-e',
    '100',
  );
  assert.throws(() => plan('-t', 'T', '-c', 'many'), usage(/not a whole number/));
});

function runningInfo(over: Partial<DecodedConsumerRunningInfo> = {}): DecodedConsumerRunningInfo {
  return {
    properties: new Map([
      ['PROP_CONSUME_TYPE', 'CONSUME_PASSIVELY'],
      ['PROP_CONSUMEORDERLY', 'false'],
      ['PROP_CONSUMER_START_TIMESTAMP', '1000'],
    ]),
    subscriptionSet: [
      {
        topic: 'T1',
        subString: '*',
        tagsSet: [],
        codeSet: [],
        subVersion: 1n,
        expressionType: 'TAG',
        classFilterMode: false,
      },
    ],
    mqTable: [[new MessageQueue('T1', 'broker-a', 0), { ...emptyProcessQueueInfo(), commitOffset: 5n }]],
    statusTable: new Map([
      [
        'T1',
        {
          pullRT: 1.5,
          pullTPS: 2,
          consumeRT: 0.25,
          consumeOKTPS: 3,
          consumeFailedTPS: 0,
          consumeFailedMsgs: 4n,
        },
      ],
    ]),
    jstack: undefined,
    ...over,
  };
}

test("ConsumerRunningInfo.formatString's layout", () => {
  const text = consumerRunningInfoString(runningInfo());
  const lines = text.split('\n');
  assert.equal(lines[0], '#Consumer Properties#');
  assert.equal(lines[1], `${'PROP_CONSUME_TYPE'.padEnd(40)}: CONSUME_PASSIVELY`);
  assert.ok(lines.includes(`001 Topic: ${'T1'.padEnd(40)} ClassFilter: false    SubExpression: *`), text);
  assert.ok(lines.includes(`${'T1'.padEnd(32)}  ${'broker-a'.padEnd(32)}  0     ${'5'.padEnd(20)}`), text);
  assert.ok(
    lines.some((l) =>
      l.startsWith(`${'T1'.padEnd(64)}  ${'broker-a'.padEnd(32)}  0     ProcessQueueInfo [commitOffset=5,`),
    ),
  );
  assert.ok(
    lines.includes(
      `${'T1'.padEnd(32)}  ${'1.50'.padStart(14)} ${'2.00'.padStart(14)} ${'0.25'.padStart(14)} ${'3.00'.padStart(14)} ${'0.00'.padStart(18)} ${'4'.padStart(25)}`,
    ),
    text,
  );
  assert.ok(!text.includes('#Consumer jstack#'));
  assert.match(consumerRunningInfoString(runningInfo({ jstack: 'main' })), /\n\n#Consumer jstack#\nmain$/);
  assert.equal(timeMillisToHumanString(new Date(2026, 0, 2, 3, 4, 5, 6).getTime()), '20260102030405006');
  assert.match(processQueueInfoString(emptyProcessQueueInfo()), /, lastConsumeTimestamp=\d{17}\]$/);
});

test('analyzeSubscription: only a push group running for a while is checked, by topic@subString', () => {
  const other = runningInfo({
    subscriptionSet: [{ ...(runningInfo().subscriptionSet[0] as SubscriptionData), subString: 'TagA' }],
  });
  const late = 1000 + SUBSCRIPTION_CHECK_AFTER_START_MS + 1;
  assert.equal(
    analyzeSubscription(
      [
        ['a', runningInfo()],
        ['b', runningInfo()],
      ],
      late,
    ),
    true,
  );
  assert.equal(
    analyzeSubscription(
      [
        ['a', runningInfo()],
        ['b', other],
      ],
      late,
    ),
    false,
  );
  // Young, or pulling: not checked.
  assert.equal(
    analyzeSubscription(
      [
        ['a', runningInfo()],
        ['b', other],
      ],
      1000,
    ),
    true,
  );
  const pull = runningInfo({ properties: new Map([['PROP_CONSUME_TYPE', 'CONSUME_ACTIVELY']]) });
  assert.equal(
    analyzeSubscription(
      [
        ['a', pull],
        ['b', other],
      ],
      late,
    ),
    true,
  );
  assert.equal(analyzeSubscription([['a', runningInfo({ subscriptionSet: [] })]], late), false);
});

test('analyzeProcessQueue: a queue holding messages with no consumption for a minute; orderly locks', () => {
  const pq = { ...emptyProcessQueueInfo(), cachedMsgCount: 3, lastConsumeTimestamp: 1000n };
  const blocked = runningInfo({ mqTable: [[new MessageQueue('T1', 'broker-a', 0), pq]] });
  assert.equal(analyzeProcessQueue('c1', blocked, 1000 + CONSUME_BLOCKED_AFTER_MS), '');
  assert.equal(
    analyzeProcessQueue('c1', blocked, 1001 + CONSUME_BLOCKED_AFTER_MS),
    `c1 MessageQueue [topic=T1, brokerName=broker-a, queueId=0] can't consume for a while, maybe blocked, ${CONSUME_BLOCKED_AFTER_MS + 1}ms\n`,
  );
  const orderly = runningInfo({
    properties: new Map([
      ['PROP_CONSUME_TYPE', 'CONSUME_PASSIVELY'],
      ['PROP_CONSUMEORDERLY', 'true'],
    ]),
    mqTable: [
      [new MessageQueue('T1', 'broker-a', 1), { ...emptyProcessQueueInfo(), lastLockTimestamp: 500n }],
    ],
  });
  assert.match(analyzeProcessQueue('c1', orderly, 2500), /queueId=1\] can't lock for a while, 2000ms\n$/);
});
