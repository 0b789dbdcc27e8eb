import assert from 'node:assert/strict';
import { test } from 'node:test';
import { brokerAccessResources } from '../../../../src/broker/acl/access-resources.js';
import { AclServerHook } from '../../../../src/common/acl/acl-server-hook.js';
import { Permission } from '../../../../src/common/acl/permission.js';
import { encodeHeartbeatData } from '../../../../src/common/protocol/heartbeat-data.js';
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
