import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AclException } from '../../../../src/common/acl/acl-exception.js';
import {
  checkPermission,
  checkResourcePerms,
  Permission,
  parsePermFromString,
  parseResourcePerms,
  printResource,
} from '../../../../src/common/acl/permission.js';

const { DENY, ANY, PUB, SUB } = Permission;

test('perm strings parse as upstream: exact, trimmed, anything else is DENY', () => {
  assert.equal(parsePermFromString('PUB'), PUB);
  assert.equal(parsePermFromString(' SUB '), SUB);
  assert.equal(parsePermFromString('PUB|SUB'), PUB | SUB);
  assert.equal(parsePermFromString('SUB|PUB'), PUB | SUB);
  assert.equal(parsePermFromString('DENY'), DENY);
  for (const other of ['pub', 'PUB | SUB', 'ALL', '', undefined, null]) {
    assert.equal(parsePermFromString(other), DENY, String(other));
  }
});

test('checkPermission: DENY owned wins, ANY needs PUB or SUB, else one shared bit', () => {
  assert.equal(checkPermission(PUB, PUB), true);
  assert.equal(checkPermission(PUB, SUB), false);
  assert.equal(checkPermission(SUB, PUB | SUB), true);
  assert.equal(checkPermission(PUB, DENY | PUB), false);
  assert.equal(checkPermission(ANY, SUB), true);
  assert.equal(checkPermission(ANY, DENY), false);
  assert.equal(checkPermission(ANY, 0), false);
});

test('resource perms: groups under their retry topic; a malformed entry is upstream error', () => {
  const map = new Map<string, number>();
  parseResourcePerms(map, true, ['topicA=PUB', ' topicB = SUB|PUB']);
  parseResourcePerms(map, false, ['groupA=SUB']);
  assert.deepEqual(
    [...map],
    [
      ['topicA', PUB],
      ['topicB', PUB | SUB],
      ['%RETRY%groupA', SUB],
    ],
  );
  assert.throws(
    () => parseResourcePerms(new Map(), true, ['topicA']),
    (e: unknown) =>
      e instanceof AclException && e.message === 'Parse resource permission failed for topic:topicA',
  );
  assert.throws(() => parseResourcePerms(new Map(), false, ['g=SUB=PUB']), /failed for group:g=SUB=PUB/);
});

test('checkResourcePerms refuses an unknown permission word but takes DENY', () => {
  checkResourcePerms(['a=DENY', 'b=PUB|SUB']);
  assert.throws(() => checkResourcePerms(['a=ALL']), /Parse resource permission error for a=ALL/);
  assert.throws(() => checkResourcePerms(['a']), /Parse Resource format error for a\./);
});

test('printResource shows groups without the retry prefix', () => {
  assert.equal(printResource('%RETRY%g1', true), 'group:g1');
  assert.equal(printResource('t1', false), 'topic:t1');
});
