/**
 * The transaction check service on a started broker over a real store, the clock driven by hand:
 * a half message left open past transactionTimeOut (or its CHECK_IMMUNITY_TIME_IN_SECONDS) is
 * written back with TRANSACTION_CHECK_TIMES + 1 and its producer is asked with
 * CHECK_TRANSACTION_STATE; the producer's END_TRANSACTION (fromTransactionCheck) settles the copy;
 * after transactionCheckMax checks the message goes to TRANS_CHECK_MAX_TIME_TOPIC.
 */
import assert from 'node:assert/strict';
import { afterEach, describe, test } from 'node:test';
import { PermName } from '../../../src/common/constants.js';
import { createOffsetMsgId } from '../../../src/common/message/message-id.js';
import { decodeMessage } from '../../../src/common/message/stored-format.js';
import { getTransactionValue, MessageSysFlag } from '../../../src/common/message/sysflag.js';
import { isOneway, type RemotingCommand } from '../../../src/remoting/protocol/command.js';
import { decodeHeader } from '../../../src/remoting/protocol/header-schema.js';
import { CheckTransactionStateRequestHeader } from '../../../src/remoting/protocol/headers/check-transaction-state-request-header.js';
import { cleanUp, type RunningBroker, startBroker, T0, until } from './store-broker.js';
import {
  addTopic,
  checks,
  endHeader,
  endRequest,
  HALF,
  MAX_TIME_TOPIC,
  OP,
  pass,
  producerHeartbeat,
  readQueue,
  type SentHalf,
  sendHalf,
  TOPIC,
  TRANSACTION_COMMIT_TYPE,
  TRANSACTION_NOT_TYPE,
  TRANSACTION_ROLLBACK_TYPE,
  transOffset,
} from './transaction-support.js';

const LIMIT = { timeout: 20_000 };
/** A pass every second; a half message is due after 6 s (upstream's default timeout). */
const CONFIG = { transactionCheckInterval: 1000, transactionTimeOut: 6000 };

afterEach(cleanUp);

async function started(config: Record<string, number> = {}): Promise<RunningBroker> {
  const b = await startBroker({ config: { ...CONFIG, ...config } });
  addTopic(b.broker);
  return b;
}

const halfMax = (b: RunningBroker) => b.broker.messageStore.getMaxOffsetInQueue(HALF, 0);

/** Waits for the `n`th CHECK_TRANSACTION_STATE and returns it. */
async function nthCheck(b: RunningBroker, n: number): Promise<RemotingCommand> {
  await until(() => checks(b.client).length >= n, `check ${n}`);
  const c = checks(b.client)[n - 1];
  assert.ok(c !== undefined);
  return c;
}

/** The producer's answer to a check, as DefaultMQProducerImpl.checkTransactionState sends it (oneway). */
async function answer(b: RunningBroker, check: RemotingCommand, state: number): Promise<void> {
  const h = decodeHeader(CheckTransactionStateRequestHeader, check.extFields);
  const asked: SentHalf = {
    uniqKey: h.msgId ?? '',
    offsetMsgId: h.offsetMsgId ?? '',
    queueOffset: h.tranStateTableOffset,
    commitLogOffset: h.commitLogOffset,
  };
  const request = endRequest(
    endHeader(asked, state, { fromTransactionCheck: true, transactionId: h.transactionId }),
    true,
  );
  await b.client.client.invokeOneway(request);
}

describe('transaction check service', () => {
  test(
    'an open transaction is asked about once transactionTimeOut has passed; COMMIT then delivers it once',
    LIMIT,
    async () => {
      const b = await started();
      await producerHeartbeat(b.client);
      const half = await sendHalf(b.client, 'U-CHECK', 'checked-body', { queueId: 3, flag: 5 });
      // Passes at T0 + 1 s .. 6 s: too young (age <= 6 s), nothing written back, nobody asked.
      for (let s = 1; s <= 6; s++) {
        await pass(b, 1000);
        assert.equal(halfMax(b), 1n, `pass at ${s} s`);
      }
      // The first pass created the half topic as upstream does (one queue, read-write).
      const halfTopic = b.broker.topicConfigManager.selectTopicConfig(HALF);
      assert.equal(halfTopic?.readQueueNums, 1);
      assert.equal(halfTopic?.perm, PermName.PERM_READ | PermName.PERM_WRITE);

      await pass(b, 1000); // T0 + 7 s
      assert.equal(halfMax(b), 2n, 'the half message was written back for the check');
      const check = await nthCheck(b, 1);
      assert.ok(isOneway(check));
      const [copy] = await readQueue(b.broker, HALF, 0, 1n);
      assert.ok(copy !== undefined);
      assert.equal(copy.getProperty('TRANSACTION_CHECK_TIMES'), '1');
      assert.equal(copy.flag, 0, 'upstream does not carry the user flag over to the copy');
      const h = decodeHeader(CheckTransactionStateRequestHeader, check.extFields);
      assert.deepEqual(h, {
        tranStateTableOffset: 1n,
        commitLogOffset: copy.commitLogOffset,
        msgId: 'U-CHECK',
        transactionId: 'U-CHECK',
        offsetMsgId: createOffsetMsgId(copy.storeHost, copy.commitLogOffset),
        bname: undefined,
      });
      // The body is the copy as the producer sent it: real topic and queue.
      assert.ok(check.body !== undefined);
      const asked = decodeMessage(check.body);
      assert.equal(asked.topic, TOPIC);
      assert.equal(asked.queueId, 3);
      assert.equal(asked.queueOffset, 1n);
      assert.equal(asked.commitLogOffset, copy.commitLogOffset);
      assert.equal(asked.body.toString(), 'checked-body');
      assert.equal(asked.bornTimestamp, BigInt(T0));
      assert.equal(asked.getProperty('PGROUP'), 'PG_TX');
      assert.equal(asked.getProperty('TRANSACTION_CHECK_TIMES'), '1');
      assert.equal(asked.msgId, 'U-CHECK');
      assert.equal(transOffset(b, HALF), 1n);
      assert.deepEqual(await readQueue(b.broker, TOPIC, 3), []);

      await answer(b, check, TRANSACTION_COMMIT_TYPE);
      await until(() => b.broker.messageStore.getMaxOffsetInQueue(TOPIC, 3) === 1n, 'the commit is stored');
      const [m] = await readQueue(b.broker, TOPIC, 3);
      assert.equal(m?.body.toString(), 'checked-body');
      assert.equal(getTransactionValue(m?.sysFlag ?? 0), MessageSysFlag.TRANSACTION_COMMIT_TYPE);
      assert.equal(m?.preparedTransactionOffset, copy.commitLogOffset);
      assert.equal(m?.getProperty('TRANSACTION_CHECK_TIMES'), '1');
      await until(() => b.broker.messageStore.getMaxOffsetInQueue(OP, 0) === 1n, 'the op message');
      assert.equal((await readQueue(b.broker, OP, 0))[0]?.body.toString(), '1');

      // Settled: later passes ask nothing and deliver nothing more.
      for (let s = 0; s < 3; s++) await pass(b, 1000);
      assert.equal(halfMax(b), 2n);
      assert.equal(checks(b.client).length, 1);
      assert.equal((await readQueue(b.broker, TOPIC, 3)).length, 1);
      assert.equal(transOffset(b, HALF), 2n);
      assert.equal(transOffset(b, OP), 1n);
      // The original END_TRANSACTION from the producer would have named the first record.
      assert.equal(half.queueOffset, 0n);
    },
  );

  test('a ROLLBACK answer settles it: never delivered, not asked again', LIMIT, async () => {
    const b = await started();
    await producerHeartbeat(b.client);
    await sendHalf(b.client, 'U-RB', 'rolled-back');
    await pass(b, 7000);
    const check = await nthCheck(b, 1);
    await answer(b, check, TRANSACTION_ROLLBACK_TYPE);
    await until(() => b.broker.messageStore.getMaxOffsetInQueue(OP, 0) === 1n, 'the op message');
    for (let s = 0; s < 5; s++) await pass(b, 1000);
    assert.equal(checks(b.client).length, 1);
    assert.deepEqual(await readQueue(b.broker, TOPIC, 2), []);
    assert.equal(transOffset(b, HALF), 2n);
  });

  test(
    'UNKNOW answers leave it open: asked at every pass until transactionCheckMax, then moved to TRANS_CHECK_MAX_TIME_TOPIC',
    LIMIT,
    async () => {
      const b = await started({ transactionCheckMax: 3 });
      await producerHeartbeat(b.client);
      await sendHalf(b.client, 'U-MAX', 'never-decided', { extra: { a: 'x' } });
      await pass(b, 7000);
      for (let n = 1; n <= 3; n++) {
        const check = await nthCheck(b, n);
        const asked = decodeMessage(check.body ?? Buffer.alloc(0));
        assert.equal(asked.getProperty('TRANSACTION_CHECK_TIMES'), String(n));
        await answer(b, check, TRANSACTION_NOT_TYPE);
        await pass(b, 1000);
      }
      // The fourth pass discarded it instead of asking.
      for (let s = 0; s < 3; s++) await pass(b, 1000);
      assert.equal(checks(b.client).length, 3);
      const moved = await readQueue(b.broker, MAX_TIME_TOPIC, 0);
      assert.equal(moved.length, 1);
      const [m] = moved;
      assert.equal(m?.body.toString(), 'never-decided');
      assert.equal(m?.getProperty('TRANSACTION_CHECK_TIMES'), '3');
      assert.equal(m?.getProperty('REAL_TOPIC'), TOPIC);
      assert.equal(m?.getProperty('a'), 'x');
      const topic = b.broker.topicConfigManager.selectTopicConfig(MAX_TIME_TOPIC);
      assert.equal(topic?.readQueueNums, 1);
      assert.equal(topic?.writeQueueNums, 1);
      assert.deepEqual(await readQueue(b.broker, TOPIC, 2), []);
      assert.deepEqual(await readQueue(b.broker, OP, 0), []);
      // Past the discarded copy: nothing left to check.
      assert.equal(transOffset(b, HALF), halfMax(b));
    },
  );

  test('CHECK_IMMUNITY_TIME_IN_SECONDS delays the first check past transactionTimeOut', LIMIT, async () => {
    // Every pass while immune counts as a check too (upstream), so passes are 5 s apart here.
    const b = await started({ transactionCheckInterval: 5000 });
    await producerHeartbeat(b.client);
    await sendHalf(b.client, 'U-IMMUNE', 'immune', {
      extra: { CHECK_IMMUNITY_TIME_IN_SECONDS: '18' },
    });
    for (let s = 5; s <= 15; s += 5) await pass(b, 5000);
    // Written back at each pass while immune (remembering the original's queue offset), never asked.
    const copies = await readQueue(b.broker, HALF, 0, 1n);
    assert.ok(copies.length > 0);
    assert.ok(copies.every((c) => c.getProperty('TRAN_PREPARED_QUEUE_OFFSET') === '0'));
    assert.equal(checks(b.client).length, 0);
    await pass(b, 5000); // T0 + 20 s
    const check = await nthCheck(b, 1);
    assert.equal(check.extFields?.msgId, 'U-IMMUNE');
    assert.equal(decodeMessage(check.body ?? Buffer.alloc(0)).getProperty('TRANSACTION_CHECK_TIMES'), '4');
  });

  test('with no producer of the group online the check is counted but nobody is asked', LIMIT, async () => {
    const b = await started();
    await sendHalf(b.client, 'U-ALONE', 'alone');
    await pass(b, 7000);
    assert.equal(halfMax(b), 2n);
    await pass(b, 1000);
    assert.equal(halfMax(b), 3n);
    assert.equal(checks(b.client).length, 0);
    await producerHeartbeat(b.client);
    await pass(b, 1000);
    const check = await nthCheck(b, 1);
    assert.equal(decodeMessage(check.body ?? Buffer.alloc(0)).getProperty('TRANSACTION_CHECK_TIMES'), '3');
  });

  test(
    'a half message without REAL_TOPIC cannot be asked about: logged, and the pass goes on',
    LIMIT,
    async () => {
      const b = await started();
      await producerHeartbeat(b.client);
      await b.broker.messageStore.putMessage({
        topic: HALF,
        queueId: 0,
        flag: 0,
        body: Buffer.from('broken'),
        propertiesString: 'PGROUP\u0001PG_TX\u0002UNIQ_KEY\u0001U-BROKEN',
        tagsCode: 0n,
        sysFlag: 0,
        bornTimestamp: BigInt(T0),
        bornHost: { address: '10.0.0.9', port: 50000 },
        storeHost: { address: '127.0.0.1', port: 10911 },
        reconsumeTimes: 0,
        preparedTransactionOffset: 0n,
      });
      await sendHalf(b.client, 'U-AFTER', 'after');
      await pass(b, 7000);
      const check = await nthCheck(b, 1);
      assert.equal(check.extFields?.msgId, 'U-AFTER');
      assert.equal(transOffset(b, HALF), 2n);
    },
  );
});
