/**
 * The signed bytes and the signature, checked against HMACs computed outside Node
 * (`printf <content> | openssl dgst -sha1 -hmac <secret> -binary | base64`).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  CLIENT_UNSIGNED_FIELDS,
  calSignature,
  combineRequestContent,
  SERVER_UNSIGNED_FIELDS,
  signatureEquals,
} from '../../../../src/common/acl/acl-signer.js';

test('values in key order, then the body; the signature itself is left out', () => {
  const fields = {
    topic: 'TopicTest',
    queueId: '1',
    AccessKey: 'rocketmq2',
    producerGroup: 'PG',
    Signature: 'old',
  };
  const content = combineRequestContent(fields, Buffer.from('hello'), CLIENT_UNSIGNED_FIELDS);
  assert.equal(content.toString('utf8'), 'rocketmq2PG1TopicTesthello');
  assert.equal(calSignature(content, '12345678'), '8bkGiv32fZfXNmgX8HMDOYkHCSE=');
});

test('keys sort as Java strings (upper case first), values are UTF-8', () => {
  const content = combineRequestContent({ b: 'B', B: 'ak', a: '你好' }, undefined, CLIENT_UNSIGNED_FIELDS);
  assert.equal(content.toString('utf8'), 'ak你好B');
  assert.equal(calSignature(content, 'sekrit99'), 'JuGkTW4B/R1XpqfuQIv+1dQaLcc=');
});

test('the server leaves out _UNIQUE_KEY_QUERY as upstream does; an empty body adds nothing', () => {
  const fields = { topic: 'T', _UNIQUE_KEY_QUERY: 'true', Signature: 'x' };
  assert.equal(combineRequestContent(fields, Buffer.alloc(0), SERVER_UNSIGNED_FIELDS).toString(), 'T');
  assert.equal(combineRequestContent(fields, undefined, CLIENT_UNSIGNED_FIELDS).toString(), 'trueT');
});

test('signatureEquals', () => {
  assert.equal(signatureEquals('abc=', 'abc='), true);
  assert.equal(signatureEquals('abc=', 'abd='), false);
  assert.equal(signatureEquals('abc=', 'abc=='), false);
  assert.equal(signatureEquals('', ''), true);
});
