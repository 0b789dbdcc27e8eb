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

  test('5.x keys are ignored; absent sets are empty', () => {
    const h = decodeHeartbeatData(
      Buffer.from('{"clientID":"c","heartbeatFingerprint":12,"withoutSub":false}'),
    );
    assert.deepEqual(h, { clientID: 'c', consumerDataSet: [], producerDataSet: [] });
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
