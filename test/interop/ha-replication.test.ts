/**
 * HA replication against the official 4.9.8 broker, name server ours, on loopback port triples:
 * official master -> our slave, and our master -> official slave. For each, a mixed load (bodies
 * above one 32 KiB frame, batches, a commit-log file roll with 1 MiB files) sent through our
 * producer to the master must reach the slave byte for byte over the slave's range, with the same
 * consume-queue entries (the official broker's read from its files). Needs
 * `node scripts/interop-prepare.mjs` first.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, mkdtempSync, openSync, readdirSync, readSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { type BrokerController, createBroker } from '../../src/broker/broker-controller.js';
import { createProducer, type Producer } from '../../src/client/index.js';
import { createLogger } from '../../src/common/logger.js';
import { createNamesrv, type NamesrvController } from '../../src/namesrv/namesrv-controller.js';
import { DefaultMessageStore } from '../../src/store/default-message-store.js';
import { freeBrokerPort } from '../integration/broker/slave-support.js';
import { type BrokerHandle, startBroker } from './harness.js';

const FILE_SIZE = 1024 * 1024;
const CQ_FILE_SIZE = 30_000 * 20;
const BROKER_NAME = 'broker-ha-interop';
const LIMIT = { timeout: 240_000 };
const quiet = createLogger('test', { level: 'silent' });
const dir = mkdtempSync(join(tmpdir(), 'rmq-interop-ha-'));
const cleanups: Array<() => Promise<void>> = [];

after(async () => {
  for (const c of cleanups.splice(0).reverse()) {
    try {
      await c();
    } catch {
      // Tearing down: the failure that matters was reported by the test.
    }
  }
  rmSync(dir, { recursive: true, force: true });
});

async function ourNamesrv(name: string): Promise<{ namesrv: NamesrvController; addr: string }> {
  const namesrv = createNamesrv({
    listenPort: 0,
    kvConfigPath: join(dir, name, 'kvConfig.json'),
    logger: quiet,
    settings: { listenHost: '127.0.0.1' },
  });
  const bound = await namesrv.start();
  cleanups.push(() => namesrv.shutdown());
  return { namesrv, addr: `127.0.0.1:${bound.port}` };
}

async function ourBroker(
  namesrvAddr: string,
  storeDir: string,
  role: 'ASYNC_MASTER' | 'SLAVE',
): Promise<BrokerController> {
  const broker = createBroker({
    config: {
      listenHost: '127.0.0.1',
      brokerIP1: '127.0.0.1',
      brokerIP2: '127.0.0.1',
      brokerName: BROKER_NAME,
      listenPort: await freeBrokerPort(),
      storePathRootDir: storeDir,
      namesrvAddr,
      brokerRole: role,
      brokerId: role === 'SLAVE' ? 1 : 0,
      mappedFileSizeCommitLog: FILE_SIZE,
      mappedFileSizeConsumeQueue: CQ_FILE_SIZE,
    },
    logger: quiet,
  });
  await broker.start();
  cleanups.push(() => broker.shutdown());
  return broker;
}

function officialConfig(role: 'ASYNC_MASTER' | 'SLAVE'): Record<string, string | number | boolean> {
  return {
    brokerRole: role,
    brokerId: role === 'SLAVE' ? 1 : 0,
    mappedFileSizeCommitLog: FILE_SIZE,
    mappedFileSizeConsumeQueue: CQ_FILE_SIZE,
    // The official slave reports every heartbeat interval; a shorter one makes the test quicker.
    haSendHeartbeatInterval: 1000,
  };
}

function storeOf(broker: BrokerController): DefaultMessageStore {
  assert.ok(broker.messageStore instanceof DefaultMessageStore);
  return broker.messageStore;
}

/** Sends the mixed load; resolves with the number of messages stored. */
async function mixedLoad(producer: Producer, topic: string): Promise<number> {
  let count = 0;
  for (let i = 0; i < 60; i++) {
    if (i % 6 === 5) {
      await producer.send([
        { topic, body: randomBytes(300), keys: [`b${i}`] },
        { topic, body: randomBytes(500) },
        { topic, body: randomBytes(700) },
      ]);
      count += 3;
    } else {
      await producer.send({ topic, body: randomBytes(i % 2 === 0 ? 48 * 1024 : 900), keys: [`k${i}`] });
      count++;
    }
  }
  return count;
}

function newProducer(namesrvAddr: string): Producer {
  const producer = createProducer({
    producerGroup: `ha-interop-pg-${process.pid}`,
    namesrvAddr,
    logger: quiet,
  });
  cleanups.push(() => producer.shutdown());
  return producer;
}

/** Bytes [from, to) of a commit log on disk (the official broker's files are memory-mapped). */
function diskBytes(storeDir: string, from: number, to: number): Buffer {
  const out = Buffer.alloc(to - from);
  let at = from;
  while (at < to) {
    const fileStart = at - (at % FILE_SIZE);
    const path = join(storeDir, 'commitlog', String(fileStart).padStart(20, '0'));
    const len = Math.min(to, fileStart + FILE_SIZE) - at;
    const fd = openSync(path, 'r');
    try {
      readSync(fd, out, at - from, len, at - fileStart);
    } finally {
      closeSync(fd);
    }
    at += len;
  }
  return out;
}

/** Bytes [from, to) of our store's commit log. */
function ourBytes(store: DefaultMessageStore, from: number, to: number): Buffer {
  const parts: Buffer[] = [];
  for (let at = from; at < to; ) {
    const data = store.getCommitLogData(at, to - at);
    assert.ok(data !== undefined && data.length > 0, `our commit log readable at ${at}`);
    parts.push(Buffer.from(data));
    at += data.length;
  }
  return Buffer.concat(parts);
}

interface CqEntry {
  commitLogOffset: bigint;
  size: number;
  tagsCode: bigint;
}

/** The entries of a consume queue on disk, up to the first empty one. */
function diskQueue(storeDir: string, topic: string, queueId: number): CqEntry[] {
  const qdir = join(storeDir, 'consumequeue', topic, String(queueId));
  if (!existsSync(qdir)) return [];
  const entries: CqEntry[] = [];
  for (const name of readdirSync(qdir).sort()) {
    const fd = openSync(join(qdir, name), 'r');
    try {
      const buf = Buffer.alloc(CQ_FILE_SIZE);
      const n = readSync(fd, buf, 0, buf.length, 0);
      for (let p = 0; p + 20 <= n; p += 20) {
        const size = buf.readInt32BE(p + 8);
        if (size === 0 && buf.readBigInt64BE(p) === 0n) return entries;
        entries.push({ commitLogOffset: buf.readBigInt64BE(p), size, tagsCode: buf.readBigInt64BE(p + 12) });
      }
    } finally {
      closeSync(fd);
    }
  }
  return entries;
}

function ourQueue(broker: BrokerController, topic: string, queueId: number): CqEntry[] {
  const store = storeOf(broker);
  const view = store.queryConsumeQueue(topic, queueId, store.getMinOffsetInQueue(topic, queueId), 10_000);
  return (view?.entries ?? []).map((e) => ({
    commitLogOffset: e.commitLogOffset,
    size: e.size,
    tagsCode: e.tagsCode,
  }));
}

async function waitFor(probe: () => boolean, what: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!probe()) {
    if (Date.now() > deadline) assert.fail(`never happened within ${timeoutMs} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('official master -> our slave', () => {
  let master: BrokerHandle | undefined;
  test("our slave holds the official master's bytes and consume-queue entries", LIMIT, async () => {
    const { addr } = await ourNamesrv('ns-1');
    master = await startBroker({
      namesrvAddr: addr,
      brokerName: BROKER_NAME,
      config: officialConfig('ASYNC_MASTER'),
    });
    const handle = master;
    cleanups.push(() => handle.close());
    const slave = await ourBroker(addr, join(dir, 'our-slave'), 'SLAVE');
    const topic = 'HaInteropToOurs';
    const producer = newProducer(addr);
    await producer.start();
    const sent = await mixedLoad(producer, topic);
    const store = storeOf(slave);
    const stored = () => {
      let n = 0n;
      for (let q = 0; q < 8; q++)
        n += store.getMaxOffsetInQueue(topic, q) - store.getMinOffsetInQueue(topic, q);
      return n;
    };
    await waitFor(
      () => stored() === BigInt(sent),
      `our slave has all ${sent} messages (has ${stored()})`,
      60_000,
    );
    const from = Number(store.getMinPhyOffset());
    const to = Number(store.getMaxPhyOffset());
    assert.ok(to > FILE_SIZE, 'the load rolled the commit log');
    assert.ok(
      ourBytes(store, from, to).equals(diskBytes(handle.storeDir, from, to)),
      `commit-log bytes ${from}..${to} are the master's`,
    );
    let compared = 0;
    for (let q = 0; q < 8; q++) {
      const theirs = diskQueue(handle.storeDir, topic, q);
      const mine = ourQueue(slave, topic, q);
      assert.deepEqual(mine, theirs.slice(theirs.length - mine.length), `queue ${q}`);
      compared += mine.length;
    }
    assert.equal(compared, sent);
  });
});

describe('our master -> official slave', () => {
  test("the official slave holds our master's bytes and consume-queue entries", LIMIT, async () => {
    const { addr } = await ourNamesrv('ns-2');
    const master = await ourBroker(addr, join(dir, 'our-master'), 'ASYNC_MASTER');
    const slave = await startBroker({
      namesrvAddr: addr,
      brokerName: BROKER_NAME,
      config: officialConfig('SLAVE'),
    });
    cleanups.push(() => slave.close());
    const topic = 'HaInteropToOfficial';
    const store = storeOf(master);
    // The official slave's first report (after its heartbeat interval) says where it starts.
    await waitFor(() => store.haService.isSlaveOK(0), 'the official slave reported to our master', 60_000);
    const producer = newProducer(addr);
    await producer.start();
    const sent = await mixedLoad(producer, topic);
    const to = Number(store.getMaxPhyOffset());
    assert.ok(to > FILE_SIZE, 'the load rolled the commit log');
    const lastFile = to - (to % FILE_SIZE);
    const expected = ourBytes(store, 0, to);
    const hasAll = () => {
      const last = join(slave.storeDir, 'commitlog', String(lastFile).padStart(20, '0'));
      return existsSync(last) && diskBytes(slave.storeDir, 0, to).equals(expected);
    };
    await waitFor(hasAll, `the official slave holds our master's ${to} bytes`, 90_000);
    // The official slave's reput builds its consume queues from the replicated bytes.
    await waitFor(
      () => {
        let n = 0;
        for (let q = 0; q < 8; q++) n += diskQueue(slave.storeDir, topic, q).length;
        return n === sent;
      },
      `the official slave's consume queues hold ${sent} entries`,
      30_000,
    );
    for (let q = 0; q < 8; q++) {
      assert.deepEqual(diskQueue(slave.storeDir, topic, q), ourQueue(master, topic, q), `queue ${q}`);
    }
  });
});
