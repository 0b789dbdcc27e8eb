/**
 * END_TRANSACTION (37) against a started broker over a real store: COMMIT delivers the half message
 * once to its real topic and queue and settles it with an op message, ROLLBACK only settles it,
 * an unknown state changes nothing, and every bad request gets upstream's code with a remark that
 * says what is wrong.
 */
import assert from 'node:assert/strict';
import { afterEach, describe, test } from 'node:test';
import { javaPropertiesOrder } from '../../../src/common/message/properties.js';
import { getTransactionValue, MessageSysFlag } from '../../../src/common/message/sysflag.js';
import { tagsString2tagsCode } from '../../../src/common/message/tag-hash.js';
import { createRequest } from '../../../src/remoting/protocol/command.js';
import { RequestCode } from '../../../src/remoting/protocol/request-code.js';
import { ResponseCode } from '../../../src/remoting/protocol/response-code.js';
import { cleanUp, startBroker, T0, until } from './store-broker.js';
import {
  addTopic,
  checks,
  endHeader,
  endRequest,
  endTransaction,
  GROUP,
  HALF,
  OP,
  pass,
  producerHeartbeat,
  readQueue,
  sendHalf,
  TOPIC,
  TRANSACTION_COMMIT_TYPE,
  TRANSACTION_NOT_TYPE,
  TRANSACTION_ROLLBACK_TYPE,
  transOffset,
} from './transaction-support.js';

const LIMIT = { timeout: 20_000 };

afterEach(cleanUp);

describe('END_TRANSACTION commit and rollback', () => {
  test(
    'COMMIT stores the half message once in its real topic and queue with the COMMIT type, then the op message',
    LIMIT,
    async () => {
      const b = await startBroker();
      addTopic(b.broker);
      const half = await sendHalf(b.client, 'U-COMMIT', 'commit-body', {
        queueId: 2,
        flag: 7,
        extra: { a: '1' },
      });
      assert.equal(half.queueOffset, 0n);
      assert.deepEqual(await readQueue(b.broker, TOPIC, 2), [], 'nothing is delivered before the commit');
      const [stored] = await readQueue(b.broker, HALF, 0);
      assert.ok(stored !== undefined);

      const r = await endTransaction(b.client, endHeader(half, TRANSACTION_COMMIT_TYPE));
      assert.equal(r.code, ResponseCode.SUCCESS, r.remark);
      assert.equal(r.remark, undefined);

      const delivered = await readQueue(b.broker, TOPIC, 2);
      assert.equal(delivered.length, 1);
      const m = delivered[0];
      assert.ok(m !== undefined);
      assert.equal(m.topic, TOPIC);
      assert.equal(m.queueId, 2);
      assert.equal(m.queueOffset, 0n);
      assert.equal(m.body.toString(), 'commit-body');
      assert.equal(m.flag, 7);
      assert.equal(getTransactionValue(m.sysFlag), MessageSysFlag.TRANSACTION_COMMIT_TYPE);
      assert.equal(m.preparedTransactionOffset, half.commitLogOffset);
      assert.equal(m.bornTimestamp, BigInt(T0));
      assert.deepEqual(m.bornHost, stored.bornHost);
      assert.equal(m.msgId, 'U-COMMIT');
      // Upstream builds the properties string before clearing REAL_TOPIC, REAL_QID and TRAN_MSG, so
      // the delivered message keeps them, in the HashMap order of the decoded half message.
      assert.deepEqual(Object.fromEntries(m.properties), Object.fromEntries(stored.properties));
      assert.deepEqual([...m.properties.keys()], [...javaPropertiesOrder(stored.properties).keys()]);
      assert.equal(m.getProperty('REAL_TOPIC'), TOPIC);
      assert.equal(m.getProperty('REAL_QID'), '2');
      assert.equal(m.getProperty('TRAN_MSG'), 'true');
      assert.equal(m.getProperty('PGROUP'), GROUP);
      assert.equal(m.tags, 'TagTx');
      assert.equal(m.getProperty('a'), '1');
      // The tag filter sees the message's tag hash in the consume queue.
      const tagged = await b.broker.messageStore.getMessage('reader', TOPIC, 2, 0n, 32, {
        isMatchedByConsumeQueue: (code) => code === tagsString2tagsCode('TagTx'),
        isMatchedByCommitLog: () => true,
      });
      assert.equal(tagged.messages.length, 1);

      const [op] = await readQueue(b.broker, OP, 0);
      assert.ok(op !== undefined);
      assert.equal(op.body.toString(), '0');
      assert.equal(op.tags, 'd');
      assert.deepEqual([...op.properties.keys()].sort(), ['TAGS', 'WAIT']);
      assert.equal(op.sysFlag & 0xc, 0);
      assert.equal((await readQueue(b.broker, OP, 0)).length, 1);
    },
  );

  test(
    'a committed transaction is not asked about and not delivered again by the check service',
    LIMIT,
    async () => {
      const b = await startBroker({ config: { transactionCheckInterval: 10_000 } });
      addTopic(b.broker);
      await producerHeartbeat(b.client);
      const half = await sendHalf(b.client, 'U-ONCE', 'once');
      // Left open: the check service asks about it at each pass, which shows the passes ran.
      await sendHalf(b.client, 'U-OPEN', 'open');
      const ended = await endTransaction(b.client, endHeader(half, TRANSACTION_COMMIT_TYPE));
      assert.equal(ended.code, ResponseCode.SUCCESS);
      for (let i = 1; i <= 3; i++) {
        await pass(b, 10_000);
        await until(() => checks(b.client).length === i, `check ${i}`);
      }
      assert.deepEqual(
        checks(b.client).map((c) => c.extFields?.msgId),
        ['U-OPEN', 'U-OPEN', 'U-OPEN'],
      );
      assert.equal((await readQueue(b.broker, TOPIC, 2)).length, 1);
      // Both original half messages are behind the check offset; the op message is consumed.
      assert.equal(transOffset(b, HALF), 4n);
      assert.equal(transOffset(b, OP), 1n);
    },
  );

  test('the oneway END_TRANSACTION of the official producer commits without an answer', LIMIT, async () => {
    const b = await startBroker();
    addTopic(b.broker);
    const half = await sendHalf(b.client, 'U-ONEWAY', 'oneway');
    await b.client.client.invokeOneway(endRequest(endHeader(half, TRANSACTION_COMMIT_TYPE), true));
    await until(() => b.broker.messageStore.getMaxOffsetInQueue(TOPIC, 2) === 1n, 'the commit is stored');
    await until(() => b.broker.messageStore.getMaxOffsetInQueue(OP, 0) === 1n, 'the op message is stored');
    assert.equal((await readQueue(b.broker, TOPIC, 2))[0]?.body.toString(), 'oneway');
    const [op] = await readQueue(b.broker, OP, 0);
    assert.equal(op?.body.toString(), '0');
  });

  test(
    'ROLLBACK writes the op message only: nothing is delivered, then or after the checks',
    LIMIT,
    async () => {
      const b = await startBroker({ config: { transactionCheckInterval: 10_000 } });
      addTopic(b.broker);
      await producerHeartbeat(b.client);
      await sendHalf(b.client, 'U-FIRST', 'first');
      const half = await sendHalf(b.client, 'U-ROLLBACK', 'rollback');
      assert.equal(half.queueOffset, 1n);
      const r = await endTransaction(b.client, endHeader(half, TRANSACTION_ROLLBACK_TYPE));
      assert.equal(r.code, ResponseCode.SUCCESS, r.remark);
      assert.deepEqual(await readQueue(b.broker, TOPIC, 2), []);
      const ops = await readQueue(b.broker, OP, 0);
      assert.deepEqual(
        ops.map((o) => [o.tags, o.body.toString()]),
        [['d', '1']],
      );
      await pass(b, 10_000);
      await until(() => checks(b.client).length > 0, 'a check');
      // The first one is still open and is asked about; the rolled-back one is not.
      assert.deepEqual(
        checks(b.client).map((c) => c.extFields?.msgId),
        ['U-FIRST'],
      );
      assert.deepEqual(await readQueue(b.broker, TOPIC, 2), []);
    },
  );

  test('an unknown state (0) changes nothing: the half message stays open', LIMIT, async () => {
    const b = await startBroker();
    addTopic(b.broker);
    const half = await sendHalf(b.client, 'U-UNKNOWN', 'unknown');
    const r = await endTransaction(b.client, endHeader(half, TRANSACTION_NOT_TYPE));
    // Upstream leaves a two-way caller without an answer; we answer.
    assert.equal(r.code, ResponseCode.SUCCESS);
    assert.match(r.remark ?? '', /will be checked/);
    assert.deepEqual(await readQueue(b.broker, TOPIC, 2), []);
    assert.deepEqual(await readQueue(b.broker, OP, 0), []);
  });
});

describe('END_TRANSACTION bad input', () => {
  test("upstream's codes and a remark that says what is wrong; nothing is stored", LIMIT, async () => {
    const b = await startBroker();
    addTopic(b.broker);
    const half = await sendHalf(b.client, 'U-BAD', 'bad');
    const normal = await b.client.call(
      createRequest(RequestCode.SEND_MESSAGE, {
        extFields: {
          producerGroup: GROUP,
          topic: TOPIC,
          defaultTopic: 'TBW102',
          defaultTopicQueueNums: '4',
          queueId: '1',
          sysFlag: '0',
          bornTimestamp: String(T0),
          flag: '0',
          properties: `PGROUP\u0001${GROUP}\u0002UNIQ_KEY\u0001N1\u0002REAL_TOPIC\u0001${TOPIC}\u0002REAL_QID\u00011`,
          reconsumeTimes: '0',
          unitMode: 'false',
        },
        body: Buffer.from('normal'),
      }),
    );
    assert.equal(normal.code, ResponseCode.SUCCESS);
    const normalOffset = (await readQueue(b.broker, TOPIC, 1))[0]?.commitLogOffset;
    assert.ok(normalOffset !== undefined);

    const cases: Array<[string, Parameters<typeof endHeader>[2] | 'missing', number, RegExp]> = [
      ['no producerGroup', 'missing', ResponseCode.SYSTEM_ERROR, /the custom field <producerGroup> is null/],
      ['an unknown type', { commitOrRollback: 5 }, ResponseCode.SYSTEM_ERROR, /commitOrRollback field wrong/],
      [
        'an offset past the commit log',
        { commitLogOffset: 1n << 40n },
        ResponseCode.SYSTEM_ERROR,
        /^Find prepared transaction message failed$/,
      ],
      [
        'an offset inside the record',
        { commitLogOffset: half.commitLogOffset + 4n },
        ResponseCode.SYSTEM_ERROR,
        /^Find prepared transaction message failed$/,
      ],
      [
        'a message that is not a half message',
        { commitLogOffset: normalOffset, tranStateTableOffset: 0n },
        ResponseCode.SYSTEM_ERROR,
        /is not a prepared transaction message \(topic TopicTx\)/,
      ],
      [
        'another producer group',
        { producerGroup: 'OTHER' },
        ResponseCode.SYSTEM_ERROR,
        /^The producer group wrong$/,
      ],
      [
        'another queue offset',
        { tranStateTableOffset: 9n },
        ResponseCode.SYSTEM_ERROR,
        /^The transaction state table offset wrong$/,
      ],
    ];
    for (const type of [TRANSACTION_COMMIT_TYPE, TRANSACTION_ROLLBACK_TYPE]) {
      for (const [what, fields, code, remark] of cases) {
        const request =
          fields === 'missing'
            ? createRequest(RequestCode.END_TRANSACTION, {
                extFields: {
                  tranStateTableOffset: '0',
                  commitLogOffset: '0',
                  commitOrRollback: String(type),
                  msgId: 'x',
                },
              })
            : endRequest(endHeader(half, type, fields));
        const r = await b.client.call(request);
        assert.equal(r.code, code, `${what} (${type}): ${r.remark}`);
        assert.match(r.remark ?? '', remark, `${what} (${type})`);
      }
    }
    assert.equal((await readQueue(b.broker, TOPIC, 2)).length, 0);
    assert.equal((await readQueue(b.broker, TOPIC, 1)).length, 1);
    assert.deepEqual(await readQueue(b.broker, OP, 0), []);
    // The broker still serves: the right request commits.
    const ok = await endTransaction(b.client, endHeader(half, TRANSACTION_COMMIT_TYPE));
    assert.equal(ok.code, ResponseCode.SUCCESS);
    assert.equal((await readQueue(b.broker, TOPIC, 2)).length, 1);
  });

  test(
    'a half message without PGROUP, REAL_TOPIC or REAL_QID is refused with a remark naming it',
    LIMIT,
    async () => {
      const b = await startBroker();
      const put = async (properties: string) => {
        const r = await b.broker.messageStore.putMessage({
          topic: HALF,
          queueId: 0,
          flag: 0,
          body: Buffer.from('x'),
          propertiesString: properties,
          tagsCode: 0n,
          sysFlag: 0,
          bornTimestamp: BigInt(T0),
          bornHost: { address: '10.0.0.9', port: 50000 },
          storeHost: { address: '127.0.0.1', port: 10911 },
          reconsumeTimes: 0,
          preparedTransactionOffset: 0n,
        });
        const append = r.appendMessageResult;
        assert.ok(append !== undefined);
        return {
          uniqKey: 'x',
          offsetMsgId: append.msgId,
          queueOffset: append.logicsOffset,
          commitLogOffset: append.wroteOffset,
        };
      };
      const noGroup = await put('UNIQ_KEY\u0001x');
      const noReal = await put(`PGROUP\u0001${GROUP}\u0002REAL_QID\u0001abc`);
      let r = await endTransaction(b.client, endHeader(noGroup, TRANSACTION_COMMIT_TYPE));
      assert.equal(r.code, ResponseCode.SYSTEM_ERROR);
      assert.equal(r.remark, 'The prepared transaction message has no producer group (PGROUP)');
      r = await endTransaction(b.client, endHeader(noReal, TRANSACTION_COMMIT_TYPE));
      assert.equal(r.code, ResponseCode.SYSTEM_ERROR);
      assert.equal(
        r.remark,
        'The prepared transaction message has no valid REAL_TOPIC / REAL_QID (undefined / abc)',
      );
      assert.deepEqual(await readQueue(b.broker, OP, 0), []);
      // A rollback needs neither.
      r = await endTransaction(b.client, endHeader(noReal, TRANSACTION_ROLLBACK_TYPE));
      assert.equal(r.code, ResponseCode.SUCCESS);
      assert.equal((await readQueue(b.broker, OP, 0)).length, 1);
    },
  );

  test('a slave refuses with SLAVE_NOT_AVAILABLE and runs no check service', LIMIT, async () => {
    const b = await startBroker({
      config: { brokerRole: 'SLAVE', brokerId: 1, transactionCheckInterval: 1000 },
    });
    const r = await endTransaction(
      b.client,
      endHeader(
        { uniqKey: 'x', offsetMsgId: '', queueOffset: 0n, commitLogOffset: 0n },
        TRANSACTION_COMMIT_TYPE,
      ),
    );
    assert.equal(r.code, ResponseCode.SLAVE_NOT_AVAILABLE);
    await pass(b, 5000);
    // No pass ran: it would have created the half topic.
    assert.equal(b.broker.topicConfigManager.selectTopicConfig(HALF), undefined);
  });
});
