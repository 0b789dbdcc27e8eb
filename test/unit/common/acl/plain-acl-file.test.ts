import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AclException } from '../../../../src/common/acl/acl-exception.js';
import { Permission } from '../../../../src/common/acl/permission.js';
import { buildOwnedAccess } from '../../../../src/common/acl/plain-access-config.js';
import { parseAclYaml, readAclData } from '../../../../src/common/acl/plain-acl-yaml.js';

const SAMPLE = `globalWhiteRemoteAddresses:
  - 10.10.103.*
  - 192.168.0.*

accounts:
  - accessKey: RocketMQ
    secretKey: 12345678
    whiteRemoteAddress:
    admin: false
    defaultTopicPerm: DENY
    defaultGroupPerm: SUB
    topicPerms:
      - topicA=DENY
      - topicB=PUB|SUB
      - topicC=SUB
    groupPerms:
      - groupA=DENY
      - groupB=PUB|SUB
      - groupC=SUB

  - accessKey: rocketmq2
    secretKey: 12345678
    whiteRemoteAddress: 192.168.1.*
    admin: yes
dataVersion:
  - counter: 3
    timestamp: 1700000000000
`;

test("upstream's sample plain_acl.yml reads as SnakeYAML would (YAML 1.1, numbers as text)", () => {
  const map = parseAclYaml(SAMPLE, 'plain_acl.yml');
  assert.ok(map !== undefined);
  const data = readAclData(map, 'plain_acl.yml');
  assert.deepEqual(data.globalWhiteRemoteAddresses, ['10.10.103.*', '192.168.0.*']);
  assert.equal(data.accounts.length, 2);
  const [first, second] = data.accounts;
  assert.equal(first?.secretKey, '12345678');
  assert.equal(first?.whiteRemoteAddress, undefined);
  assert.deepEqual(first?.topicPerms, ['topicA=DENY', 'topicB=PUB|SUB', 'topicC=SUB']);
  assert.equal(second?.admin, true, 'YAML 1.1 reads yes as true');
  assert.deepEqual(data.dataVersion, { counter: 3, timestamp: 1700000000000 });
  const owned = buildOwnedAccess(first ?? {});
  assert.equal(owned.defaultTopicPerm, Permission.DENY);
  assert.equal(owned.defaultGroupPerm, Permission.SUB);
  assert.equal(owned.resourcePerms?.get('%RETRY%groupB'), Permission.PUB | Permission.SUB);
  const admin = buildOwnedAccess(second ?? {});
  assert.equal(admin.resourcePerms, undefined, 'no lists: the admin may do everything');
  assert.equal(admin.defaultTopicPerm, Permission.DENY, 'a missing default perm is DENY');
});

test('an empty document is no data; a non-mapping or a bad list is refused', () => {
  assert.equal(parseAclYaml('', 'f.yml'), undefined);
  assert.equal(parseAclYaml('# only a comment\n', 'f.yml'), undefined);
  assert.throws(() => parseAclYaml('- a\n- b\n', 'f.yml'), AclException);
  const map = parseAclYaml('accounts: nope\n', 'f.yml');
  assert.throws(() => readAclData(map ?? {}, 'f.yml'), /accounts must be a list/);
});

test('a YAML syntax error keeps the position but never the text around it', () => {
  const text = 'accounts:\n  - accessKey: RocketMQ\n    secretKey: "TopSecret99\n';
  assert.throws(
    () => parseAclYaml(text, 'f.yml'),
    (e: unknown) =>
      e instanceof AclException && !e.message.includes('TopSecret99') && e.message.startsWith('f.yml: '),
  );
});

test('keys of 6 characters or fewer are refused with upstream message, the secret hidden', () => {
  assert.throws(
    () => buildOwnedAccess({ accessKey: 'RocketMQ', secretKey: 'abc123' }),
    (e: unknown) =>
      e instanceof AclException &&
      e.message ===
        'The accessKey=RocketMQ and secretKey=******(length 6) cannot be null and length should longer than 6' &&
      !e.toString().includes('abc123'),
  );
  assert.throws(() => buildOwnedAccess({ accessKey: 'short', secretKey: '1234567' }), /accessKey=short/);
  assert.throws(() => buildOwnedAccess({ secretKey: '1234567' }), /accessKey=null and secretKey=\*/);
  buildOwnedAccess({ accessKey: 'seven77', secretKey: '1234567' });
});

test('a bad whitelist in an account fails the account', () => {
  assert.throws(
    () =>
      buildOwnedAccess({ accessKey: 'RocketMQ', secretKey: '12345678', whiteRemoteAddress: '10.0.0.0/8' }),
    /Netaddress examine Exception netaddress is 10.0.0.0\/8/,
  );
});
