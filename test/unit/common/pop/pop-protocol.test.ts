/**
 * Receipt handles, info strings, checkpoint / ack / batch-ack JSON and BitSet base64 against the
 * strings the official 5.5.0 classes produce (each expected string was printed by running
 * ExtraInfoUtil, fastjson2 `JSON.toJSONString` and `BatchAckMessageRequestBody.encode()` of the
 * 5.5.0 jars on the same values).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { RocketMQError } from '../../../../src/common/errors.js';
import {
  bitSetFromBase64,
  bitSetToBase64,
  buildClusterReviveTopic,
  buildExtraInfo,
  buildPollingKey,
  buildPopRetryTopic,
  ckAckOffsetByIndex,
  ckIndexOfAck,
  ckRePutTimes,
  decodeAckMsg,
  decodeBatchAckMessageRequestBody,
  decodeBatchAckMsg,
  decodePopCheckPoint,
  ExtraInfoError,
  encodeAckMsg,
  encodeBatchAckMessageRequestBody,
  encodeBatchAckMsg,
  encodePopCheckPoint,
  getQueueOffsetMapKey,
  getRealTopic,
  getStartOffsetInfoMapKey,
  isPopRetryTopicV2,
  joinInfo,
  msgOffsetInfoItem,
  type PopCheckPoint,
  parseExtraInfo,
  parseMsgOffsetInfo,
  parseNormalTopic,
  parseOrderCountInfo,
  parseStartOffsetInfo,
  queueIdOrderCountItem,
  queueOffsetOrderCountItem,
  startOffsetInfoItem,
} from '../../../../src/common/pop/index.js';

const POP_TIME = 1700000000123n;

describe('receipt handle (ExtraInfoUtil)', () => {
  test('build matches 5.5.0, parse mirrors it', () => {
    const ei = buildExtraInfo(100n, POP_TIME, 60000n, 3, '%RETRY%GroupA_TopicA', 'broker-a', 2, 105n);
    assert.equal(ei, '100 1700000000123 60000 3 1 broker-a 2 105');
    assert.equal(
      buildExtraInfo(100n, POP_TIME, 60000n, 999, '%RETRY%GroupA+TopicA', 'broker-a', 2),
      '100 1700000000123 60000 999 2 broker-a 2',
    );
    assert.deepEqual(parseExtraInfo(ei), {
      ckQueueOffset: 100n,
      popTime: POP_TIME,
      invisibleTime: 60000n,
      reviveQid: 3,
      retry: '1',
      brokerName: 'broker-a',
      queueId: 2,
      queueOffset: 105n,
    });
    assert.equal(parseExtraInfo('1 2 3 4 0 b 5').queueOffset, undefined);
    assert.equal(getRealTopic('TopicA', 'GroupA', '1'), '%RETRY%GroupA_TopicA');
    assert.equal(getRealTopic('TopicA', 'GroupA', '2'), '%RETRY%GroupA+TopicA');
    assert.equal(getRealTopic('TopicA', 'GroupA', '0'), 'TopicA');
  });

  test('malformed and forged handles throw ExtraInfoError only', () => {
    for (const bad of [
      undefined,
      '',
      'x',
      '1 2 3',
      '1 2 3 4 0 b',
      'a 2 3 4 0 b 5',
      '1 2 3 4 0 b 99999999999',
      '1 2 3 4 0 b 5 zz',
      ' '.repeat(20),
    ]) {
      assert.throws(() => parseExtraInfo(bad), ExtraInfoError, String(bad));
    }
    assert.throws(() => getRealTopic('T', 'G', '7'), ExtraInfoError);
  });

  test('info strings match 5.5.0 and parse back', () => {
    const soi = joinInfo([
      startOffsetInfoItem('TopicA', 1, 100n),
      startOffsetInfoItem('%RETRY%GroupA_TopicA', 0, 7n),
    ]);
    assert.equal(soi, '0 1 100;1 0 7');
    const moi = joinInfo([
      msgOffsetInfoItem('TopicA', 1, [100n, 101n, 105n]),
      msgOffsetInfoItem('%RETRY%GroupA_TopicA', 0, [7n]),
    ]);
    assert.equal(moi, '0 1 100,101,105;1 0 7');
    const oci = joinInfo([
      queueIdOrderCountItem('TopicA', 1, 2),
      queueOffsetOrderCountItem('TopicA', 1, 100n, 3),
    ]);
    assert.equal(oci, '0 1 2;0 qo1%100 3');
    assert.deepEqual(
      parseStartOffsetInfo(soi),
      new Map([
        ['0@1', 100n],
        ['1@0', 7n],
      ]),
    );
    assert.deepEqual(
      parseMsgOffsetInfo(moi),
      new Map([
        ['0@1', [100n, 101n, 105n]],
        ['1@0', [7n]],
      ]),
    );
    assert.deepEqual(
      parseOrderCountInfo(oci),
      new Map([
        ['0@1', 2],
        ['0@qo1%100', 3],
      ]),
    );
    assert.equal(getQueueOffsetMapKey('TopicA', 1, 100n), '0@qo1%100');
    assert.equal(getStartOffsetInfoMapKey('%RETRY%GroupA_TopicA', 0), '1@0');
    assert.equal(parseStartOffsetInfo(''), undefined);
    assert.throws(() => parseStartOffsetInfo('0 1 2;0 1 3'), ExtraInfoError);
    assert.throws(() => parseMsgOffsetInfo('0 1'), ExtraInfoError);
  });
});

describe('names (KeyBuilder, PopAckConstants)', () => {
  test('retry topics, revive topic, polling key', () => {
    assert.equal(buildPopRetryTopic('T', 'G'), '%RETRY%G_T');
    assert.equal(buildPopRetryTopic('T', 'G', true), '%RETRY%G+T');
    assert.equal(isPopRetryTopicV2('%RETRY%G+T'), true);
    assert.equal(isPopRetryTopicV2('%RETRY%G_T'), false);
    assert.equal(parseNormalTopic('%RETRY%G_T', 'G'), 'T');
    assert.equal(parseNormalTopic('%RETRY%G+T', 'G'), 'T');
    assert.equal(parseNormalTopic('T', 'G'), 'T');
    assert.equal(buildClusterReviveTopic('DefaultCluster'), 'rmq_sys_REVIVE_LOG_DefaultCluster');
    assert.equal(buildPollingKey('T', 'G', 3), 'T@G@3');
  });
});

describe('PopCheckPoint JSON', () => {
  const ck: PopCheckPoint = {
    startOffset: 100n,
    popTime: POP_TIME,
    invisibleTime: 60000n,
    bitMap: 0,
    num: 3,
    queueId: 2,
    topic: 'TopicA',
    cid: 'GroupA',
    reviveOffset: 0n,
    queueOffsetDiff: [0, 1, 5],
    brokerName: 'broker-a',
  };
  const JAVA =
    '{"bm":0,"bn":"broker-a","c":"GroupA","d":[0,1,5],"it":60000,"n":3,"pt":1700000000123,"q":2,' +
    '"reviveTime":1700000060123,"ro":0,"so":100,"sp":false,"t":"TopicA"}';

  test('encode matches 5.5.0 (fastjson2), decode mirrors', () => {
    assert.equal(encodePopCheckPoint(ck), JAVA);
    assert.equal(
      encodePopCheckPoint({ ...ck, rePutTimes: '2', bitMap: 5 }),
      '{"bm":5,"bn":"broker-a","c":"GroupA","d":[0,1,5],"it":60000,"n":3,"pt":1700000000123,"q":2,' +
        '"reviveTime":1700000060123,"ro":0,"rp":"2","so":100,"sp":false,"t":"TopicA"}',
    );
    assert.deepEqual(decodePopCheckPoint(JAVA), { ...ck, rePutTimes: undefined, suspend: false });
    assert.equal(
      encodePopCheckPoint({
        startOffset: 0n,
        popTime: 0n,
        invisibleTime: 0n,
        bitMap: 0,
        num: 0,
        queueId: 0,
        reviveOffset: 0n,
      }),
      '{"bm":0,"it":0,"n":0,"pt":0,"q":0,"reviveTime":0,"ro":0,"so":0,"sp":false}',
    );
  });

  test('indexOfAck / ackOffsetByIndex / rePutTimes', () => {
    assert.equal(ckIndexOfAck(ck, 105n), 2);
    assert.equal(ckIndexOfAck(ck, 102n), -1);
    assert.equal(ckIndexOfAck(ck, 99n), -1);
    assert.equal(ckAckOffsetByIndex(ck, 2), 105n);
    const old = { ...ck, queueOffsetDiff: undefined };
    assert.equal(ckIndexOfAck(old, 102n), 2);
    assert.equal(ckIndexOfAck(old, 103n), -1);
    assert.equal(ckRePutTimes(ck), 0);
    assert.equal(ckRePutTimes({ ...ck, rePutTimes: '4' }), 4);
    assert.equal(ckRePutTimes({ ...ck, rePutTimes: 'x' }), 127);
  });

  test('malformed checkpoints throw RocketMQErrors', () => {
    for (const bad of ['', '[]', '{"so":"x"}', '{"d":[1,"a"]}', '{"n":300}', '{']) {
      assert.throws(() => decodePopCheckPoint(bad), RocketMQError, bad);
    }
  });
});

describe('AckMsg / BatchAckMsg JSON', () => {
  test('encode matches 5.5.0, decode accepts short and long names', () => {
    const ack = {
      ackOffset: 105n,
      startOffset: 100n,
      consumerGroup: 'GroupA',
      topic: 'TopicA',
      queueId: 2,
      popTime: POP_TIME,
      brokerName: 'broker-a',
    };
    const JAVA = '{"ao":105,"bn":"broker-a","c":"GroupA","pt":1700000000123,"q":2,"so":100,"t":"TopicA"}';
    assert.equal(encodeAckMsg(ack), JAVA);
    assert.deepEqual(decodeAckMsg(JAVA), ack);
    assert.deepEqual(
      decodeAckMsg(
        '{"ackOffset":7,"startOffset":5,"consumerGroup":"g","topic":"t","queueId":1,"popTime":9,"brokerName":"b"}',
      ),
      {
        ackOffset: 7n,
        startOffset: 5n,
        consumerGroup: 'g',
        topic: 't',
        queueId: 1,
        popTime: 9n,
        brokerName: 'b',
      },
    );
    const batch = {
      ...ack,
      ackOffset: 0n,
      topic: '%RETRY%GroupA_TopicA',
      queueId: 0,
      ackOffsetList: [100n, 105n],
    };
    const JAVA_BATCH =
      '{"ao":0,"aol":[100,105],"bn":"broker-a","c":"GroupA","pt":1700000000123,"q":0,"so":100,"t":"%RETRY%GroupA_TopicA"}';
    assert.equal(encodeBatchAckMsg(batch), JAVA_BATCH);
    assert.deepEqual(decodeBatchAckMsg(JAVA_BATCH), batch);
    assert.deepEqual(decodeBatchAckMsg('{"so":1}').ackOffsetList, []);
    assert.throws(() => decodeBatchAckMsg('{"aol":["x"]}'), RocketMQError);
  });
});

describe('BATCH_ACK body and BitSet', () => {
  const ack = {
    consumerGroup: 'GroupA',
    topic: 'TopicA',
    retry: '0',
    startOffset: 100n,
    queueId: 1,
    reviveQueueId: 3,
    popTime: POP_TIME,
    invisibleTime: 60000n,
    bitSet: [0, 3, 9, 31],
  };

  test('body matches 5.5.0 encode(), decode mirrors', () => {
    const JAVA =
      '{"acks":[{"b":"CQIAgA==","c":"GroupA","it":60000,"pt":1700000000123,"q":1,"r":"0","rq":3,"so":100,"t":"TopicA"}],"brokerName":"broker-a"}';
    assert.equal(encodeBatchAckMessageRequestBody({ brokerName: 'broker-a', acks: [ack] }).toString(), JAVA);
    assert.deepEqual(decodeBatchAckMessageRequestBody(JAVA), { brokerName: 'broker-a', acks: [ack] });
    const JAVA2 = JAVA.replace('CQIAgA==', 'AQAAAAAAAABA');
    assert.deepEqual(decodeBatchAckMessageRequestBody(JAVA2).acks?.[0]?.bitSet, [0, 70]);
  });

  test('BitSet base64 round trips; garbage is a typed error', () => {
    assert.equal(bitSetToBase64([]), '');
    assert.deepEqual(bitSetFromBase64(''), []);
    assert.equal(bitSetToBase64([0, 70]), 'AQAAAAAAAABA');
    assert.deepEqual(bitSetFromBase64(bitSetToBase64([1, 2, 31, 32, 63])), [1, 2, 31, 32, 63]);
    for (const bad of [
      '{"acks":[{"b":"!!"}]}',
      '{"acks":[{"b":{}}]}',
      '{"acks":{}}',
      'null',
      '{"acks":[1]}',
    ]) {
      assert.throws(() => decodeBatchAckMessageRequestBody(bad), RocketMQError, bad);
    }
  });
});
