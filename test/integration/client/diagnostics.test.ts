/**
 * The client's diagnostics channels (src/client/diagnostics.ts) as a metrics or tracing library sees
 * them: one send trace per call with its result or error, a retry event per failed attempt that is
 * followed by another, and a heartbeat-failure event when a broker cannot be reached. (Route-change
 * events are checked in client-instance.test.ts.)
 */
import assert from 'node:assert/strict';
import diagnosticsChannel from 'node:diagnostics_channel';
import { after, before, test } from 'node:test';
import type { BrokerController } from '../../../src/broker/broker-controller.js';
import { ClientErrorCode } from '../../../src/client/errors.js';
import { ManualClock } from '../../../src/common/clock.js';
import {
  CHANNEL_NAMES,
  type HeartbeatFailureEvent,
  Message,
  MessageQueue,
  MQClientError,
  type Producer,
  type SendRetryEvent,
  SendStatus,
  type SendTraceContext,
} from '../../../src/index.js';
import { RemotingConnectError } from '../../../src/remoting/transport/errors.js';
import { createTopic, newProducer, startCluster, type TestCluster, uniqueName, until } from './support.js';

let cluster: TestCluster;
let broker: BrokerController;
const producers: Producer[] = [];

before(async () => {
  cluster = await startCluster();
  broker = cluster.brokers[0] as BrokerController;
});

after(async () => {
  await Promise.all(producers.map((p) => p.shutdown()));
  await cluster?.close();
});

async function started(options: Parameters<typeof newProducer>[0] = {}): Promise<Producer> {
  const producer = newProducer({ namesrvAddr: cluster.namesrvAddr, ...options });
  producers.push(producer);
  await producer.start();
  return producer;
}

interface TraceEvent {
  readonly phase: 'start' | 'end' | 'asyncStart' | 'asyncEnd' | 'error';
  readonly context: SendTraceContext;
}

/** Records the send traces of `group` while `run` runs. */
async function traced(group: string, run: () => Promise<void>): Promise<TraceEvent[]> {
  const events: TraceEvent[] = [];
  const record = (phase: TraceEvent['phase']) => (message: unknown) => {
    const context = message as SendTraceContext;
    if (context.producerGroup === group) events.push({ phase, context });
  };
  const handlers = {
    start: record('start'),
    end: record('end'),
    asyncStart: record('asyncStart'),
    asyncEnd: record('asyncEnd'),
    error: record('error'),
  };
  const channel = diagnosticsChannel.tracingChannel<SendTraceContext>(CHANNEL_NAMES.send);
  channel.subscribe(handlers);
  try {
    await run();
  } finally {
    channel.unsubscribe(handlers);
  }
  return events;
}

test('send traces: start and asyncEnd per call with its result, or with its error', async () => {
  const topic = uniqueName('Traced');
  await createTopic(cluster, topic, 2);
  const producer = await started();
  let okResult: unknown;
  let failure: unknown;
  const events = await traced(producer.producerGroup, async () => {
    okResult = await producer.send(new Message(topic, Buffer.from('traced'), { tags: 'T' }));
    await producer.sendOneway({ topic, body: 'oneway' });
    await producer.send([
      { topic, body: 'b1' },
      { topic, body: 'b2' },
    ]);
    try {
      await producer.send(
        { topic, body: 'nowhere' },
        { messageQueue: new MessageQueue(topic, 'no-such-broker', 0) },
      );
    } catch (error) {
      failure = error;
    }
  });
  const starts = events.filter((e) => e.phase === 'start');
  const ends = events.filter((e) => e.phase === 'asyncEnd');
  assert.equal(starts.length, 4);
  assert.equal(ends.length, 4);
  assert.deepEqual(
    starts.map((e) => e.context.communicationMode),
    ['SYNC', 'ONEWAY', 'SYNC', 'SYNC'],
  );
  for (const e of starts) assert.equal(e.context.topic, topic);

  const [sync, oneway, batch, failed] = ends.map((e) => e.context);
  assert.equal(sync?.result, okResult);
  assert.equal(sync?.result?.sendStatus, SendStatus.SEND_OK);
  assert.equal((sync?.message as Message | undefined)?.tags, 'T');
  assert.equal(sync?.error, undefined);
  assert.equal(oneway?.result, undefined);
  assert.equal(oneway?.error, undefined);
  assert.ok(Array.isArray(batch?.message) && batch.message.length === 2);
  assert.equal(batch?.result?.msgId.split(',').length, 2);

  assert.ok(failure instanceof MQClientError);
  assert.equal(failure.responseCode, ClientErrorCode.BROKER_NOT_EXIST_EXCEPTION);
  assert.equal(failed?.error, failure);
  assert.equal(failed?.result, undefined);
  const errors = events.filter((e) => e.phase === 'error');
  assert.equal(errors.length, 1);
  assert.equal(errors[0]?.context.error, failure);
});

test('a message refused before sending makes no trace', async () => {
  const producer = await started();
  const events = await traced(producer.producerGroup, async () => {
    await assert.rejects(producer.send({ topic: '', body: 'bad' }));
  });
  assert.deepEqual(events, []);
});

test('retry events for each failed attempt another follows; a heartbeat-failure event when a broker cannot be reached', async () => {
  const topic = uniqueName('Retried');
  await createTopic(cluster, topic, 2);
  const clock = new ManualClock();
  const producer = await started({ clock });
  assert.equal((await producer.send({ topic, body: 'alive' })).sendStatus, SendStatus.SEND_OK);
  const retries: SendRetryEvent[] = [];
  const failures: HeartbeatFailureEvent[] = [];
  const onRetry = (message: unknown) => {
    const event = message as SendRetryEvent;
    if (event.producerGroup === producer.producerGroup) retries.push(event);
  };
  const onHeartbeatFailure = (message: unknown) => {
    const event = message as HeartbeatFailureEvent;
    if (event.clientId === producer.clientId) failures.push(event);
  };
  diagnosticsChannel.subscribe(CHANNEL_NAMES.retry, onRetry);
  diagnosticsChannel.subscribe(CHANNEL_NAMES.heartbeatFailure, onHeartbeatFailure);
  try {
    const brokerAddr = broker.brokerAddr;
    await broker.shutdown();
    await assert.rejects(producer.send({ topic, body: 'dead' }), MQClientError);
    // 3 attempts: the first two are followed by another, the last is the call's failure.
    assert.deepEqual(
      retries.map((r) => r.attempt),
      [1, 2],
    );
    for (const r of retries) {
      assert.equal(r.topic, topic);
      assert.equal(r.brokerAddr, brokerAddr);
      assert.equal(r.messageQueue.brokerName, 'broker-a');
      assert.ok(r.error instanceof RemotingConnectError, String(r.error));
    }

    clock.advance(1000);
    await until(() => failures.length === 1, 'a heartbeat-failure event');
    assert.equal(failures[0]?.brokerName, 'broker-a');
    assert.equal(failures[0]?.brokerAddr, brokerAddr);
    assert.ok(failures[0]?.error instanceof RemotingConnectError, String(failures[0]?.error));
  } finally {
    diagnosticsChannel.unsubscribe(CHANNEL_NAMES.retry, onRetry);
    diagnosticsChannel.unsubscribe(CHANNEL_NAMES.heartbeatFailure, onHeartbeatFailure);
  }
});
