/**
 * The producer's topic and group rules hold for admin calls and consumers too: a bad name rejects
 * before anything is sent, with the producer's error class, code and responseCode. No server: the
 * name server address is a closed port, so a call that skipped the check would fail otherwise.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  createAdmin,
  createLitePullConsumer,
  createProducer,
  createPullConsumer,
  createPushConsumer,
  MessageQueue,
  type MQAdminExt,
  ValidationError,
} from '../../../src/index.js';

const CLOSED = '127.0.0.1:1';
const call = { timeoutMs: 300 };
const BAD_NAMES = ['bad topic!', 'x'.repeat(256), ''];
const SYSTEM_NAMES = ['%RETRY%g1', '%DLQ%g1', 'TBW102', 'RMQ_SYS_TRACE_TOPIC', 'SCHEDULE_TOPIC_XXXX'];

/** What producer.send answers for a bad topic: the reference every other call must match. */
async function producerError(topic: string): Promise<ValidationError> {
  const producer = createProducer({ producerGroup: 'name_validation_p', namesrvAddr: CLOSED });
  await producer.start();
  try {
    await producer.send({ topic, body: Buffer.from('x') });
  } catch (error) {
    assert.ok(error instanceof ValidationError, String(error));
    return error;
  } finally {
    await producer.shutdown();
  }
  assert.fail(`send to ${JSON.stringify(topic)} was accepted`);
}

function assertSameAs(reference: ValidationError, what: string): (error: unknown) => boolean {
  return (error) => {
    assert.ok(error instanceof ValidationError, `${what}: ${String(error)}`);
    assert.equal(error.code, reference.code, what);
    assert.equal(error.responseCode, reference.responseCode, what);
    return true;
  };
}

describe('admin calls refuse a bad topic or group before sending', () => {
  let admin: MQAdminExt;
  let reference: ValidationError;
  before(async () => {
    reference = await producerError('bad topic!');
    assert.equal(reference.code, 'ERR_ROCKETMQ_VALIDATION');
    admin = createAdmin({ namesrvAddr: CLOSED, adminExtGroup: 'name_validation_admin' });
    await admin.start();
  });
  after(() => admin.shutdown());

  const topicCalls: Record<string, (a: MQAdminExt, t: string) => Promise<unknown>> = {
    createAndUpdateTopicConfig: (a, t) => a.createAndUpdateTopicConfig(CLOSED, { topicName: t }, call),
    examineTopicConfig: (a, t) => a.examineTopicConfig(CLOSED, t, call),
    deleteTopicInBroker: (a, t) => a.deleteTopicInBroker([CLOSED], t, call),
    deleteTopicInNameServer: (a, t) => a.deleteTopicInNameServer([CLOSED], t, undefined, call),
    deleteTopic: (a, t) => a.deleteTopic(t, 'DefaultCluster', call),
    examineTopicRouteInfo: (a, t) => a.examineTopicRouteInfo(t, call),
    examineTopicStats: (a, t) => a.examineTopicStats(t, call),
    getTopicClusterList: (a, t) => a.getTopicClusterList(t, call),
    queryTopicConsumeByWho: (a, t) => a.queryTopicConsumeByWho(t, call),
    examineConsumeStats: (a, t) => a.examineConsumeStats('g1', t, call),
    examineProducerConnectionInfo: (a, t) => a.examineProducerConnectionInfo('g1', t, call),
    consumeMessageDirectly: (a, t) => a.consumeMessageDirectly('g1', 'c1', 'id', t, call),
    resetOffsetByTimestamp: (a, t) => a.resetOffsetByTimestamp(t, 'g1', 0, true, call),
    resetOffsetByTimestampOld: (a, t) => a.resetOffsetByTimestampOld('g1', t, 0, true, call),
    resetOffsetNew: (a, t) => a.resetOffsetNew('g1', t, 0, call),
    updateConsumeOffset: (a, t) => a.updateConsumeOffset(CLOSED, 'g1', new MessageQueue(t, 'b', 0), 0, call),
    cloneGroupOffset: (a, t) => a.cloneGroupOffset('g1', 'g2', t, false, call),
    queryMessageByUniqKey: (a, t) => a.queryMessageByUniqKey(t, 'key', call),
    queryConsumeQueue: (a, t) => a.queryConsumeQueue(CLOSED, t, 0, 0, 1, undefined, call),
    queryMessage: (a, t) => a.queryMessage(t, 'key', 1, 0, 1, call),
    viewMessage: (a, t) => a.viewMessage('id', { topic: t, ...call }),
    maxOffset: (a, t) => a.maxOffset(new MessageQueue(t, 'b', 0), call),
  };
  const groupCalls: Record<string, (a: MQAdminExt, g: string) => Promise<unknown>> = {
    createAndUpdateSubscriptionGroupConfig: (a, g) =>
      a.createAndUpdateSubscriptionGroupConfig(CLOSED, { groupName: g }, call),
    examineSubscriptionGroupConfig: (a, g) => a.examineSubscriptionGroupConfig(CLOSED, g, call),
    deleteSubscriptionGroup: (a, g) => a.deleteSubscriptionGroup(CLOSED, g, false, call),
    examineConsumeStats: (a, g) => a.examineConsumeStats(g, undefined, call),
    examineConsumerConnectionInfo: (a, g) => a.examineConsumerConnectionInfo(g, undefined, call),
    examineProducerConnectionInfo: (a, g) => a.examineProducerConnectionInfo(g, 't1', call),
    getConsumerRunningInfo: (a, g) => a.getConsumerRunningInfo(g, 'c1', false, call),
    consumeMessageDirectly: (a, g) => a.consumeMessageDirectly(g, 'c1', 'id', undefined, call),
    resetOffsetByTimestamp: (a, g) => a.resetOffsetByTimestamp('t1', g, 0, true, call),
    resetOffsetNew: (a, g) => a.resetOffsetNew(g, 't1', 0, call),
    updateConsumeOffset: (a, g) => a.updateConsumeOffset(CLOSED, g, new MessageQueue('t1', 'b', 0), 0, call),
    cloneGroupOffsetSrc: (a, g) => a.cloneGroupOffset(g, 'g2', undefined, false, call),
    cloneGroupOffsetDest: (a, g) => a.cloneGroupOffset('g1', g, undefined, false, call),
    queryConsumeQueue: (a, g) => a.queryConsumeQueue(CLOSED, 't1', 0, 0, 1, g, call),
  };

  test('every call taking a topic: the producer class, code and responseCode', async () => {
    for (const [name, run] of Object.entries(topicCalls)) {
      for (const bad of BAD_NAMES) {
        const what = `${name}(${bad.slice(0, 12)})`;
        await assert.rejects(run(admin, bad), assertSameAs(reference, what));
      }
    }
  });

  test('every call taking a group: the producer class, code and responseCode', async () => {
    for (const [name, run] of Object.entries(groupCalls)) {
      for (const bad of BAD_NAMES) {
        const what = `${name}(${bad.slice(0, 12)})`;
        await assert.rejects(run(admin, bad), assertSameAs(reference, what));
      }
    }
  });

  test('the text names the argument and the rule', async () => {
    await assert.rejects(admin.deleteTopic('bad topic!', 'DefaultCluster', call), {
      message: /^topic: The specified topic\[bad topic!\] contains illegal characters/,
    });
    await assert.rejects(admin.deleteSubscriptionGroup(CLOSED, 'x'.repeat(256), false, call), {
      message: /^groupName: the specified group is longer than group max length 255/,
    });
  });

  test('system topics and groups pass the check (the call then fails on the closed port)', async () => {
    for (const name of SYSTEM_NAMES) {
      await assert.rejects(
        admin.examineTopicStats(name, call),
        (e: unknown) => !(e instanceof ValidationError),
      );
      await assert.rejects(
        admin.examineConsumeStats(name, undefined, call),
        (e: unknown) => !(e instanceof ValidationError),
      );
    }
  });
});

describe('consumers check their group and topics as the producer does', () => {
  test('a bad consumerGroup is refused at creation by all three consumers', () => {
    let reference: unknown;
    try {
      createProducer({ producerGroup: 'bad group!', namesrvAddr: CLOSED });
    } catch (error) {
      reference = error;
    }
    assert.ok(reference instanceof ValidationError);
    const creators = {
      push: (g: string) => createPushConsumer({ consumerGroup: g, namesrvAddr: CLOSED }),
      pull: (g: string) => createPullConsumer({ consumerGroup: g, namesrvAddr: CLOSED }),
      lite: (g: string) => createLitePullConsumer({ consumerGroup: g, namesrvAddr: CLOSED }),
    };
    for (const [name, create] of Object.entries(creators)) {
      for (const bad of BAD_NAMES) {
        assert.throws(() => create(bad), assertSameAs(reference, `${name}(${bad.slice(0, 12)})`));
      }
    }
  });

  test('queue and topic arguments of the pull and lite pull consumers', async () => {
    const reference = await producerError('bad topic!');
    const lite = createLitePullConsumer({ consumerGroup: 'name_validation_lite', namesrvAddr: CLOSED });
    const pull = createPullConsumer({ consumerGroup: 'name_validation_pull', namesrvAddr: CLOSED });
    await pull.start();
    try {
      for (const bad of BAD_NAMES) {
        const mq = new MessageQueue(bad, 'b', 0);
        assert.throws(() => lite.assign([mq]), assertSameAs(reference, 'lite.assign'));
        assert.throws(() => lite.subscribe(bad, '*'), assertSameAs(reference, 'lite.subscribe'));
        await assert.rejects(pull.pull(mq, '*', 0n, 1), assertSameAs(reference, 'pull.pull'));
        await assert.rejects(pull.fetchSubscribeMessageQueues(bad), assertSameAs(reference, 'fetchQueues'));
      }
    } finally {
      await pull.shutdown();
    }
  });
});
