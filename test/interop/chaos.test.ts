/**
 * The short form of the chaos scenarios of issue 14, part 1 (broker kill in both flush modes, broker
 * pause, name server kill, consumer churn), with our client and the official 4.9.8 Java client, on
 * our name server and broker as child processes: every verdict row must pass (no acknowledged message
 * lost, no orderly inversion, duplicates within the bound, clients recover). The table goes to the
 * test's diagnostics.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { formatVerdicts, runScenario } from '../../scripts/chaos/runner.js';
import { brokerKill } from '../../scripts/chaos/scenarios/broker-kill.js';
import { brokerPause } from '../../scripts/chaos/scenarios/broker-pause.js';
import { consumerChurn } from '../../scripts/chaos/scenarios/consumer-churn.js';
import { namesrvKill } from '../../scripts/chaos/scenarios/namesrv-kill.js';

const workDir = mkdtempSync(join(tmpdir(), 'rmq-chaos-test-'));
after(() => rmSync(workDir, { recursive: true, force: true }));

for (const scenario of [brokerKill, brokerPause, namesrvKill, consumerChurn]) {
  test(`chaos ${scenario.name}, short form, ours and java`, { timeout: 6 * 60_000 }, async (t) => {
    const verdicts = await runScenario(scenario, {
      long: false,
      workDir: join(workDir, scenario.name),
      clients: ['ours', 'java'],
      log: () => {},
      signal: new AbortController().signal,
    });
    for (const line of formatVerdicts(verdicts).trimEnd().split('\n')) t.diagnostic(line);
    assert.deepEqual(
      verdicts.map((v) => v.mode.split(', ').at(-1)),
      scenario === brokerKill ? ['ours', 'java', 'ours', 'java'] : ['ours', 'java'],
    );
    for (const v of verdicts) {
      assert.deepEqual(v.failures, [], `${v.scenario} [${v.mode}]`);
      assert.ok(v.acknowledged > 0 && v.cycles > 0, `${v.scenario} [${v.mode}] ran`);
      assert.equal(v.lostMessageCount, 0);
      assert.equal(v.orderInversions, 0);
      // Ours heartbeats a broker as soon as it reconnects (under 1 s in most cycles, 4.9 s seen once on
      // a loaded machine); the Java client waits for its next heartbeat, up to 30 s. The bound is loose
      // for CI and still a third of that interval, so a client without the reconnect heartbeat fails.
      if (scenario === brokerKill && v.mode.endsWith('ours')) {
        const recovery = Number(v.figures.consumeRecoveryMs);
        assert.ok(recovery <= 10_000, `${v.mode}: first delivery ${recovery} ms after a restart`);
      }
    }
  });
}
