/**
 * The ACL commands of `rmq admin` against an in-process broker with plain ACL on: the account comes
 * from $ROCKETMQ_HOME/conf/tools.yml as mqadmin's does, or from --access-key/--secret-key.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { adminFromArgs } from '../../../src/cli/admin/admin-command.js';
import { createLogger } from '../../../src/common/logger.js';
import { type Embedded, startEmbedded } from '../../../src/embedded/embedded.js';

const LIMIT = { timeout: 60_000 };
const ACL_FILE = `globalWhiteRemoteAddresses:
accounts:
  - accessKey: adminUser1
    secretKey: adminSecret1
    admin: true
`;

let brokerHome: string;
let toolsHome: string;
let embedded: Embedded;

async function rmq(
  env: NodeJS.ProcessEnv,
  ...args: string[]
): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const io = {
    out: (t: string) => {
      out += t;
    },
    err: (t: string) => {
      err += t;
    },
  };
  const code = await adminFromArgs([...args, '-n', embedded.namesrvAddr], io, env);
  return { code, out, err };
}

before(async () => {
  brokerHome = mkdtempSync(join(tmpdir(), 'rmq-admin-acl-broker-'));
  mkdirSync(join(brokerHome, 'conf'));
  writeFileSync(join(brokerHome, 'conf', 'plain_acl.yml'), ACL_FILE);
  toolsHome = mkdtempSync(join(tmpdir(), 'rmq-admin-acl-tools-'));
  mkdirSync(join(toolsHome, 'conf'));
  writeFileSync(join(toolsHome, 'conf', 'tools.yml'), 'accessKey: adminUser1\nsecretKey: adminSecret1\n');
  embedded = await startEmbedded({
    aclEnable: true,
    rocketmqHome: brokerHome,
    aclFileWatchInterval: 50,
    logger: createLogger('test', { level: 'silent' }),
  });
});

after(async () => {
  await embedded?.close();
  rmSync(brokerHome, { recursive: true, force: true });
  rmSync(toolsHome, { recursive: true, force: true });
});

test('without an account a broker call is refused: exit 1, one line', LIMIT, async () => {
  const r = await rmq({}, 'updateTopic', '-b', embedded.brokerAddr, '-t', 'AclTopic');
  assert.equal(r.code, 1);
  assert.match(r.err, /^rmq admin updateTopic: .+\n$/);
});

test(
  'tools.yml account: updateAclConfig, clusterAclConfigVersion, updateGlobalWhiteAddr, deleteAclConfig',
  LIMIT,
  async () => {
    const env = { ROCKETMQ_HOME: toolsHome };
    const created = await rmq(
      env,
      'updateAclConfig',
      '-b',
      embedded.brokerAddr,
      '-a',
      'newUser',
      '-s',
      'newSecret1',
      '-t',
      'TopicA=PUB,TopicB=SUB',
      '-i',
      'DENY',
    );
    assert.equal(created.code, 0, created.err);
    assert.match(
      created.out,
      new RegExp(`^create or update plain access config to ${embedded.brokerAddr} success\\.\n`),
    );
    assert.doesNotMatch(created.out, /newSecret1/);
    const acl = () => readFileSync(join(brokerHome, 'conf', 'plain_acl.yml'), 'utf8');
    assert.match(acl(), /newUser/);
    assert.match(acl(), /TopicA=PUB/);

    const versions = await rmq(env, 'clusterAclConfigVersion', '-b', embedded.brokerAddr, '--json');
    assert.equal(versions.code, 0, versions.err);
    const rows = JSON.parse(versions.out) as Array<{ brokerAddr: string; counter: string }>;
    assert.ok(rows.length >= 1);
    assert.ok(Number(rows[0]?.counter) >= 1);
    const text = await rmq(env, 'clusterAclConfigVersion', '-c', 'DefaultCluster');
    assert.match(text.out, /^#Cluster Name {5}#Broker Name/);
    assert.match(text.out, /get cluster's plain access config version success\.\n$/);

    const white = await rmq(env, 'updateGlobalWhiteAddr', '-c', 'DefaultCluster', '-g', '10.10.103.*');
    assert.equal(white.code, 0, white.err);
    assert.equal(white.out, `update global white remote addresses to ${embedded.brokerAddr} success.\n`);
    assert.match(acl(), /10\.10\.103\.\*/);

    // Our own flags instead of tools.yml.
    const deleted = await rmq(
      {},
      'deleteAclConfig',
      '-b',
      embedded.brokerAddr,
      '-a',
      'newUser',
      '--access-key',
      'adminUser1',
      '--secret-key',
      'adminSecret1',
    );
    assert.equal(deleted.code, 0, deleted.err);
    assert.equal(
      deleted.out,
      `delete plain access config account from ${embedded.brokerAddr} success.\naccount's accesskey is:newUser`,
    );
    assert.doesNotMatch(acl(), /newUser/);
  },
);
