/**
 * Checks the interop ClientProbe itself against the official name server and broker, so that tests
 * which use it against our servers can trust it: every message sent (sync, async, batch) is pulled back
 * with its body, tags, keys and user property.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { officialProduce, officialPullAll } from './client-probe.js';
import { type BrokerHandle, type NamesrvHandle, startBroker, startNamesrv } from './harness.js';

describe('interop ClientProbe against the official servers', { timeout: 300_000 }, () => {
  let namesrv: NamesrvHandle | undefined;
  let broker: BrokerHandle | undefined;

  before(
    async () => {
      namesrv = await startNamesrv();
      broker = await startBroker({ namesrvAddr: namesrv.addr, brokerName: 'broker-probe' });
    },
    { timeout: 180_000 },
  );
  after(async () => {
    await broker?.close();
    await namesrv?.close();
  });

  test('sync, async and batch sends are all pulled back intact', { timeout: 240_000 }, async () => {
    assert.ok(namesrv);
    const topic = 'ProbeTopic';
    const sync = await officialProduce(namesrv.addr, topic, 20, { mode: 'sync' });
    const asyncSent = await officialProduce(namesrv.addr, topic, 20, { mode: 'async' });
    const batch = await officialProduce(namesrv.addr, topic, 10, { mode: 'batch' });
    assert.equal(sync.length, 20);
    assert.equal(asyncSent.length, 20);
    assert.equal(batch.length, 1);
    assert.ok([...sync, ...asyncSent, ...batch].every((r) => r.status === 'SEND_OK'));
    const pulled = await officialPullAll(namesrv.addr, topic, 'probe-consumer', { commit: true });
    assert.equal(pulled.length, 50);
    const byIdx = new Map<string, number>();
    for (const m of pulled) {
      const idx = m.properties.idx;
      assert.ok(idx !== undefined);
      byIdx.set(idx, (byIdx.get(idx) ?? 0) + 1);
      assert.equal(Buffer.from(m.bodyHex, 'hex').toString(), `body-${idx}`);
      assert.equal(m.keys, `key-${idx} k2-${idx}`);
      assert.equal(m.tags, ['TagA', 'TagB', 'TagC'][Number(idx) % 3]);
    }
    // indexes 0..9 were sent three times (sync, async, batch), 10..19 twice.
    assert.equal(byIdx.get('0'), 3);
    assert.equal(byIdx.get('19'), 2);
  });
});
