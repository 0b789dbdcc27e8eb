/** ConsumerConnection and ProducerConnection: the official body (golden consumer-connection.json) both ways. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { RemotingCommandError } from '../../../src/common/errors.js';
import {
  type ConsumerConnection,
  decodeConsumerConnection,
  encodeConsumerConnection,
} from '../../../src/common/protocol/consumer-connection.js';
import {
  decodeProducerConnection,
  encodeProducerConnection,
} from '../../../src/common/protocol/producer-connection.js';
import { goldenFile } from '../../golden-fixtures.js';

const GOLDEN = goldenFile('bodies/consumer-connection.json');

const EXPECTED: ConsumerConnection = {
  connectionSet: [
    { clientAddr: '127.0.0.1:53211', clientId: '127.0.0.1@4242#1234567890', language: 'JAVA', version: 409 },
  ],
  consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
  consumeType: 'CONSUME_PASSIVELY',
  messageModel: 'CLUSTERING',
  subscriptionTable: new Map([
    [
      'TopicTest',
      {
        classFilterMode: false,
        codeSet: [2598919, 2598920],
        expressionType: 'TAG',
        subString: 'TagA || TagB',
        subVersion: 1700000000000n,
        tagsSet: ['TagA', 'TagB'],
        topic: 'TopicTest',
      },
    ],
  ]),
};

describe('ConsumerConnection', () => {
  test('reads the official body', () => {
    assert.deepEqual(decodeConsumerConnection(GOLDEN), EXPECTED);
  });

  test('writes the official bytes', () => {
    assert.equal(encodeConsumerConnection(EXPECTED).toString('utf8'), GOLDEN.toString('utf8'));
  });

  test('absent enums are left out, an empty group still has its keys', () => {
    const text = encodeConsumerConnection({
      connectionSet: [],
      subscriptionTable: new Map(),
      consumeType: undefined,
      messageModel: undefined,
      consumeFromWhere: undefined,
    }).toString();
    assert.equal(text, '{"connectionSet":[],"subscriptionTable":{}}');
  });

  test('malformed bodies are refused', () => {
    assert.throws(() => decodeConsumerConnection(undefined), RemotingCommandError);
    assert.throws(
      () => decodeConsumerConnection(Buffer.from('{"connectionSet":[{"version":"x"}]}')),
      /connectionSet\[0\]\.version: not an int/,
    );
  });
});

describe('ProducerConnection', () => {
  test('writes the bean the admin tool reads and reads it back', () => {
    const p = {
      connectionSet: [
        { clientAddr: '10.0.0.5:40000', clientId: '10.0.0.5@1#2', language: 'JAVA', version: 409 },
        { clientAddr: '10.0.0.6:40001', clientId: '10.0.0.6@3#4', language: 'GO', version: 317 },
      ],
    };
    const body = encodeProducerConnection(p);
    assert.equal(
      body.toString(),
      '{"connectionSet":[{"clientAddr":"10.0.0.5:40000","clientId":"10.0.0.5@1#2","language":"JAVA","version":409},' +
        '{"clientAddr":"10.0.0.6:40001","clientId":"10.0.0.6@3#4","language":"GO","version":317}]}',
    );
    assert.deepEqual(decodeProducerConnection(body), p);
  });
});
