import assert from 'node:assert/strict';
import { test } from 'node:test';
import { brokerAccessResources } from '../../../../src/broker/acl/access-resources.js';
import type { StoredMessageLookup } from '../../../../src/broker/acl/stored-topics.js';
import { AclServerHook } from '../../../../src/common/acl/acl-server-hook.js';
import { Permission } from '../../../../src/common/acl/permission.js';
import { MessageExt } from '../../../../src/common/message/message.js';
import { MessageQueue } from '../../../../src/common/message/message-queue.js';
import { encodeMessage } from '../../../../src/common/message/stored-format.js';
import { encodeHeartbeatData } from '../../../../src/common/protocol/heartbeat-data.js';
import { encodeLockBatchRequestBody } from '../../../../src/common/protocol/lock-batch-body.js';
import { encodeQueryAssignmentRequestBody } from '../../../../src/common/protocol/query-assignment-body.js';
import { RequestCode } from '../../../../src/remoting/protocol/request-code.js';

const { PUB, SUB } = Permission;

function resources(code: number, extFields: Record<string, string>, body?: Buffer) {
  const r = brokerAccessResources({ code, extFields, body });
  return r === undefined ? undefined : Object.fromEntries(r);
}

test('sends and batches need PUB on the topic; a retry topic needs SUB on its group', () => {
  assert.deepEqual(resources(RequestCode.SEND_MESSAGE, { topic: 'T', producerGroup: 'PG' }), { T: PUB });
  assert.deepEqual(resources(RequestCode.SEND_MESSAGE_V2, { a: 'PG', b: 'T' }), { T: PUB });
  assert.deepEqual(resources(RequestCode.SEND_BATCH_MESSAGE, { a: 'PG', b: 'T' }), { T: PUB });
  assert.deepEqual(resources(RequestCode.SEND_MESSAGE_V2, { a: 'CG', b: '%RETRY%CG' }), { '%RETRY%CG': SUB });
  assert.deepEqual(resources(RequestCode.SEND_MESSAGE, { topic: '%RETRY%CG', producerGroup: 'CG' }), {
    '%RETRY%CG': SUB,
  });
  assert.deepEqual(resources(RequestCode.CONSUMER_SEND_MSG_BACK, { group: 'CG', offset: '1' }), {
    '%RETRY%CG': SUB,
  });
});

test('pull, query, offsets, consumer list and unregister name topic and group', () => {
  assert.deepEqual(resources(RequestCode.PULL_MESSAGE, { topic: 'T', consumerGroup: 'CG' }), {
    T: SUB,
    '%RETRY%CG': SUB,
  });
  assert.deepEqual(resources(RequestCode.LITE_PULL_MESSAGE, { topic: 'T', consumerGroup: 'CG' }), {
    T: SUB,
    '%RETRY%CG': SUB,
  });
  assert.deepEqual(resources(RequestCode.QUERY_MESSAGE, { topic: 'T' }), { T: SUB });
  assert.deepEqual(
    resources(RequestCode.UPDATE_CONSUMER_OFFSET, {
      consumerGroup: 'CG',
      topic: 'T',
      queueId: '0',
      commitOffset: '5',
    }),
    { '%RETRY%CG': SUB, T: SUB },
  );
  assert.deepEqual(resources(RequestCode.GET_CONSUMER_LIST_BY_GROUP, { consumerGroup: 'CG' }), {
    '%RETRY%CG': SUB,
  });
  assert.deepEqual(resources(RequestCode.UNREGISTER_CLIENT, { clientID: 'c', consumerGroup: 'CG' }), {
    '%RETRY%CG': SUB,
  });
  assert.deepEqual(resources(RequestCode.UNREGISTER_CLIENT, { clientID: 'c', producerGroup: 'PG' }), {});
  assert.equal(resources(RequestCode.END_TRANSACTION, { producerGroup: 'PG' }), undefined);
  assert.equal(resources(RequestCode.UPDATE_AND_CREATE_TOPIC, { topic: 'T' }), undefined);
});

test('a heartbeat needs SUB on each consumer group and subscribed topic, nothing for producers', () => {
  const body = encodeHeartbeatData({
    clientID: 'c1',
    producerDataSet: [{ groupName: 'PG' }],
    consumerDataSet: [
      {
        groupName: 'CG',
        consumeType: 'CONSUME_PASSIVELY',
        messageModel: 'CLUSTERING',
        consumeFromWhere: 'CONSUME_FROM_LAST_OFFSET',
        subscriptionDataSet: [
          {
            classFilterMode: false,
            topic: 'T1',
            subString: '*',
            tagsSet: [],
            codeSet: [],
            subVersion: 1n,
            expressionType: 'TAG',
          },
        ],
        unitMode: false,
      },
    ],
  } as Parameters<typeof encodeHeartbeatData>[0]);
  assert.deepEqual(resources(RequestCode.HEART_BEAT, {}, body), { '%RETRY%CG': SUB, T1: SUB });
});

test('a missing mandatory field or a broken body becomes an AclException from parse', () => {
  assert.throws(
    () => brokerAccessResources({ code: RequestCode.GET_CONSUMER_LIST_BY_GROUP, extFields: {} }),
    /the custom field <consumerGroup> is null/,
  );
  const hook = new AclServerHook(
    // The manager is never reached: parsing fails first.
    null as never,
    brokerAccessResources,
    { denied: () => {} } as never,
  );
  assert.throws(
    () =>
      hook.doBeforeRequest('127.0.0.1:1', {
        code: RequestCode.HEART_BEAT,
        extFields: {},
        body: Buffer.from('{not json'),
      }),
    (e: unknown) =>
      e instanceof Error &&
      /^org\.apache\.rocketmq\.acl\.common\.AclException: .+, org\.apache\.rocketmq\.acl\.plain\.PlainAccessValidator\.parse\(PlainAccessValidator\.java:134\)$/.test(
        e.toString(),
      ),
  );
});

/** One encoded record at `offset`, and a store whose consume queue points at `cqOffset`. */
function fakeStore(
  topic: string,
  offset: bigint,
  properties: Record<string, string> = {},
  cqOffset: bigint = offset,
  recordOffset: bigint = offset,
): StoredMessageLookup {
  const ext = new MessageExt(topic, Buffer.from('secret body'));
  for (const [k, v] of Object.entries(properties)) ext.properties.set(k, v);
  ext.commitLogOffset = recordOffset;
  const record = encodeMessage(ext);
  return {
    selectOneMessageByOffset: (o: bigint) => (o === offset ? record : undefined),
    getCommitLogOffsetInQueue: (t: string, q: number, qo: bigint) =>
      t === topic && q === 0 && qo === 0n ? cqOffset : -1n,
  };
}

test('messages named by offset need SUB on their stored topics; queue locks on group and topics', () => {
  const at = (code: number, extFields: Record<string, string>, store: StoredMessageLookup) => {
    const r = brokerAccessResources({ code, extFields }, store);
    return r === undefined ? undefined : Object.fromEntries(r);
  };
  const view = { offset: '4096' };
  const back = { offset: '4096', group: 'CG', delayLevel: '0', unitMode: 'false' };
  const store = fakeStore('T', 4096n);
  assert.deepEqual(at(RequestCode.VIEW_MESSAGE_BY_ID, view, store), { T: SUB });
  assert.deepEqual(at(RequestCode.CONSUMER_SEND_MSG_BACK, back, store), { '%RETRY%CG': SUB, T: SUB });
  // Nothing stored there: no topic; the processor answers its own not-found.
  assert.deepEqual(at(RequestCode.VIEW_MESSAGE_BY_ID, { offset: '8' }, store), {});
  // A retry copy names its original topic too; a delayed message its real topic.
  assert.deepEqual(
    at(RequestCode.VIEW_MESSAGE_BY_ID, view, fakeStore('%RETRY%G', 4096n, { RETRY_TOPIC: 'T' })),
    {
      '%RETRY%G': SUB,
      T: SUB,
    },
  );
  assert.deepEqual(
    at(RequestCode.VIEW_MESSAGE_BY_ID, view, fakeStore('SCHEDULE_TOPIC_XXXX', 4096n, { REAL_TOPIC: 'T' })),
    { T: SUB },
  );
  // Bytes that frame as a record the consume queue does not point at (a forged record inside a
  // body), or one whose stored offset is another, are refused.
  assert.throws(() => at(RequestCode.VIEW_MESSAGE_BY_ID, view, fakeStore('T', 4096n, {}, 99n)), /no message/);
  assert.throws(
    () => at(RequestCode.VIEW_MESSAGE_BY_ID, view, fakeStore('T', 4096n, {}, 4096n, 5n)),
    /no message is stored at commit-log offset 4096/,
  );

  for (const code of [RequestCode.LOCK_BATCH_MQ, RequestCode.UNLOCK_BATCH_MQ]) {
    const body = encodeLockBatchRequestBody({
      consumerGroup: 'CG',
      clientId: 'c1',
      mqSet: [new MessageQueue('T1', 'b', 0), new MessageQueue('T2', 'b', 1)],
    });
    assert.deepEqual(resources(code, {}, body), { '%RETRY%CG': SUB, T1: SUB, T2: SUB });
  }
  const assignment = encodeQueryAssignmentRequestBody({
    topic: 'T',
    consumerGroup: 'CG',
    clientId: 'c1',
    strategyName: 'AVG',
    messageModel: 'CLUSTERING',
  });
  assert.deepEqual(resources(RequestCode.QUERY_ASSIGNMENT, {}, assignment), { T: SUB, '%RETRY%CG': SUB });
});

test('POP reads (pop, peek, notification, polling info) need SUB on topic and group, as pulls', () => {
  for (const code of [
    RequestCode.POP_MESSAGE,
    RequestCode.PEEK_MESSAGE,
    RequestCode.NOTIFICATION,
    RequestCode.POLLING_INFO,
  ]) {
    assert.deepEqual(resources(code, { topic: 'T', consumerGroup: 'CG', queueId: '-1' }), {
      T: SUB,
      '%RETRY%CG': SUB,
    });
  }
});

test('POP acks and invisible-time changes need SUB on the topic and the group; a batch ack on every ack of its body', () => {
  for (const code of [RequestCode.ACK_MESSAGE, RequestCode.CHANGE_MESSAGE_INVISIBLETIME]) {
    assert.deepEqual(
      resources(code, { topic: 'T', consumerGroup: 'CG', queueId: '0', extraInfo: 'x', offset: '1' }),
      {
        T: SUB,
        '%RETRY%CG': SUB,
      },
    );
  }
  const body = Buffer.from(
    '{"acks":[{"b":"AQ==","c":"G1","it":1,"pt":1,"q":0,"r":"0","rq":0,"so":0,"t":"T1"},' +
      '{"b":"AQ==","c":"G2","it":1,"pt":1,"q":0,"r":"0","rq":0,"so":0,"t":"T2"}],"brokerName":"b"}',
  );
  assert.deepEqual(resources(RequestCode.BATCH_ACK_MESSAGE, {}, body), {
    T1: SUB,
    '%RETRY%G1': SUB,
    T2: SUB,
    '%RETRY%G2': SUB,
  });
});
