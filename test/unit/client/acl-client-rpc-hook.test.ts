import assert from 'node:assert/strict';
import { test } from 'node:test';
import { resolveClientConfig } from '../../../src/client/client-config.js';
import { ValidationError } from '../../../src/common/errors.js';
import { createRequest } from '../../../src/remoting/protocol/command.js';
import { AclClientRPCHook } from '../../../src/remoting/transport/acl-client-rpc-hook.js';

test('signs a copy of the header: AccessKey, SecurityToken, Signature over values and body', () => {
  const header = { topic: 'TopicTest', queueId: '1', producerGroup: 'PG' };
  const request = createRequest(10, { extFields: header, body: Buffer.from('hello') });
  new AclClientRPCHook({ accessKey: 'rocketmq2', secretKey: '12345678' }).doBeforeRequest('x', request);
  assert.deepEqual(header, { topic: 'TopicTest', queueId: '1', producerGroup: 'PG' });
  assert.equal(request.extFields?.AccessKey, 'rocketmq2');
  assert.equal(request.extFields?.SecurityToken, undefined);
  assert.equal(request.extFields?.Signature, '8bkGiv32fZfXNmgX8HMDOYkHCSE=');
});

test('a re-signed request ignores its old signature; the token is signed', () => {
  const hook = new AclClientRPCHook({ accessKey: 'ak', secretKey: 'sk', securityToken: 'tok' });
  const request = createRequest(10, { extFields: { a: '1' } });
  hook.doBeforeRequest('x', request);
  const first = request.extFields?.Signature;
  hook.doBeforeRequest('x', request);
  assert.equal(request.extFields?.Signature, first);
  assert.equal(request.extFields?.SecurityToken, 'tok');
  const without = createRequest(10, { extFields: { a: '1' } });
  new AclClientRPCHook({ accessKey: 'ak', secretKey: 'sk' }).doBeforeRequest('x', without);
  assert.notEqual(without.extFields?.Signature, first);
});

test('bad credentials are refused when the client is created', () => {
  for (const credentials of [
    null,
    'ak:sk',
    { accessKey: '', secretKey: 'x' },
    { accessKey: 'a', secretKey: 7 },
    { accessKey: 'a', secretKey: 'b', securityToken: 1 },
  ]) {
    assert.throws(
      () => resolveClientConfig({ credentials: credentials as never, namesrvAddr: '127.0.0.1:9876' }),
      ValidationError,
    );
  }
  const config = resolveClientConfig({
    credentials: { accessKey: 'a', secretKey: 'b' },
    namesrvAddr: '127.0.0.1:9876',
  });
  assert.equal(config.credentials?.accessKey, 'a');
});

test('a query by key leaves _UNIQUE_KEY_QUERY unsigned and says 4.9.3, so 4.9.x and 5.x brokers both verify it', () => {
  const request = createRequest(12, { extFields: { topic: 'T', key: 'k', _UNIQUE_KEY_QUERY: 'true' } });
  const hook = new AclClientRPCHook({ accessKey: 'rocketmq2', secretKey: '12345678' });
  hook.doBeforeRequest('x', request);
  assert.equal(request.version, 399);
  const expected = createRequest(10, { extFields: { topic: 'T', key: 'k' } });
  hook.doBeforeRequest('x', expected);
  assert.equal(request.extFields?.Signature, expected.extFields?.Signature);
  assert.equal(request.extFields?._UNIQUE_KEY_QUERY, 'true');
});
