/**
 * PUT_KV_CONFIG bounds (issue 26): an entry over kvConfigMaxEntrySize and a put that would take the
 * table over kvConfigMaxTotalSize are refused with a remark naming the setting, changing nothing;
 * a burst of puts shares kvConfig.json writes. Real TCP on 127.0.0.1, kvConfig.json in a temp dir.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { createNamesrv } from '../../../src/namesrv/index.js';
import { createRequest } from '../../../src/remoting/protocol/command.js';
import { encodeHeader } from '../../../src/remoting/protocol/header-schema.js';
import { PutKVConfigRequestHeader } from '../../../src/remoting/protocol/headers/index.js';
import { RequestCode } from '../../../src/remoting/protocol/request-code.js';
import { ResponseCode } from '../../../src/remoting/protocol/response-code.js';
import { RemotingClient } from '../../../src/remoting/transport/index.js';
import { quiet } from '../../unit/namesrv/helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'rmq-ns-kv-limits-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const put = (key: string, value: string) =>
  createRequest(RequestCode.PUT_KV_CONFIG, {
    extFields: encodeHeader(PutKVConfigRequestHeader, { namespace: 'ns', key, value }),
  });

test('puts past kvConfigMaxEntrySize or kvConfigMaxTotalSize are refused, nothing changes', {
  timeout: 10_000,
}, async () => {
  const kvConfigPath = join(dir, 'kvConfig.json');
  const namesrv = createNamesrv({
    listenPort: 0,
    kvConfigPath,
    logger: quiet,
    settings: { listenHost: '127.0.0.1', kvConfigMaxEntrySize: 100, kvConfigMaxTotalSize: 250 },
  });
  const client = new RemotingClient({}, { logger: quiet });
  try {
    const addr = `127.0.0.1:${(await namesrv.start()).port}`;
    const call = (key: string, value: string) => client.invoke(addr, put(key, value), { timeoutMs: 3000 });
    const big = await call('k', 'v'.repeat(100));
    assert.equal(big.code, ResponseCode.SYSTEM_ERROR);
    assert.match(big.remark ?? '', /kvConfigMaxEntrySize \(100 bytes/);
    // 2 + 2 + 80 = 84 bytes each: a third would make 252 > 250.
    const puts = await Promise.all(['k1', 'k2'].map((k) => call(k, 'x'.repeat(80))));
    assert.deepEqual(
      puts.map((r) => r.code),
      [0, 0],
    );
    const third = await call('k3', 'x'.repeat(80));
    assert.equal(third.code, ResponseCode.SYSTEM_ERROR);
    assert.match(third.remark ?? '', /kvConfigMaxTotalSize \(250 bytes\)/);
    // Replacing an entry counts its new size only.
    assert.equal((await call('k1', 'y'.repeat(80))).code, 0);
    assert.equal(namesrv.kvConfigManager.size, 168);
    await namesrv.kvConfigManager.flushed();
    const file = readFileSync(kvConfigPath, 'utf8');
    assert.ok(file.includes('y'.repeat(80)) && !file.includes('k3') && !file.includes('"k"'));
  } finally {
    await client.close();
    await namesrv.shutdown();
  }
});

test('a burst of puts shares the writes of kvConfig.json', { timeout: 10_000 }, async () => {
  const namesrv = createNamesrv({
    listenPort: 0,
    kvConfigPath: join(dir, 'burst', 'kvConfig.json'),
    logger: quiet,
  });
  const kv = namesrv.kvConfigManager;
  await kv.load();
  let writes = 0;
  const persist = kv.persist.bind(kv);
  const seen = new Set<Promise<void>>();
  kv.persist = () => {
    const p = persist();
    if (!seen.has(p)) {
      seen.add(p);
      writes++;
    }
    return p;
  };
  await Promise.all(Array.from({ length: 50 }, (_, i) => kv.putKVConfig('ns', `k${i}`, 'v')));
  assert.ok(writes <= 2, `${writes} writes for 50 puts`);
  assert.equal(kv.getKVConfig('ns', 'k49'), 'v');
  const file = readFileSync(join(dir, 'burst', 'kvConfig.json'), 'utf8');
  assert.ok(file.includes('"k49"') && file.includes('"k0"'));
});
