/**
 * A slave whose commit log ends before the master's first file (deleted on the master since): the
 * master refuses it, telling where its log starts now; without haAllowResetSlave the slave keeps its
 * store as it is and says what to do; with it, the slave empties its store and follows the master
 * from its first file. Real stores on a ManualClock, real TCP on 127.0.0.1.
 */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { ManualClock } from '../../../src/common/clock.js';
import type { DefaultMessageStore } from '../../../src/store/default-message-store.js';
import { capturingLogger } from '../../unit/broker/helpers.js';
import { removeTempDirs } from '../../unit/store/default-message-store-support.js';
import { HA_STORE_FILE as FILE, haMasterStore, haSlaveStore, waitFor } from './ha-support.js';

const LIMIT = { timeout: 30_000 };
after(() => removeTempDirs());

async function setUp(allowReset: boolean) {
  const clock = new ManualClock();
  const { records, logger } = capturingLogger();
  const master = await haMasterStore(120, clock);
  const slave = await haSlaveStore(clock, logger, { haAllowResetSlave: allowReset });
  // The slave once had the master's first file...
  const first = master.getCommitLogData(0, FILE);
  assert.ok(first !== undefined);
  assert.equal(slave.appendToCommitLog(0, first), undefined);
  // ...which the master has deleted since.
  clock.advance(3600_000);
  await master.commitLog.deleteExpiredFile(0, 0, 0, true);
  assert.ok(Number(master.getMinPhyOffset()) > FILE);
  const port = await master.haService.start({ port: 0, host: '127.0.0.1' });
  await slave.haService.start({ port: 0, host: '127.0.0.1' });
  return { clock, records, master, slave, port };
}

async function tearDown(master: DefaultMessageStore, slave: DefaultMessageStore): Promise<void> {
  await slave.shutdown();
  await master.shutdown();
}

test('without haAllowResetSlave the slave keeps its store and says what to do', LIMIT, async () => {
  const { records, master, slave, port } = await setUp(false);
  try {
    slave.haService.updateMasterAddress(`127.0.0.1:${port}`);
    await waitFor(
      () => records.some((r) => /set haAllowResetSlave=true/.test(String(r.fields.reason))),
      'the slave logs why it cannot catch up',
    );
    assert.equal(slave.getMaxPhyOffset(), BigInt(FILE));
    assert.equal(slave.getMinPhyOffset(), 0n);
  } finally {
    await tearDown(master, slave);
  }
});

test(
  "with haAllowResetSlave the slave empties its store and follows from the master's first file",
  LIMIT,
  async () => {
    const { clock, master, slave, port } = await setUp(true);
    try {
      slave.haService.updateMasterAddress(`127.0.0.1:${port}`);
      await waitFor(() => slave.getMaxPhyOffset() === 0n, 'the slave store was emptied');
      // The reconnect is due at once on the slave's clock.
      clock.advance(0);
      await waitFor(() => slave.getMaxPhyOffset() === master.getMaxPhyOffset(), 'the slave caught up');
      assert.equal(slave.getMinPhyOffset(), master.getMinPhyOffset());
      const from = Number(master.getMinPhyOffset());
      const to = Number(master.getMaxPhyOffset());
      for (let at = from; at < to; at += FILE) {
        const a = master.getCommitLogData(at, FILE);
        const b = slave.getCommitLogData(at, FILE);
        assert.ok(a !== undefined && b !== undefined && a.equals(b), `file at ${at} is the same`);
      }
      const last = master.getMaxOffsetInQueue('TopicTest', 1) - 1n;
      assert.deepEqual(
        slave.queryConsumeQueue('TopicTest', 1, last, 1)?.entries,
        master.queryConsumeQueue('TopicTest', 1, last, 1)?.entries,
      );
    } finally {
      await tearDown(master, slave);
    }
  },
);
