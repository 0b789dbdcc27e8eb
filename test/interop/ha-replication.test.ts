/**
 * HA replication in four pairings on loopback port triples, name server ours (issue 17, part 5):
 * official master -> official slave (the reference, first), official master -> our slave, our master
 * -> official slave, our master -> our slave. Ours runs as `rmq broker -c broker.conf` child
 * processes, the official 4.9.8 broker through the harness; both with 1 MiB commit-log files. One
 * master/slave pair per pairing goes through every check in turn:
 * - a mixed load (bodies above one 32 KiB frame, batches, a file roll): the slave's commit log is the
 *   master's byte for byte over the slave's range, its consume-queue entries the master's;
 * - a topic and a group created on the master reach the slave within ~13 s (first sync 3 s after
 *   start, then every 10 s), without a "Sync... Exception" in its log; so does one created after a
 *   round has run;
 * - the route {0: master, 1: slave};
 * - the slave's refusals against the official slave's, frame by frame (our slave of the official
 *   master is compared in slave-role.test.ts);
 * - an official push consumer reads from the slave (accessMessageInMemoryMaxRatio=0 and
 *   slaveReadEnable on both), and its offsets arrive at the master;
 * - the slave killed (SIGKILL), then stopped cleanly, mid-stream: it restarts on its store and holds
 *   the master's bytes again;
 * - an empty slave joining late starts at the master's last file, as upstream;
 * - the master killed: the route is {1: slave}.
 * Every check reads both stores from their files. Needs `node scripts/interop-prepare.mjs` first.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { isDeepStrictEqual } from 'node:util';
import { createAdmin, type MQAdminExt } from '../../src/admin/index.js';
import { createProducer, type Producer } from '../../src/client/index.js';
import { createLogger } from '../../src/common/logger.js';
import type { NamesrvController } from '../../src/namesrv/namesrv-controller.js';
import { createRequest, type RemotingCommand } from '../../src/remoting/protocol/command.js';
import { decodeHeader, encodeHeader } from '../../src/remoting/protocol/header-schema.js';
import {
  QueryConsumerOffsetRequestHeader,
  QueryConsumerOffsetResponseHeader,
} from '../../src/remoting/protocol/headers/index.js';
import { RequestCode } from '../../src/remoting/protocol/request-code.js';
import { ResponseCode } from '../../src/remoting/protocol/response-code.js';
import { RemotingClient } from '../../src/remoting/transport/index.js';
import { slaveRefusals, startLoopbackNamesrv } from '../integration/broker/slave-support.js';
import {
  assertSameRefusal,
  BackgroundLoad,
  type BrokerKind,
  type CqEntry,
  diskBytes,
  diskQueues,
  FILE_SIZE,
  type HaBroker,
  type HaBrokerSpec,
  mixedLoad,
  type PhyRange,
  phyRange,
  startHaBroker,
  waitFor,
} from './ha-pair-support.js';
import { startPushConsumerProbe } from './push-consumer-probe.js';

const BROKER_NAME = 'broker-ha-interop';
const TOPIC = 'HaInteropTopic';
const GROUP = 'HaInteropGroup';
/** Created once the slave has synced: no message goes to it. */
const LATER_TOPIC = 'HaInteropLaterTopic';
const QUEUES = 4;
/** Upstream's sync runs 3 s after the slave's start, then every 10 s; 2 s more for a busy machine. */
const METADATA_SYNC_WITHIN_MS = 13_000 + 2_000;
/** How long a slave may take to hold everything its master has once the load has stopped. */
const CATCH_UP_TIMEOUT_MS = 60_000;
/** How far a slave must get into the stream before it is stopped, and after its restart. */
const STREAM_PROGRESS = 256 * 1024;
/** The name server drops a broker whose channel closes: at once; its scan would take 120 s. */
const ROUTE_CHANGE_TIMEOUT_MS = 30_000;
const STEP = { timeout: 180_000 };

interface Pairing {
  name: string;
  master: BrokerKind;
  slave: BrokerKind;
  /** record: the reference's answers; compare: against them; covered: by slave-role.test.ts. */
  refusals: 'record' | 'compare' | 'covered';
}

const PAIRINGS: readonly Pairing[] = [
  {
    name: 'official master -> official slave (reference)',
    master: 'official',
    slave: 'official',
    refusals: 'record',
  },
  { name: 'official master -> our slave', master: 'official', slave: 'ours', refusals: 'covered' },
  { name: 'our master -> official slave', master: 'ours', slave: 'official', refusals: 'compare' },
  { name: 'our master -> our slave', master: 'ours', slave: 'ours', refusals: 'compare' },
];

const quiet = createLogger('test', { level: 'silent' });
const root = mkdtempSync(join(tmpdir(), 'rmq-interop-ha-'));
const client = new RemotingClient({ clientChannelMaxIdleTimeSeconds: 0 }, { logger: quiet });
/** The official slave's answers to the refused requests, from the reference pairing. */
const reference = new Map<string, RemotingCommand>();

after(async () => {
  await client.close();
  rmSync(root, { recursive: true, force: true });
});

/** The master's entries the slave must hold: those from the slave's first commit-log offset on. */
function fromOffset(queues: Array<Map<number, CqEntry>>, min: number): Array<Map<number, CqEntry>> {
  return queues.map((q) => new Map([...q].filter(([, e]) => e.commitLogOffset >= BigInt(min))));
}

function entryCount(queues: Array<Map<number, CqEntry>>): number {
  return queues.reduce((n, q) => n + q.size, 0);
}

/** Where the master's consume queues end in its commit log (all its messages are on TOPIC). */
function queuesEnd(queues: Array<Map<number, CqEntry>>): number {
  let end = 0;
  for (const q of queues) for (const e of q.values()) end = Math.max(end, Number(e.commitLogOffset) + e.size);
  return end;
}

/**
 * With the load stopped: waits until the slave holds all the master has, then compares the commit
 * logs over the slave's range byte for byte and the consume queues entry by entry. Resolves with
 * the slave's range and its number of entries.
 */
async function assertReplicated(
  admin: MQAdminExt,
  master: HaBroker,
  slave: HaBroker,
): Promise<PhyRange & { entries: number }> {
  const m = await phyRange(admin, master.addr);
  const mStore = master.spec.storeDir;
  const sStore = slave.spec.storeDir;
  await waitFor(
    () => queuesEnd(diskQueues(mStore, TOPIC, QUEUES)) === m.max,
    () => `the master's consume queues reach its commit-log end ${m.max}`,
    CATCH_UP_TIMEOUT_MS,
  );
  let s: PhyRange = { min: -1, max: -1 };
  await waitFor(
    async () => {
      s = await phyRange(admin, slave.addr);
      return s.max === m.max;
    },
    () => `the slave's commit log ends at the master's ${m.max} (it ends at ${s.max})`,
    CATCH_UP_TIMEOUT_MS,
  );
  const theirs = fromOffset(diskQueues(mStore, TOPIC, QUEUES), s.min);
  await waitFor(
    () => isDeepStrictEqual(diskQueues(sStore, TOPIC, QUEUES), theirs),
    () => `the slave's consume queues hold the master's ${entryCount(theirs)} entries from ${s.min}`,
    CATCH_UP_TIMEOUT_MS,
  );
  assert.deepEqual(diskQueues(sStore, TOPIC, QUEUES), theirs);
  assert.ok(s.min >= 0 && s.max > s.min, `the slave holds a range (${s.min}..${s.max})`);
  assert.ok(
    diskBytes(sStore, s.min, s.max).equals(diskBytes(mStore, s.min, s.max)),
    `commit-log bytes ${s.min}..${s.max} are the master's`,
  );
  return { ...s, entries: entryCount(theirs) };
}

/** Messages the broker's pulls have returned since it started (upstream msgGetTotalTodayNow). */
async function messagesRead(admin: MQAdminExt, addr: string): Promise<number> {
  return Number((await admin.fetchBrokerRuntimeStats(addr)).get('msgGetTotalTodayNow'));
}

/** The group's offset in a queue of the topic as the broker at `addr` holds it (-1 for none). */
async function committedOffset(addr: string, queueId: number): Promise<bigint> {
  const request = createRequest(RequestCode.QUERY_CONSUMER_OFFSET, {
    extFields: encodeHeader(QueryConsumerOffsetRequestHeader, {
      consumerGroup: GROUP,
      topic: TOPIC,
      queueId,
    }),
  });
  const response = await client.invoke(addr, request, { timeoutMs: 10_000 });
  if (response.code === ResponseCode.QUERY_NOT_FOUND) return -1n;
  assert.equal(response.code, ResponseCode.SUCCESS, response.remark);
  return decodeHeader(QueryConsumerOffsetResponseHeader, response.extFields).offset;
}

async function brokerAddrs(admin: MQAdminExt): Promise<Map<number, string> | undefined> {
  const route = await admin.examineTopicRouteInfo(TOPIC);
  return route.brokerDatas.find((b) => b.brokerName === BROKER_NAME)?.brokerAddrs;
}

for (const pairing of PAIRINGS) {
  describe(pairing.name, { timeout: 600_000 }, () => {
    const dir = join(root, `${pairing.master}-${pairing.slave}`);
    let namesrv: NamesrvController | undefined;
    let namesrvAddr = '';
    let admin: MQAdminExt;
    let producer: Producer;
    let master: HaBroker;
    let slave: HaBroker;
    /** When the topic and the group were created on the master. */
    let createdAt = 0;
    /** When LATER_TOPIC was created on the master. */
    let laterTopicAt = 0;
    let broken = false;

    const spec = (role: HaBrokerSpec['role'], store: string): HaBrokerSpec => ({
      kind: role === 'SLAVE' ? pairing.slave : pairing.master,
      role,
      brokerName: BROKER_NAME,
      namesrvAddr,
      storeDir: join(dir, store),
    });

    /** A check that runs only while every earlier one of its pairing passed (they share the pair). */
    const step = (name: string, fn: () => Promise<void>) =>
      test(name, STEP, async (t) => {
        if (broken) {
          t.skip('an earlier check of this pairing failed');
          return;
        }
        try {
          await fn();
        } catch (error) {
          broken = true;
          throw error;
        }
      });

    /** Stops the slave (SIGKILL or clean) while the load runs; it restarts on its store and catches up. */
    async function restartMidStream(how: 'kill' | 'stop'): Promise<void> {
      const before = await phyRange(admin, slave.addr);
      const load = new BackgroundLoad(producer, TOPIC);
      let downAt = before;
      try {
        await waitFor(
          async () => {
            downAt = await phyRange(admin, slave.addr);
            return downAt.max >= before.max + STREAM_PROGRESS;
          },
          () => `the slave follows the stream (at ${downAt.max}, from ${before.max})`,
          CATCH_UP_TIMEOUT_MS,
        );
        await (how === 'kill' ? slave.kill() : slave.stop());
        slave = await startHaBroker(slave.spec, admin);
        const restartedAt = await phyRange(admin, master.addr);
        assert.ok(restartedAt.max > downAt.max, 'the master went on while the slave was down');
        let at = downAt;
        await waitFor(
          async () => {
            at = await phyRange(admin, slave.addr);
            return at.max >= restartedAt.max + STREAM_PROGRESS;
          },
          () => `the restarted slave catches up and follows (at ${at.max}, master was at ${restartedAt.max})`,
          CATCH_UP_TIMEOUT_MS,
        );
      } finally {
        await load.stop();
      }
      assert.ok(load.sent > 0, `the load went on (${load.failed} sends failed)`);
      const replicated = await assertReplicated(admin, master, slave);
      assert.equal(replicated.min, 0, 'the slave kept its store');
    }

    before(
      async () => {
        ({ namesrv, addr: namesrvAddr } = await startLoopbackNamesrv(dir));
        admin = createAdmin({ namesrvAddr, logger: quiet });
        await admin.start();
        producer = createProducer({ producerGroup: 'ha-interop-pg', namesrvAddr, logger: quiet });
        await producer.start();
        master = await startHaBroker(spec('ASYNC_MASTER', 'master'), admin);
        slave = await startHaBroker(spec('SLAVE', 'slave'), admin);
      },
      { timeout: 240_000 },
    );

    after(
      async () => {
        if (broken) {
          for (const b of [master, slave])
            if (b !== undefined) process.stderr.write(`--- ${b.spec.kind} ${b.spec.role}\n${b.logTail()}\n`);
        }
        await producer?.shutdown();
        await admin?.shutdown();
        await slave?.kill();
        await master?.kill();
        await namesrv?.shutdown();
      },
      { timeout: 120_000 },
    );

    step('a mixed load (bodies > 32 KiB, batches, a file roll) reaches the slave byte for byte', async () => {
      createdAt = Date.now();
      await admin.createAndUpdateTopicConfig(master.addr, {
        topicName: TOPIC,
        readQueueNums: QUEUES,
        writeQueueNums: QUEUES,
      });
      await admin.createAndUpdateSubscriptionGroupConfig(master.addr, { groupName: GROUP });
      await waitFor(
        async () => (await brokerAddrs(admin))?.get(0) === master.addr,
        () => 'the name server routes the topic to the master',
        30_000,
      );
      // One message the slave must get from offset 0: it is following before the load starts (an
      // official slave's first report comes a heartbeat interval after it connects).
      await producer.send({ topic: TOPIC, body: Buffer.from('first') });
      const first = await assertReplicated(admin, master, slave);
      assert.equal(first.min, 0);
      const sent = 1 + (await mixedLoad(producer, TOPIC, 60));
      const replicated = await assertReplicated(admin, master, slave);
      assert.equal(replicated.min, 0, 'the slave holds the master from its first byte');
      assert.ok(replicated.max > FILE_SIZE, 'the load rolled the commit log');
      assert.equal(replicated.entries, sent);
    });

    step('a topic and a group created on the master reach the slave within ~13 s', async () => {
      const topics = async () => (await admin.getAllTopicConfig(slave.addr)).topicConfigTable;
      const groups = async () => (await admin.getAllSubscriptionGroup(slave.addr)).subscriptionGroupTable;
      await waitFor(
        async () => (await topics()).has(TOPIC) && (await groups()).has(GROUP),
        () => `${TOPIC} and ${GROUP} on the slave`,
        Math.max(0, createdAt + METADATA_SYNC_WITHIN_MS - Date.now()),
      );
      const masterTopics = (await admin.getAllTopicConfig(master.addr)).topicConfigTable;
      const masterGroups = (await admin.getAllSubscriptionGroup(master.addr)).subscriptionGroupTable;
      assert.deepEqual((await topics()).get(TOPIC), masterTopics.get(TOPIC));
      assert.deepEqual((await groups()).get(GROUP), masterGroups.get(GROUP));
      const log = slave.logText();
      if (slave.spec.kind === 'official') assert.match(log, /Update slave topic config from master/);
      assert.doesNotMatch(log, /Sync\w* Exception/);
      // A round has run: a topic created now can only come with the next one, 10 s later (checked
      // after the push consumer's step, which takes about that long).
      laterTopicAt = Date.now();
      await admin.createAndUpdateTopicConfig(master.addr, { topicName: LATER_TOPIC });
    });

    step('the route is {0: master, 1: slave}', async () => {
      assert.deepEqual(
        await brokerAddrs(admin),
        new Map([
          [0, master.addr],
          [1, slave.addr],
        ]),
      );
    });

    if (pairing.refusals !== 'covered') {
      const verb = pairing.refusals === 'record' ? 'are recorded' : "are the reference official slave's";
      step(`the slave's refusals ${verb}, frame by frame`, async () => {
        for (const refusal of slaveRefusals(TOPIC, GROUP)) {
          const answer = await client.invoke(slave.addr, refusal.request(), { timeoutMs: 10_000 });
          if (pairing.refusals === 'record') {
            assert.equal(answer.code, refusal.code, `${refusal.what}: ${answer.remark}`);
            reference.set(refusal.what, answer);
            continue;
          }
          const official = reference.get(refusal.what);
          assert.ok(official !== undefined, `the reference pairing recorded ${refusal.what}`);
          assertSameRefusal(refusal, official, answer);
        }
      });
    }

    step('an official push consumer reads from the slave; its offsets arrive at the master', async () => {
      const ends = diskQueues(master.spec.storeDir, TOPIC, QUEUES).map((q) => q.size);
      const readBefore = await messagesRead(admin, slave.addr);
      const probe = await startPushConsumerProbe({
        namesrvAddr,
        topic: TOPIC,
        group: GROUP,
        queues: QUEUES,
      });
      try {
        const delivered = () => {
          const seen = ends.map(() => new Set<number>());
          for (const m of probe.deliveries()) seen[m.queueId]?.add(m.queueOffset);
          return seen.map((s) => s.size);
        };
        await waitFor(
          () => isDeepStrictEqual(delivered(), ends),
          () =>
            `deliveries per queue ${JSON.stringify(delivered())} of ${JSON.stringify(ends)}\n${probe.stderrTail()}`,
          CATCH_UP_TIMEOUT_MS,
        );
        const read = (await messagesRead(admin, slave.addr)) - readBefore;
        assert.ok(read > 0, 'the slave answered pulls with messages');
        // The official client commits to the master (every persistConsumerOffsetInterval, 5 s).
        let committed: bigint[] = [];
        await waitFor(
          async () => {
            committed = await Promise.all(ends.map((_, q) => committedOffset(master.addr, q)));
            return isDeepStrictEqual(committed, ends.map(BigInt));
          },
          () => `the master's offsets ${committed.join(',')} reach ${ends.join(',')}`,
          CATCH_UP_TIMEOUT_MS,
        );
      } finally {
        await probe.close();
      }
    });

    step('a topic created after a sync round arrives with the next one (every 10 s)', async () => {
      await waitFor(
        async () => (await admin.getAllTopicConfig(slave.addr)).topicConfigTable.has(LATER_TOPIC),
        () => `${LATER_TOPIC} on the slave`,
        Math.max(0, laterTopicAt + METADATA_SYNC_WITHIN_MS - Date.now()),
      );
      assert.doesNotMatch(slave.logText(), /Sync\w* Exception/);
    });

    step('a slave killed (SIGKILL) mid-stream restarts on its store and catches up', () =>
      restartMidStream('kill'),
    );

    step('a slave stopped cleanly mid-stream restarts on its store and catches up', () =>
      restartMidStream('stop'),
    );

    step("an empty slave joining late starts at the master's last file", async () => {
      await slave.kill();
      const m = await phyRange(admin, master.addr);
      assert.ok(m.max > FILE_SIZE, 'the master has more than one file');
      const lastFile = m.max - (m.max % FILE_SIZE);
      const startedAt = Date.now();
      slave = await startHaBroker({ ...slave.spec, storeDir: join(dir, 'late-slave') }, admin);
      const joined = await assertReplicated(admin, master, slave);
      assert.equal(joined.min, lastFile, "the slave's first byte is the master's last file's");
      await mixedLoad(producer, TOPIC, 12);
      const replicated = await assertReplicated(admin, master, slave);
      assert.equal(replicated.min, lastFile);
      // Its first metadata sync round, 3 s after its start, brings the topic without an exception.
      await waitFor(
        async () => (await admin.getAllTopicConfig(slave.addr)).topicConfigTable.has(TOPIC),
        () => `${TOPIC} on the late slave`,
        Math.max(0, startedAt + METADATA_SYNC_WITHIN_MS - Date.now()),
      );
      assert.doesNotMatch(slave.logText(), /Sync\w* Exception/);
    });

    step('the route goes from {0: master, 1: slave} to {1: slave} when the master dies', async () => {
      assert.deepEqual(
        await brokerAddrs(admin),
        new Map([
          [0, master.addr],
          [1, slave.addr],
        ]),
      );
      await master.kill();
      let seen: Map<number, string> | undefined;
      await waitFor(
        async () => {
          seen = await brokerAddrs(admin);
          return isDeepStrictEqual(seen, new Map([[1, slave.addr]]));
        },
        () => `the route is {1: ${slave.addr}} (it is ${JSON.stringify([...(seen ?? [])])})`,
        ROUTE_CHANGE_TIMEOUT_MS,
      );
    });
  });
}
