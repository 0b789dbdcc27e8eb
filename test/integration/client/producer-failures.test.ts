/**
 * Failures are typed and bounded: dead or silent name servers, a dead broker, no name server at all,
 * invalid messages (refused before any connection), timeoutMs and AbortSignal. Every failing call
 * settles within its timeout.
 */
import assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import { createServer } from 'node:net';
import { after, before, test } from 'node:test';
import type { BrokerController } from '../../../src/broker/broker-controller.js';
import { ClientErrorCode } from '../../../src/client/errors.js';
import { ManualClock } from '../../../src/common/clock.js';
import {
  ClientStateError,
  Message,
  MessageQueue,
  MQClientError,
  type Producer,
  SendStatus,
  selectMessageQueueByHash,
  ValidationError,
} from '../../../src/index.js';
import { RequestCode } from '../../../src/remoting/protocol/request-code.js';
import {
  RemotingAbortedError,
  RemotingConnectError,
  RemotingConnectionClosedError,
} from '../../../src/remoting/transport/errors.js';
import {
  capturingLogger,
  createTopic,
  deadAddress,
  newProducer,
  recordAttempts,
  startCluster,
  startSilentServer,
  type TestCluster,
  timed,
  uniqueName,
  until,
  wrapHandler,
} from './support.js';

let cluster: TestCluster;
let broker: BrokerController;
/** Sends to these topics wait at the broker until released. */
const heldTopics = new Set<string>();
const held: Array<() => void> = [];
let heldCount = 0;
const producers: Producer[] = [];

before(async () => {
  cluster = await startCluster();
  broker = cluster.brokers[0] as BrokerController;
  wrapHandler(broker, RequestCode.SEND_MESSAGE_V2, (real) => (b, ctx, request) => {
    if (!heldTopics.has(request.extFields?.b ?? '')) return real(b, ctx, request);
    heldCount += 1;
    return new Promise((resolve, reject) => {
      held.push(() => {
        Promise.resolve(real(b, ctx, request)).then(resolve, reject);
      });
    });
  });
});

after(async () => {
  for (const release of held.splice(0)) release();
  await Promise.all(producers.map((p) => p.shutdown()));
  await cluster?.close();
});

async function started(options: Parameters<typeof newProducer>[0]): Promise<Producer> {
  const producer = newProducer(options);
  producers.push(producer);
  await producer.start();
  return producer;
}

test('a dead name server: a retriable MQClientError caused by RemotingConnectError, at once', async () => {
  const producer = await started({ namesrvAddr: `${await deadAddress()};${await deadAddress()}` });
  const outcome = await timed(producer.send({ topic: uniqueName('NoNamesrv'), body: 'x' }));
  assert.equal(outcome.ok, false);
  assert.ok(outcome.error instanceof MQClientError, String(outcome.error));
  assert.equal(outcome.error.retriable, true);
  assert.equal(outcome.error.responseCode, ClientErrorCode.NOT_FOUND_TOPIC_EXCEPTION);
  assert.ok(outcome.error.cause instanceof RemotingConnectError, String(outcome.error.cause));
  assert.ok(outcome.ms < 3000, `took ${outcome.ms} ms`);
});

test('a name server that accepts but never answers: the send fails within its timeoutMs, and an AbortSignal ends it', async () => {
  const silent = await startSilentServer();
  try {
    const producer = await started({ namesrvAddr: silent.address, sendMsgTimeout: 400 });
    const byOption = await timed(producer.send({ topic: uniqueName('Hung'), body: 'x' }));
    assert.equal(byOption.ok, false);
    assert.ok(byOption.error instanceof MQClientError, String(byOption.error));
    assert.equal(byOption.error.retriable, true);
    assert.ok(byOption.ms >= 350 && byOption.ms < 1500, `sendMsgTimeout 400 took ${byOption.ms} ms`);

    const byCall = await timed(producer.send({ topic: uniqueName('Hung'), body: 'x' }, { timeoutMs: 250 }));
    assert.equal(byCall.ok, false);
    assert.ok(byCall.ms >= 200 && byCall.ms < 1200, `timeoutMs 250 took ${byCall.ms} ms`);

    for (const options of [
      { selector: selectMessageQueueByHash, arg: 7, timeoutMs: 250 },
      { messageQueue: new MessageQueue('Hung', 'broker-x', 0), timeoutMs: 250 },
    ]) {
      const other = await timed(producer.send({ topic: 'Hung', body: 'x' }, options));
      assert.equal(other.ok, false);
      assert.ok(other.error instanceof MQClientError, String(other.error));
      assert.ok(other.ms < 1200, `a send with ${Object.keys(options)[0]} took ${other.ms} ms`);
    }

    const controller = new AbortController();
    const pending = timed(
      producer.send(
        { topic: uniqueName('Hung'), body: 'x' },
        { timeoutMs: 10_000, signal: controller.signal },
      ),
    );
    setTimeout(() => controller.abort(new Error('caller gave up')), 100);
    const aborted = await pending;
    assert.equal(aborted.ok, false);
    assert.ok(aborted.error instanceof RemotingAbortedError, String(aborted.error));
    assert.ok(aborted.ms < 1000, `abort took ${aborted.ms} ms`);
  } finally {
    await silent.close();
  }
});

test('a peer that answers bytes which are no frame: the connection is dropped with a warn line, the send fails typed', async () => {
  const { logger, records } = capturingLogger();
  for (const garbage of [
    Buffer.from([0xff, 0xff, 0xff, 0xff, 1, 2, 3]),
    Buffer.from([0, 0, 0, 8, 0, 0, 0, 4, 1, 2, 3, 4]),
    Buffer.from('HTTP/1.1 400 Bad Request\r\n\r\n'),
  ]) {
    const server = createServer((socket) => {
      socket.on('error', () => {});
      socket.once('data', () => socket.write(garbage));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as { port: number };
      const producer = await started({ namesrvAddr: `127.0.0.1:${port}`, logger });
      const outcome = await timed(producer.send({ topic: uniqueName('Garbage'), body: 'x' }));
      assert.equal(outcome.ok, false);
      assert.ok(outcome.error instanceof MQClientError, String(outcome.error));
      assert.equal(outcome.error.retriable, true);
      assert.ok(outcome.error.cause instanceof RemotingConnectionClosedError, String(outcome.error.cause));
      assert.ok(outcome.ms < 1000, `took ${outcome.ms} ms`);
      await producer.shutdown();
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  }
  const warned = records.filter((r) => r.level === 'warn' && r.msg === 'malformed frame, closing connection');
  assert.ok(warned.length >= 3, `${warned.length} warn lines`);
});

test('name server failover: a dead first address, the live second one serves', async () => {
  const topic = uniqueName('Failover');
  await createTopic(cluster, topic, 1);
  const producer = await started({ namesrvAddr: [await deadAddress(), cluster.namesrvAddr] });
  const r = await producer.send({ topic, body: 'via the second name server' });
  assert.equal(r.sendStatus, SendStatus.SEND_OK);
});

test('no name server configured: NO_NAME_SERVER_EXCEPTION', async () => {
  const saved = process.env.NAMESRV_ADDR;
  delete process.env.NAMESRV_ADDR;
  try {
    const producer = await started({});
    await assert.rejects(producer.send({ topic: 'AnyTopic', body: 'x' }), (error: unknown) => {
      assert.ok(error instanceof MQClientError, String(error));
      assert.equal(error.responseCode, ClientErrorCode.NO_NAME_SERVER_EXCEPTION);
      assert.match(error.message, /No name server address/);
      return true;
    });
  } finally {
    if (saved !== undefined) process.env.NAMESRV_ADDR = saved;
  }
});

test('invalid messages are refused with a ValidationError naming the field, before any connection is opened', async () => {
  const silent = await startSilentServer();
  try {
    // A hand-driven clock: no route poll or heartbeat runs, so any connection would come from a send.
    const producer = await started({ namesrvAddr: silent.address, clock: new ManualClock() });
    const other = uniqueName('Other');
    const cases: Array<[string, () => Promise<unknown>, RegExp]> = [
      ['blank topic', () => producer.send({ topic: '', body: 'x' }), /topic/i],
      ['illegal topic characters', () => producer.send({ topic: 'a b', body: 'x' }), /topic/i],
      ['topic too long', () => producer.send({ topic: 'T'.repeat(128), body: 'x' }), /topic/i],
      ['system topic', () => producer.send({ topic: 'SCHEDULE_TOPIC_XXXX', body: 'x' }), /topic/i],
      ['empty body', () => producer.send({ topic: 'Ok', body: Buffer.alloc(0) }), /body/],
      ['body of the wrong type', () => producer.send({ topic: 'Ok', body: 42 as unknown as string }), /body/],
      ['body too big', () => producer.send({ topic: 'Ok', body: Buffer.alloc(4 * 1024 * 1024 + 1) }), /body/],
      [
        'reserved property',
        () => producer.send({ topic: 'Ok', body: 'x', properties: { TAGS: 'sneaky' } }),
        /TAGS/,
      ],
      [
        'separator in a property',
        () => producer.send({ topic: 'Ok', body: 'x', properties: { k: 'a\u0001b' } }),
        /property/,
      ],
      [
        'negative delay level',
        () => producer.send({ topic: 'Ok', body: 'x', delayTimeLevel: -1 }),
        /delayTimeLevel/,
      ],
      ['flag outside int32', () => producer.send({ topic: 'Ok', body: 'x', flag: 2 ** 31 }), /flag/],
      ['empty batch', () => producer.send([]), /batch/],
      [
        'batch over two topics',
        () =>
          producer.send([
            { topic: 'Ok', body: 'a' },
            { topic: other, body: 'b' },
          ]),
        /topic/,
      ],
      [
        'batch with a delay level',
        () => producer.send([{ topic: 'Ok', body: 'a', delayTimeLevel: 2 }]),
        /Delay/i,
      ],
      ['oneway with a blank topic', () => producer.sendOneway({ topic: ' ', body: 'x' }), /topic/i],
      ['timeoutMs of zero', () => producer.send({ topic: 'Ok', body: 'x' }, { timeoutMs: 0 }), /timeoutMs/],
      [
        'a selector that is not a function',
        () => producer.send({ topic: 'Ok', body: 'x' }, { selector: 'hash' as never }),
        /selector/,
      ],
    ];
    for (const [what, call, pattern] of cases) {
      await assert.rejects(call(), (error: unknown) => {
        assert.ok(error instanceof ValidationError, `${what}: ${String(error)}`);
        assert.equal(error.retriable, false, what);
        assert.match(error.message, pattern, what);
        return true;
      });
    }
    assert.equal(silent.connections, 0, 'no connection was opened');
    // The count is live: a valid message does connect (and, with nobody answering, times out).
    await assert.rejects(producer.send({ topic: 'Ok', body: 'x' }, { timeoutMs: 100 }), MQClientError);
    assert.equal(silent.connections, 1);
  } finally {
    await silent.close();
  }
});

test('a send before start() or after shutdown() is a ClientStateError', async () => {
  const producer = newProducer({ namesrvAddr: cluster.namesrvAddr });
  await assert.rejects(producer.send({ topic: 'Ok', body: 'x' }), ClientStateError);
  await producer.start();
  await producer.shutdown();
  await assert.rejects(producer.send({ topic: 'Ok', body: 'x' }), ClientStateError);
  await assert.rejects(producer.sendOneway({ topic: 'Ok', body: 'x' }), ClientStateError);
  await assert.rejects(producer.start(), ClientStateError);
});

test('timeoutMs and sendMsgTimeout bound a send the broker never answers: retriable, ACCESS_BROKER_TIMEOUT', async () => {
  const topic = uniqueName('Held');
  await createTopic(cluster, topic, 1);
  const producer = await started({ namesrvAddr: cluster.namesrvAddr, sendMsgTimeout: 400 });
  await producer.fetchPublishMessageQueues(topic);
  heldTopics.add(topic);
  for (const [options, limit] of [
    [{}, 400],
    [{ timeoutMs: 200 }, 200],
  ] as const) {
    const outcome = await timed(producer.send({ topic, body: 'held' }, options));
    assert.equal(outcome.ok, false);
    assert.ok(outcome.error instanceof MQClientError, String(outcome.error));
    assert.equal(outcome.error.responseCode, ClientErrorCode.ACCESS_BROKER_TIMEOUT);
    assert.equal(outcome.error.retriable, true);
    assert.ok(outcome.ms >= limit - 20 && outcome.ms < limit + 800, `limit ${limit} took ${outcome.ms} ms`);
  }
});

test('an AbortSignal ends a send waiting for the broker at once; an aborted signal sends nothing', async () => {
  const topic = uniqueName('Abort');
  await createTopic(cluster, topic, 1);
  const producer = await started({ namesrvAddr: cluster.namesrvAddr });
  await producer.fetchPublishMessageQueues(topic);
  heldTopics.add(topic);
  const controller = new AbortController();
  const reason = new Error('user cancelled');
  const countBefore = heldCount;
  const pending = timed(producer.send({ topic, body: 'to be aborted' }, { signal: controller.signal }));
  await until(() => heldCount === countBefore + 1, 'the broker holds the send');
  controller.abort(reason);
  const outcome = await pending;
  assert.equal(outcome.ok, false);
  assert.ok(outcome.error instanceof RemotingAbortedError, String(outcome.error));
  assert.equal(outcome.error.cause, reason);
  assert.ok(outcome.ms < 1000);

  const attempts = recordAttempts(producer);
  const already = AbortSignal.abort(reason);
  await assert.rejects(
    producer.send({ topic, body: 'never sent' }, { signal: already }),
    RemotingAbortedError,
  );
  await assert.rejects(
    producer.send(new Message(topic, Buffer.from('never sent')), {
      signal: already,
      communicationMode: 'ASYNC',
    }),
    RemotingAbortedError,
  );
  assert.equal(heldCount, countBefore + 1, 'nothing reached the broker');
  assert.ok(attempts.every((a) => a.outcome !== SendStatus.SEND_OK));
});

test('one long-lived signal over many sends in flight: no listener left behind, no MaxListeners warning', async () => {
  const topic = uniqueName('LongSignal');
  await createTopic(cluster, topic, 1);
  const producer = await started({ namesrvAddr: cluster.namesrvAddr });
  const warnings: string[] = [];
  const onWarning = (w: Error) => warnings.push(w.name);
  process.on('warning', onWarning);
  try {
    const appLifetime = new AbortController();
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        producer.send({ topic, body: `m${i}` }, { signal: appLifetime.signal }),
      ),
    );
    assert.ok(results.every((r) => r.sendStatus === SendStatus.SEND_OK));
    assert.equal(getEventListeners(appLifetime.signal, 'abort').length, 0);
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(warnings, []);
  } finally {
    process.off('warning', onWarning);
  }
});

test('a dead broker: every attempt refused, then a retriable MQClientError (CONNECT_BROKER_EXCEPTION) within the timeout', async () => {
  const own = await startCluster();
  try {
    const topic = uniqueName('DeadBroker');
    await createTopic(own, topic, 2);
    const producer = await started({ namesrvAddr: own.namesrvAddr });
    const attempts = recordAttempts(producer);
    assert.equal((await producer.send({ topic, body: 'alive' })).sendStatus, SendStatus.SEND_OK);
    await own.brokers[0]?.shutdown();
    const outcome = await timed(producer.send({ topic, body: 'dead' }));
    assert.equal(outcome.ok, false);
    assert.ok(outcome.error instanceof MQClientError, String(outcome.error));
    assert.equal(outcome.error.retriable, true);
    assert.equal(outcome.error.responseCode, ClientErrorCode.CONNECT_BROKER_EXCEPTION);
    assert.ok(outcome.error.cause instanceof RemotingConnectError, String(outcome.error.cause));
    assert.equal(outcome.error.topic, topic);
    assert.ok(outcome.ms < 3000, `took ${outcome.ms} ms`);
    const failed = attempts.slice(1);
    assert.equal(failed.length, 3, '1 + retryTimesWhenSendFailed attempts');
    assert.ok(failed.every((a) => a.error instanceof RemotingConnectError));
    assert.equal(new Set(failed.map((a) => a.msgId)).size, 1, 'one msgId on every attempt');
  } finally {
    await own.close();
  }
});
