/**
 * Plain ACL on the name server (aclEnable): writes need an admin account's signature, reads stay
 * open; a broker with innerClientAuthenticationCredentials registers, one without is refused.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { createBroker } from '../../../src/broker/broker-controller.js';
import { createLogger } from '../../../src/common/logger.js';
import { createNamesrv, type NamesrvController } from '../../../src/namesrv/index.js';
import { createRequest } from '../../../src/remoting/protocol/command.js';
import { encodeHeader } from '../../../src/remoting/protocol/header-schema.js';
import {
  GetKVConfigRequestHeader,
  PutKVConfigRequestHeader,
  WipeWritePermOfBrokerRequestHeader,
} from '../../../src/remoting/protocol/headers/index.js';
import { RequestCode } from '../../../src/remoting/protocol/request-code.js';
import { AclClientRPCHook } from '../../../src/remoting/transport/acl-client-rpc-hook.js';
import { RemotingClient } from '../../../src/remoting/transport/index.js';
import { until } from '../client/support.js';

const quiet = createLogger('test', { level: 'silent' });
let dir: string;
let namesrv: NamesrvController;
let namesrvAddr: string;
const clients: RemotingClient[] = [];

function client(credentials?: { accessKey: string; secretKey: string }): RemotingClient {
  const c = new RemotingClient({}, { logger: quiet });
  if (credentials !== undefined) c.registerRPCHook(new AclClientRPCHook(credentials));
  clients.push(c);
  return c;
}

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'rmq-ns-acl-'));
  mkdirSync(join(dir, 'conf'), { recursive: true });
  writeFileSync(
    join(dir, 'conf', 'plain_acl.yml'),
    'accounts:\n  - accessKey: brokerAdmin\n    secretKey: brokerSecret\n    admin: true\n  - accessKey: plainUser\n    secretKey: plainSecret\n',
  );
  namesrv = createNamesrv({
    listenPort: 0,
    kvConfigPath: join(dir, 'kv.json'),
    settings: { listenHost: '127.0.0.1', aclEnable: true, rocketmqHome: dir },
    logger: quiet,
  });
  namesrvAddr = `127.0.0.1:${(await namesrv.start()).port}`;
});

after(async () => {
  for (const c of clients) await c.close();
  await namesrv?.shutdown();
  rmSync(dir, { recursive: true, force: true });
});

const put = () =>
  createRequest(RequestCode.PUT_KV_CONFIG, {
    extFields: encodeHeader(PutKVConfigRequestHeader, { namespace: 'ns', key: 'k', value: 'v' }),
  });

test('writes need an admin signature; reads stay open', async () => {
  const unsigned = await client().invoke(namesrvAddr, put());
  assert.equal(unsigned.code, 1);
  assert.match(
    unsigned.remark ?? '',
    /^org\.apache\.rocketmq\.acl\.common\.AclException: No accessKey is configured, /,
  );
  const user = await client({ accessKey: 'plainUser', secretKey: 'plainSecret' }).invoke(namesrvAddr, put());
  assert.equal(user.code, 1);
  assert.match(
    user.remark ?? '',
    /Need admin permission for request code=100, but accessKey=plainUser is not/,
  );
  const wrong = await client({ accessKey: 'brokerAdmin', secretKey: 'notTheSecret' }).invoke(
    namesrvAddr,
    put(),
  );
  assert.match(wrong.remark ?? '', /Check signature failed for accessKey=brokerAdmin/);
  const ok = await client({ accessKey: 'brokerAdmin', secretKey: 'brokerSecret' }).invoke(namesrvAddr, put());
  assert.equal(ok.code, 0, ok.remark);
  const read = await client().invoke(
    namesrvAddr,
    createRequest(RequestCode.GET_KV_CONFIG, {
      extFields: encodeHeader(GetKVConfigRequestHeader, { namespace: 'ns', key: 'k' }),
    }),
  );
  assert.equal(read.code, 0);
  assert.equal(read.extFields?.value, 'v');
});

test('WIPE_WRITE_PERM_OF_BROKER needs an admin signature (open without the ACL, as upstream)', async () => {
  const wipe = () =>
    createRequest(RequestCode.WIPE_WRITE_PERM_OF_BROKER, {
      extFields: encodeHeader(WipeWritePermOfBrokerRequestHeader, { brokerName: 'broker-x' }),
    });
  const unsigned = await client().invoke(namesrvAddr, wipe());
  assert.equal(unsigned.code, 1);
  assert.match(unsigned.remark ?? '', /No accessKey is configured/);
  const user = await client({ accessKey: 'plainUser', secretKey: 'plainSecret' }).invoke(namesrvAddr, wipe());
  assert.match(user.remark ?? '', /Need admin permission for request code=205/);
  const admin = await client({ accessKey: 'brokerAdmin', secretKey: 'brokerSecret' }).invoke(
    namesrvAddr,
    wipe(),
  );
  assert.equal(admin.code, 0, admin.remark);
});

test('a broker signing with an admin account registers; an unsigned one is refused', async () => {
  const start = async (name: string, credentials: string | undefined) => {
    const broker = createBroker({
      config: {
        listenPort: 0,
        listenHost: '127.0.0.1',
        brokerIP1: '127.0.0.1',
        brokerName: name,
        storePathRootDir: join(dir, name),
        namesrvAddr,
        innerClientAuthenticationCredentials: credentials,
      },
      logger: quiet,
    });
    await broker.start();
    return broker;
  };
  const signed = await start('broker-signed', '{"accessKey":"brokerAdmin","secretKey":"brokerSecret"}');
  const unsigned = await start('broker-unsigned', undefined);
  try {
    await until(
      () => namesrv.routeInfoManager.getAllClusterInfo().brokerAddrTable.has('broker-signed'),
      'the signed broker is registered',
    );
    assert.equal(namesrv.routeInfoManager.getAllClusterInfo().brokerAddrTable.has('broker-unsigned'), false);
    // The broker's own credentials are never reported by GET_BROKER_CONFIG.
    const config = await client().invoke(signed.brokerAddr, createRequest(RequestCode.GET_BROKER_CONFIG));
    assert.equal(config.code, 0);
    const text = config.body?.toString('utf8') ?? '';
    assert.match(text, /aclEnable=false/);
    assert.ok(!text.includes('brokerSecret') && !text.includes('innerClientAuthenticationCredentials'));
  } finally {
    await signed.shutdown();
    await unsigned.shutdown();
  }
});
