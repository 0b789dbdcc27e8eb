/**
 * HeartbeatData against the body the official 4.9.8 client classes wrote (golden heartbeat.json):
 * every field read, the same bytes written back, and upstream's tolerance of unknown enum names.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { RemotingCommandError } from '../../../src/common/errors.js';
import { javaStringHashCode } from '../../../src/common/java-hash.js';
import {
  decodeHeartbeatData,
  encodeHeartbeatData,
  type HeartbeatData,
} from '../../../src/common/protocol/heartbeat-data.js';
import { goldenFile } from '../../golden-fixtures.js';

const GOLDEN = goldenFile('bodies/heartbeat.json');

const EXPECTED: HeartbeatData = {
  clientID: '127.0.0.1@4242#1234567890',
  consumerDataSet: [
    {
      groupName: 'cg-golden',
      consumeType: 'CONSUME_PASSIVELY',
      messageModel: 'CLUSTERING',
      consumeFromWhere: 'CONSUME_FROM_LAST_OFFSET',
      unitMode: false,
      subscriptionDataSet: [
        {
          topic: '%RETRY%cg-golden',
          subString: '*',
          tagsSet: [],
          codeSet: [],
          subVersion: 1700000000000n,
          expressionType: 'TAG',
          classFilterMode: false,
        },
        {
          topic: 'TopicTest',
          subString: 'TagA || TagB',
          tagsSet: ['TagA', 'TagB'],
          codeSet: [javaStringHashCode('TagA'), javaStringHashCode('TagB')],
          subVersion: 1700000000000n,
          expressionType: 'TAG',
          classFilterMode: false,
        },
      ],
    },
  ],
  producerDataSet: [{ groupName: 'pg-golden' }],
};

describe('HeartbeatData', () => {
  test('reads every field of the official body', () => {
    assert.deepEqual(decodeHeartbeatData(GOLDEN), EXPECTED);
  });

  test('writes the official bytes', () => {
    assert.equal(encodeHeartbeatData(EXPECTED).toString('utf8'), GOLDEN.toString('utf8'));
  });

  test('round trip', () => {
    assert.deepEqual(decodeHeartbeatData(encodeHeartbeatData(EXPECTED)), EXPECTED);
  });

  test('an enum name this version does not know reads as absent (fastjson gives null)', () => {
    const body = Buffer.from(
      '{"clientID":"c","consumerDataSet":[{"groupName":"g","consumeType":"CONSUME_POP","messageModel":"CLUSTERING"}]}',
    );
    const consumer = decodeHeartbeatData(body).consumerDataSet[0];
    assert.equal(consumer?.consumeType, undefined);
    assert.equal(consumer?.messageModel, 'CLUSTERING');
    assert.equal(consumer?.consumeFromWhere, undefined);
    assert.deepEqual(consumer?.subscriptionDataSet, []);
  });

  test('absent sets are empty; the 5.x keys stay absent when the body has none', () => {
    const h = decodeHeartbeatData(Buffer.from('{"clientID":"c"}'));
    assert.deepEqual(h, { clientID: 'c', consumerDataSet: [], producerDataSet: [] });
  });

  // Written by the 5.5.0 client classes (HeartbeatData.encode, fastjson2) for heartbeat V2: the full
  // heartbeat with its fingerprint, then the same one without subscriptions.
  const V5_FULL =
    '{"clientID":"127.0.0.1@4242#1","consumerDataSet":[{"consumeFromWhere":"CONSUME_FROM_FIRST_OFFSET",' +
    '"consumeType":"CONSUME_PASSIVELY","groupName":"cg","messageModel":"CLUSTERING","subscriptionDataSet":' +
    '[{"classFilterMode":false,"codeSet":[2598919],"expressionType":"TAG","subString":"TagA || TagB",' +
    '"subVersion":1700000000000,"tagsSet":["TagA"],"topic":"T"}],"unitMode":false}],' +
    '"heartbeatFingerprint":511999650,"producerDataSet":[{"groupName":"pg"}],"withoutSub":false}';
  const V5_WITHOUT_SUB =
    '{"clientID":"127.0.0.1@4242#1","consumerDataSet":[{"consumeFromWhere":"CONSUME_FROM_FIRST_OFFSET",' +
    '"consumeType":"CONSUME_PASSIVELY","groupName":"cg","messageModel":"CLUSTERING","subscriptionDataSet":[],' +
    '"unitMode":false}],"heartbeatFingerprint":511999650,"producerDataSet":[{"groupName":"pg"}],"withoutSub":true}';

  test('5.x heartbeat V2 bodies: heartbeatFingerprint and withoutSub are read', () => {
    const full = decodeHeartbeatData(Buffer.from(V5_FULL));
    assert.equal(full.heartbeatFingerprint, 511999650);
    assert.equal(full.withoutSub, false);
    assert.equal(full.consumerDataSet[0]?.subscriptionDataSet[0]?.subString, 'TagA || TagB');
    const without = decodeHeartbeatData(Buffer.from(V5_WITHOUT_SUB));
    assert.equal(without.heartbeatFingerprint, 511999650);
    assert.equal(without.withoutSub, true);
    assert.deepEqual(without.consumerDataSet[0]?.subscriptionDataSet, []);
    assert.equal(without.consumerDataSet[0]?.consumeFromWhere, 'CONSUME_FROM_FIRST_OFFSET');
  });

  test('5.x fields survive a round trip and are left out when unset', () => {
    const h: HeartbeatData = { ...EXPECTED, heartbeatFingerprint: -7, withoutSub: true };
    assert.deepEqual(decodeHeartbeatData(encodeHeartbeatData(h)), h);
    const text = encodeHeartbeatData({ ...EXPECTED, heartbeatFingerprint: 0, withoutSub: false }).toString();
    assert.equal(text, GOLDEN.toString('utf8'));
  });

  test('malformed bodies give a RemotingCommandError naming the field', () => {
    const cases: Array<[string | undefined, RegExp]> = [
      [undefined, /HeartbeatData: the body is empty/],
      ['', /the body is empty/],
      ['{"consumerDataSet":[]}', /\$\.clientID: missing/],
      ['{"clientID":5}', /\$\.clientID: not a string/],
      ['{"clientID":"c","producerDataSet":[{}]}', /producerDataSet\[0\]\.groupName: missing/],
      [
        '{"clientID":"c","consumerDataSet":[{"groupName":"g","subscriptionDataSet":[{"subString":"*"}]}]}',
        /topic: missing/,
      ],
      [
        '{"clientID":"c","consumerDataSet":[{"groupName":"g","subscriptionDataSet":[{"topic":"T","codeSet":["x"]}]}]}',
        /codeSet\[0\]: not an int/,
      ],
      ['{"clientID":"c","consumerDataSet":{}}', /consumerDataSet: not an array/],
      ['{"clientID":"c"', /HeartbeatData/],
      ['[1]', /\$: not an object/],
    ];
    for (const [text, message] of cases) {
      assert.throws(
        () => decodeHeartbeatData(text === undefined ? undefined : Buffer.from(text)),
        (e: unknown) => e instanceof RemotingCommandError && message.test(e.message),
        String(text),
      );
    }
  });
});
