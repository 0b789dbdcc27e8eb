/**
 * PULL_MESSAGE and long polling on a started broker with its own DefaultMessageStore in a temp dir,
 * talked to over in-memory connections: found messages as stored records, tag and SQL92 filtering,
 * upstream's codes and remarks for every refusal, the store-status mapping (with a scripted store for
 * the statuses a real store rarely gives, and the slave rules), held pulls answered by a message's
 * arrival or at their timeout, short polling, committed offsets and connections closed while held.
 */
import assert from 'node:assert/strict';
import { afterEach, describe, test } from 'node:test';
import type { BrokerConfig } from '../../../src/broker/broker-config.js';
import type { BrokerController } from '../../../src/broker/broker-controller.js';
import { PullSysFlag, TopicName } from '../../../src/common/constants.js';
import { parseFastjson } from '../../../src/common/fastjson/index.js';
import { decodeMessages } from '../../../src/common/message/stored-format.js';
import { tagsString2tagsCode } from '../../../src/common/message/tag-hash.js';
import type { HeartbeatData, MessageModel } from '../../../src/common/protocol/heartbeat-data.js';
import type { SubscriptionData } from '../../../src/common/protocol/subscription-data.js';
import { createSubscriptionGroupConfig } from '../../../src/common/protocol/subscription-group-config.js';
import { createTopicConfig } from '../../../src/common/protocol/topic-config.js';
import { buildSubscriptionData } from '../../../src/filter/filter-api.js';
import {
  createRequest,
  type RemotingCommand,
  SerializeType,
} from '../../../src/remoting/protocol/command.js';
import {
  decodeHeader,
  encodeHeader,
  type HeaderInputOf,
} from '../../../src/remoting/protocol/header-schema.js';
import {
  PullMessageRequestHeader,
  PullMessageResponseHeader,
} from '../../../src/remoting/protocol/headers/index.js';
import { RequestCode } from '../../../src/remoting/protocol/request-code.js';
import { ResponseCode } from '../../../src/remoting/protocol/response-code.js';
import type { DefaultMessageStore } from '../../../src/store/default-message-store.js';
import {
  type GetMessageResult,
  GetMessageStatus,
  type MessageFilter,
} from '../../../src/store/message-store.js';
import type { PutMessageResult } from '../../../src/store/put-message-result.js';
import type { MessageExtBrokerInner } from '../../../src/store/stored-record-writer.js';
import { type MsgInit, msg } from '../store/default-message-store-support.js';
import {
  connectInMemory,
  consumerHeartbeat,
  FakeMessageStore,
  heartbeatRequest,
  ManualClock,
  settle,
  type TestClient,
  testBroker,
} from './helpers.js';
import { cleanUp, startBroker, track as trackBroker, until } from './store-broker.js';

const LIMIT = { timeout: 10_000 };
const TOPIC = 'TopicTest';
const GROUP = 'cg-pull';
const SUB_VERSION = 1700000000000n;
const FAQ = '\nSee http://rocketmq.apache.org/docs/faq/ for further details.';
const SUSPEND = PullSysFlag.buildSysFlag(false, true, false, false);
const SUSPEND_SUB = PullSysFlag.buildSysFlag(false, true, true, false);
const SUB = PullSysFlag.buildSysFlag(false, false, true, false);

afterEach(cleanUp);

interface RealBroker {
  broker: BrokerController;
  clock: ManualClock;
  c: TestClient;
}

/** A started broker over a fresh store directory, TopicTest with 4 queues, one in-memory client. */
async function realBroker(config: Partial<BrokerConfig> = {}): Promise<RealBroker> {
  const { broker, clock, client } = await startBroker({ config, clock: new ManualClock() });
  broker.topicConfigManager.updateTopicConfig(
    createTopicConfig(TOPIC, { readQueueNums: 4, writeQueueNums: 4 }),
  );
  return { broker, clock, c: client };
}

type PullInit = Partial<HeaderInputOf<typeof PullMessageRequestHeader>>;

function pullRequest(
  init: PullInit = {},
  serializeType: SerializeType = SerializeType.JSON,
): RemotingCommand {
  return createRequest(RequestCode.PULL_MESSAGE, {
    serializeType,
    extFields: encodeHeader(PullMessageRequestHeader, {
      consumerGroup: GROUP,
      topic: TOPIC,
      queueId: 0,
      queueOffset: 0n,
      maxMsgNums: 32,
      sysFlag: 0,
      commitOffset: 0n,
      suspendTimeoutMillis: 15_000n,
      subVersion: 0n,
      ...init,
    }),
  });
}

function header(response: RemotingCommand) {
  return decodeHeader(PullMessageResponseHeader, response.extFields);
}

/** The `idx` property of each message of a SUCCESS body. */
function pulledIdx(response: RemotingCommand): string[] {
  assert.equal(response.code, ResponseCode.SUCCESS, response.remark);
  assert.ok(response.body);
  return decodeMessages(response.body).map((m) => m.getProperty('idx') ?? '?');
}

async function put(broker: BrokerController, i: number, init: MsgInit = {}): Promise<void> {
  const result = await broker.messageStore.putMessage(msg(i, { topic: TOPIC, ...init }));
  assert.equal(result.putMessageStatus, 'PUT_OK');
}

/** Turns the event loop until `condition` holds (each turn lets pending I/O and promises run). */
/** A heartbeat of one consumer of GROUP with the given subscriptions. */
function heartbeat(
  subscriptions: SubscriptionData[],
  messageModel: MessageModel = 'CLUSTERING',
): HeartbeatData {
  return {
    clientID: 'client-1',
    producerDataSet: [],
    consumerDataSet: [
      {
        groupName: GROUP,
        consumeType: 'CONSUME_PASSIVELY',
        messageModel,
        consumeFromWhere: 'CONSUME_FROM_LAST_OFFSET',
        unitMode: false,
        subscriptionDataSet: subscriptions,
      },
    ],
  };
}

function sql(topic: string, expression: string, subVersion = SUB_VERSION): SubscriptionData {
  return {
    topic,
    subString: expression,
    tagsSet: [],
    codeSet: [],
    subVersion,
    expressionType: 'SQL92',
    classFilterMode: false,
  };
}

async function subscribeAll(c: TestClient, topics = [TOPIC]): Promise<void> {
  const r = await c.call(heartbeatRequest(consumerHeartbeat('client-1', GROUP, topics, SUB_VERSION)));
  assert.equal(r.code, ResponseCode.SUCCESS);
}

/** Records whether (and with what) a call was answered, without awaiting it. */
function track(p: Promise<RemotingCommand>): {
  readonly response: RemotingCommand | undefined;
  done: Promise<RemotingCommand>;
} {
  const state: { response: RemotingCommand | undefined; done: Promise<RemotingCommand> } = {
    response: undefined,
    done: p,
  };
  p.then(
    (r) => {
      state.response = r;
    },
    () => {},
  );
  return state;
}

describe('PULL_MESSAGE: found messages', () => {
  test(
    'SUCCESS carries the stored records back to back and the queue offsets in the header',
    LIMIT,
    async () => {
      const { broker, c } = await realBroker();
      await subscribeAll(c);
      for (let i = 0; i < 3; i++) await put(broker, i);
      assert.equal(broker.messageStore.getMaxOffsetInQueue(TOPIC, 0), 3n);

      const r = await c.call(pullRequest());
      assert.equal(r.code, ResponseCode.SUCCESS);
      assert.equal(r.remark, 'FOUND');
      assert.deepEqual(header(r), {
        suggestWhichBrokerId: 0n,
        nextBeginOffset: 3n,
        minOffset: 0n,
        maxOffset: 3n,
      });
      assert.ok(r.body);
      const messages = decodeMessages(r.body);
      assert.deepEqual(
        messages.map((m) => [m.topic, m.queueId, m.queueOffset, m.body.toString(), m.tags]),
        [
          [TOPIC, 0, 0n, 'body-0', 'TagA'],
          [TOPIC, 0, 1n, 'body-1', 'TagB'],
          [TOPIC, 0, 2n, 'body-2', 'TagC'],
        ],
      );
      // Exactly the bytes the store holds: the body is the records, not re-encoded messages.
      const stored = await broker.messageStore.getMessage(GROUP, TOPIC, 0, 0n, 32);
      assert.deepEqual(r.body, Buffer.concat(stored.messages));
      const stats = broker.brokerStatsManager;
      assert.equal(stats.getStatsItem('GROUP_GET_NUMS', `${TOPIC}@${GROUP}`)?.value, 3);
      assert.equal(stats.getStatsItem('GROUP_GET_SIZE', `${TOPIC}@${GROUP}`)?.value, r.body.length);
      assert.equal(stats.getStatsItem('BROKER_GET_NUMS', 'DefaultCluster')?.value, 3);

      const two = await c.call(pullRequest({ queueOffset: 1n, maxMsgNums: 1 }, SerializeType.ROCKETMQ));
      assert.equal(two.serializeType, SerializeType.ROCKETMQ);
      assert.deepEqual(pulledIdx(two), ['1']);
      assert.equal(header(two).nextBeginOffset, 2n);
    },
  );

  test('the VIP channel does not serve PULL_MESSAGE', LIMIT, async () => {
    const { broker } = await realBroker();
    const vip = connectInMemory(broker, '10.0.0.9:50001', true);
    const r = await vip.call(pullRequest());
    assert.equal(r.code, ResponseCode.REQUEST_CODE_NOT_SUPPORTED);
  });
});

describe('LITE_PULL_MESSAGE (361): the 5.x DefaultLitePullConsumer', () => {
  // What the 5.5.0 client sends: PullSysFlag.buildSysFlag(false, block, true, false, true), the
  // subscription in the header, code LITE_PULL_MESSAGE; the 5.x broker's PullMessageProcessor serves it.
  const LITE = PullSysFlag.buildSysFlag(false, true, true, false, true);
  const litePull = (init: PullInit = {}): RemotingCommand => ({
    ...pullRequest({ sysFlag: LITE, subscription: 'TagA || TagB', expressionType: 'TAG', ...init }),
    code: RequestCode.LITE_PULL_MESSAGE,
  });

  test('is served as PULL_MESSAGE: the subscription of the request filters', LIMIT, async () => {
    const { broker, c } = await realBroker();
    for (let i = 0; i < 6; i++) await put(broker, i); // TagA, TagB, TagC, TagA, TagB, TagC
    const r = await c.call(litePull());
    assert.equal(r.code, ResponseCode.SUCCESS, r.remark);
    assert.deepEqual(pulledIdx(r), ['0', '1', '3', '4']);
    assert.deepEqual(header(r), {
      suggestWhichBrokerId: 0n,
      nextBeginOffset: 6n,
      minOffset: 0n,
      maxOffset: 6n,
    });
  });

  test('an empty queue holds it until a message arrives (long polling)', LIMIT, async () => {
    const { broker, c } = await realBroker();
    const held = track(c.call(litePull({ queueId: 2 })));
    await until(() => broker.pullRequestHoldService.heldCount === 1, 'the lite pull is held');
    await settle();
    assert.equal(held.response, undefined);
    await put(broker, 0, { queueId: 2 });
    assert.deepEqual(pulledIdx(await held.done), ['0']);
  });

  test('the VIP channel does not serve it, as PULL_MESSAGE', LIMIT, async () => {
    const { broker } = await realBroker();
    const vip = connectInMemory(broker, '10.0.0.9:50001', true);
    const r = await vip.call(litePull());
    assert.equal(r.code, ResponseCode.REQUEST_CODE_NOT_SUPPORTED);
  });
});

describe('PULL_MESSAGE: a stale subscription and 5.x heartbeat V2', () => {
  const FP = 697273706;
  const v2 = (subVersion: bigint, withoutSub: boolean) =>
    heartbeatRequest({
      ...consumerHeartbeat('client-1', GROUP, withoutSub ? [] : [TOPIC], subVersion),
      heartbeatFingerprint: FP,
      withoutSub,
    });

  test('SUBSCRIPTION_NOT_LATEST makes the next short heartbeat ask for the full one', LIMIT, async () => {
    const { broker, c } = await realBroker();
    await put(broker, 0);
    assert.equal((await c.call(v2(SUB_VERSION, false))).extFields?.IS_SUB_CHANGE, 'false');
    assert.equal((await c.call(v2(SUB_VERSION, true))).extFields?.IS_SUB_CHANGE, 'false');
    // The client rebalanced and bumped its subVersion, but its full heartbeat never came.
    const stale = await c.call(pullRequest({ subVersion: SUB_VERSION + 1n }));
    assert.equal(stale.code, ResponseCode.SUBSCRIPTION_NOT_LATEST);
    assert.equal(stale.remark, "the consumer's subscription not latest");
    assert.equal((await c.call(v2(SUB_VERSION + 1n, true))).extFields?.IS_SUB_CHANGE, 'true');
    // The client answers with the full heartbeat: the new version is known and the pull goes on.
    assert.equal((await c.call(v2(SUB_VERSION + 1n, false))).extFields?.IS_SUB_CHANGE, 'false');
    assert.deepEqual(pulledIdx(await c.call(pullRequest({ subVersion: SUB_VERSION + 1n }))), ['0']);
    assert.equal((await c.call(v2(SUB_VERSION + 1n, true))).extFields?.IS_SUB_CHANGE, 'false');
  });

  test('4.x-style heartbeats are not affected', LIMIT, async () => {
    const { c } = await realBroker();
    await subscribeAll(c);
    const stale = await c.call(pullRequest({ subVersion: SUB_VERSION + 1n }));
    assert.equal(stale.code, ResponseCode.SUBSCRIPTION_NOT_LATEST);
    const r = await c.call(heartbeatRequest(consumerHeartbeat('client-1', GROUP, [TOPIC], SUB_VERSION + 1n)));
    assert.deepEqual([r.extFields?.IS_SUPPORT_HEART_BEAT_V2, r.extFields?.IS_SUB_CHANGE], ['true', 'true']);
  });
});

describe('PULL_MESSAGE: filtering', () => {
  test("a heartbeat's tags filter by the consume queue's tag hash", LIMIT, async () => {
    const { broker, c } = await realBroker();
    const sub = buildSubscriptionData(TOPIC, 'TagA || TagC', { subVersion: SUB_VERSION });
    await c.call(heartbeatRequest(heartbeat([sub])));
    for (let i = 0; i < 6; i++) await put(broker, i); // TagA, TagB, TagC, TagA, TagB, TagC
    assert.deepEqual(pulledIdx(await c.call(pullRequest())), ['0', '2', '3', '5']);
  });

  test('the subscription in the request wins when its flag is set', LIMIT, async () => {
    const { broker, c } = await realBroker();
    for (let i = 0; i < 6; i++) await put(broker, i);
    // No heartbeat: the group's consumers are not needed with the subscription flag.
    const r = await c.call(pullRequest({ sysFlag: SUB, subscription: 'TagB', expressionType: 'TAG' }));
    assert.deepEqual(pulledIdx(r), ['1', '4']);
    assert.equal(header(r).nextBeginOffset, 6n);
  });

  test('NO_MATCHED_MESSAGE is PULL_RETRY_IMMEDIATELY past the skipped messages', LIMIT, async () => {
    const { broker, c } = await realBroker();
    for (let i = 0; i < 3; i++) await put(broker, i, { tag: 'TagB' });
    const r = await c.call(pullRequest({ sysFlag: SUB, subscription: 'TagA' }));
    assert.equal(r.code, ResponseCode.PULL_RETRY_IMMEDIATELY);
    assert.equal(r.remark, 'NO_MATCHED_MESSAGE');
    assert.equal(header(r).nextBeginOffset, 3n);
    assert.equal(r.body, undefined);
  });

  test('SQL92 needs enablePropertyFilter, then filters on the properties', LIMIT, async () => {
    const { broker, c } = await realBroker();
    for (let i = 0; i < 6; i++) await put(broker, i);
    const req = () =>
      pullRequest({ sysFlag: SUB, subscription: "idx > 2 AND TAGS <> 'TagB'", expressionType: 'SQL92' });
    const off = await c.call(req());
    assert.equal(off.code, ResponseCode.SYSTEM_ERROR);
    assert.equal(off.remark, 'The broker does not support consumer to filter message by SQL92');
    broker.config.enablePropertyFilter = true;
    assert.deepEqual(pulledIdx(await c.call(req())), ['3', '5']);
  });

  test(
    "a heartbeat's SQL92 subscription is compiled by the broker's ConsumerFilterManager",
    LIMIT,
    async () => {
      const { broker, c } = await realBroker({ enablePropertyFilter: true });
      for (let i = 0; i < 6; i++) await put(broker, i);
      await c.call(heartbeatRequest(heartbeat([sql(TOPIC, 'idx >= 4')])));
      assert.ok(broker.consumerFilterManager.get(TOPIC, GROUP));
      assert.deepEqual(pulledIdx(await c.call(pullRequest({ subVersion: SUB_VERSION }))), ['4', '5']);

      const newer = await c.call(pullRequest({ subVersion: SUB_VERSION + 1n }));
      // The heartbeat's subscription is older than the request's, which is checked first.
      assert.equal(newer.code, ResponseCode.SUBSCRIPTION_NOT_LATEST);
    },
  );

  test('filter data missing or older than the request', LIMIT, async () => {
    const { broker, c } = await realBroker({ enablePropertyFilter: true });
    // An expression that does not compile leaves no filter data.
    await c.call(heartbeatRequest(heartbeat([sql(TOPIC, 'idx > (')])));
    const missing = await c.call(pullRequest());
    assert.equal(missing.code, ResponseCode.FILTER_DATA_NOT_EXIST);
    assert.equal(
      missing.remark,
      "The broker's consumer filter data is not exist!Your expression may be wrong!",
    );

    await c.call(heartbeatRequest(heartbeat([sql(TOPIC, 'idx > 1')])));
    // The group's subscription is refreshed by a later heartbeat, its filter data is not.
    broker.consumerFilterManager.get(TOPIC, GROUP)!.clientVersion = SUB_VERSION - 1n;
    const stale = await c.call(pullRequest({ subVersion: SUB_VERSION }));
    assert.equal(stale.code, ResponseCode.FILTER_DATA_NOT_LATEST);
    assert.equal(stale.remark, "the consumer's consumer filter data not latest");
  });

  test('a subscription in the request that does not parse is SUBSCRIPTION_PARSE_FAILED', LIMIT, async () => {
    const { c } = await realBroker({ enablePropertyFilter: true });
    for (const [subscription, expressionType] of [
      ['||', 'TAG'],
      ['idx > (', 'SQL92'],
      ['', 'SQL92'],
    ] as const) {
      const r = await c.call(pullRequest({ sysFlag: SUB, subscription, expressionType }));
      assert.equal(r.code, ResponseCode.SUBSCRIPTION_PARSE_FAILED, `${expressionType} ${subscription}`);
      assert.equal(r.remark, "parse the consumer's subscription failed");
    }
  });

  test(
    'filterSupportRetry: retried messages obey the SQL92 filter of their original topic',
    LIMIT,
    async () => {
      const retryTopic = `%RETRY%${GROUP}`;
      const { broker, c } = await realBroker({ enablePropertyFilter: true, filterSupportRetry: true });
      broker.topicConfigManager.updateTopicConfig(
        createTopicConfig(retryTopic, { readQueueNums: 1, writeQueueNums: 1 }),
      );
      const tagAll = buildSubscriptionData(retryTopic, '*', { subVersion: SUB_VERSION });
      await c.call(heartbeatRequest(heartbeat([sql(TOPIC, 'idx < 2'), tagAll])));
      for (let i = 0; i < 4; i++) await put(broker, i, { topic: retryTopic, extra: { RETRY_TOPIC: TOPIC } });
      assert.deepEqual(pulledIdx(await c.call(pullRequest({ topic: retryTopic }))), ['0', '1']);
    },
  );
});

describe('PULL_MESSAGE: refusals', () => {
  test('broker, group, topic and queue checks, with upstream codes and remarks', LIMIT, async () => {
    const { broker, c } = await realBroker();
    await subscribeAll(c);

    broker.config.brokerPermission = 2;
    let r = await c.call(pullRequest());
    assert.deepEqual(
      [r.code, r.remark],
      [ResponseCode.NO_PERMISSION, 'the broker[127.0.0.1] pulling message is forbidden'],
    );
    broker.config.brokerPermission = 6;

    broker.config.autoCreateSubscriptionGroup = false;
    r = await c.call(pullRequest({ consumerGroup: 'cg-unknown' }));
    assert.deepEqual(
      [r.code, r.remark],
      [ResponseCode.SUBSCRIPTION_GROUP_NOT_EXIST, `subscription group [cg-unknown] does not exist, ${FAQ}`],
    );

    broker.subscriptionGroupManager.updateSubscriptionGroupConfig(
      createSubscriptionGroupConfig(GROUP, { consumeEnable: false }),
    );
    r = await c.call(pullRequest());
    assert.deepEqual(
      [r.code, r.remark],
      [ResponseCode.NO_PERMISSION, `subscription group no permission, ${GROUP}`],
    );
    broker.subscriptionGroupManager.updateSubscriptionGroupConfig(createSubscriptionGroupConfig(GROUP));

    r = await c.call(pullRequest({ topic: 'NoSuchTopic' }));
    assert.deepEqual(
      [r.code, r.remark],
      [ResponseCode.TOPIC_NOT_EXIST, `topic[NoSuchTopic] not exist, apply first please! ${FAQ}`],
    );

    broker.topicConfigManager.updateTopicConfig(createTopicConfig('WriteOnly', { perm: 2 }));
    r = await c.call(pullRequest({ topic: 'WriteOnly' }));
    assert.deepEqual(
      [r.code, r.remark],
      [ResponseCode.NO_PERMISSION, 'the topic[WriteOnly] pulling message is forbidden'],
    );

    for (const queueId of [4, -1]) {
      r = await c.call(pullRequest({ queueId }));
      assert.equal(r.code, ResponseCode.SYSTEM_ERROR);
      assert.equal(
        r.remark,
        `queueId[${queueId}] is illegal, topic:[${TOPIC}] topicConfig.readQueueNums:[4] consumer:[/10.0.0.9:50000]`,
      );
    }

    const missing = createRequest(RequestCode.PULL_MESSAGE, { extFields: { consumerGroup: GROUP } });
    r = await c.call(missing);
    assert.equal(r.code, ResponseCode.SYSTEM_ERROR);
    assert.match(r.remark ?? '', /topic/);
  });

  test(
    "subscriptions from the group's heartbeat: missing, other topic, older, broadcast",
    LIMIT,
    async () => {
      const { broker, c } = await realBroker();
      let r = await c.call(pullRequest());
      assert.deepEqual(
        [r.code, r.remark],
        [ResponseCode.SUBSCRIPTION_NOT_EXIST, `the consumer's group info not exist${FAQ}`],
      );

      await subscribeAll(c, ['OtherTopic']);
      r = await c.call(pullRequest());
      assert.deepEqual(
        [r.code, r.remark],
        [ResponseCode.SUBSCRIPTION_NOT_EXIST, `the consumer's subscription not exist${FAQ}`],
      );

      await subscribeAll(c, [TOPIC]);
      r = await c.call(pullRequest({ subVersion: SUB_VERSION + 1n }));
      assert.deepEqual(
        [r.code, r.remark],
        [ResponseCode.SUBSCRIPTION_NOT_LATEST, "the consumer's subscription not latest"],
      );
      r = await c.call(pullRequest({ subVersion: SUB_VERSION }));
      assert.equal(r.code, ResponseCode.PULL_NOT_FOUND);

      const all = buildSubscriptionData(TOPIC, '*', { subVersion: SUB_VERSION });
      await c.call(heartbeatRequest(heartbeat([all], 'BROADCASTING')));
      assert.equal((await c.call(pullRequest())).code, ResponseCode.PULL_NOT_FOUND);
      broker.subscriptionGroupManager.updateSubscriptionGroupConfig(
        createSubscriptionGroupConfig(GROUP, { consumeBroadcastEnable: false }),
      );
      r = await c.call(pullRequest());
      assert.deepEqual(
        [r.code, r.remark],
        [ResponseCode.NO_PERMISSION, `the consumer group[${GROUP}] can not consume by broadcast way`],
      );
    },
  );
});

describe('PULL_MESSAGE: store status mapping on a real store', () => {
  test(
    'empty queue, overflow by one and badly, and the OFFSET_MOVED_EVENT a master writes',
    LIMIT,
    async () => {
      const { broker, c } = await realBroker();
      await subscribeAll(c);

      let r = await c.call(pullRequest({ queueId: 1 }));
      assert.deepEqual([r.code, r.remark], [ResponseCode.PULL_NOT_FOUND, 'NO_MESSAGE_IN_QUEUE']);
      assert.deepEqual(header(r), {
        suggestWhichBrokerId: 0n,
        nextBeginOffset: 0n,
        minOffset: 0n,
        maxOffset: 0n,
      });

      r = await c.call(pullRequest({ queueId: 1, queueOffset: 5n }));
      assert.deepEqual([r.code, r.remark], [ResponseCode.PULL_OFFSET_MOVED, 'NO_MESSAGE_IN_QUEUE']);
      assert.equal(header(r).nextBeginOffset, 0n);
      const events = await broker.messageStore.getMessage(
        'x',
        TopicName.RMQ_SYS_OFFSET_MOVED_EVENT,
        0,
        0n,
        32,
      );
      assert.equal(events.status, GetMessageStatus.FOUND);
      const [event] = decodeMessages(Buffer.concat(events.messages));
      assert.ok(event);
      assert.equal(event.tags, GROUP);
      assert.equal(event.getProperty('KEYS'), GROUP);
      assert.equal(event.getProperty('DELAY'), '0');
      assert.equal(event.bornHost.address, '127.0.0.1');
      assert.equal(
        event.body.toString(),
        `{"consumerGroup":"${GROUP}","messageQueue":{"brokerName":"broker-a","queueId":1,"topic":"${TOPIC}"},"offsetNew":0,"offsetRequest":5}`,
      );
      assert.deepEqual(parseFastjson(event.body.toString()), {
        consumerGroup: GROUP,
        messageQueue: { brokerName: 'broker-a', queueId: 1, topic: TOPIC },
        offsetNew: 0,
        offsetRequest: 5,
      });

      for (let i = 0; i < 2; i++) await put(broker, i);
      r = await c.call(pullRequest({ queueOffset: 2n }));
      assert.deepEqual([r.code, r.remark], [ResponseCode.PULL_NOT_FOUND, 'OFFSET_OVERFLOW_ONE']);
      assert.deepEqual(header(r), {
        suggestWhichBrokerId: 0n,
        nextBeginOffset: 2n,
        minOffset: 0n,
        maxOffset: 2n,
      });

      r = await c.call(pullRequest({ queueOffset: 9n }));
      assert.deepEqual([r.code, r.remark], [ResponseCode.PULL_OFFSET_MOVED, 'OFFSET_OVERFLOW_BADLY']);
      assert.equal(header(r).nextBeginOffset, 2n);
    },
  );
});

/** A store that answers every getMessage with the scripted result and keeps what is put. */
class ScriptedStore extends FakeMessageStore {
  result: GetMessageResult = scripted(GetMessageStatus.FOUND);
  readonly puts: MessageExtBrokerInner[] = [];
  readonly filters: Array<MessageFilter | undefined> = [];

  // Parameters optional: the base class declares none.
  override getMessage(
    _group?: string,
    _topic?: string,
    _queueId?: number,
    _offset?: bigint,
    _max?: number,
    filter?: MessageFilter,
  ): Promise<GetMessageResult> {
    this.filters.push(filter);
    return Promise.resolve(this.result);
  }

  override putMessage(message?: MessageExtBrokerInner): Promise<PutMessageResult> {
    if (message !== undefined) this.puts.push(message);
    return Promise.resolve({ putMessageStatus: 'PUT_OK' } as PutMessageResult);
  }
}

function scripted(status: GetMessageStatus, suggestPullingFromSlave = false): GetMessageResult {
  return {
    status,
    nextBeginOffset: 40n,
    minOffset: 10n,
    maxOffset: 50n,
    suggestPullingFromSlave,
    messages: [],
    bufferTotalSize: 0,
    messageQueueOffsets: [],
  };
}

async function scriptedBroker(config: Partial<BrokerConfig> = {}) {
  const store = new ScriptedStore();
  const t = await testBroker({ brokerIP1: '10.0.0.7', ...config }, { messageStore: store });
  trackBroker(t.broker);
  t.broker.topicConfigManager.updateTopicConfig(
    createTopicConfig(TOPIC, { readQueueNums: 4, writeQueueNums: 4 }),
  );
  t.broker.subscriptionGroupManager.updateSubscriptionGroupConfig(
    createSubscriptionGroupConfig(GROUP, { brokerId: 3n, whichBrokerWhenConsumeSlowly: 2n }),
  );
  const c = connectInMemory(t.broker);
  await subscribeAll(c);
  return { ...t, store, c };
}

describe('PULL_MESSAGE: every store status (scripted store)', () => {
  test('status -> response code as upstream, for offset 0 and an offset past it', LIMIT, async () => {
    const { store, c } = await scriptedBroker();
    const expected: Array<[GetMessageStatus, number, number]> = [
      // status, code at queueOffset 0, code at queueOffset 20
      [GetMessageStatus.FOUND, ResponseCode.SUCCESS, ResponseCode.SUCCESS],
      [
        GetMessageStatus.MESSAGE_WAS_REMOVING,
        ResponseCode.PULL_RETRY_IMMEDIATELY,
        ResponseCode.PULL_RETRY_IMMEDIATELY,
      ],
      [GetMessageStatus.NO_MATCHED_LOGIC_QUEUE, ResponseCode.PULL_NOT_FOUND, ResponseCode.PULL_OFFSET_MOVED],
      [GetMessageStatus.NO_MESSAGE_IN_QUEUE, ResponseCode.PULL_NOT_FOUND, ResponseCode.PULL_OFFSET_MOVED],
      [
        GetMessageStatus.NO_MATCHED_MESSAGE,
        ResponseCode.PULL_RETRY_IMMEDIATELY,
        ResponseCode.PULL_RETRY_IMMEDIATELY,
      ],
      [GetMessageStatus.OFFSET_FOUND_NULL, ResponseCode.PULL_NOT_FOUND, ResponseCode.PULL_NOT_FOUND],
      [
        GetMessageStatus.OFFSET_OVERFLOW_BADLY,
        ResponseCode.PULL_OFFSET_MOVED,
        ResponseCode.PULL_OFFSET_MOVED,
      ],
      [GetMessageStatus.OFFSET_OVERFLOW_ONE, ResponseCode.PULL_NOT_FOUND, ResponseCode.PULL_NOT_FOUND],
      [GetMessageStatus.OFFSET_TOO_SMALL, ResponseCode.PULL_OFFSET_MOVED, ResponseCode.PULL_OFFSET_MOVED],
    ];
    assert.equal(expected.length, Object.keys(GetMessageStatus).length);
    for (const [status, atZero, atTwenty] of expected) {
      store.result = scripted(status);
      for (const [queueOffset, code] of [
        [0n, atZero],
        [20n, atTwenty],
      ] as const) {
        const puts = store.puts.length;
        const r = await c.call(pullRequest({ queueOffset, subVersion: SUB_VERSION }));
        assert.equal(r.code, code, `${status} at ${queueOffset}`);
        assert.equal(r.remark, status);
        assert.deepEqual(header(r), {
          suggestWhichBrokerId: 0n,
          nextBeginOffset: 40n,
          minOffset: 10n,
          maxOffset: 50n,
        });
        // A master writes one OFFSET_MOVED_EVENT per correction.
        assert.equal(store.puts.length - puts, code === ResponseCode.PULL_OFFSET_MOVED ? 1 : 0);
      }
    }
    const moved = store.puts.at(-1);
    assert.ok(moved);
    assert.equal(moved.topic, TopicName.RMQ_SYS_OFFSET_MOVED_EVENT);
    assert.equal(moved.tagsCode, tagsString2tagsCode(GROUP));
    assert.deepEqual(moved.bornHost, { address: '10.0.0.7', port: 10911 });
  });

  test('suggestWhichBrokerId: the master unless slaveReadEnable', LIMIT, async () => {
    const { broker, store, c } = await scriptedBroker();
    store.result = scripted(GetMessageStatus.FOUND, true);
    // Without slaveReadEnable upstream always ends on the master, even for a slow consumer.
    assert.equal(header(await c.call(pullRequest({ subVersion: SUB_VERSION }))).suggestWhichBrokerId, 0n);
    broker.config.slaveReadEnable = true;
    assert.equal(header(await c.call(pullRequest({ subVersion: SUB_VERSION }))).suggestWhichBrokerId, 2n);
    store.result = scripted(GetMessageStatus.FOUND, false);
    assert.equal(header(await c.call(pullRequest({ subVersion: SUB_VERSION }))).suggestWhichBrokerId, 3n);
  });

  test(
    'a slave: no offset correction unless offsetCheckInSlave, no commit, found messages still served',
    LIMIT,
    async () => {
      const { broker, store, c } = await scriptedBroker({ brokerRole: 'SLAVE', brokerId: 1 });
      const commit = PullSysFlag.buildSysFlag(true, false, false, false);
      store.result = scripted(GetMessageStatus.OFFSET_TOO_SMALL);
      let r = await c.call(pullRequest({ subVersion: SUB_VERSION, sysFlag: commit, commitOffset: 33n }));
      assert.deepEqual([r.code, r.remark], [ResponseCode.PULL_RETRY_IMMEDIATELY, 'OFFSET_TOO_SMALL']);
      assert.equal(header(r).suggestWhichBrokerId, 3n, "the group's brokerId");
      assert.equal(store.puts.length, 0);
      assert.equal(broker.consumerOffsetManager.queryOffset(GROUP, TOPIC, 0), -1n);

      broker.config.offsetCheckInSlave = true;
      r = await c.call(pullRequest({ subVersion: SUB_VERSION }));
      assert.equal(r.code, ResponseCode.PULL_OFFSET_MOVED);
      assert.equal(header(r).suggestWhichBrokerId, 0n);
      assert.equal(store.puts.length, 1);

      // Upstream's "slave without slaveReadEnable" code is overwritten by the status switch.
      store.result = scripted(GetMessageStatus.FOUND);
      r = await c.call(pullRequest({ subVersion: SUB_VERSION }));
      assert.equal(r.code, ResponseCode.SUCCESS);
      assert.equal(header(r).suggestWhichBrokerId, 0n);
    },
  );

  test('filterSupportRetry picks the retry filter', LIMIT, async () => {
    const { broker, store, c } = await scriptedBroker();
    await c.call(pullRequest({ subVersion: SUB_VERSION }));
    broker.config.filterSupportRetry = true;
    await c.call(pullRequest({ subVersion: SUB_VERSION }));
    assert.deepEqual(
      store.filters.map((f) => f?.constructor.name),
      ['ExpressionMessageFilter', 'ExpressionForRetryMessageFilter'],
    );
  });
});

describe('PULL_MESSAGE: committed offsets', () => {
  test('the commit-offset flag stores commitOffset for the client on a master', LIMIT, async () => {
    const { broker, c } = await realBroker();
    await subscribeAll(c);
    await c.call(pullRequest({ commitOffset: 7n }));
    assert.equal(broker.consumerOffsetManager.queryOffset(GROUP, TOPIC, 0), -1n, 'no flag, nothing stored');
    const flag = PullSysFlag.buildSysFlag(true, false, false, false);
    const r = await c.call(pullRequest({ sysFlag: flag, commitOffset: 7n, queueId: 2 }));
    assert.equal(r.code, ResponseCode.PULL_NOT_FOUND);
    assert.equal(broker.consumerOffsetManager.queryOffset(GROUP, TOPIC, 2), 7n);
  });
});

describe('PULL_MESSAGE: long polling', () => {
  test('a held pull is answered when a message arrives, before its timeout', LIMIT, async () => {
    const { broker, clock, c } = await realBroker();
    await subscribeAll(c);
    const start = clock.now();
    const commit = SUSPEND | PullSysFlag.FLAG_COMMIT_OFFSET;
    const held = track(c.call(pullRequest({ sysFlag: commit, commitOffset: 3n, queueId: 3 })));
    await until(() => broker.pullRequestHoldService.heldCount === 1, 'the pull is held');
    // The offset is committed on the first pass even though the pull is held.
    assert.equal(broker.consumerOffsetManager.queryOffset(GROUP, TOPIC, 3), 3n);
    await settle();
    assert.equal(held.response, undefined);

    await put(broker, 0, { queueId: 3 });
    await put(broker, 1, { queueId: 3 });
    const r = await held.done;
    assert.equal(clock.now(), start, 'no time passed');
    assert.equal(r.remark, 'FOUND');
    assert.deepEqual(pulledIdx(r), ['0']);
    assert.equal(broker.pullRequestHoldService.heldCount, 0);
  });

  test('a message its tags do not match leaves it held', LIMIT, async () => {
    const { broker, c } = await realBroker();
    await subscribeAll(c);
    const held = track(c.call(pullRequest({ sysFlag: SUSPEND_SUB, subscription: 'TagA' })));
    await until(() => broker.pullRequestHoldService.heldCount === 1, 'the pull is held');
    await put(broker, 1, { tag: 'TagB' });
    await settle();
    assert.equal(held.response, undefined);
    assert.equal(broker.pullRequestHoldService.heldCount, 1);
    await put(broker, 2, { tag: 'TagA' });
    assert.deepEqual(pulledIdx(await held.done), ['2']);
  });

  test('a held SQL92 pull wakes only for a message whose properties match', LIMIT, async () => {
    const { broker, c } = await realBroker({ enablePropertyFilter: true });
    const held = track(
      c.call(pullRequest({ sysFlag: SUSPEND_SUB, subscription: 'idx > 2', expressionType: 'SQL92' })),
    );
    await until(() => broker.pullRequestHoldService.heldCount === 1, 'the pull is held');
    await put(broker, 1);
    await settle();
    assert.equal(held.response, undefined);
    await put(broker, 3);
    assert.deepEqual(pulledIdx(await held.done), ['3']);
  });

  test('a held pull is answered PULL_NOT_FOUND at its suspend timeout', LIMIT, async () => {
    const { broker, clock, c } = await realBroker();
    await subscribeAll(c);
    const held = track(c.call(pullRequest({ sysFlag: SUSPEND, suspendTimeoutMillis: 15_000n })));
    await until(() => broker.pullRequestHoldService.heldCount === 1, 'the pull is held');
    clock.advance(14_999); // checks at 5 s and 10 s: nothing new, not yet due
    await settle();
    assert.equal(held.response, undefined);
    clock.advance(1); // the 15 s check
    const r = await held.done;
    assert.deepEqual([r.code, r.remark], [ResponseCode.PULL_NOT_FOUND, 'NO_MESSAGE_IN_QUEUE']);
    assert.equal(broker.pullRequestHoldService.heldCount, 0);
  });

  test(
    'short polling: held for shortPollingTimeMills, checked every shortPollingTimeMills',
    LIMIT,
    async () => {
      const { broker, clock, c } = await realBroker({
        longPollingEnable: false,
        shortPollingTimeMills: 1000,
      });
      await subscribeAll(c);
      // A message arriving does not wake it: the check does.
      const first = track(c.call(pullRequest({ sysFlag: SUSPEND })));
      await until(() => broker.pullRequestHoldService.heldCount === 1, 'the pull is held');
      await put(broker, 0);
      await settle();
      assert.equal(first.response, undefined);
      clock.advance(1000);
      assert.deepEqual(pulledIdx(await first.done), ['0']);

      // Nothing new: answered at the hold time, though the request asked for 15 s.
      const second = track(c.call(pullRequest({ sysFlag: SUSPEND, queueOffset: 1n })));
      await until(() => broker.pullRequestHoldService.heldCount === 1, 'the pull is held');
      clock.advance(999);
      await settle();
      assert.equal(second.response, undefined);
      clock.advance(1);
      const r = await second.done;
      assert.deepEqual([r.code, r.remark], [ResponseCode.PULL_NOT_FOUND, 'OFFSET_OVERFLOW_ONE']);
    },
  );

  test('without the suspend flag PULL_NOT_FOUND is answered at once', LIMIT, async () => {
    const { broker, c } = await realBroker();
    await subscribeAll(c);
    const r = await c.call(pullRequest());
    assert.equal(r.code, ResponseCode.PULL_NOT_FOUND);
    assert.equal(broker.pullRequestHoldService.heldCount, 0);
  });

  test('a pull held on a connection that closed is dropped, not re-run', LIMIT, async () => {
    const { broker, c } = await realBroker();
    // The subscription travels with the request, so a re-run would reach the store even after the
    // group's consumer left with its connection.
    const held = track(c.call(pullRequest({ sysFlag: SUSPEND_SUB, subscription: '*' })));
    await until(() => broker.pullRequestHoldService.heldCount === 1, 'the pull is held');
    const store = broker.messageStore as DefaultMessageStore;
    const original = store.getMessage.bind(store);
    let pulls = 0;
    store.getMessage = (...args) => {
      pulls++;
      return original(...args);
    };
    c.client.close('consumer went away');
    await c.server.whenClosed();
    await assert.rejects(held.done);
    await put(broker, 0);
    await settle();
    assert.equal(broker.pullRequestHoldService.heldCount, 0);
    assert.equal(pulls, 0);
  });

  test('a pull held on a closed connection is dropped by the periodic check too', LIMIT, async () => {
    const { broker, clock, c } = await realBroker();
    await subscribeAll(c);
    track(c.call(pullRequest({ sysFlag: SUSPEND })));
    await until(() => broker.pullRequestHoldService.heldCount === 1, 'the pull is held');
    c.client.close();
    await c.server.whenClosed();
    clock.advance(5000);
    assert.equal(broker.pullRequestHoldService.heldCount, 0);
  });

  test('shutdown drops held pulls and closes their connections', LIMIT, async () => {
    const { broker, c } = await realBroker();
    await subscribeAll(c);
    const held = track(c.call(pullRequest({ sysFlag: SUSPEND })));
    await until(() => broker.pullRequestHoldService.heldCount === 1, 'the pull is held');
    await broker.shutdown();
    assert.equal(broker.pullRequestHoldService.heldCount, 0);
    assert.equal(broker.pullRequestHoldService.isRunning, false);
    await assert.rejects(held.done);
  });
});
