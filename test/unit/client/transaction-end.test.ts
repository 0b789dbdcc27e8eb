/**
 * The pure parts of the transactional producer: LocalTransactionState and its END_TRANSACTION type,
 * how a listener's answer is read (throws and garbage are UNKNOW), the END_TRANSACTION headers after
 * a send and after a check, upstream's remarks, and bad input refused before any network call.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  ClientStateError,
  createTransactionProducer,
  LocalTransactionState,
  type SendResult,
  SendStatus,
  type TransactionCheckListener,
} from '../../../src/client/index.js';
import {
  isLocalTransactionState,
  transactionTypeOf,
} from '../../../src/client/producer/local-transaction-state.js';
import {
  checkRemark,
  endHeaderAfterCheck,
  endHeaderAfterSend,
  executeRemark,
  settle,
} from '../../../src/client/producer/transaction-end.js';
import { ValidationError } from '../../../src/common/errors.js';
import { createLogger } from '../../../src/common/logger.js';
import { Message, MessageExt } from '../../../src/common/message/message.js';
import { createOffsetMsgId } from '../../../src/common/message/message-id.js';
import { MessageQueue } from '../../../src/common/message/message-queue.js';
import { MessageSysFlag } from '../../../src/common/message/sysflag.js';

const quiet = createLogger('test', { level: 'silent' });
const commit: TransactionCheckListener = () => LocalTransactionState.COMMIT_MESSAGE;

describe('LocalTransactionState', () => {
  test("upstream's three names, UNKNOW spelled as upstream spells it", () => {
    assert.deepEqual(Object.values(LocalTransactionState), ['COMMIT_MESSAGE', 'ROLLBACK_MESSAGE', 'UNKNOW']);
    assert.ok(isLocalTransactionState('UNKNOW'));
    assert.ok(!isLocalTransactionState('UNKNOWN'));
    assert.ok(!isLocalTransactionState(undefined));
  });

  test('END_TRANSACTION types of MessageSysFlag', () => {
    assert.equal(transactionTypeOf('COMMIT_MESSAGE'), MessageSysFlag.TRANSACTION_COMMIT_TYPE);
    assert.equal(transactionTypeOf('ROLLBACK_MESSAGE'), MessageSysFlag.TRANSACTION_ROLLBACK_TYPE);
    assert.equal(transactionTypeOf('UNKNOW'), MessageSysFlag.TRANSACTION_NOT_TYPE);
    assert.deepEqual(
      [8, 12, 0],
      [
        MessageSysFlag.TRANSACTION_COMMIT_TYPE,
        MessageSysFlag.TRANSACTION_ROLLBACK_TYPE,
        MessageSysFlag.TRANSACTION_NOT_TYPE,
      ],
    );
  });
});

describe('settle', () => {
  test('a state, sync or async, is taken as it is', async () => {
    assert.deepEqual(await settle('l', () => 'ROLLBACK_MESSAGE'), {
      state: 'ROLLBACK_MESSAGE',
      error: undefined,
    });
    assert.deepEqual(await settle('l', async () => 'COMMIT_MESSAGE'), {
      state: 'COMMIT_MESSAGE',
      error: undefined,
    });
  });

  test("nothing is UNKNOW without an error (upstream's null)", async () => {
    assert.deepEqual(await settle('l', () => undefined), { state: 'UNKNOW', error: undefined });
    assert.deepEqual(await settle('l', async () => null), { state: 'UNKNOW', error: undefined });
  });

  test('garbage is UNKNOW with an error naming the listener', async () => {
    for (const garbage of ['commit', 42, { state: 'COMMIT_MESSAGE' }, true]) {
      const s = await settle('checkListener', () => garbage);
      assert.equal(s.state, 'UNKNOW');
      assert.ok(s.error instanceof ValidationError);
      assert.match(
        s.error.message,
        /^checkListener returned .*not COMMIT_MESSAGE, ROLLBACK_MESSAGE or UNKNOW/,
      );
    }
  });

  test('a throw or a rejection is UNKNOW with what was thrown', async () => {
    const boom = new Error('boom');
    assert.deepEqual(
      await settle('l', () => {
        throw boom;
      }),
      { state: 'UNKNOW', error: boom },
    );
    assert.deepEqual(await settle('l', () => Promise.reject(boom)), { state: 'UNKNOW', error: boom });
    assert.deepEqual(
      await settle('l', () => {
        throw 'text';
      }),
      { state: 'UNKNOW', error: 'text' },
    );
  });
});

describe('END_TRANSACTION headers', () => {
  const storeHost = { address: '10.1.2.3', port: 10911 };

  function sendResult(fields: Partial<SendResult> = {}): SendResult {
    return {
      sendStatus: SendStatus.SEND_OK,
      msgId: 'AC11000100002A9F0000000000000001',
      offsetMsgId: createOffsetMsgId(storeHost, 123_456_789_012n),
      messageQueue: new MessageQueue('TopicTx', 'broker-a', 3),
      queueOffset: 77n,
      transactionId: undefined,
      regionId: 'DefaultRegion',
      traceOn: true,
      ...fields,
    };
  }

  test('after a send: commit log offset from offsetMsgId, tranStateTableOffset = queue offset', () => {
    const header = endHeaderAfterSend('tx-pg', sendResult(), 'TX-1', 'COMMIT_MESSAGE');
    assert.deepEqual(header, {
      producerGroup: 'tx-pg',
      tranStateTableOffset: 77n,
      commitLogOffset: 123_456_789_012n,
      commitOrRollback: MessageSysFlag.TRANSACTION_COMMIT_TYPE,
      fromTransactionCheck: false,
      msgId: 'AC11000100002A9F0000000000000001',
      transactionId: 'TX-1',
      bname: 'broker-a',
    });
    assert.equal(
      endHeaderAfterSend('g', sendResult(), undefined, 'UNKNOW').commitOrRollback,
      MessageSysFlag.TRANSACTION_NOT_TYPE,
    );
  });

  test('an offsetMsgId that does not decode fails (the caller logs it, as upstream)', () => {
    assert.throws(() =>
      endHeaderAfterSend('g', sendResult({ offsetMsgId: 'nonsense' }), undefined, 'UNKNOW'),
    );
  });

  test('after a check: the check says which half message, fromTransactionCheck is set', () => {
    const msg = new MessageExt();
    msg.offsetMsgId = 'OFFSETID';
    msg.putProperty('UNIQ_KEY', 'UNIQ-1');
    const check = {
      tranStateTableOffset: 5n,
      commitLogOffset: 4096n,
      msgId: 'UNIQ-1',
      transactionId: 'UNIQ-1',
      offsetMsgId: 'OFFSETID',
      bname: 'broker-b',
    };
    assert.deepEqual(endHeaderAfterCheck('tx-pg', msg, check, 'ROLLBACK_MESSAGE'), {
      producerGroup: 'tx-pg',
      tranStateTableOffset: 5n,
      commitLogOffset: 4096n,
      commitOrRollback: MessageSysFlag.TRANSACTION_ROLLBACK_TYPE,
      fromTransactionCheck: true,
      msgId: 'UNIQ-1',
      transactionId: 'UNIQ-1',
      bname: 'broker-b',
    });
    msg.clearProperty('UNIQ_KEY');
    const noUniq = endHeaderAfterCheck('tx-pg', msg, { ...check, bname: undefined }, 'UNKNOW');
    assert.equal(noUniq.msgId, 'OFFSETID', "without UNIQ_KEY the message's own id");
    assert.equal(noUniq.bname, undefined);
  });

  test("remarks are worded as upstream's", () => {
    assert.equal(
      executeRemark(new TypeError('bad')),
      'executeLocalTransactionBranch exception: TypeError: bad',
    );
    assert.equal(executeRemark('text'), 'executeLocalTransactionBranch exception: Error: text');
    function listenerThatThrows(): never {
      throw new RangeError('no such order');
    }
    let thrown: unknown;
    try {
      listenerThatThrows();
    } catch (error) {
      thrown = error;
    }
    assert.match(
      checkRemark(thrown),
      /^checkLocalTransactionState Exception: RangeError: no such order, listenerThatThrows \(.*transaction-end\.test\.js:\d+:\d+\)$/,
    );
    assert.equal(checkRemark(42), 'checkLocalTransactionState Exception: Error: 42');
  });
});

describe('createTransactionProducer: bad input before any network call', () => {
  const base = { namesrvAddr: '127.0.0.1:1', producerGroup: 'tx-pg', logger: quiet };

  test('checkListener missing or not a function', () => {
    for (const checkListener of [undefined, null, 'COMMIT_MESSAGE', {}]) {
      assert.throws(
        () => createTransactionProducer({ ...base, checkListener } as never),
        (e: unknown) => e instanceof ValidationError && /^checkListener must be a function/.test(e.message),
      );
    }
    assert.throws(() => createTransactionProducer(undefined as never), /checkListener/);
  });

  test('check limits and producer options are checked by name', () => {
    assert.throws(
      () => createTransactionProducer({ ...base, checkListener: commit, checkRequestHoldMax: 0 }),
      (e: unknown) => e instanceof ValidationError && /checkRequestHoldMax/.test(e.message),
    );
    assert.throws(
      () => createTransactionProducer({ ...base, checkListener: commit, sendMsgTimeout: -1 }),
      (e: unknown) => e instanceof ValidationError && /sendMsgTimeout/.test(e.message),
    );
  });

  test('executeLocalTransaction missing, a batch, or a bad message: ValidationError, before the state check', async () => {
    const producer = createTransactionProducer({ ...base, checkListener: commit });
    const msg = new Message('TopicTx', Buffer.from('x'));
    for (const execute of [undefined, null, 'COMMIT_MESSAGE']) {
      await assert.rejects(
        producer.sendMessageInTransaction(msg, execute as never),
        (e: unknown) =>
          e instanceof ValidationError && /^executeLocalTransaction must be a function/.test(e.message),
      );
    }
    await assert.rejects(
      producer.sendMessageInTransaction([msg] as never, commit as never),
      (e: unknown) => e instanceof ValidationError && /one message, not a batch/.test(e.message),
    );
    await assert.rejects(
      producer.sendMessageInTransaction({ topic: 'TopicTx', body: 42 } as never, commit as never),
      (e: unknown) => e instanceof ValidationError && /body/.test(e.message),
    );
    // A valid call on a producer never started fails on its state, not on a connection.
    await assert.rejects(
      producer.sendMessageInTransaction(msg, () => 'COMMIT_MESSAGE'),
      (e: unknown) => e instanceof ClientStateError,
    );
    await producer.shutdown();
  });
});
