/**
 * A route the name servers cannot give is logged at warn once per run of failures: the route poll
 * asks again every pollNameServerInterval, and a name server that stays away must not repeat the
 * same warn forever. A success ends the run; the next failure warns again.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { resolveClientConfig } from '../../../src/client/client-config.js';
import { MQClientInstance } from '../../../src/client/instance/mq-client-instance.js';
import { ManualClock } from '../../../src/common/clock.js';
import { createLogger, type LogRecord } from '../../../src/common/logger.js';

test('a failing route lookup warns once, then logs at debug while it keeps failing', async () => {
  const records: LogRecord[] = [];
  const logger = createLogger('client', { level: 'debug', sink: (r) => records.push(r) });
  const config = resolveClientConfig({
    namesrvAddr: '127.0.0.1:1',
    clientIP: '127.0.0.1',
    instanceName: 'route-warn',
    clock: new ManualClock(),
    logger,
    mqClientApiTimeout: 1000,
  });
  const instance = new MQClientInstance(config);
  try {
    for (let i = 0; i < 3; i++)
      assert.equal(await instance.updateTopicRouteInfoFromNameServer('Missing'), false);
    const failures = records.filter((r) => r.msg === 'route update failed');
    assert.deepEqual(
      failures.map((r) => r.level),
      ['warn', 'debug', 'debug'],
    );
  } finally {
    await instance.shutdown();
  }
});
