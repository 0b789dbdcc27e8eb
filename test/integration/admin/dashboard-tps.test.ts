/**
 * The TPS sampler on a ManualClock over a real broker: the first read samples at once, each interval
 * adds a sample while someone watches, the series keeps its length, and sampling stops once nobody
 * has read it for tpsIdleTimeoutMs.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { resolveDashboardOptions } from '../../../src/admin/dashboard/dashboard-options.js';
import { TpsSampler } from '../../../src/admin/dashboard/tps-sampler.js';
import { createAdmin, type MQAdminExt } from '../../../src/admin/index.js';
import { ManualClock } from '../../../src/common/clock.js';
import { quiet, startCluster, type TestCluster } from '../client/support.js';
import { poll } from './dashboard-support.js';

let cluster: TestCluster;
let admin: MQAdminExt;

before(async () => {
  cluster = await startCluster();
  admin = createAdmin({ namesrvAddr: cluster.namesrvAddr, clientIP: '127.0.0.1', logger: quiet });
  await admin.start();
});

after(async () => {
  await admin?.shutdown();
  await cluster?.close();
});

test('samples while watched, keeps tpsSeriesLength points, stops when nobody watches', async () => {
  const clock = new ManualClock();
  const settings = resolveDashboardOptions({
    tpsSampleIntervalMs: 1000,
    tpsSeriesLength: 3,
    tpsIdleTimeoutMs: 2500,
  });
  const sampler = new TpsSampler({ admin, settings }, clock);
  try {
    const first = await sampler.series();
    assert.equal(first.intervalMs, 1000);
    assert.equal(first.points.length, 1);
    assert.deepEqual(Object.keys(first.points[0]?.brokers ?? {}), ['broker-a/0']);
    assert.ok(sampler.active);
    for (let n = 2; n <= 3; n++) {
      clock.advance(1000);
      await poll(
        async () => ((await sampler.series()).points.length === n ? true : undefined),
        `sample ${n}`,
      );
    }
    clock.advance(1000);
    await poll(async () => {
      const s = await sampler.series();
      return s.points.length === 3 && s.points[2]?.t === clock.now() ? true : undefined;
    }, 'the oldest sample dropped');
    // Nobody reads for longer than the idle timeout: the next tick stops sampling.
    clock.advance(1000);
    clock.advance(1000);
    clock.advance(1000);
    assert.equal(sampler.active, false);
  } finally {
    await sampler.close();
  }
});
