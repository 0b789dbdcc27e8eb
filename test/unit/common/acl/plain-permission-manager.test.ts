import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { accessRequestOf } from '../../../../src/common/acl/access-request.js';
import { AclException } from '../../../../src/common/acl/acl-exception.js';
import { Permission } from '../../../../src/common/acl/permission.js';
import { ManualClock } from '../../../../src/common/clock.js';
import { createLogger, type LogRecord } from '../../../../src/common/logger.js';
import { aclPaths } from '../../../../src/common/platform/acl/acl-paths.js';
import { PlainPermissionManager } from '../../../../src/common/platform/acl/plain-permission-manager.js';
import { needAdminPerm } from '../../../../src/remoting/protocol/admin-request-codes.js';
import { createRequest } from '../../../../src/remoting/protocol/command.js';
import { RequestCode } from '../../../../src/remoting/protocol/request-code.js';
import { AclClientRPCHook } from '../../../../src/remoting/transport/acl-client-rpc-hook.js';

const homes: string[] = [];
after(() => {
  for (const h of homes) rmSync(h, { recursive: true, force: true });
});

const GOOD = `globalWhiteRemoteAddresses:
  - 10.10.103.*
accounts:
  - accessKey: RocketMQ
    secretKey: 12345678
    defaultTopicPerm: DENY
    defaultGroupPerm: SUB
    topicPerms:
      - topicA=DENY
      - topicB=PUB|SUB
      - topicC=SUB
  - accessKey: rocketmq2
    secretKey: 87654321
    whiteRemoteAddress: 192.168.1.*
    admin: true
`;

async function managerWith(text: string, extra: Record<string, string> = {}) {
  const home = mkdtempSync(join(tmpdir(), 'rmq-acl-'));
  homes.push(home);
  mkdirSync(join(home, 'conf', 'acl'), { recursive: true });
  writeFileSync(join(home, 'conf', 'plain_acl.yml'), text);
  for (const [name, content] of Object.entries(extra))
    writeFileSync(join(home, 'conf', 'acl', name), content);
  const clock = new ManualClock();
  const lines: LogRecord[] = [];
  const logger = createLogger('acl', { level: 'debug', sink: (r) => lines.push(r) });
  const manager = new PlainPermissionManager({ paths: aclPaths(home), needAdminPerm, clock, logger });
  await manager.start();
  return { home, clock, lines, manager };
}

function signed(code: number, fields: Record<string, string>, ak: string, sk: string, body?: Buffer) {
  const request = createRequest(code, { extFields: { ...fields }, ...(body === undefined ? {} : { body }) });
  new AclClientRPCHook({ accessKey: ak, secretKey: sk }).doBeforeRequest('x', request);
  return request;
}

function denied(fn: () => void, message: string, frameMethod: string): void {
  assert.throws(fn, (e: unknown) => {
    assert.ok(e instanceof AclException, String(e));
    assert.equal(e.message, message);
    assert.match(
      e.toString(),
      new RegExp(
        `^org\\.apache\\.rocketmq\\.acl\\.common\\.AclException: .*, org\\.apache\\.rocketmq\\.acl\\.plain\\.PlainPermissionManager\\.${frameMethod}\\(PlainPermissionManager\\.java:\\d+\\)$`,
      ),
    );
    return true;
  });
}

test('a signed send is checked against the account perms, with upstream messages', async (t) => {
  const { manager } = await managerWith(GOOD);
  t.after(() => manager.stop());
  const send = (topic: string, ak = 'RocketMQ', sk = '12345678') => {
    const r = signed(RequestCode.SEND_MESSAGE_V2, { a: 'PG', b: topic }, ak, sk, Buffer.from('body'));
    manager.validate(accessRequestOf(r, '127.0.0.1:4000', new Map([[topic, Permission.PUB]])));
  };
  send('topicB');
  denied(() => send('topicA'), 'No default permission for topic:topicA', 'checkPerm');
  denied(() => send('topicC'), 'No default permission for topic:topicC', 'checkPerm');
  denied(() => send('other'), 'No default permission for topic:other', 'checkPerm');
  denied(
    () => send('topicB', 'RocketMQ', 'wrong-secret'),
    'Check signature failed for accessKey=RocketMQ',
    'validate',
  );
  denied(() => send('topicB', 'nobody1', '12345678'), 'No acl config for nobody1', 'validate');
  const unsigned = createRequest(RequestCode.SEND_MESSAGE_V2, { extFields: { b: 'topicB' } });
  denied(
    () => manager.validate(accessRequestOf(unsigned, '127.0.0.1:4000', undefined)),
    'No accessKey is configured',
    'validate',
  );
});

test('the body and every header value are signed; a tampered or oversized signature fails', async (t) => {
  const { manager } = await managerWith(GOOD);
  t.after(() => manager.stop());
  const r = signed(
    RequestCode.SEND_MESSAGE_V2,
    { a: 'PG', b: 'topicB' },
    'RocketMQ',
    '12345678',
    Buffer.from('one'),
  );
  r.body = Buffer.from('two');
  denied(
    () => manager.validate(accessRequestOf(r, '127.0.0.1:1', undefined)),
    'Check signature failed for accessKey=RocketMQ',
    'validate',
  );
  const huge = signed(RequestCode.SEND_MESSAGE_V2, { b: 'topicB' }, 'RocketMQ', '12345678');
  (huge.extFields as Record<string, string>).Signature = 'A'.repeat(100_000);
  denied(
    () => manager.validate(accessRequestOf(huge, '127.0.0.1:1', undefined)),
    'Check signature failed for accessKey=RocketMQ',
    'validate',
  );
});

test('whitelists are a bypass: global for anyone, per account for its key', async (t) => {
  const { manager } = await managerWith(GOOD);
  t.after(() => manager.stop());
  const unsigned = createRequest(RequestCode.UPDATE_AND_CREATE_TOPIC, { extFields: { topic: 'x' } });
  manager.validate(accessRequestOf(unsigned, '10.10.103.9:5000', undefined));
  const badSig = createRequest(RequestCode.UPDATE_AND_CREATE_TOPIC, {
    extFields: { AccessKey: 'rocketmq2', Signature: 'nonsense' },
  });
  manager.validate(accessRequestOf(badSig, '192.168.1.20:5000', undefined));
  denied(
    () => manager.validate(accessRequestOf(badSig, '192.168.2.20:5000', undefined)),
    'Check signature failed for accessKey=rocketmq2',
    'validate',
  );
});

test('admin requests need an admin account, the ACL ones included', async (t) => {
  const { manager } = await managerWith(GOOD);
  t.after(() => manager.stop());
  for (const code of [
    RequestCode.UPDATE_AND_CREATE_TOPIC,
    RequestCode.UPDATE_AND_CREATE_ACL_CONFIG,
    RequestCode.GET_BROKER_CLUSTER_ACL_INFO,
  ]) {
    const r = signed(code, { accessKey: 'x' }, 'RocketMQ', '12345678');
    denied(
      () => manager.validate(accessRequestOf(r, '127.0.0.1:1', undefined)),
      `Need admin permission for request code=${code}, but accessKey=RocketMQ is not`,
      'checkPerm',
    );
    const admin = signed(code, { accessKey: 'x' }, 'rocketmq2', '87654321');
    manager.validate(accessRequestOf(admin, '127.0.0.1:1', undefined));
  }
  // Not an admin request: any valid signature will do.
  const read = signed(RequestCode.GET_ROUTEINFO_BY_TOPIC, { topic: 't' }, 'RocketMQ', '12345678');
  manager.validate(accessRequestOf(read, '127.0.0.1:1', undefined));
});

test('extra files under conf/acl: first definition of a key wins, whitelists merge', async (t) => {
  const extra = `accounts:\n  - accessKey: RocketMQ\n    secretKey: other-secret\n  - accessKey: third-account\n    secretKey: 3333333\n    admin: true\nglobalWhiteRemoteAddresses:\n  - 172.16.0.1\n`;
  const { manager, lines } = await managerWith(GOOD, { 'a.yml': extra });
  t.after(() => manager.stop());
  assert.equal(manager.current.accounts.size, 3);
  // conf/acl files come first, as upstream lists the directory before adding the default file.
  assert.equal(manager.current.accounts.get('RocketMQ')?.secretKey, 'other-secret');
  assert.ok(lines.some((l) => l.msg.includes('repeated')));
  manager.validate(
    accessRequestOf(createRequest(RequestCode.UPDATE_AND_CREATE_TOPIC), '172.16.0.1:1', undefined),
  );
});

test('reload: good, then bad keeps the whole good state with one error line, then good again', async (t) => {
  const { home, clock, manager, lines } = await managerWith(GOOD);
  t.after(() => manager.stop());
  const file = join(home, 'conf', 'plain_acl.yml');
  const tick = async () => {
    clock.advance(5000);
    await manager.watcherIdle;
  };
  await tick();
  assert.equal(manager.current.accounts.size, 2, 'nothing changed, nothing reloaded');
  // Valid first account, invalid second: upstream would have applied part of it.
  writeFileSync(
    file,
    `accounts:\n  - accessKey: newcomer\n    secretKey: 12345678\n  - accessKey: bad\n    secretKey: leaked-secret-9\n`,
  );
  const before = lines.length;
  await tick();
  assert.deepEqual([...manager.current.accounts.keys()], ['RocketMQ', 'rocketmq2']);
  const errors = lines.slice(before).filter((l) => l.level === 'error');
  assert.equal(errors.length, 1);
  assert.ok(!JSON.stringify(lines).includes('leaked-secret-9'), 'no secret in any log line');
  assert.ok(!JSON.stringify(lines).includes('12345678'), 'no secret in any log line');
  await tick();
  assert.equal(
    lines.slice(before).filter((l) => l.level === 'error').length,
    1,
    'a bad file is not retried until it changes',
  );
  writeFileSync(file, `accounts:\n  - accessKey: newcomer\n    secretKey: 12345678\n`);
  await tick();
  assert.deepEqual([...manager.current.accounts.keys()], ['newcomer']);
});

test('a missing default file is created empty: nothing is allowed but whitelisted peers', async (t) => {
  const home = mkdtempSync(join(tmpdir(), 'rmq-acl-'));
  homes.push(home);
  const manager = new PlainPermissionManager({
    paths: aclPaths(home),
    needAdminPerm,
    clock: new ManualClock(),
    logger: createLogger('acl', { level: 'silent' }),
  });
  await manager.start();
  t.after(() => manager.stop());
  const r = signed(RequestCode.SEND_MESSAGE_V2, { b: 't' }, 'RocketMQ', '12345678');
  denied(
    () => manager.validate(accessRequestOf(r, '127.0.0.1:1', undefined)),
    'No acl config for RocketMQ',
    'validate',
  );
});

test('the admin API writes the file with a new dataVersion and the change applies at once', async (t) => {
  const { home, manager } = await managerWith(GOOD);
  t.after(() => manager.stop());
  const file = join(home, 'conf', 'plain_acl.yml');
  await manager.updateAccessConfig({
    accessKey: 'created1',
    secretKey: 'created-secret',
    topicPerms: ['t1=PUB'],
    admin: false,
  });
  assert.equal(manager.current.accounts.get('created1')?.resourcePerms?.get('t1'), Permission.PUB);
  assert.equal(manager.current.dataVersions.get(file)?.counter, 1);
  await assert.rejects(
    manager.updateAccessConfig({ accessKey: 'created2', secretKey: 'short' }),
    AclException,
  );
  assert.equal(await manager.deleteAccessConfig('created1'), true);
  assert.equal(await manager.deleteAccessConfig('created1'), false);
  assert.equal(manager.current.dataVersions.get(file)?.counter, 2);
  assert.equal(await manager.updateGlobalWhiteAddrsConfig(['10.0.0.1'], ''), true);
  assert.equal(await manager.updateGlobalWhiteAddrsConfig(['10.0.0.1'], '/etc/passwd.yml'), false);
  await assert.rejects(manager.updateGlobalWhiteAddrsConfig(['10.0.0.0/8']), /Netaddress examine/);
  manager.validate(
    accessRequestOf(createRequest(RequestCode.UPDATE_AND_CREATE_TOPIC), '10.0.0.1:1', undefined),
  );
});

test('golden signatures (openssl): _UNIQUE_KEY_QUERY is signed by 4.9.4+ senders, not by older ones', async (t) => {
  const { manager } = await managerWith(GOOD);
  t.after(() => manager.stop());
  const fields = { AccessKey: 'RocketMQ', a: 'x', topic: 'TopicA', _UNIQUE_KEY_QUERY: 'true' };
  const body = Buffer.from('hello');
  const check = (signature: string, version: number) =>
    manager.validate(
      accessRequestOf(
        {
          code: RequestCode.GET_BROKER_RUNTIME_INFO,
          version,
          extFields: { ...fields, Signature: signature },
          body,
        },
        '127.0.0.1:1',
        undefined,
      ),
    );
  // printf 'RocketMQtruexTopicAhello' | openssl dgst -sha1 -hmac 12345678 -binary | base64
  check('nhqNvGQrlvWjjNeTi0cQhsO4V+c=', 409);
  // printf 'RocketMQxTopicAhello' | openssl dgst -sha1 -hmac 12345678 -binary | base64
  check('NpfU7vwovhq8Np3D20JaM3yil8I=', 399);
  denied(
    () => check('NpfU7vwovhq8Np3D20JaM3yil8I=', 409),
    'Check signature failed for accessKey=RocketMQ',
    'validate',
  );
  denied(
    () => check('nhqNvGQrlvWjjNeTi0cQhsO4V+c=', 399),
    'Check signature failed for accessKey=RocketMQ',
    'validate',
  );
});
