/**
 * The lite pull consumer against our name server and broker, fed by our producer: subscribe mode
 * (every message once, two members splitting the queues), what auto-commit commits for poll and for
 * the async iterators (a `break` gives the rest back) and where a restarted member resumes,
 * commitSync/commit/committed, seek (in range, out of range, unknown queue), seekToBegin/End,
 * offsetForTimestamp, pause/resume, the topic queue change listener, memory bounded by the
 * thresholds while the loop stops, typed errors after shutdown and for assign+subscribe, assign mode
 * with a tag expression, broadcasting offsets in the local file.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { BrokerController } from '../../../src/broker/broker-controller.js';
import { localOffsetStorePath } from '../../../src/client/consumer/offset/local-file-offset-store.js';
import {
  ClientStateError,
  MQBrokerError,
  MQClientError,
  type Producer,
  RemotingAbortedError,
} from '../../../src/client/index.js';
import { ValidationError } from '../../../src/common/errors.js';
import type { MessageExt } from '../../../src/common/message/message.js';
import type { MessageQueue } from '../../../src/common/message/message-queue.js';
import { decodeOffsetSerializeWrapper } from '../../../src/common/protocol/offset-serialize-wrapper.js';
import { RequestCode } from '../../../src/remoting/protocol/request-code.js';
import { ResponseCode } from '../../../src/remoting/protocol/response-code.js';
import { AdminClient, brokerOffset, JumpClock, sendMany } from './consumer-support.js';
import {
  assignedOf,
  flowControlTimesOf,
  liteImplOf,
  mqOf,
  newLite,
  offsetsOf,
  PullWatch,
  pollAll,
  shutdownConsumers,
} from './pull-support.js';
import {
  createTopic,
  newProducer,
  startCluster,
  storedAt,
  type TestCluster,
  uniqueName,
  until,
} from './support.js';

let cluster: TestCluster;
let broker: BrokerController;
let producer: Producer;
let watch: PullWatch;
const dirs: string[] = [];

before(async () => {
  cluster = await startCluster({ longPollingCheckInterval: 100 });
  broker = cluster.brokers[0] as BrokerController;
  watch = new PullWatch(broker);
  producer = newProducer({ namesrvAddr: cluster.namesrvAddr });
  await producer.start();
});

after(async () => {
  await shutdownConsumers();
  await producer?.shutdown();
  await cluster?.close();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

async function newTopic(prefix: string, queues: number): Promise<string> {
  const topic = uniqueName(prefix);
  await createTopic(cluster, topic, queues);
  return topic;
}

/** `count` messages into one queue, one at a time: their queue offsets follow the order sent. */
async function sendToQueue(topic: string, queueId: number, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const r = await producer.send(
      { topic, body: `${topic}-${queueId}-${i}` },
      { messageQueue: mqOf(topic, queueId) },
    );
    ids.push(r.msgId);
  }
  return ids;
}

function ids(msgs: readonly MessageExt[]): string[] {
  return msgs.map((m) => m.msgId).sort();
}

function queueKeys(mqs: readonly MessageQueue[]): string[] {
  return mqs.map((mq) => mq.key).sort();
}

function assertOnce(msgs: readonly MessageExt[], expected: readonly string[], what: string): void {
  const got = ids(msgs);
  assert.equal(new Set(got).size, got.length, `${what}: a message came twice`);
  assert.deepEqual(got, [...expected].sort(), what);
}

describe('subscribe mode', () => {
  test('every message is polled once, from every queue the member holds', async () => {
    const topic = await newTopic('LpAll', 4);
    const sent = (await sendMany(producer, 40, (i) => ({ topic, body: `m${i}` }))).map((r) => r.msgId);
    const c = newLite(cluster);
    c.subscribe(topic, '*');
    await c.start();
    const got = await pollAll(c, 40, 'all 40 messages');
    assertOnce(got, sent, 'polled once each');
    assert.ok(got.every((m) => m.topic === topic));
    assert.deepEqual([...new Set(got.map((m) => m.queueId))].sort(), [0, 1, 2, 3]);
    assert.deepEqual(queueKeys(c.assignment()), queueKeys([0, 1, 2, 3].map((q) => mqOf(topic, q))));
    assert.deepEqual(await c.poll({ timeoutMs: 300 }), [], 'nothing more');
    await c.shutdown();
  });

  test('two members of one group split the queues and together poll every message once', async () => {
    const topic = await newTopic('LpSplit', 4);
    const group = uniqueName('lpsplit');
    const a = newLite(cluster, { consumerGroup: group });
    const b = newLite(cluster, { consumerGroup: group });
    a.subscribe(topic);
    b.subscribe(topic);
    await a.start();
    await b.start();
    await until(
      () => {
        const qa = queueKeys(a.assignment());
        const qb = queueKeys(b.assignment());
        return qa.length === 2 && qb.length === 2 && qa.every((k) => !qb.includes(k));
      },
      'the members hold two queues each',
      10_000,
    );
    const sent = (await sendMany(producer, 40, (i) => ({ topic, body: `s${i}` }))).map((r) => r.msgId);
    const gotA: MessageExt[] = [];
    const gotB: MessageExt[] = [];
    const deadline = Date.now() + 10_000;
    while (gotA.length + gotB.length < 40 && Date.now() < deadline) {
      const [ra, rb] = await Promise.all([a.poll({ timeoutMs: 200 }), b.poll({ timeoutMs: 200 })]);
      gotA.push(...ra);
      gotB.push(...rb);
    }
    assertOnce([...gotA, ...gotB], sent, 'the group polled every message once');
    const heldA = a.assignment().map((mq) => mq.queueId);
    const heldB = b.assignment().map((mq) => mq.queueId);
    assert.ok(gotA.length > 0 && gotB.length > 0, 'both members polled');
    assert.ok(
      gotA.every((m) => heldA.includes(m.queueId)),
      'a polled its own queues only',
    );
    assert.ok(
      gotB.every((m) => heldB.includes(m.queueId)),
      'b polled its own queues only',
    );
    await Promise.all([a.shutdown(), b.shutdown()]);
  });

  test('subscribe after start, then unsubscribe', async () => {
    const topic = await newTopic('LpLate', 2);
    const c = newLite(cluster);
    await c.start();
    c.subscribe(topic);
    await until(() => c.assignment().length === 2, 'the queues of a topic subscribed after start', 10_000);
    const sent = (await sendMany(producer, 4, (i) => ({ topic, body: `l${i}` }))).map((r) => r.msgId);
    assertOnce(await pollAll(c, 4, 'the messages'), sent, 'polled once each');
    c.unsubscribe(topic);
    assert.deepEqual(c.assignment(), []);
    await sendMany(producer, 2, (i) => ({ topic, body: `u${i}` }));
    assert.deepEqual(await c.poll({ timeoutMs: 300 }), [], 'nothing after unsubscribe');
    await c.shutdown();
  });
});

describe('commits', () => {
  test('auto-commit commits what poll returned, not what was pulled; a restarted member resumes after it', async () => {
    const topic = await newTopic('LpAuto', 1);
    const mq = mqOf(topic, 0);
    const sent = await sendToQueue(topic, 0, 30);
    const group = uniqueName('lpauto');
    const clock = new JumpClock();
    const c1 = newLite(cluster, { consumerGroup: group, pullBatchSize: 4, clock });
    c1.subscribe(topic);
    await c1.start();
    clock.jump(10_000); // past the instance's first offset persist (10 s after start, as upstream)
    const first = await pollAll(c1, 10, 'ten messages');
    const state = assignedOf(c1).get(mq);
    assert.ok(state !== undefined);
    // The pull task has cached messages poll has not returned.
    await until(() => state.pq.msgCount > 0, 'messages cached beyond those polled');
    // The next poll after autoCommitIntervalMillis commits what the polls before it returned.
    clock.jump(5000);
    const next = await c1.poll({ timeoutMs: 3000 });
    assert.ok(next.length > 0);
    await until(
      () => brokerOffset(broker, group, topic, 0) === BigInt(first.length),
      'the auto-commit persisted while running',
    );
    await c1.shutdown();
    const polled = [...first, ...next];
    assert.equal(
      brokerOffset(broker, group, topic, 0),
      BigInt(polled.length),
      'shutdown commits what was polled',
    );

    const c2 = newLite(cluster, { consumerGroup: group });
    c2.subscribe(topic);
    await c2.start();
    const rest = await pollAll(c2, 30 - polled.length, 'the rest');
    assert.equal(
      rest[0]?.queueOffset,
      BigInt(polled.length),
      'the restarted member resumes after what was polled',
    );
    assertOnce([...polled, ...rest], sent, 'every message once over the restart');
    await c2.shutdown();
  });

  test('the async iterator commits what the loop passed; a break gives the rest back to the next poll', async () => {
    const topic = await newTopic('LpIter', 1);
    const mq = mqOf(topic, 0);
    const sent = await sendToQueue(topic, 0, 30);
    const group = uniqueName('lpiter');
    const c = newLite(cluster, { consumerGroup: group, pullBatchSize: 5 });
    c.subscribe(topic);
    await c.start();
    const seen: MessageExt[] = [];
    for await (const msg of c) {
      seen.push(msg);
      if (seen.length === 7) break;
    }
    assert.deepEqual(offsetsOf(seen), [0, 1, 2, 3, 4, 5, 6]);
    // The loop asked for the message after offset 5, not after 6: 0..5 count as consumed.
    await c.commitSync();
    assert.equal(await c.committed(mq), 6n);
    assert.equal(brokerOffset(broker, group, topic, 0), 6n);
    const back = await c.poll({ timeoutMs: 3000 });
    assert.equal(back[0]?.queueOffset, 6n, 'the message the loop broke on comes first');
    assert.deepEqual(offsetsOf(back), [6, 7, 8, 9], 'then the rest of its batch');

    // The batch form: a batch counts once the loop asks for the next one.
    const batches: MessageExt[][] = [];
    for await (const batch of c.batches({ timeoutMs: 3000 })) {
      batches.push(batch);
      if (batches.length === 2) break;
    }
    const [passed, broken] = batches as [MessageExt[], MessageExt[]];
    assert.equal(passed[0]?.queueOffset, 10n);
    const again = await c.poll({ timeoutMs: 3000 });
    assert.deepEqual(offsetsOf(again), offsetsOf(broken), 'the batch the loop broke on comes back whole');
    await c.shutdown();
    const resumeAt = again.at(-1)?.queueOffset;
    assert.ok(resumeAt !== undefined);
    assert.equal(brokerOffset(broker, group, topic, 0), resumeAt + 1n, 'shutdown commits what poll returned');

    const c2 = newLite(cluster, { consumerGroup: group });
    c2.subscribe(topic);
    await c2.start();
    const rest = await pollAll(c2, 30 - Number(resumeAt + 1n), 'the rest after a restart');
    assert.equal(rest[0]?.queueOffset, resumeAt + 1n);
    assertOnce([...seen.slice(0, 6), ...back, ...passed, ...again, ...rest], sent, 'each once');
    await c2.shutdown();
  });

  test('commitSync, commit (persisted or not) and committed', async () => {
    const topic = await newTopic('LpCommit', 1);
    const mq = mqOf(topic, 0);
    await sendToQueue(topic, 0, 10);
    const group = uniqueName('lpcommit');
    // No periodic persist during the test: what reaches the broker is what commit persisted.
    const c = newLite(cluster, {
      consumerGroup: group,
      autoCommit: false,
      persistConsumerOffsetInterval: 60_000,
    });
    c.subscribe(topic);
    await c.start();
    const got = await pollAll(c, 10, 'all ten');
    assert.deepEqual(offsetsOf(got), [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    assert.ok(brokerOffset(broker, group, topic, 0) <= 0n, 'nothing committed without auto-commit');
    await c.commitSync();
    assert.equal(await c.committed(mq), 10n);
    assert.equal(brokerOffset(broker, group, topic, 0), 10n);
    await c.commit([[mq, 4]]);
    assert.equal(await c.committed(mq), 4n);
    assert.equal(brokerOffset(broker, group, topic, 0), 4n, 'commit persists by default');
    await c.commit([[mq, 2n]], false);
    assert.equal(await c.committed(mq), 2n, 'in memory');
    assert.equal(brokerOffset(broker, group, topic, 0), 4n, 'not persisted');
    await c.commit([]);
    await assert.rejects(
      c.commit([[{ topic, brokerName: 'broker-a', queueId: 0 } as unknown as MessageQueue, 1]]),
      ValidationError,
    );
    await c.commitSync();
    assert.equal(brokerOffset(broker, group, topic, 0), 10n, 'commitSync commits what poll returned');
    await c.shutdown();
  });

  test('commit of one queue, persisted, keeps the offsets of the others in memory', async () => {
    const topic = await newTopic('LpCommitOne', 2);
    const group = uniqueName('lpcommit1');
    const c = newLite(cluster, {
      consumerGroup: group,
      autoCommit: false,
      persistConsumerOffsetInterval: 60_000,
    });
    c.assign([mqOf(topic, 0), mqOf(topic, 1)]);
    await c.start();
    await c.commit([[mqOf(topic, 0), 3]], false);
    await c.commit([[mqOf(topic, 1), 5]]);
    assert.equal(await c.committed(mqOf(topic, 0)), 3n, 'queue 0 still in memory');
    assert.ok(brokerOffset(broker, group, topic, 0) < 0n, 'queue 0 not persisted');
    assert.equal(brokerOffset(broker, group, topic, 1), 5n);
    await c.commitSync();
    await c.shutdown();
  });

  test('assign mode: a queue assigned again starts from the offset committed in memory (MEMORY_FIRST_THEN_STORE)', async () => {
    const topic = await newTopic('LpReassign', 2);
    const q0 = mqOf(topic, 0);
    const q1 = mqOf(topic, 1);
    await sendToQueue(topic, 0, 10);
    const c = newLite(cluster, { autoCommit: false, persistConsumerOffsetInterval: 60_000 });
    c.assign([q0]);
    await c.start();
    assert.deepEqual(offsetsOf(await pollAll(c, 10, 'q0')), [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    await c.commit([[q0, 4]], false);
    c.assign([q1]);
    c.assign([q0, q1]);
    // As upstream's RebalanceLitePullImpl: the next pull offset of a new queue reads memory first.
    assert.deepEqual(offsetsOf(await pollAll(c, 6, 'q0 again')), [4, 5, 6, 7, 8, 9]);
    await c.shutdown();
  });
});

describe('positions', () => {
  test('seek within [min, max], out of range and to an unknown queue; seekToBegin and seekToEnd', async () => {
    const topic = await newTopic('LpSeek', 1);
    const mq = mqOf(topic, 0);
    await sendToQueue(topic, 0, 10);
    const c = newLite(cluster, { autoCommit: false });
    c.subscribe(topic);
    await c.start();
    assert.deepEqual(offsetsOf(await pollAll(c, 10, 'all')), [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);

    await c.seek(mq, 3);
    assert.deepEqual(offsetsOf(await pollAll(c, 7, 'from 3')), [3, 4, 5, 6, 7, 8, 9]);

    for (const bad of [11, -1]) {
      await assert.rejects(c.seek(mq, bad), (e: unknown) => {
        assert.ok(e instanceof MQClientError, String(e));
        assert.match(e.message, /Seek offset illegal/);
        assert.ok(e.message.includes(mq.toString()), `names the queue: ${e.message}`);
        return true;
      });
    }
    for (const unknown of [mqOf(topic, 5), mqOf(`${topic}-other`, 0)]) {
      await assert.rejects(c.seek(unknown, 0), (e: unknown) => {
        assert.ok(e instanceof MQClientError, String(e));
        assert.match(e.message, /not in assigned list/);
        assert.ok(e.message.includes(unknown.toString()), `names the queue: ${e.message}`);
        return true;
      });
    }
    await assert.rejects(c.seek({ topic } as unknown as MessageQueue, 0), ValidationError);
    for (const bad of [1.5, Number.NaN, '3' as unknown as number]) {
      await assert.rejects(c.seek(mq, bad), ValidationError);
      await assert.rejects(c.commit([[mq, bad]]), ValidationError);
    }

    await c.seekToBegin(mq);
    const again = await pollAll(c, 10, 'from the start');
    assert.deepEqual(offsetsOf(again), [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    await c.seekToEnd(mq);
    await c.commitSync();
    assert.equal(await c.committed(mq), 10n, 'a seek moves the consume offset');
    await sendToQueue(topic, 0, 1);
    assert.deepEqual(offsetsOf(await pollAll(c, 1, 'the new message')), [10]);
    await c.shutdown();
  });

  test('a seek inside an iteration takes effect at the next message; nothing from before it comes back', async () => {
    const topic = await newTopic('LpIterSeek', 1);
    const mq = mqOf(topic, 0);
    await sendToQueue(topic, 0, 10);
    const c = newLite(cluster, { pullBatchSize: 5, autoCommit: false });
    c.assign([mq]);
    await c.start();
    const seen: number[] = [];
    for await (const msg of c) {
      seen.push(Number(msg.queueOffset));
      if (seen.length === 3) {
        await c.seek(mq, 0);
        // The sought batch is cached before the loop moves past the message it holds at the same offset.
        await until(() => (assignedOf(c).get(mq)?.pq.msgCount ?? 0) >= 5, 'the sought batch cached');
      }
      if (seen.length === 8) break;
    }
    assert.deepEqual(seen, [0, 1, 2, 0, 1, 2, 3, 4]);
    // The message the loop broke on comes back first, then the rest in order.
    assert.deepEqual(offsetsOf(await pollAll(c, 6, 'after the break')), [4, 5, 6, 7, 8, 9]);
    await c.shutdown();
  });

  test('an offset reset pushed by the broker (INVOKE_BROKER_TO_RESET_OFFSET) moves the next poll', async () => {
    const topic = await newTopic('LpReset', 1);
    const mq = mqOf(topic, 0);
    await sendToQueue(topic, 0, 10);
    const group = uniqueName('lpreset');
    const c = newLite(cluster, { consumerGroup: group, autoCommit: false });
    c.subscribe(topic);
    await c.start();
    assert.deepEqual(offsetsOf(await pollAll(c, 10, 'all')), [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    await c.commitSync();
    const admin = new AdminClient();
    try {
      const response = await admin.invoke(broker, RequestCode.INVOKE_BROKER_TO_RESET_OFFSET, {
        topic,
        group,
        timestamp: '0',
        isForce: 'true',
      });
      assert.equal(response.code, ResponseCode.SUCCESS, response.remark);
    } finally {
      await admin.close();
    }
    assert.deepEqual(offsetsOf(await pollAll(c, 10, 'all again')), [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    await c.commitSync();
    assert.equal(await c.committed(mq), 10n);
    await c.shutdown();
  });

  test('offsetForTimestamp lands on the first message stored at or after the time', async () => {
    const topic = await newTopic('LpTime', 1);
    const mq = mqOf(topic, 0);
    for (let i = 0; i < 5; i++) {
      await producer.send({ topic, body: `t${i}` }, { messageQueue: mq });
      const sentAt = Date.now();
      // Store times at least 5 ms apart, so "nearest" and "first at or after" agree.
      await until(() => Date.now() >= sentAt + 5, 'the clock moves on');
    }
    const stamps: bigint[] = [];
    for (let i = 0; i < 5; i++) stamps.push((await storedAt(broker, topic, 0, BigInt(i))).storeTimestamp);
    const c = newLite(cluster, { autoCommit: false });
    c.assign([mq]);
    await c.start();
    for (let i = 0; i < 5; i++) {
      const at = stamps[i] as bigint;
      assert.equal(await c.offsetForTimestamp(mq, at), BigInt(i), `stored at ${at}`);
      assert.equal(await c.offsetForTimestamp(mq, Number(at) - 1), BigInt(i), `just before ${at}`);
    }
    await c.seek(mq, await c.offsetForTimestamp(mq, stamps[2] as bigint));
    const from = await pollAll(c, 3, 'from the time');
    assert.deepEqual(offsetsOf(from), [2, 3, 4]);
    await c.shutdown();
  });

  test('pause stops pulling a queue and resume starts it again', async () => {
    const topic = await newTopic('LpPause', 2);
    const q0 = mqOf(topic, 0);
    const q1 = mqOf(topic, 1);
    const c = newLite(cluster, { brokerSuspendMaxTimeMillis: 300, consumerTimeoutMillisWhenSuspend: 1000 });
    c.assign([q0, q1]);
    c.pause([q0, mqOf(topic, 7)]);
    await c.start();
    await until(() => watch.arrived(topic, 1) >= 1, 'q1 pulled');
    await sendToQueue(topic, 0, 3);
    await sendToQueue(topic, 1, 3);
    const fromQ1 = await pollAll(c, 3, 'the messages of q1');
    assert.ok(fromQ1.every((m) => m.queueId === 1));
    const n1 = watch.arrived(topic, 1);
    await until(() => watch.arrived(topic, 1) >= n1 + 2, 'q1 pulled twice more');
    assert.equal(watch.arrived(topic, 0), 0, 'a queue paused before start is never pulled');
    assert.deepEqual(await c.poll({ timeoutMs: 0 }), []);

    c.resume([q0]);
    const fromQ0 = await pollAll(c, 3, 'the messages of q0 after resume');
    assert.ok(fromQ0.every((m) => m.queueId === 0));
    assert.deepEqual(offsetsOf(fromQ0), [0, 1, 2]);

    // Pausing a running queue: the pull it has in flight ends, and no other starts.
    c.pause([q1]);
    const m0 = watch.arrived(topic, 0);
    await until(
      () => watch.arrived(topic, 0) >= m0 + 2 && watch.idle(topic, 1),
      'q0 pulled twice more and no pull of q1 in flight',
    );
    const p1 = watch.arrived(topic, 1);
    await sendToQueue(topic, 1, 2);
    const m0b = watch.arrived(topic, 0);
    await until(() => watch.arrived(topic, 0) >= m0b + 2, 'q0 pulled twice more');
    assert.equal(watch.arrived(topic, 1), p1, 'the paused queue is not pulled');
    assert.deepEqual(await c.poll({ timeoutMs: 0 }), []);
    c.resume([q1]);
    assert.deepEqual(offsetsOf(await pollAll(c, 2, 'q1 after resume')), [3, 4]);
    await c.shutdown();
  });

  test('the topic queue change listener hears the topic grow; the member then holds the new queues', async () => {
    const topic = await newTopic('LpGrow', 2);
    const clock = new JumpClock();
    const c = newLite(cluster, { clock, topicMetadataCheckIntervalMillis: 500 });
    const heard: Array<{ topic: string; queues: number[] }> = [];
    c.registerTopicMessageQueueChangeListener(topic, (t, mqs) =>
      heard.push({ topic: t, queues: mqs.map((mq) => mq.queueId).sort() }),
    );
    c.subscribe(topic);
    await c.start();
    await until(() => c.assignment().length === 2, 'two queues held');
    await createTopic(cluster, topic, 4);
    clock.jump(10_000); // the first check runs 10 s after start, as upstream's
    await until(() => heard.length > 0, 'the listener heard the change');
    assert.deepEqual(heard[0], { topic, queues: [0, 1, 2, 3] });
    await until(() => c.assignment().length === 4, 'the member holds the new queues', 10_000);
    await c.shutdown();
    assert.equal(heard.length, 1, 'heard once');
  });
});

describe('flow control', () => {
  /**
   * A member of a fresh group iterates 3 messages of `topic` (two queues of 100) and stops; while
   * the pull tasks run into the thresholds, the most its ProcessQueues held, per queue and in all.
   * Then it iterates on to the end: every message once.
   */
  async function stopAndWatch(
    topic: string,
    sent: readonly string[],
    thresholds: { pullBatchSize: number; pullThresholdForQueue: number; pullThresholdForAll: number },
  ): Promise<{ maxQueue: number; maxTotal: number }> {
    const c = newLite(cluster, thresholds);
    c.assign([mqOf(topic, 0), mqOf(topic, 1)]);
    await c.start();
    const it = c[Symbol.asyncIterator]();
    const got: MessageExt[] = [];
    const next = async () => {
      const r = await it.next();
      assert.equal(r.done, false);
      got.push(r.value as MessageExt);
    };
    for (let i = 0; i < 3; i++) await next();
    // The loop stops here; the pull tasks keep running into the thresholds.
    const amq = assignedOf(c);
    let maxQueue = 0;
    let maxTotal = 0;
    await until(() => {
      const counts = amq.messageQueues().map((mq) => amq.get(mq)?.pq.msgCount ?? 0);
      maxQueue = Math.max(maxQueue, ...counts);
      maxTotal = Math.max(
        maxTotal,
        counts.reduce((sum, n) => sum + n, 0),
      );
      return flowControlTimesOf(c) >= 20;
    }, 'pulls held back by flow control');
    while (got.length < sent.length) await next();
    await it.return?.();
    assertOnce(got, sent, 'every message once');
    await c.shutdown();
    return { maxQueue, maxTotal };
  }

  test('a loop that stops iterating leaves at most the thresholds in memory, then gets every message once', async (t) => {
    const topic = await newTopic('LpBound', 2);
    const sent = [...(await sendToQueue(topic, 0, 100)), ...(await sendToQueue(topic, 1, 100))];
    const batch = 5;

    // pullThresholdForQueue binds: a queue is not pulled while it holds more than the threshold,
    // so it holds at most one batch beyond it.
    const perQueue = await stopAndWatch(topic, sent, {
      pullBatchSize: batch,
      pullThresholdForQueue: 10,
      pullThresholdForAll: 10_000,
    });
    t.diagnostic(
      `per-queue threshold 10: at most ${perQueue.maxQueue} in a queue, ${perQueue.maxTotal} in all`,
    );
    assert.ok(perQueue.maxQueue <= 10 + batch, `a queue cached ${perQueue.maxQueue} messages`);
    assert.ok(perQueue.maxQueue > 10, 'the queue filled up to its threshold');

    // pullThresholdForAll binds: no pull once the batches waiting for poll hold more than it; both
    // queues' pulls may pass that check together, and the loop holds the rest of its batch.
    const all = await stopAndWatch(topic, sent, {
      pullBatchSize: batch,
      pullThresholdForQueue: 1000,
      pullThresholdForAll: 30,
    });
    t.diagnostic(`threshold for all 30: at most ${all.maxQueue} in a queue, ${all.maxTotal} in all`);
    assert.ok(all.maxTotal <= 30 + batch * 3, `${all.maxTotal} messages cached in all`);
    assert.ok(all.maxTotal > 30, 'the cache filled up to the threshold');
  });
});

describe('bad use', () => {
  test('use before start and after shutdown fails with a ClientStateError; waits end at shutdown', async () => {
    const topic = await newTopic('LpState', 1);
    const mq = mqOf(topic, 0);
    const c = newLite(cluster);
    c.subscribe(topic);
    await assert.rejects(c.poll({ timeoutMs: 10 }), ClientStateError);
    await c.start();
    await until(() => c.assignment().length === 1, 'queue held');
    const controller = new AbortController();
    const aborted = c.poll({ timeoutMs: 60_000, signal: controller.signal });
    const reason = new Error('the caller gave up');
    controller.abort(reason);
    // As an aborted send: RemotingAbortedError, ERR_ROCKETMQ_ABORTED, the reason as cause.
    await assert.rejects(
      aborted,
      (e: unknown) =>
        e instanceof RemotingAbortedError && e.code === 'ERR_ROCKETMQ_ABORTED' && e.cause === reason,
    );
    await assert.rejects(c.poll({ signal: 'no' as unknown as AbortSignal }), ValidationError);
    const waiting = c.poll({ timeoutMs: 60_000 });
    const iterating = c[Symbol.asyncIterator]().next();
    const started = Date.now();
    await c.shutdown();
    assert.deepEqual(await waiting, [], 'a poll waiting at shutdown ends empty');
    assert.deepEqual(
      await iterating,
      { done: true, value: undefined },
      'an iteration waiting at shutdown ends',
    );
    assert.ok(Date.now() - started < 5000);

    await assert.rejects(c.poll({ timeoutMs: 10 }), ClientStateError);
    await assert.rejects(c.poll(), ClientStateError);
    await assert.rejects(c.seek(mq, 0), ClientStateError);
    await assert.rejects(c.seekToBegin(mq), ClientStateError);
    await assert.rejects(c.seekToEnd(mq), ClientStateError);
    await assert.rejects(c.commitSync(), ClientStateError);
    await assert.rejects(c.commit([[mq, 0]]), ClientStateError);
    await assert.rejects(c.committed(mq), ClientStateError);
    await assert.rejects(c.offsetForTimestamp(mq, Date.now()), ClientStateError);
    await assert.rejects(c.fetchMessageQueues(topic), ClientStateError);
    await assert.rejects(c.start(), ClientStateError);
    await assert.rejects(c[Symbol.asyncIterator]().next(), ClientStateError);
    await assert.rejects(c.batches()[Symbol.asyncIterator]().next(), ClientStateError);
    await c.shutdown(); // twice is fine
  });

  test('a SQL92 subscription on a broker without property filtering fails start, and the consumer is closed', async () => {
    const topic = await newTopic('LpSql', 1);
    const c = newLite(cluster);
    c.subscribe(topic, { type: 'SQL92', expression: 'a > 1' });
    await assert.rejects(c.start(), (e: unknown) => {
      assert.ok(e instanceof MQBrokerError || e instanceof MQClientError, String(e));
      return true;
    });
    await assert.rejects(c.poll({ timeoutMs: 10 }), ClientStateError);
    await assert.rejects(c.start(), ClientStateError);
  });

  test('assign after subscribe, subscribe after assign and bad arguments are refused', async () => {
    const topic = await newTopic('LpExcl', 1);
    const mq = mqOf(topic, 0);
    const subscribed = newLite(cluster);
    subscribed.subscribe(topic);
    const exclusive = (e: unknown) => e instanceof MQClientError && /mutually exclusive/.test(e.message);
    assert.throws(() => subscribed.assign([mq]), exclusive);
    assert.throws(() => subscribed.setSubExpressionForAssign(topic, 'TagA'), exclusive);
    const assigned = newLite(cluster);
    assigned.assign([mq]);
    assert.throws(() => assigned.subscribe(topic, '*'), exclusive);
    assert.throws(() => assigned.subscribe(`${topic}-other`, '*'), exclusive);

    const fresh = newLite(cluster);
    assert.throws(() => fresh.assign([]), ValidationError);
    assert.throws(() => fresh.assign([{ topic } as unknown as MessageQueue]), ValidationError);
    assert.throws(() => fresh.subscribe('', '*'), ValidationError);
    // As upstream, an SQL92 expression is checked by the broker; only an empty one is refused here.
    assert.throws(() => fresh.subscribe(topic, { type: 'SQL92', expression: '' }), ValidationError);
    assert.throws(() => fresh.subscribe(topic, { type: 'CLASS' as 'TAG', expression: '*' }), ValidationError);
    assert.throws(() => fresh.setSubExpressionForAssign(topic, '  '), ValidationError);
    assert.throws(() => fresh.registerTopicMessageQueueChangeListener(topic, 5 as never), ValidationError);
    await assigned.start();
    assert.throws(() => assigned.setSubExpressionForAssign(topic, 'TagA'), ClientStateError);
    await assert.rejects(assigned.poll({ timeoutMs: -1 }), ValidationError);
    await assigned.shutdown();
  });
});

describe('assign mode and broadcasting', () => {
  test('assign with setSubExpressionForAssign polls only the tags named', async () => {
    const topic = await newTopic('LpTags', 2);
    const tags = ['TagA', 'TagB', 'TagC'];
    const sent = await sendMany(producer, 12, (i) => ({ topic, body: `g${i}`, tags: tags[i % 3] }));
    const wanted = sent.filter((_, i) => i % 3 !== 1).map((r) => r.msgId);
    const c = newLite(cluster);
    c.assign([mqOf(topic, 0), mqOf(topic, 1)]);
    c.setSubExpressionForAssign(topic, 'TagA || TagC');
    await c.start();
    const got = await pollAll(c, wanted.length, 'the TagA and TagC messages');
    assertOnce(got, wanted, 'only the tags named');
    assert.ok(got.every((m) => m.tags === 'TagA' || m.tags === 'TagC'));
    assert.deepEqual(await c.poll({ timeoutMs: 300 }), []);
    assert.deepEqual(queueKeys(c.assignment()), queueKeys([mqOf(topic, 0), mqOf(topic, 1)]));
    await c.shutdown();
  });

  test('broadcasting: every member polls every message; offsets go to the local file and a restart resumes from it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rmq-lp-offsets-'));
    dirs.push(dir);
    const topic = await newTopic('LpBcast', 2);
    const sent = (await sendMany(producer, 10, (i) => ({ topic, body: `b${i}` }))).map((r) => r.msgId);
    const group = uniqueName('lpbcast');
    const instanceA = uniqueName('bcastA');
    const options = {
      consumerGroup: group,
      messageModel: 'BROADCASTING',
      localOffsetStoreDir: dir,
      autoCommit: false,
    } as const;
    const a = newLite(cluster, { ...options, instanceName: instanceA });
    const b = newLite(cluster, options);
    a.subscribe(topic);
    b.subscribe(topic);
    await a.start();
    await b.start();
    assertOnce(await pollAll(a, 10, 'a polls all'), sent, 'a');
    assertOnce(await pollAll(b, 10, 'b polls all'), sent, 'b');
    await a.commitSync();
    const clientA = a.clientId as string;
    assert.equal(clientA, `127.0.0.1@${instanceA}`, 'a broadcasting client keeps its instance name');
    const file = localOffsetStorePath(dir, clientA, group);
    const stored = new Map(
      decodeOffsetSerializeWrapper(readFileSync(file)).map(([mq, offset]) => [mq.key, offset] as const),
    );
    for (const q of [0, 1]) {
      assert.equal(
        stored.get(mqOf(topic, q).key),
        broker.messageStore.getMaxOffsetInQueue(topic, q),
        `queue ${q} committed to its end`,
      );
    }
    const fileB = localOffsetStorePath(dir, b.clientId as string, group);
    assert.deepEqual(
      existsSync(fileB) ? decodeOffsetSerializeWrapper(readFileSync(fileB)) : [],
      [],
      'b committed nothing',
    );
    assert.equal(brokerOffset(broker, group, topic, 0), -1n, 'nothing on the broker');
    await a.shutdown();

    const more = (await sendMany(producer, 2, (i) => ({ topic, body: `late${i}` }))).map((r) => r.msgId);
    const a2 = newLite(cluster, { ...options, instanceName: instanceA });
    a2.subscribe(topic);
    await a2.start();
    assertOnce(await pollAll(a2, 2, 'the new messages'), more, 'a restarted member resumes from its file');
    assert.deepEqual(await a2.poll({ timeoutMs: 300 }), []);
    await a2.shutdown();
    assertOnce(await pollAll(b, 2, 'b polls the new ones'), more, 'b');
  });
});

test('with a namespace: the application sees its own names, the broker the namespaced ones', async () => {
  const ns = uniqueName('ns');
  const topic = uniqueName('LpNs');
  await createTopic(cluster, `${ns}%${topic}`, 2);
  const nsProducer = newProducer({ namesrvAddr: cluster.namesrvAddr, namespace: ns });
  await nsProducer.start();
  const sent = (await sendMany(nsProducer, 6, (i) => ({ topic, body: `ns${i}` }))).map((r) => r.msgId);
  await nsProducer.shutdown();
  const group = uniqueName('lpns');
  const heard: string[] = [];
  const c = newLite(cluster, { namespace: ns, consumerGroup: group, autoCommit: false });
  c.subscribe(topic, '*', (t, all, mine) =>
    heard.push(`${t}:${all.length}:${mine.map((mq) => mq.topic).join()}`),
  );
  await c.start();
  const got = await pollAll(c, 6, 'the namespaced messages');
  assertOnce(got, sent, 'every message once');
  assert.ok(got.every((m) => m.topic === topic));
  assert.deepEqual(queueKeys(c.assignment()), queueKeys([mqOf(topic, 0), mqOf(topic, 1)]));
  assert.deepEqual(heard.at(-1), `${topic}:2:${topic},${topic}`);
  assert.deepEqual(
    (await c.fetchMessageQueues(topic)).map((mq) => mq.topic),
    [topic, topic],
  );
  const q0 = mqOf(topic, 0);
  await c.seek(q0, 0);
  const again = await pollAll(c, 1, 'q0 again');
  assert.ok(again.every((m) => m.topic === topic && m.queueId === 0));
  await c.commit([[q0, 1]]);
  assert.equal(await c.committed(q0), 1n);
  assert.equal(brokerOffset(broker, `${ns}%${group}`, `${ns}%${topic}`, 0), 1n);
  await c.shutdown();
});

test('the consumer implementation is the one the facade drives', () => {
  // Guards the helpers above, which reach into it.
  const c = newLite(cluster);
  assert.equal(liteImplOf(c).consumerGroup, c.consumerGroup);
});
