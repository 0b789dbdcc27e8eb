/**
 * PullAPIWrapper.processPullResult against upstream 4.9.8: the broker's suggested member is used by
 * the next pull, stored records decoded (built here with encodeMessage), the client-side tag re-check
 * (the broker filters by hash, and "Aa" and "BB" share Java's hashCode), MIN_OFFSET / MAX_OFFSET /
 * brokerName set, transactionId from UNIQ_KEY for TRAN_MSG, and a record that cannot be decoded
 * skipped with an error line naming queue and offset while the records after it are kept.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { PullAPIWrapper, type PullHost } from '../../../../src/client/consumer/pull/pull-api-wrapper.js';
import { PullStatus } from '../../../../src/client/consumer/pull/pull-result.js';
import type { MQClientAPI } from '../../../../src/client/instance/mq-client-api.js';
import type { RawPullResult } from '../../../../src/client/instance/requests/pull-message.js';
import { PullSysFlag } from '../../../../src/common/constants.js';
import { javaStringHashCode } from '../../../../src/common/java-hash.js';
import { MessageExt } from '../../../../src/common/message/message.js';
import { MessageQueue } from '../../../../src/common/message/message-queue.js';
import { encodeMessage } from '../../../../src/common/message/stored-format.js';
import { MessageSysFlag } from '../../../../src/common/message/sysflag.js';
import { ExpressionType, type SubscriptionData } from '../../../../src/common/protocol/subscription-data.js';
import { build, buildSubscriptionData } from '../../../../src/filter/filter-api.js';
import type { RemotingCommand } from '../../../../src/remoting/protocol/command.js';
import { captureLogger, offsets } from './consumer-fakes.js';

const mq = new MessageQueue('T', 'broker-a', 3);

interface RecordInit {
  tags?: string;
  props?: Record<string, string>;
  sysFlag?: number;
  body?: Buffer;
}

function record(offset: number, init: RecordInit = {}): Buffer {
  const m = new MessageExt();
  m.topic = 'T';
  m.queueId = 3;
  m.queueOffset = BigInt(offset);
  m.commitLogOffset = BigInt(offset * 1000);
  m.body = init.body ?? Buffer.from(`body-${offset}`);
  m.sysFlag = init.sysFlag ?? 0;
  m.bornHost = { address: '10.0.0.1', port: 5000 };
  m.storeHost = { address: '10.0.0.2', port: 10911 };
  if (init.tags !== undefined) m.tags = init.tags;
  m.properties.set('UNIQ_KEY', `UK${offset}`);
  for (const [k, v] of Object.entries(init.props ?? {})) m.properties.set(k, v);
  return encodeMessage(m);
}

function raw(
  binary: Buffer | undefined,
  status: RawPullResult['pullStatus'] = PullStatus.FOUND,
): RawPullResult {
  return {
    pullStatus: status,
    nextBeginOffset: 10n,
    minOffset: 2n,
    maxOffset: 40n,
    suggestWhichBrokerId: 0n,
    messageBinary: binary,
  };
}

interface Lookup {
  brokerName: string;
  brokerId: number;
}

function setup(slave = false) {
  const log = captureLogger();
  const lookups: Lookup[] = [];
  const sent: RemotingCommand[] = [];
  const host: PullHost = {
    api: {
      invoke: async (_addr: string, request: RemotingCommand) => {
        sent.push(request);
        throw new Error('no broker in this test');
      },
    } as unknown as MQClientAPI,
    findBrokerAddressInSubscribe(brokerName, brokerId) {
      lookups.push({ brokerName, brokerId });
      return { brokerAddr: `${brokerName}-${brokerId}:10911`, slave, brokerVersion: 0 };
    },
    async updateTopicRouteInfoFromNameServer() {
      return false;
    },
  };
  const wrapper = new PullAPIWrapper(host, 'cg', log.logger);
  const pull = () =>
    wrapper.pullKernelImpl({
      mq,
      subExpression: '*',
      expressionType: ExpressionType.TAG,
      subVersion: 0n,
      offset: 5n,
      maxNums: 32,
      sysFlag: PullSysFlag.buildSysFlag(true, true, true, false),
      commitOffset: 4n,
      brokerSuspendMaxTimeMillis: 15_000,
      timeoutMillis: 30_000,
    });
  return { wrapper, log, lookups, sent, pull };
}

const all: SubscriptionData = buildSubscriptionData('T', '*');

describe('PullAPIWrapper.processPullResult', () => {
  test('the next pull of the queue goes to the member the broker suggested', async () => {
    const { wrapper, lookups, pull } = setup();
    await assert.rejects(pull(), /no broker/);
    wrapper.processPullResult(
      mq,
      { ...raw(undefined, PullStatus.NO_NEW_MSG), suggestWhichBrokerId: 1n },
      all,
    );
    await assert.rejects(pull(), /no broker/);
    wrapper.processPullResult(mq, raw(undefined, PullStatus.NO_MATCHED_MSG), all);
    await assert.rejects(pull(), /no broker/);
    assert.deepEqual(
      lookups.map((l) => l.brokerId),
      [0, 1, 0],
    );
    const other = new MessageQueue('T', 'broker-a', 4);
    wrapper.processPullResult(other, { ...raw(undefined), suggestWhichBrokerId: 2n }, all);
    await assert.rejects(pull(), /no broker/);
    assert.equal(lookups[3]?.brokerId, 0, 'per queue');
  });

  test('a pull from a slave does not carry the commit offset flag', async () => {
    for (const slave of [false, true]) {
      const { sent, pull } = setup(slave);
      await assert.rejects(pull());
      const sysFlag = Number(sent[0]?.extFields?.sysFlag);
      assert.equal(PullSysFlag.hasCommitOffsetFlag(sysFlag), !slave);
    }
  });

  test('FOUND: records decoded, MIN_OFFSET / MAX_OFFSET / brokerName set on each', () => {
    const { wrapper } = setup();
    const binary = Buffer.concat([record(5, { tags: 'A' }), record(6), record(7, { body: Buffer.alloc(0) })]);
    const result = wrapper.processPullResult(mq, raw(binary), all);
    assert.equal(result.pullStatus, PullStatus.FOUND);
    assert.equal(result.nextBeginOffset, 10n);
    assert.equal(result.minOffset, 2n);
    assert.equal(result.maxOffset, 40n);
    assert.deepEqual(offsets(result.msgFoundList), [5, 6, 7]);
    const [first] = result.msgFoundList;
    assert.equal(first?.topic, 'T');
    assert.equal(first?.queueId, 3);
    assert.equal(first?.body.toString(), 'body-5');
    assert.equal(first?.tags, 'A');
    assert.equal(first?.msgId, 'UK5');
    assert.equal(first?.storeHost.address, '10.0.0.2');
    for (const m of result.msgFoundList) {
      assert.equal(m.getProperty('MIN_OFFSET'), '2');
      assert.equal(m.getProperty('MAX_OFFSET'), '40');
      assert.equal(m.brokerName, 'broker-a');
      assert.equal(m.transactionId, undefined);
    }
  });

  test('not FOUND: no messages even if a body came along', () => {
    const { wrapper } = setup();
    for (const status of [PullStatus.NO_NEW_MSG, PullStatus.NO_MATCHED_MSG, PullStatus.OFFSET_ILLEGAL]) {
      const result = wrapper.processPullResult(mq, raw(record(1), status), all);
      assert.deepEqual(result.msgFoundList, []);
      assert.equal(result.pullStatus, status);
    }
    assert.deepEqual(wrapper.processPullResult(mq, raw(undefined), all).msgFoundList, []);
  });

  test('tag re-check: a tag with the same Java hashCode is dropped, so is a message without tags', () => {
    assert.equal(javaStringHashCode('Aa'), javaStringHashCode('BB'), 'the collision the re-check is for');
    const { wrapper } = setup();
    const binary = Buffer.concat([
      record(1, { tags: 'Aa' }),
      record(2, { tags: 'BB' }),
      record(3),
      record(4, { tags: 'C' }),
      record(5, { tags: 'aa' }),
    ]);
    const kept = (sub: SubscriptionData) =>
      offsets(wrapper.processPullResult(mq, raw(binary), sub).msgFoundList);
    assert.deepEqual(kept(buildSubscriptionData('T', 'Aa')), [1]);
    assert.deepEqual(kept(buildSubscriptionData('T', 'BB || C')), [2, 4]);
    assert.deepEqual(kept(all), [1, 2, 3, 4, 5]);
    assert.deepEqual(
      kept(build('T', 'a > 1', ExpressionType.SQL92)),
      [1, 2, 3, 4, 5],
      'SQL92: the broker decided',
    );
    assert.deepEqual(kept({ ...buildSubscriptionData('T', 'Aa'), classFilterMode: true }), [1, 2, 3, 4, 5]);
  });

  test('TRAN_MSG true (any case) takes the transactionId from UNIQ_KEY', () => {
    const { wrapper } = setup();
    const tx = MessageSysFlag.TRANSACTION_PREPARED_TYPE;
    const binary = Buffer.concat([
      record(1, { props: { TRAN_MSG: 'true' }, sysFlag: tx }),
      record(2, { props: { TRAN_MSG: 'TRUE' } }),
      record(3, { props: { TRAN_MSG: 'false' } }),
      record(4, { props: { TRAN_MSG: 'yes' } }),
    ]);
    const msgs = wrapper.processPullResult(mq, raw(binary), all).msgFoundList;
    assert.deepEqual(
      msgs.map((m) => m.transactionId),
      ['UK1', 'UK2', undefined, undefined],
    );
  });

  test('a record that cannot be decoded is skipped with an error line; the rest are kept', () => {
    const { wrapper, log } = setup();
    // A compressed flag over a body that is no zlib stream: the framing is sound, the body is not.
    const bad = record(6, { sysFlag: MessageSysFlag.COMPRESSED_FLAG, body: Buffer.from('not zlib at all') });
    const binary = Buffer.concat([record(5), bad, record(7), record(8)]);
    const result = wrapper.processPullResult(mq, raw(binary), all);
    assert.deepEqual(offsets(result.msgFoundList), [5, 7, 8]);
    assert.equal(result.nextBeginOffset, 10n, 'the queue moves past it');
    const errors = log.lines('error');
    assert.equal(errors.length, 1);
    assert.deepEqual(
      {
        topic: errors[0]?.fields.topic,
        brokerName: errors[0]?.fields.brokerName,
        queueId: errors[0]?.fields.queueId,
        queueOffset: errors[0]?.fields.queueOffset,
      },
      { topic: 'T', brokerName: 'broker-a', queueId: 3, queueOffset: 6n },
    );
  });

  test('a record whose length cannot be trusted ends the answer after an error line', () => {
    const { wrapper, log } = setup();
    const bad = record(6);
    bad.writeInt32BE(bad.length + 10_000, 0);
    const truncated = record(9).subarray(0, 30);
    const result = wrapper.processPullResult(mq, raw(Buffer.concat([record(5), bad, record(7)])), all);
    assert.deepEqual(offsets(result.msgFoundList), [5]);
    const tail = wrapper.processPullResult(mq, raw(Buffer.concat([record(8), truncated])), all);
    assert.deepEqual(offsets(tail.msgFoundList), [8]);
    const errors = log.lines('error');
    assert.equal(errors.length, 2);
    assert.ok(errors.every((e) => e.fields.queueId === 3 && e.fields.topic === 'T'));
  });
});
