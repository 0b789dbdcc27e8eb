/** startEmbedded as a user's test suite uses it: ephemeral ports, a temp store, close() cleans up. */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { decodeClusterInfo } from '../../../src/common/protocol/route.js';
import { startEmbedded } from '../../../src/index.js';
import { createRequest } from '../../../src/remoting/protocol/command.js';
import { RequestCode } from '../../../src/remoting/protocol/request-code.js';
import { ResponseCode } from '../../../src/remoting/protocol/response-code.js';
import { RemotingClient } from '../../../src/remoting/transport/index.js';

test('startEmbedded: name server and broker on loopback, broker registered; close removes the temp store', async () => {
  const embedded = await startEmbedded({ brokerName: 'embedded-a' });
  const client = new RemotingClient();
  try {
    assert.match(embedded.namesrvAddr, /^127\.0\.0\.1:\d+$/);
    assert.match(embedded.brokerAddr, /^127\.0\.0\.1:\d+$/);
    const reply = await client.invoke(
      embedded.namesrvAddr,
      createRequest(RequestCode.GET_BROKER_CLUSTER_INFO),
      {
        timeoutMs: 5000,
      },
    );
    assert.equal(reply.code, ResponseCode.SUCCESS);
    const info = decodeClusterInfo(reply.body);
    assert.equal(info.brokerAddrTable.get('embedded-a')?.brokerAddrs.get(0), embedded.brokerAddr);
    assert.equal(existsSync(embedded.storeDir), true);
  } finally {
    await client.close();
    await embedded.close();
    await embedded.close();
  }
  assert.equal(existsSync(embedded.storeDir), false);
});

test('startEmbedded with storeDir keeps the data and reopens it', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'rmq-embedded-'));
  try {
    const first = await startEmbedded({ storeDir: dir });
    await first.close();
    assert.equal(existsSync(join(dir, 'config', 'consumerOffset.json')), true);
    const second = await startEmbedded({ storeDir: dir });
    await second.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('startEmbedded refuses a bad setting and leaves no temp dir behind', async () => {
  await assert.rejects(startEmbedded({ brokerName: '' }), /brokerName/);
});
