/** CheckClientRequestBody (CHECK_CLIENT_CONFIG) both ways, and ExpressionType.isTagType. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { RemotingCommandError } from '../../../src/common/errors.js';
import {
  decodeCheckClientRequestBody,
  encodeCheckClientRequestBody,
  isTagType,
} from '../../../src/common/protocol/check-client-request-body.js';

describe('CheckClientRequestBody', () => {
  test('the bean Java writes, read back', () => {
    const b = {
      clientId: '10.0.0.5@1#2',
      group: 'cg',
      subscriptionData: {
        topic: 'T',
        subString: 'a > 1',
        tagsSet: [],
        codeSet: [],
        subVersion: 1700000000000n,
        expressionType: 'SQL92',
        classFilterMode: false,
      },
    };
    const body = encodeCheckClientRequestBody(b);
    assert.equal(
      body.toString(),
      '{"clientId":"10.0.0.5@1#2","group":"cg","subscriptionData":{"classFilterMode":false,"codeSet":[],' +
        '"expressionType":"SQL92","subString":"a > 1","subVersion":1700000000000,"tagsSet":[],"topic":"T"}}',
    );
    assert.deepEqual(decodeCheckClientRequestBody(body), b);
  });

  test('absent parts and malformed bodies', () => {
    assert.deepEqual(decodeCheckClientRequestBody(Buffer.from('{}')), {
      clientId: undefined,
      group: undefined,
      subscriptionData: undefined,
    });
    assert.throws(() => decodeCheckClientRequestBody(undefined), RemotingCommandError);
    assert.throws(
      () => decodeCheckClientRequestBody(Buffer.from('{"subscriptionData":{}}')),
      /topic: missing/,
    );
  });

  test('isTagType', () => {
    assert.deepEqual([undefined, '', 'TAG', 'SQL92', 'tag'].map(isTagType), [true, true, true, false, false]);
  });
});
