import assert from 'node:assert/strict';
import { test } from 'node:test';
import { accessConfigString } from '../../../src/cli/admin/acl-commands.js';
import { clusterListLine } from '../../../src/cli/admin/broker-commands.js';
import {
  formatDate,
  frontStringAtLeast,
  javaMap,
  left,
  right,
  timeMillisToHumanString2,
  toJson,
} from '../../../src/cli/admin/format.js';
import { subscriptionGroupConfigString, versionDesc } from '../../../src/cli/admin/group-commands.js';
import { parseResetTimestamp } from '../../../src/cli/admin/offset-commands.js';
import { consumeQueueDataString } from '../../../src/cli/admin/queue-commands.js';
import { compareQueues, topicConfigString } from '../../../src/cli/admin/topic-commands.js';
import { createSubscriptionGroupConfig } from '../../../src/common/protocol/subscription-group-config.js';
import { createTopicConfig } from '../../../src/common/protocol/topic-config.js';

test('printf columns: %-Ns pads and never cuts, %Ns aligns right, frontStringAtLeast cuts', () => {
  assert.equal(left('ab', 4), 'ab  ');
  assert.equal(left('abcdef', 4), 'abcdef');
  assert.equal(right(7, 4), '   7');
  assert.equal(frontStringAtLeast('abcdef', 4), 'abcd');
  assert.equal(frontStringAtLeast('ab', 4), 'ab');
});

test('Java toString forms: maps, TopicConfig, SubscriptionGroupConfig, MQVersion', () => {
  assert.equal(
    javaMap(
      new Map([
        [0, '127.0.0.1:10911'],
        [1, '127.0.0.1:10912'],
      ]),
    ),
    '{0=127.0.0.1:10911, 1=127.0.0.1:10912}',
  );
  assert.equal(javaMap(new Map()), '{}');
  assert.equal(
    topicConfigString(createTopicConfig('T', { readQueueNums: 8, writeQueueNums: 8, perm: 4 })),
    'TopicConfig [topicName=T, readQueueNums=8, writeQueueNums=8, perm=R--, topicFilterType=SINGLE_TAG, topicSysFlag=0, order=false]',
  );
  assert.equal(
    subscriptionGroupConfigString(createSubscriptionGroupConfig('G')),
    'SubscriptionGroupConfig [groupName=G, consumeEnable=true, consumeFromMinEnable=true, consumeBroadcastEnable=true, ' +
      'retryQueueNums=1, retryMaxTimes=16, brokerId=0, whichBrokerWhenConsumeSlowly=1, notifyConsumerIdsChangedEnable=true]',
  );
  assert.equal(versionDesc(409), 'V4_9_8');
});

test('dates in local time, as UtilAll formats them', () => {
  const ms = new Date(2024, 0, 2, 3, 4, 5, 6).getTime();
  assert.equal(formatDate(ms), '2024-01-02 03:04:05');
  assert.equal(timeMillisToHumanString2(BigInt(ms)), '2024-01-02 03:04:05,006');
});

test('clusterList line: upstream widths', () => {
  const line = clusterListLine(['c', 'b', '0', 'a:1', 'V4_9_8', 'in', 'out', '0', '1.00', '0.1000']);
  assert.equal(
    line,
    `${'c'.padEnd(16)}  ${'b'.padEnd(22)}  0     ${'a:1'.padEnd(22)} ${'V4_9_8'.padEnd(16)} ${'in'.padStart(19)} ${'out'.padStart(19)} ${'0'.padStart(10)}  1.00 0.1000\n`,
  );
});

test('--json: longs as decimal strings, maps as objects, undefined fields left out', () => {
  const doc = JSON.parse(
    toJson({ offset: 2n ** 63n - 1n, m: new Map([[0, 'x']]), s: new Set(['a']), u: undefined }),
  );
  assert.deepEqual(doc, { offset: '9223372036854775807', m: { 0: 'x' }, s: ['a'] });
});

test('queues sort as MessageQueue.compareTo', () => {
  const qs = [
    { topic: 'b', brokerName: 'x', queueId: 0 },
    { topic: 'a', brokerName: 'y', queueId: 1 },
    { topic: 'a', brokerName: 'y', queueId: 0 },
    { topic: 'a', brokerName: 'x', queueId: 9 },
  ];
  assert.deepEqual(
    [...qs].sort(compareQueues).map((q) => `${q.topic}/${q.brokerName}/${q.queueId}`),
    ['a/x/9', 'a/y/0', 'a/y/1', 'b/x/0'],
  );
});

test('resetOffsetByTime -s: now, milliseconds, or yyyy-MM-dd#HH:mm:ss:SSS in local time', () => {
  assert.equal(parseResetTimestamp('now'), -1);
  assert.equal(parseResetTimestamp('1700000000000'), 1_700_000_000_000);
  assert.equal(parseResetTimestamp('2024-01-02#03:04:05:006'), new Date(2024, 0, 2, 3, 4, 5, 6).getTime());
  assert.throws(
    () => parseResetTimestamp('yesterday'),
    /expected now, milliseconds or yyyy-MM-dd#HH:mm:ss:SSS/,
  );
});

test('ConsumeQueueData.toString and an ACL account without its secret', () => {
  assert.equal(
    consumeQueueDataString({ physicOffset: 10n, physicSize: 200, tagsCode: 0n, eval: false }),
    "ConsumeQueueData{physicOffset=10, physicSize=200, tagsCode=0, extendDataJson='null', bitMap='null', eval=false, msg='null'}",
  );
  const shown = accessConfigString({ accessKey: 'ak', secretKey: 'very-secret', admin: true });
  assert.doesNotMatch(shown, /very-secret/);
  assert.match(shown, /"accessKey":"ak"/);
});
