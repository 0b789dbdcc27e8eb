/**
 * Master/slave pairs of real in-process brokers for the HA tests: our name server, a master on a
 * free port triple (VIP, main, HA = main + 1), slaves that find the master's HA address through
 * the name server, and the comparisons the tests make (commit-log bytes over the slave's range,
 * consume-queue entries). Also bare stores on a ManualClock for the tests of the HA port itself.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrokerConfigOverrides } from '../../../src/broker/broker-config.js';
import {
  type BrokerController,
  type CreateBrokerOptions,
  createBroker,
} from '../../../src/broker/broker-controller.js';
import type { Clock } from '../../../src/common/clock.js';
import type { Logger } from '../../../src/common/logger.js';
import type { NamesrvController } from '../../../src/namesrv/namesrv-controller.js';
import type { MessageStoreConfig } from '../../../src/store/config.js';
import { DefaultMessageStore } from '../../../src/store/default-message-store.js';
import { quiet } from '../../unit/broker/helpers.js';
import { msg, openStore, put, tempDir } from '../../unit/store/default-message-store-support.js';
import { freeBrokerPort, startLoopbackNamesrv } from './slave-support.js';

/** Small files so a few hundred KiB of load rolls the commit log. */
export const HA_FILE_SIZE = 256 * 1024;

export const HA_BROKER_DEFAULTS: BrokerConfigOverrides = {
  listenHost: '127.0.0.1',
  brokerIP1: '127.0.0.1',
  brokerIP2: '127.0.0.1',
  brokerName: 'broker-ha',
  mappedFileSizeCommitLog: HA_FILE_SIZE,
  mappedFileSizeConsumeQueue: 60_000,
  registerBrokerTimeoutMills: 3000,
  // Heartbeats and housekeeping short enough for a test to see them.
  haSendHeartbeatInterval: 500,
};

/** Commit-log files of the bare-store HA tests: a few dozen messages roll them. */
export const HA_STORE_FILE = 8 * 1024;

/** A master store holding `n` messages of 300 bytes over queues 0 and 1 of TopicTest. */
export async function haMasterStore(
  n: number,
  clock: Clock,
  logger: Logger = quiet,
): Promise<DefaultMessageStore> {
  const store = await openStore(
    tempDir('rmq-ha-store-m-'),
    { mappedFileSizeCommitLog: HA_STORE_FILE },
    { clock, logger },
  );
  for (let i = 0; i < n; i++) await put(store, msg(i, { queueId: i % 2, body: 'y'.repeat(300) }));
  return store;
}

/** An empty slave store, its HA client not yet given a master. */
export function haSlaveStore(
  clock: Clock,
  logger: Logger,
  overrides: Partial<MessageStoreConfig> = {},
): Promise<DefaultMessageStore> {
  return openStore(
    tempDir('rmq-ha-store-s-'),
    { mappedFileSizeCommitLog: HA_STORE_FILE, ...overrides },
    { clock, logger, brokerRole: 'SLAVE' },
  );
}

export interface HAPair {
  namesrvAddr: string;
  namesrv: NamesrvController;
  master: BrokerController;
  dir: string;
  /** Starts a slave (brokerId 1 unless told) on `storeDir` (a fresh one unless given). */
  startSlave(
    config?: BrokerConfigOverrides,
    storeDir?: string,
    options?: PairBrokerOptions,
  ): Promise<BrokerController>;
  close(): Promise<void>;
}

/** What a test may add to a pair's createBroker besides config (TLS, say). */
export type PairBrokerOptions = Omit<CreateBrokerOptions, 'config' | 'logger'>;

export async function startPair(
  master: BrokerConfigOverrides = {},
  options: PairBrokerOptions = {},
): Promise<HAPair> {
  const dir = mkdtempSync(join(tmpdir(), 'rmq-ha-'));
  const { namesrv, addr: namesrvAddr } = await startLoopbackNamesrv(join(dir, 'ns'));
  const brokers: BrokerController[] = [];
  const masterBroker = createBroker({
    config: {
      ...HA_BROKER_DEFAULTS,
      listenPort: await freeBrokerPort(),
      storePathRootDir: join(dir, 'master'),
      namesrvAddr,
      // An ASYNC_MASTER opens its HA port only when told to expect slaves.
      totalReplicas: 2,
      ...master,
    },
    ...options,
    logger: quiet,
  });
  brokers.push(masterBroker);
  await masterBroker.start();
  let slaves = 0;
  return {
    namesrvAddr,
    namesrv,
    master: masterBroker,
    dir,
    async startSlave(config = {}, storeDir, slaveOptions = {}) {
      slaves++;
      const slave = createBroker({
        config: {
          ...HA_BROKER_DEFAULTS,
          listenPort: await freeBrokerPort(),
          storePathRootDir: storeDir ?? join(dir, `slave-${slaves}`),
          namesrvAddr,
          brokerRole: 'SLAVE',
          brokerId: 1,
          ...config,
        },
        ...slaveOptions,
        logger: quiet,
      });
      brokers.push(slave);
      await slave.start();
      return slave;
    },
    async close() {
      try {
        for (const b of brokers.reverse()) await b.shutdown();
        await namesrv.shutdown();
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}

export function storeOf(broker: BrokerController): DefaultMessageStore {
  const store = broker.messageStore;
  assert.ok(store instanceof DefaultMessageStore);
  return store;
}

/** Polls `probe` every few ms until it is true; fails after `timeoutMs`. */
export async function waitFor(probe: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!probe()) {
    if (Date.now() > deadline) assert.fail(`never happened within ${timeoutMs} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** Resolves once the slave's commit log ends where the master's does. */
export function caughtUp(
  master: BrokerController,
  slave: BrokerController,
  timeoutMs = 15_000,
): Promise<void> {
  const m = storeOf(master);
  const s = storeOf(slave);
  return waitFor(
    () => s.getMaxPhyOffset() === m.getMaxPhyOffset(),
    `slave reaches the master's end ${m.getMaxPhyOffset()} (slave at ${s.getMaxPhyOffset()})`,
    timeoutMs,
  );
}

function bytes(store: DefaultMessageStore, from: number, to: number): Buffer {
  const parts: Buffer[] = [];
  let at = from;
  while (at < to) {
    const data = store.getCommitLogData(at, to - at);
    assert.ok(data !== undefined && data.length > 0, `commit log readable at ${at}`);
    parts.push(Buffer.from(data));
    at += data.length;
  }
  return Buffer.concat(parts);
}

/** The slave's commit log equals the master's, byte for byte, over the slave's range. */
export function assertSameCommitLog(master: BrokerController, slave: BrokerController): void {
  const m = storeOf(master);
  const s = storeOf(slave);
  const from = Number(s.getMinPhyOffset());
  const to = Number(s.getMaxPhyOffset());
  assert.ok(from >= 0 && to > from, `slave holds data (${from}..${to})`);
  assert.equal(to, Number(m.getMaxPhyOffset()), 'slave ends where the master ends');
  const sb = bytes(s, from, to);
  const mb = bytes(m, from, to);
  assert.equal(sb.length, mb.length);
  assert.ok(sb.equals(mb), `commit-log bytes ${from}..${to} differ`);
}

/**
 * Every consume queue of the slave has the master's entries over the slave's range of it, and every
 * queue of the master with entries in the slave's commit-log range exists on the slave.
 */
export function assertSameConsumeQueues(master: BrokerController, slave: BrokerController): number {
  const m = storeOf(master);
  const s = storeOf(slave);
  const slaveMinPhy = s.getMinPhyOffset();
  let compared = 0;
  for (const cq of m.consumeQueueStore.queues()) {
    const mMax = cq.getMaxOffsetInQueue();
    const last =
      mMax > 0n ? m.queryConsumeQueue(cq.topic, cq.queueId, mMax - 1n, 1)?.entries?.[0] : undefined;
    if (last === undefined || last.commitLogOffset < slaveMinPhy) continue;
    const sq = s.getConsumeQueue(cq.topic, cq.queueId);
    assert.ok(sq !== undefined, `slave has queue ${cq.topic}-${cq.queueId}`);
    assert.equal(sq.getMaxOffsetInQueue(), mMax, `queue ${cq.topic}-${cq.queueId} ends at the same offset`);
    for (let q = sq.getMinOffsetInQueue(); q < mMax; q++) {
      const se = s.queryConsumeQueue(cq.topic, cq.queueId, q, 1)?.entries?.[0];
      const me = m.queryConsumeQueue(cq.topic, cq.queueId, q, 1)?.entries?.[0];
      if (se === undefined) continue;
      assert.deepEqual(se, me, `entry ${q} of ${cq.topic}-${cq.queueId}`);
      compared++;
    }
  }
  return compared;
}
