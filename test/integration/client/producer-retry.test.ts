/**
 * The producer's retry rules (upstream 4.9.8 sendDefaultImpl and the async callback) with two of our
 * brokers in one cluster behind one name server: a SYNC send answered with a code of
 * retryResponseCodes goes again to the other broker, an ASYNC one does not, a stored but not SEND_OK
 * answer is resent only with retryAnotherBrokerWhenNotStoreOK, and sendLatencyFaultEnable keeps
 * sends away from a broker that just failed.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { BrokerController } from '../../../src/broker/broker-controller.js';
import { MQBrokerError, type Producer, type SendResult, SendStatus } from '../../../src/index.js';
import { RequestCode } from '../../../src/remoting/protocol/request-code.js';
import { ResponseCode } from '../../../src/remoting/protocol/response-code.js';
import { RemotingConnectError } from '../../../src/remoting/transport/errors.js';
import {
  type Attempt,
  createTopic,
  newProducer,
  recordAttempts,
  startCluster,
  storedById,
  storedCount,
  type TestCluster,
  uniqueName,
  wrapHandler,
} from './support.js';

let cluster: TestCluster;
let brokerA: BrokerController;
let brokerB: BrokerController;
const producers: Producer[] = [];
/** Topics whose SEND_OK answers broker-b turns into FLUSH_DISK_TIMEOUT (the message is stored). */
const flushTimeoutTopics = new Set<string>();

before(async () => {
  cluster = await startCluster();
  brokerA = cluster.brokers[0] as BrokerController;
  // No TBW102 on broker-b: a topic it does not have is TOPIC_NOT_EXIST, not created.
  brokerB = await cluster.addBroker('broker-b', { autoCreateTopicEnable: false });
  wrapHandler(brokerB, RequestCode.SEND_MESSAGE_V2, (real) => async (b, ctx, request) => {
    const response = await real(b, ctx, request);
    if (flushTimeoutTopics.has(request.extFields?.b ?? '') && response.code === ResponseCode.SUCCESS) {
      response.code = ResponseCode.FLUSH_DISK_TIMEOUT;
    }
    return response;
  });
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

/** A topic on both brokers (2 queues each) whose route `producer` has cached. */
async function topicOnBoth(producer: Producer, prefix: string): Promise<string> {
  const topic = uniqueName(prefix);
  await createTopic(cluster, topic, 2, [brokerA, brokerB]);
  const queues = await producer.fetchPublishMessageQueues(topic);
  assert.deepEqual(new Set(queues.map((q) => q.brokerName)), new Set(['broker-a', 'broker-b']));
  return topic;
}

function attemptsOf(attempts: readonly Attempt[], msgId: string): Attempt[] {
  return attempts.filter((a) => a.msgId === msgId);
}

test('SYNC: a broker answer in retryResponseCodes (TOPIC_NOT_EXIST) is sent again to the other broker, with the same msgId', async () => {
  const producer = await started();
  const attempts = recordAttempts(producer);
  const topic = await topicOnBoth(producer, 'RetrySync');
  // broker-b forgets the topic; the producer's cached route still lists it.
  assert.equal(brokerB.topicConfigManager.deleteTopicConfig(topic), true);
  const results: SendResult[] = [];
  for (let i = 0; i < 8; i++) results.push(await producer.send({ topic, body: `r-${i}` }));
  for (const r of results) {
    assert.equal(r.sendStatus, SendStatus.SEND_OK);
    assert.equal(r.messageQueue.brokerName, 'broker-a');
    const tried = attemptsOf(attempts, r.msgId);
    const last = tried[tried.length - 1];
    assert.equal(last?.brokerName, 'broker-a');
    assert.equal(last?.outcome, SendStatus.SEND_OK);
    for (const failed of tried.slice(0, -1)) {
      assert.equal(failed.brokerName, 'broker-b');
      assert.equal(failed.outcome, `MQBrokerError:${ResponseCode.TOPIC_NOT_EXIST}`);
    }
    assert.equal(storedById(brokerA, r.offsetMsgId).msgId, r.msgId);
  }
  const retried = results.filter((r) => attemptsOf(attempts, r.msgId).length === 2);
  assert.ok(retried.length > 0, 'round robin reached broker-b at least once');
  assert.equal(storedCount(brokerA, topic), 8n);
});

test('SYNC: an answer not in retryResponseCodes is not retried', async () => {
  const producer = await started({ retryResponseCodes: [ResponseCode.SYSTEM_BUSY] });
  const attempts = recordAttempts(producer);
  const topic = await topicOnBoth(producer, 'NoRetryCode');
  assert.equal(brokerB.topicConfigManager.deleteTopicConfig(topic), true);
  let failures = 0;
  for (let i = 0; i < 6; i++) {
    try {
      await producer.send({ topic, body: `n-${i}` });
    } catch (error) {
      failures += 1;
      assert.ok(error instanceof MQBrokerError, String(error));
      assert.equal(error.responseCode, ResponseCode.TOPIC_NOT_EXIST);
      assert.equal(error.brokerAddr, brokerB.brokerAddr);
      assert.equal(error.topic, topic);
    }
  }
  assert.ok(failures > 0);
  assert.equal(attempts.length, 6, 'one attempt per send');
});

test('ASYNC: a broker answer is not retried (the error reaches the caller); each send makes one attempt', async () => {
  const producer = await started();
  const attempts = recordAttempts(producer);
  const topic = await topicOnBoth(producer, 'RetryAsync');
  assert.equal(brokerB.topicConfigManager.deleteTopicConfig(topic), true);
  const settled = await Promise.allSettled(
    Array.from({ length: 8 }, (_, i) =>
      producer.send({ topic, body: `a-${i}` }, { communicationMode: 'ASYNC' }),
    ),
  );
  assert.equal(attempts.length, 8);
  const failed = settled.filter((s) => s.status === 'rejected');
  assert.ok(failed.length > 0, 'round robin reached broker-b at least once');
  for (const s of settled) {
    if (s.status === 'fulfilled') {
      assert.equal(s.value.messageQueue.brokerName, 'broker-a');
      continue;
    }
    assert.ok(s.reason instanceof MQBrokerError, String(s.reason));
    assert.equal(s.reason.responseCode, ResponseCode.TOPIC_NOT_EXIST);
    assert.equal(s.reason.brokerAddr, brokerB.brokerAddr);
    assert.equal(s.reason.retriable, true);
  }
  assert.equal(storedCount(brokerA, topic), BigInt(8 - failed.length));
});

test('retryAnotherBrokerWhenNotStoreOK: off, FLUSH_DISK_TIMEOUT is returned as it is; on, the send goes to the other broker too', async () => {
  const plain = await started();
  const plainAttempts = recordAttempts(plain);
  const topic = await topicOnBoth(plain, 'NotStoreOK');
  flushTimeoutTopics.add(topic);
  const results: SendResult[] = [];
  for (let i = 0; i < 6; i++) results.push(await plain.send({ topic, body: `p-${i}` }));
  assert.equal(plainAttempts.length, 6);
  const onB = results.filter((r) => r.messageQueue.brokerName === 'broker-b');
  assert.ok(onB.length > 0);
  for (const r of results) {
    assert.equal(
      r.sendStatus,
      r.messageQueue.brokerName === 'broker-b' ? SendStatus.FLUSH_DISK_TIMEOUT : SendStatus.SEND_OK,
    );
  }
  for (const r of onB) assert.equal(storedById(brokerB, r.offsetMsgId).msgId, r.msgId);

  const eager = await started({ retryAnotherBrokerWhenNotStoreOK: true });
  const eagerAttempts = recordAttempts(eager);
  await eager.fetchPublishMessageQueues(topic);
  const storedOnB = storedCount(brokerB, topic);
  const eagerResults: SendResult[] = [];
  for (let i = 0; i < 6; i++) eagerResults.push(await eager.send({ topic, body: `e-${i}` }));
  for (const r of eagerResults) {
    assert.equal(r.sendStatus, SendStatus.SEND_OK);
    assert.equal(r.messageQueue.brokerName, 'broker-a');
    const tried = attemptsOf(eagerAttempts, r.msgId);
    for (const t of tried.slice(0, -1)) assert.equal(t.outcome, SendStatus.FLUSH_DISK_TIMEOUT);
  }
  const resent = eagerAttempts.filter((a) => a.outcome === SendStatus.FLUSH_DISK_TIMEOUT).length;
  assert.ok(resent > 0, 'some sends went to broker-b first');
  // Upstream's rule stores such a message twice: once on each broker.
  assert.equal(storedCount(brokerB, topic) - storedOnB, BigInt(resent));
});

test('retryAnotherBrokerWhenNotStoreOK with only the failing broker: every attempt made, the last stored result returned', async () => {
  const producer = await started({ retryAnotherBrokerWhenNotStoreOK: true });
  const attempts = recordAttempts(producer);
  const topic = uniqueName('OnlyB');
  await createTopic(cluster, topic, 2, [brokerB]);
  flushTimeoutTopics.add(topic);
  const r = await producer.send({ topic, body: 'only b' });
  assert.equal(r.sendStatus, SendStatus.FLUSH_DISK_TIMEOUT);
  assert.equal(r.messageQueue.brokerName, 'broker-b');
  assert.equal(attempts.length, 3, '1 + retryTimesWhenSendFailed attempts');
  assert.ok(attempts.every((a) => a.msgId === r.msgId && a.outcome === SendStatus.FLUSH_DISK_TIMEOUT));
});

test('a broker that went away: SYNC and ASYNC sends move to the other broker; sendLatencyFaultEnable stops trying it', async () => {
  const plain = await started();
  const latency = await started({ sendLatencyFaultEnable: true });
  const plainAttempts = recordAttempts(plain);
  const latencyAttempts = recordAttempts(latency);
  const topic = await topicOnBoth(plain, 'Failover');
  await latency.fetchPublishMessageQueues(topic);
  await brokerB.shutdown();

  const sync: SendResult[] = [];
  for (let i = 0; i < 6; i++) sync.push(await plain.send({ topic, body: `s-${i}` }));
  const asyncResults = await Promise.all(
    Array.from({ length: 6 }, (_, i) =>
      plain.send({ topic, body: `as-${i}` }, { communicationMode: 'ASYNC' }),
    ),
  );
  for (const r of [...sync, ...asyncResults]) {
    assert.equal(r.sendStatus, SendStatus.SEND_OK);
    assert.equal(r.messageQueue.brokerName, 'broker-a');
  }
  const refused = plainAttempts.filter((a) => a.brokerName === 'broker-b');
  assert.ok(
    refused.length >= 2,
    `without latency fault tolerance broker-b is tried again (${refused.length})`,
  );
  for (const a of refused) assert.ok(a.error instanceof RemotingConnectError, String(a.error));

  // With sendLatencyFaultEnable the first failure isolates broker-b (a failure counts as 30 s).
  let i = 0;
  while (!latencyAttempts.some((a) => a.brokerName === 'broker-b')) {
    assert.ok(i < 4, 'round robin reached broker-b within a few sends');
    await latency.send({ topic, body: `l-${i++}` });
  }
  const before = latencyAttempts.length;
  for (let k = 0; k < 10; k++) {
    const r = await latency.send({ topic, body: `avoid-${k}` });
    assert.equal(r.messageQueue.brokerName, 'broker-a');
  }
  const later = latencyAttempts.slice(before);
  assert.equal(later.length, 10, 'no failed attempt after the isolation');
  assert.ok(later.every((a) => a.brokerName === 'broker-a'));
});
