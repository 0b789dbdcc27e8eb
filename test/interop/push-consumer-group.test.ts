/**
 * Our push consumer (createPushConsumer) in consumer groups with official 4.9.8 Java push consumers
 * (interop ConsumerGroupProbe, several members in one JVM), on our broker and on the official 4.9.x
 * one (issue 11, "Interop in CI"):
 * - a mixed clustering group, 2 Java + 2 of ours on 16 queues: once settled every queue is held by
 *   exactly one member (each member's GET_CONSUMER_RUNNING_INFO, asked through the broker, and
 *   `mqadmin consumerProgress -s true`), our members hold what AllocateMessageQueueAveragely gives on
 *   the sorted inputs, which is also what the Java members hold, and every message is consumed once,
 *   by its queue's owner;
 * - orderly with churn: 2 of ours (one in a child process) + 1 Java orderly member; while 640
 *   messages of 64 keys are sent with a selector, one of ours shuts down and comes back, then the
 *   child is SIGKILLed and started again with the same client id: every message is consumed, and no
 *   member ever consumed a key's messages out of order (redeliveries are counted and reported);
 * - broadcasting: our two members and a Java member each get every message; ours keep their offsets
 *   in the local file (upstream's format and path under localOffsetStoreDir) and resume from it.
 * The client's periods are short on both sides (rebalance, route poll, persist, heartbeat: 1 s).
 */
import assert from 'node:assert/strict';
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import { localOffsetStorePath } from '../../src/client/consumer/offset/local-file-offset-store.js';
import { AllocateMessageQueueAveragely } from '../../src/client/consumer/rebalance/allocate/averagely.js';
import { createLogger } from '../../src/common/logger.js';
import { javaStringCompare } from '../../src/common/message/java-lang.js';
import { MessageQueue } from '../../src/common/message/message-queue.js';
import { decodeOffsetSerializeWrapper } from '../../src/common/protocol/offset-serialize-wrapper.js';
import {
  createProducer,
  type MessageQueueSelector,
  type Producer,
  type PushConsumer,
} from '../../src/index.js';
import { type JavaDelivery, startJavaGroup } from './consumer-group-probe.js';
import { CONSUMER_PEERS, type ConsumerPeer, until } from './consumer-peers.js';
import {
  deliveryOf,
  type OurDelivery,
  ourConsumer,
  partitionOf,
  queueIdsOf,
} from './push-consumer-support.js';

const CHILD_SCRIPT = fileURLToPath(new URL('./push-consumer-child.js', import.meta.url));
const SETTLE_MS = 45_000;
const CONSUME_MS = 60_000;

type Delivery = Pick<
  OurDelivery,
  'member' | 'msgId' | 'queueId' | 'queueOffset' | 'key' | 'seq' | 'receivedAt' | 'doneAt'
>;

/** The Java listener returns at once. */
function javaAsDelivery(d: JavaDelivery, prefix: string): Delivery {
  return { ...d, member: `${prefix}-${d.member}`, doneAt: d.receivedAt };
}

/**
 * Pretended work of our orderly listeners per message, so a queue has a backlog when it changes hands
 * and two members consuming it at once would show.
 */
const ORDERLY_WORK_MS = 10;

/** Messages of a key go to queue `key % queues`. */
const byKey: MessageQueueSelector = (mqs, _msg, arg) => mqs[Number(arg) % mqs.length] as MessageQueue;

/** One run of our orderly consumer in a child process. */
interface ChildMember {
  readonly clientId: string;
  held(): readonly number[] | undefined;
  kill(): Promise<void>;
  stop(): Promise<void>;
}

async function startChildMember(
  args: {
    namesrvAddr: string;
    topic: string;
    group: string;
    instanceName: string;
    run: string;
    workMs: number;
  },
  sink: Delivery[],
): Promise<ChildMember> {
  const child: ChildProcessWithoutNullStreams = spawn(process.execPath, [
    CHILD_SCRIPT,
    '--push-consumer-child',
    args.namesrvAddr,
    args.topic,
    args.group,
    args.instanceName,
    String(args.workMs),
  ]);
  // Closing the stdin of a child that was killed must not fail the test.
  child.stdin.on('error', () => undefined);
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => {
    stderr = (stderr + d).slice(-4000);
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let clientId: string | undefined;
  let held: number[] | undefined;
  createInterface({ input: child.stdout }).on('line', (line) => {
    if (!line.startsWith('{')) return;
    const value = JSON.parse(line) as { clientId?: string; held?: number[]; msg?: OurDelivery };
    if (value.msg !== undefined) sink.push({ ...value.msg, member: args.run });
    else if (value.held !== undefined) held = value.held;
    else if (value.clientId !== undefined) clientId = value.clientId;
  });
  let gone = false;
  void exited.then(() => {
    gone = true;
  });
  const kill = async (): Promise<void> => {
    child.kill('SIGKILL');
    await exited;
  };
  try {
    await until(
      () => {
        if (gone) throw new Error(`the child consumer exited before it started:\n${stderr}`);
        return clientId;
      },
      () => `the child consumer started\n${stderr}`,
      30_000,
      50,
    );
  } catch (error) {
    await kill();
    throw error;
  }
  return {
    clientId: clientId as string,
    held: () => held,
    kill,
    async stop() {
      child.stdin.end();
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/**
 * Per view and key, in the order the listeners were done with them: a seq the view had consumed
 * already is a redelivery; a seq it had not, below the highest it consumed, is an inversion. The views
 * are each member run and the whole group (all runs merged by time: one machine, one clock). Overlaps:
 * a listener call of one member that started on a queue before another member's call on it ended (a
 * queue changes hands only after its previous owner finished and unlocked it).
 */
function orderReport(deliveries: readonly Delivery[]): {
  inversions: string[];
  redelivered: string[];
  groupInversions: string[];
  groupRedelivered: number;
  overlaps: string[];
  perMember: Record<string, number>;
} {
  const check = (list: readonly Delivery[], viewOf: (d: Delivery) => string) => {
    const inversions: string[] = [];
    const redelivered: string[] = [];
    const seen = new Map<string, Set<number>>();
    const highest = new Map<string, number>();
    for (const d of list) {
      const id = `${viewOf(d)} key ${d.key}`;
      const seq = Number(d.seq);
      const mine = seen.get(id) ?? new Set<number>();
      seen.set(id, mine);
      const top = highest.get(id) ?? -1;
      if (mine.has(seq)) redelivered.push(`${id} seq ${seq} (queue ${d.queueId}, offset ${d.queueOffset})`);
      else if (seq < top)
        inversions.push(`${id}: seq ${seq} (by ${d.member}) after ${top} (queue ${d.queueId})`);
      mine.add(seq);
      highest.set(id, Math.max(top, seq));
    }
    return { inversions, redelivered };
  };
  const perMember: Record<string, number> = {};
  for (const d of deliveries) perMember[d.member] = (perMember[d.member] ?? 0) + 1;
  const own = check(deliveries, (d) => d.member);
  // Array sort is stable: deliveries of one member in one millisecond keep their order.
  const merged = check(
    [...deliveries].sort((x, y) => x.doneAt - y.doneAt),
    () => 'group',
  );
  const overlaps: string[] = [];
  const latest = new Map<number, Delivery>();
  for (const d of [...deliveries].sort((x, y) => x.receivedAt - y.receivedAt)) {
    const before = latest.get(d.queueId);
    if (before !== undefined && before.member !== d.member && d.receivedAt < before.doneAt) {
      overlaps.push(
        `queue ${d.queueId}: ${d.member} started key ${d.key} seq ${d.seq} at ${d.receivedAt}, ` +
          `${before.member} was on key ${before.key} seq ${before.seq} until ${before.doneAt}`,
      );
    }
    if (before === undefined || d.doneAt >= before.doneAt) latest.set(d.queueId, d);
  }
  return {
    inversions: own.inversions,
    redelivered: own.redelivered,
    groupInversions: merged.inversions,
    groupRedelivered: merged.redelivered.length,
    overlaps,
    perMember,
  };
}

for (const kind of CONSUMER_PEERS) {
  describe(`our push consumer with official Java consumers in one group, on ${kind.name}`, () => {
    let peer: ConsumerPeer;
    let producer: Producer;

    before(async () => {
      peer = await kind.start();
      producer = createProducer({
        namesrvAddr: peer.namesrvAddr,
        producerGroup: 'pg_push_consumer_group',
        logger: createLogger('producer', { level: 'error' }),
      });
      await producer.start();
    });

    after(async () => {
      await producer?.shutdown();
      await peer?.close();
    });

    test('mixed group, 2 Java + 2 of ours, 16 queues: each queue held by one member as averagely allocates; every message consumed once, by its owner', {
      timeout: 150_000,
    }, async (t) => {
      const topic = 'PcMixed';
      const group = 'pc_mixed_cg';
      const queues = 16;
      const count = 160;
      const mqs = await peer.createTopic(topic, queues);
      // Distinct client IPs, interleaved in sort order, so consumerProgress -s names each queue's owner.
      const java = await startJavaGroup({
        namesrvAddr: peer.namesrvAddr,
        topic,
        group,
        mode: 'concurrently',
        members: 2,
        instancePrefix: 'java-mixed',
        clientIPs: ['127.0.0.11', '127.0.0.13'],
      });
      const got: Delivery[] = [];
      const ours: PushConsumer[] = [];
      try {
        for (const i of [0, 1]) {
          const c = ourConsumer(peer.namesrvAddr, group, {
            instanceName: `ts-mixed-${i}`,
            clientIP: `127.0.0.${12 + 2 * i}`,
          });
          c.subscribe(topic, '*');
          c.registerMessageListener({
            type: 'concurrently',
            async consumeMessage(msgs) {
              for (const m of msgs) got.push(deliveryOf(`ts-${i}`, m));
              return 'CONSUME_SUCCESS';
            },
          });
          ours.push(c);
          await c.start();
        }
        const members = [
          { name: 'java-0', clientId: java.clientIds[0] as string },
          { name: 'java-1', clientId: java.clientIds[1] as string },
          { name: 'ts-0', clientId: ours[0]?.clientId as string },
          { name: 'ts-1', clientId: ours[1]?.clientId as string },
        ];
        assert.deepEqual(
          members.map((m) => m.clientId.split('@')[0]),
          ['127.0.0.11', '127.0.0.13', '127.0.0.12', '127.0.0.14'],
        );

        // Settled: the members' running info (ours answered by our client, Java's by the official
        // one) shows each queue held by exactly one of them.
        let last: number[][] = [];
        const infos = await until(
          async () => {
            const all = await Promise.all(members.map((m) => peer.runningInfo(group, m.clientId)));
            last = all.map((info) =>
              queueIdsOf(
                info.mqTable.map(([mq]) => mq),
                topic,
              ),
            );
            return last.every((held) => held.length > 0) && partitionOf(last, queues) ? all : undefined;
          },
          () => `a partition of the ${queues} queues among the members: ${JSON.stringify(last)}`,
          SETTLE_MS,
          250,
        );
        const held = infos.map((info) =>
          queueIdsOf(
            info.mqTable.map(([mq]) => mq),
            topic,
          ),
        );
        const sortedMqs = [...mqs].sort(MessageQueue.compare);
        const sortedCids = members.map((m) => m.clientId).sort(javaStringCompare);
        const averagely = new AllocateMessageQueueAveragely();
        const expected = members.map((m) =>
          queueIdsOf(averagely.allocate(group, m.clientId, sortedMqs, sortedCids), topic),
        );
        t.diagnostic(`held: ${members.map((m, i) => `${m.name} ${JSON.stringify(held[i])}`).join(', ')}`);
        // What the Java members computed and hold is what averagely gives for them ...
        assert.deepEqual(
          held.slice(0, 2),
          expected.slice(0, 2),
          'the Java members hold what averagely gives',
        );
        // The probe reports what the members hold as it sees them change (every 50 ms).
        await until(
          () => ([0, 1].every((i) => isDeepStrictEqual(java.held(i), held[i])) ? true : undefined),
          () =>
            `the Java members report ${JSON.stringify([java.held(0), java.held(1)])} as their running info`,
          5_000,
          50,
        );
        // ... and ours hold exactly the rest, as averagely gives on the same sorted inputs.
        assert.deepEqual(held.slice(2), expected.slice(2), 'our members hold what averagely gives');
        // Same subscriptions in every member, the group's retry topic included.
        for (const info of infos) {
          assert.deepEqual(
            info.subscriptionSet.map((s) => `${s.topic}@${s.subString}`),
            [`%RETRY%${group}@*`, `${topic}@*`],
          );
          assert.equal(info.properties.get('PROP_CONSUME_TYPE'), 'CONSUME_PASSIVELY');
        }

        const queueOf = new Map<string, number>();
        for (let i = 0; i < count; i++) {
          const mq = mqs[i % queues] as MessageQueue;
          const r = await producer.send(
            { topic, body: `mixed-${i}`, keys: `mixed-${i}` },
            { messageQueue: mq },
          );
          queueOf.set(r.msgId, mq.queueId);
        }
        const all = (): Delivery[] => [...java.deliveries().map((d) => javaAsDelivery(d, 'java')), ...got];
        await until(
          () => (new Set(all().map((d) => d.msgId)).size >= count ? true : undefined),
          () => `all ${count} messages consumed (${new Set(all().map((d) => d.msgId)).size} so far)`,
          CONSUME_MS,
        );
        const ownerOf = new Map<number, string>();
        members.forEach((m, i) => {
          for (const q of held[i] ?? []) ownerOf.set(q, m.name);
        });
        for (const d of all()) {
          assert.ok(queueOf.has(d.msgId), `a message not sent by this test: ${JSON.stringify(d)}`);
          assert.equal(d.member, ownerOf.get(d.queueId), `queue ${d.queueId} consumed by its owner`);
        }
        const perMember = Object.fromEntries(members.map((m) => [m.name, 0]));
        for (const d of all()) perMember[d.member] = (perMember[d.member] ?? 0) + 1;
        t.diagnostic(`consumed per member: ${JSON.stringify(perMember)}`);
        for (const m of members)
          assert.equal(perMember[m.name], (count / queues) * (held[members.indexOf(m)]?.length ?? 0));

        // Every member commits; then consumerProgress shows each queue consumed to its end, by the owner
        // it reads from that member's running info.
        await until(
          async () => {
            const offsets = await Promise.all(mqs.map((mq) => peer.committedOffset(group, mq)));
            return offsets.every((o) => o === BigInt(count / queues)) ? true : undefined;
          },
          `committed offsets of ${count / queues} on every queue`,
          30_000,
          250,
        );
        const progress = (await peer.admin('consumerProgress', '-g', group, '-s', 'true')).stdout;
        const rows = [
          ...progress.matchAll(
            new RegExp(
              `^${topic}\\s+${peer.brokerName}\\s+(\\d+)\\s+(\\d+)\\s+(\\d+)\\s+(\\S+)\\s+(-?\\d+)`,
              'gm',
            ),
          ),
        ];
        assert.equal(rows.length, queues, progress);
        const ipOf = new Map(members.map((m) => [m.name, m.clientId.split('@')[0]]));
        for (const [, qid, brokerOffset, consumerOffset, ip, diff] of rows) {
          assert.equal(Number(brokerOffset), count / queues, progress);
          assert.equal(Number(consumerOffset), count / queues, progress);
          assert.equal(Number(diff), 0, progress);
          assert.equal(ip, ipOf.get(ownerOf.get(Number(qid)) ?? ''), `queue ${qid}'s owner\n${progress}`);
        }
        // Nothing churned: nothing came twice, also not since.
        const ids = all().map((d) => d.msgId);
        assert.equal(ids.length, count, 'every message consumed exactly once');
        assert.equal(new Set(ids).size, count);
      } finally {
        for (const c of ours) await c.shutdown();
        await java.close();
      }
    });

    test('orderly with churn: 2 of ours + 1 Java; one of ours shut down and restarted, one killed and restarted, while 64 keys are sent: no key ever consumed out of order', {
      timeout: 180_000,
    }, async (t) => {
      const topic = 'PcOrderly';
      const group = 'pc_orderly_cg';
      const queues = 8;
      const keys = 64;
      const rounds = 10;
      const total = keys * rounds;
      await peer.createTopic(topic, queues);
      const java = await startJavaGroup({
        namesrvAddr: peer.namesrvAddr,
        topic,
        group,
        mode: 'orderly',
        members: 1,
        instancePrefix: 'java-orderly',
      });
      const got: Delivery[] = [];
      let a: PushConsumer | undefined;
      let b: ChildMember | undefined;
      const startA = async (run: string): Promise<PushConsumer> => {
        // A graceful leave: shutdown lets the call in flight end before it unlocks the queues.
        const c = ourConsumer(peer.namesrvAddr, group, {
          instanceName: 'ts-orderly-a',
          awaitTerminationMillisWhenShutdown: 5000,
        });
        c.subscribe(topic, '*');
        c.registerMessageListener({
          type: 'orderly',
          async consumeMessage(msgs) {
            const receivedAt = Date.now();
            await sleep(ORDERLY_WORK_MS);
            for (const m of msgs) got.push(deliveryOf(run, m, receivedAt));
            return 'SUCCESS' as const;
          },
        });
        await c.start();
        return c;
      };
      const startB = (run: string) =>
        startChildMember(
          {
            namesrvAddr: peer.namesrvAddr,
            topic,
            group,
            instanceName: 'ts-orderly-b',
            run,
            workMs: ORDERLY_WORK_MS,
          },
          got,
        );
      try {
        a = await startA('ts-a#1');
        b = await startB('ts-b#1');
        let last: Array<readonly number[] | undefined> = [];
        await until(
          async () => {
            const aHeld = queueIdsOf(
              (await peer.runningInfo(group, (a as PushConsumer).clientId as string)).mqTable.map(
                ([mq]) => mq,
              ),
              topic,
            );
            last = [aHeld, b?.held(), java.held(0)];
            return last.every((h) => (h?.length ?? 0) > 0) && partitionOf(last, queues) ? true : undefined;
          },
          () => `the ${queues} queues locked by the 3 members: ${JSON.stringify(last)}`,
          SETTLE_MS,
          250,
        );
        t.diagnostic(
          `settled: ts-a ${JSON.stringify(last[0])}, ts-b ${JSON.stringify(last[1])}, java ${JSON.stringify(last[2])}`,
        );

        // The churn, each step started at a point of the stream and awaited before the next starts, so
        // sends go on while a member leaves, joins, dies and comes back.
        const steps = new Map<number, () => Promise<void>>([
          [
            total * 0.2,
            async () => {
              await a?.shutdown();
            },
          ],
          [
            total * 0.3,
            async () => {
              a = await startA('ts-a#2');
            },
          ],
          [
            total * 0.5,
            async () => {
              await b?.kill();
            },
          ],
          [
            total * 0.6,
            async () => {
              b = await startB('ts-b#2');
            },
          ],
        ]);
        let step: Promise<void> = Promise.resolve();
        for (let i = 0; i < total; i++) {
          const next = steps.get(i);
          if (next !== undefined) {
            await step;
            step = next();
          }
          const key = i % keys;
          const seq = Math.floor(i / keys);
          await producer.send(
            { topic, body: `o-${key}-${seq}`, properties: { key: String(key), seq: String(seq) } },
            { selector: byKey, arg: key },
          );
        }
        await step;

        const all = (): Delivery[] => [...java.deliveries().map((d) => javaAsDelivery(d, 'java')), ...got];
        const distinct = () => new Set(all().map((d) => `${d.key}/${d.seq}`)).size;
        await until(
          () => (distinct() >= total ? true : undefined),
          () => `all ${total} messages consumed (${distinct()} so far)`,
          90_000,
          250,
        );
        for (const d of all()) assert.equal(Number(d.key) % queues, d.queueId, JSON.stringify(d));
        const report = orderReport(all());
        t.diagnostic(
          `consumed per member run: ${JSON.stringify(report.perMember)}; redelivered within a run: ` +
            `${report.redelivered.length} ${JSON.stringify(report.redelivered.slice(0, 5))}; ` +
            `redelivered in the group: ${report.groupRedelivered}`,
        );
        assert.deepEqual(report.inversions, [], 'no member run consumed a key out of order');
        assert.deepEqual(report.groupInversions, [], 'the group never consumed a key out of order');
        assert.deepEqual(report.overlaps, [], 'no two members consumed one queue at once');
        assert.equal(all().length, total + report.groupRedelivered);
        assert.ok((report.perMember['java-0'] ?? 0) > 0, 'the Java member consumed');
        assert.ok((report.perMember['ts-b#1'] ?? 0) > 0, 'the child consumed before it was killed');
      } finally {
        await a?.shutdown();
        await b?.stop();
        await java.close();
      }
    });

    test('broadcasting: our 2 members and a Java member each get every message; ours keep offsets in the local file and resume from it', {
      timeout: 120_000,
    }, async () => {
      const topic = 'PcBroadcast';
      const group = 'pc_broadcast_cg';
      const queues = 4;
      const count = 40;
      const mqs = await peer.createTopic(topic, queues);
      const offsetsDir = join(peer.dir, 'offsets');
      const java = await startJavaGroup({
        namesrvAddr: peer.namesrvAddr,
        topic,
        group,
        mode: 'broadcasting',
        members: 1,
        instancePrefix: 'java-broadcast',
      });
      const got: Delivery[] = [];
      const start = async (name: string): Promise<PushConsumer> => {
        const c = ourConsumer(peer.namesrvAddr, group, {
          instanceName: name,
          messageModel: 'BROADCASTING',
          localOffsetStoreDir: offsetsDir,
        });
        c.subscribe(topic, '*');
        c.registerMessageListener({
          type: 'concurrently',
          async consumeMessage(msgs) {
            for (const m of msgs) got.push(deliveryOf(name, m));
            return 'CONSUME_SUCCESS';
          },
        });
        await c.start();
        return c;
      };
      const ours: PushConsumer[] = [];
      try {
        for (const name of ['ts-broadcast-0', 'ts-broadcast-1']) ours.push(await start(name));
        await until(
          async () => {
            const held = await Promise.all(
              ours.map(async (c) =>
                queueIdsOf(
                  (await peer.runningInfo(group, c.clientId as string)).mqTable.map(([mq]) => mq),
                  topic,
                ),
              ),
            );
            return [...held, java.held(0)].every((h) => h?.length === queues) ? true : undefined;
          },
          `every member holds the ${queues} queues`,
          SETTLE_MS,
          250,
        );
        const sent: string[] = [];
        for (let i = 0; i < count; i++) {
          const r = await producer.send(
            { topic, body: `b-${i}` },
            { messageQueue: mqs[i % queues] as MessageQueue },
          );
          sent.push(r.msgId);
        }
        const byMember = (): Map<string, string[]> => {
          const out = new Map<string, string[]>();
          for (const d of [...java.deliveries().map((j) => javaAsDelivery(j, 'java')), ...got]) {
            out.set(d.member, [...(out.get(d.member) ?? []), d.msgId]);
          }
          return out;
        };
        const names = ['java-0', 'ts-broadcast-0', 'ts-broadcast-1'];
        await until(
          () => (names.every((n) => new Set(byMember().get(n)).size >= count) ? true : undefined),
          () =>
            `every member got all ${count}: ${JSON.stringify([...byMember()].map(([n, ids]) => [n, ids.length]))}`,
          CONSUME_MS,
        );
        for (const n of names) assert.deepEqual([...(byMember().get(n) ?? [])].sort(), [...sent].sort(), n);

        // Shutdown persists: the file holds each queue's offset, in upstream's format and path.
        const clientId = ours[0]?.clientId as string;
        for (const c of ours.splice(0)) await c.shutdown();
        const file = localOffsetStorePath(offsetsDir, clientId, group);
        const text = readFileSync(file, 'utf8');
        assert.match(text, /"offsetTable":\{\{/, text);
        const offsets = decodeOffsetSerializeWrapper(text)
          .filter(([mq]) => mq.topic === topic)
          .map(([mq, offset]) => [mq.queueId, offset] as const)
          .sort((x, y) => x[0] - y[0]);
        assert.deepEqual(
          offsets,
          Array.from({ length: queues }, (_, q) => [q, BigInt(count / queues)] as const),
        );

        // Started again with the same client id, it resumes from the file: only what is new arrives.
        got.length = 0;
        ours.push(await start('ts-broadcast-0'));
        assert.equal(ours[0]?.clientId, clientId);
        const more: string[] = [];
        for (let i = 0; i < queues; i++) {
          const r = await producer.send(
            { topic, body: `again-${i}` },
            { messageQueue: mqs[i] as MessageQueue },
          );
          more.push(r.msgId);
        }
        await until(
          () => (got.length >= queues ? true : undefined),
          () => `the restarted member got the ${queues} new messages (${got.length})`,
          CONSUME_MS,
        );
        await until(
          () => (new Set(byMember().get('java-0')).size >= count + queues ? true : undefined),
          'the Java member got the new messages too',
          CONSUME_MS,
        );
        assert.deepEqual(got.map((d) => d.msgId).sort(), [...more].sort());
      } finally {
        for (const c of ours) await c.shutdown();
        await java.close();
      }
    });
  });
}
