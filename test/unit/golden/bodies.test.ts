/**
 * JSON bodies written by fastjson 1.2.69 through the official 4.9.8 beans: parse each, compare with the
 * values the fixture was built from (the manifest's `content`), re-emit and compare bytes, and check that
 * the order of every HashMap / HashSet on the wire is the one our model of Java's HashMap gives.
 *
 * Parsed values do not carry Java types, so each body has a schema naming what the parsed value cannot
 * say: which objects are Maps rather than beans (a Map keeps its wire order, a bean is re-sorted), which
 * map keys are Integer/Long (written bare: `{0:"a"}`), which numbers are doubles (`12.5`, and `1.0` rather
 * than `1`), and which arrays are Sets. With that, stringifyFastjson reproduces every byte.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, test } from 'node:test';
import { RocketMQError } from '../../../src/common/errors.js';
import {
  type FastjsonRecord,
  FastjsonSyntaxError,
  type FastjsonValue,
  type FjEmittable,
  FjMap,
  JAVA_INTEGER_KEY,
  type JavaKeyType,
  javaDouble,
  javaHashMapIterationOrder,
  javaHashMapOrder,
  javaSet,
  parseFastjson,
  type StringifyFastjsonOptions,
  stringifyFastjson,
} from '../../../src/common/fastjson/index.js';
import { javaStringHashCode } from '../../../src/common/java-hash.js';
import { decompressBody, MessageQueue, MessageSysFlag } from '../../../src/common/message/index.js';
import { type GoldenBody, goldenFile, goldenManifest } from '../../golden-fixtures.js';
import { RUNNING_INFO_PROPERTIES } from '../common/consumer-running-golden.js';

const bodies = goldenManifest().bodies;

// ---- Java types of the beans ------------------------------------------------------------------------

type KeyType = 'string' | 'int' | 'long' | Bean;
interface Bean {
  readonly bean: Readonly<Record<string, JType>>;
}
/** `value`: a string, boolean, int or long, written as parsed. */
type JType =
  | 'value'
  | 'double'
  | Bean
  | { readonly list: JType }
  | { readonly set: JType }
  | { readonly map: KeyType; readonly of: JType };

const bean = (fields: Record<string, JType> = {}): Bean => ({ bean: fields });
const VALUES: JType = { list: 'value' };
const VALUE_SET: JType = { set: 'value' };

const MESSAGE_QUEUE = bean();
const SUBSCRIPTION_DATA = bean({ codeSet: VALUE_SET, tagsSet: VALUE_SET });
const BROKER_DATA = bean({ brokerAddrs: { map: 'long', of: 'value' } });
const TOPIC_ROUTE_DATA = bean({
  brokerDatas: { list: BROKER_DATA },
  queueDatas: { list: bean() },
  filterServerTable: { map: 'string', of: VALUES },
});
const OFFSET_TABLE = bean({ offsetTable: { map: 'string', of: { map: 'int', of: 'value' } } });
const TOPIC_CONFIG_WRAPPER = bean({
  dataVersion: bean(),
  topicConfigTable: { map: 'string', of: bean() },
});

function record(v: FastjsonValue | undefined, path: string): FastjsonRecord {
  assert.ok(
    v !== null && typeof v === 'object' && !Array.isArray(v) && !(v instanceof FjMap),
    `${path}: not a plain object`,
  );
  return v as FastjsonRecord;
}

function array(v: FastjsonValue | undefined, path: string): FastjsonValue[] {
  assert.ok(Array.isArray(v), `${path}: not an array`);
  return v;
}

function keyToJava(k: FastjsonValue, type: KeyType, path: string): FjEmittable {
  if (type === 'string') {
    assert.equal(typeof k, 'string', `${path}: String key`);
    return k;
  }
  // A parsed plain object keeps a bare number key as its decimal text.
  if (type === 'int') return Number(k);
  if (type === 'long') return BigInt(k as string);
  return toJava(k, type, `${path}<key>`);
}

/** The parsed value as the emitter must see it to write what fastjson wrote for these Java types. */
function toJava(v: FastjsonValue, type: JType, path: string): FjEmittable {
  if (type === 'value') {
    assert.ok(v === null || typeof v !== 'object', `${path}: the schema has no type for this object`);
    return v;
  }
  if (type === 'double') {
    assert.equal(typeof v, 'number', path);
    return javaDouble(v as number);
  }
  if ('bean' in type) {
    const out: Record<string, FjEmittable> = {};
    for (const [k, x] of Object.entries(record(v, path)))
      out[k] = toJava(x, type.bean[k] ?? 'value', `${path}.${k}`);
    return out;
  }
  if ('list' in type) return array(v, path).map((x, i) => toJava(x, type.list, `${path}[${i}]`));
  if ('set' in type) return javaSet(array(v, path).map((x, i) => toJava(x, type.set, `${path}[${i}]`)));
  // A Map keeps its entries in wire order. JS orders integer-like record keys ascending whatever the
  // text order; for the small Integer/Long keys here Java's HashMap iterates them ascending too (the
  // byte comparison would show otherwise).
  const entries: Array<[FjEmittable, FjEmittable]> = [];
  const source: Iterable<[FastjsonValue, FastjsonValue]> =
    v instanceof FjMap ? v.entries : Object.entries(record(v, path));
  for (const [k, x] of source) {
    entries.push([keyToJava(k, type.map, path), toJava(x, type.of, `${path}[${String(k)}]`)]);
  }
  return new FjMap(entries);
}

// ---- What each body holds (from the manifest's `content`) --------------------------------------------

const CLIENT_ID = '127.0.0.1@4242#1234567890';
const SUB_VERSION = 1700000000000;

function brokerData(name: string, master: string, slave: string): FastjsonRecord {
  return { brokerAddrs: { 0: master, 1: slave }, brokerName: name, cluster: 'DefaultCluster' };
}
const BROKER_A = brokerData('broker-a', '127.0.0.1:10911', '127.0.0.2:10911');
const BROKER_B = brokerData('broker-b', '127.0.0.3:10911', '127.0.0.4:10911');

function queueData(name: string): FastjsonRecord {
  return { brokerName: name, perm: 6, readQueueNums: 4, topicSysFlag: 0, writeQueueNums: 4 };
}

const ROUTE: FastjsonRecord = {
  brokerDatas: [BROKER_A, BROKER_B],
  filterServerTable: {},
  orderTopicConf: 'broker-a:4;broker-b:4',
  queueDatas: [queueData('broker-a'), queueData('broker-b')],
};

/** FilterAPI.buildSubscriptionData: tags split on "||" and trimmed, codeSet their hash codes. */
function subscription(topic: string, expression: string, tags: string[]): FastjsonRecord {
  return {
    classFilterMode: false,
    codeSet: tags.map(javaStringHashCode),
    expressionType: 'TAG',
    subString: expression,
    subVersion: SUB_VERSION,
    tagsSet: tags,
    topic,
  };
}
const SUB_TOPIC = subscription('TopicTest', 'TagA || TagB', ['TagA', 'TagB']);
const SUB_RETRY = subscription('%RETRY%cg-golden', '*', []);

function mq(queueId: number): FastjsonRecord {
  return { brokerName: 'broker-a', queueId, topic: 'TopicTest' };
}

const OFFSETS: FastjsonRecord = {
  offsetTable: {
    'TopicTest@cg-golden': { 0: 118, 1: 57, 3: 9007199254740993n },
    '%RETRY%cg-golden@cg-golden': { 0: 0 },
  },
};

/** A broadcasting consumer's offsets.json (OffsetSerializeWrapper), as the fixture's `content` lists it. */
const LOCAL_OFFSETS: FastjsonRecord = {
  offsetTable: new FjMap<FastjsonValue, FastjsonValue>([
    [mq(0), 118],
    [mq(1), 0],
    [mq(2), 9007199254740993n],
    [{ brokerName: 'broker-b', queueId: 0, topic: 'TopicTest' }, 57],
    [{ brokerName: 'broker-a', queueId: 3, topic: 'TopicOrder' }, 3],
  ]),
};
const LOCAL_OFFSETS_TYPE = bean({ offsetTable: { map: MESSAGE_QUEUE, of: 'value' } });

const TOPIC_CONFIGS: FastjsonRecord = {
  dataVersion: { counter: 7, timestamp: 1700000000789 },
  topicConfigTable: {
    TopicTest: {
      order: false,
      perm: 6,
      readQueueNums: 4,
      topicFilterType: 'SINGLE_TAG',
      topicName: 'TopicTest',
      topicSysFlag: 0,
      writeQueueNums: 4,
    },
    TopicOrder: {
      order: true,
      perm: 6,
      readQueueNums: 8,
      topicFilterType: 'MULTI_TAG',
      topicName: 'TopicOrder',
      topicSysFlag: 1,
      writeQueueNums: 8,
    },
  },
};
const FILTER_SERVERS = ['127.0.0.1:30000'];

function subscriptionGroup(
  groupName: string,
  overrides: Partial<Record<string, number | boolean>> = {},
): FastjsonRecord {
  // SubscriptionGroupConfig's defaults.
  const defaults: FastjsonRecord = {
    brokerId: 0,
    consumeBroadcastEnable: true,
    consumeEnable: true,
    consumeFromMinEnable: true,
    notifyConsumerIdsChangedEnable: true,
    retryMaxTimes: 16,
    retryQueueNums: 1,
    whichBrokerWhenConsumeSlowly: 1,
  };
  const out: FastjsonRecord = { ...defaults, groupName };
  for (const [k, v] of Object.entries(overrides)) if (v !== undefined) out[k] = v;
  return out;
}

// GET_CONSUMER_RUNNING_INFO / CONSUME_MESSAGE_DIRECTLY bodies (BodyFixtures.consumerRunningBodies).
const CONSUME_STATUS = bean(
  Object.fromEntries(
    ['consumeFailedTPS', 'consumeOKTPS', 'consumeRT', 'pullRT', 'pullTPS'].map((k) => [k, 'double']),
  ),
);
const CONSUMER_RUNNING_INFO = bean({
  mqTable: { map: MESSAGE_QUEUE, of: bean() },
  properties: { map: 'string', of: 'value' },
  statusTable: { map: 'string', of: CONSUME_STATUS },
  subscriptionSet: { set: SUBSCRIPTION_DATA },
});
const STATUS_ZERO: FastjsonRecord = {
  consumeFailedMsgs: 0,
  consumeFailedTPS: 0,
  consumeOKTPS: 0,
  consumeRT: 0,
  pullRT: 0,
  pullTPS: 0,
};
const STATUS_TOPIC_TEST: FastjsonRecord = {
  consumeFailedMsgs: 9007199254740993n,
  consumeFailedTPS: 1.0e-4,
  consumeOKTPS: 2,
  consumeRT: 12345678.9,
  pullRT: 1.5,
  pullTPS: 1 / 3,
};

/** A long as the parser gives it: a number when it fits, else a bigint. */
const long = (n: bigint): number | bigint => (n <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(n) : n);

/** BodyFixtures.processQueueInfo(base, locked, dropped). */
function processQueueInfo(base: bigint, locked: boolean, droped: boolean): FastjsonRecord {
  return {
    cachedMsgCount: 32,
    cachedMsgMaxOffset: long(base + 32n),
    cachedMsgMinOffset: long(base + 1n),
    cachedMsgSizeInMiB: 3,
    commitOffset: long(base),
    droped,
    lastConsumeTimestamp: 1700000000300,
    lastLockTimestamp: 1700000000100,
    lastPullTimestamp: 1700000000200,
    locked,
    transactionMsgCount: 4,
    transactionMsgMaxOffset: long(base + 4n),
    transactionMsgMinOffset: long(base + 1n),
    tryUnlockTimes: 2,
  };
}
const PROCESS_QUEUE_INFO_ZERO: FastjsonRecord = Object.fromEntries(
  Object.entries(processQueueInfo(0n, false, false)).map(([k, v]) => [k, typeof v === 'boolean' ? false : 0]),
);

interface BodyCase {
  readonly type: JType;
  readonly expected: FastjsonValue;
  readonly options?: StringifyFastjsonOptions;
}

/** The runtime-info keys in their put order, as the fixture's `content` lists them. */
const RUNTIME_INFO_KEYS: string[] =
  /in the order (\S+); each value/
    .exec(bodies.find((b) => b.name === 'kv-table.runtime-info')?.content ?? '')?.[1]
    ?.split(',') ?? [];

const CASES: Record<string, BodyCase> = {
  'topic-route.default': { type: TOPIC_ROUTE_DATA, expected: ROUTE },
  // BrowserCompatible + MapSortField: Long keys become JSON strings, map entries are sorted.
  'topic-route.standard': { type: TOPIC_ROUTE_DATA, expected: ROUTE, options: { form: 'standard' } },
  'cluster-info': {
    type: bean({
      brokerAddrTable: { map: 'string', of: BROKER_DATA },
      clusterAddrTable: { map: 'string', of: VALUE_SET },
    }),
    expected: {
      brokerAddrTable: { 'broker-a': BROKER_A, 'broker-b': BROKER_B },
      clusterAddrTable: { DefaultCluster: ['broker-b', 'broker-a'] },
    },
  },
  'topic-list': {
    type: bean({ topicList: VALUE_SET }),
    expected: { topicList: ['%RETRY%cg-golden', 'TopicTest', 'TopicOrder', 'TBW102'] },
  },
  'topic-list.with-broker-addr': {
    type: bean({ topicList: VALUE_SET }),
    expected: { brokerAddr: '127.0.0.1:10911', topicList: ['TopicTest'] },
  },
  'group-list': {
    type: bean({ groupList: VALUE_SET }),
    expected: { groupList: ['cg-other', 'cg-golden'] },
  },
  'kv-table': {
    type: bean({ table: { map: 'string', of: 'value' } }),
    expected: { table: { 'broker-a': '4', brokerVersionDesc: 'V4_9_8', note: 'naïve "quoted" \\ 订单' } },
  },
  'consume-stats': {
    type: bean({ consumeTps: 'double', offsetTable: { map: MESSAGE_QUEUE, of: bean() } }),
    expected: {
      consumeTps: 12.5,
      offsetTable: new FjMap<FastjsonValue, FastjsonValue>([
        [mq(0), { brokerOffset: 120, consumerOffset: 118, lastTimestamp: 1700000000000 }],
        [mq(1), { brokerOffset: 121, consumerOffset: 119, lastTimestamp: 1700000000001 }],
      ]),
    },
  },
  'consume-stats-list': {
    type: bean({
      brokerAddr: 'value',
      consumeStatsList: {
        list: {
          map: 'string',
          of: { list: bean({ consumeTps: 'double', offsetTable: { map: MESSAGE_QUEUE, of: bean() } }) },
        },
      },
      totalDiff: 'value',
    }),
    expected: {
      brokerAddr: '127.0.0.1:10911',
      consumeStatsList: [
        {
          'cg-golden': [
            {
              consumeTps: 12.5,
              offsetTable: new FjMap<FastjsonValue, FastjsonValue>([
                [mq(0), { brokerOffset: 120, consumerOffset: 118, lastTimestamp: 1700000000000 }],
                [mq(1), { brokerOffset: 121, consumerOffset: 119, lastTimestamp: 1700000000001 }],
              ]),
            },
          ],
        },
        { 'cg-other': [] },
      ],
      totalDiff: 4,
    },
  },
  'reset-offset-body': {
    type: bean({ offsetTable: { map: MESSAGE_QUEUE, of: 'value' } }),
    expected: {
      offsetTable: new FjMap<FastjsonValue, FastjsonValue>([
        [mq(3), 118],
        [mq(2), 9007199254740993n],
        [mq(1), 57],
        [mq(0), 0],
      ]),
    },
  },
  'reset-offset-body-for-c': {
    type: bean({ offsetTable: { list: bean() } }),
    expected: {
      offsetTable: [
        { ...mq(3), offset: 118 },
        { ...mq(2), offset: 9007199254740993n },
        { ...mq(1), offset: 57 },
        { ...mq(0), offset: 0 },
      ],
    },
  },
  'get-consumer-status-body.client': {
    type: bean({
      consumerTable: { map: 'string', of: { map: MESSAGE_QUEUE, of: 'value' } },
      messageQueueTable: { map: MESSAGE_QUEUE, of: 'value' },
    }),
    expected: {
      consumerTable: {},
      messageQueueTable: new FjMap<FastjsonValue, FastjsonValue>([
        [mq(2), 102],
        [mq(1), 101],
        [mq(0), 100],
      ]),
    },
  },
  'get-consumer-status-body.broker': {
    type: bean({
      consumerTable: { map: 'string', of: { map: MESSAGE_QUEUE, of: 'value' } },
      messageQueueTable: { map: MESSAGE_QUEUE, of: 'value' },
    }),
    expected: {
      consumerTable: {
        '127.0.0.2@4243#1234567891': new FjMap<FastjsonValue, FastjsonValue>([[mq(2), 9007199254740993n]]),
        [CLIENT_ID]: new FjMap<FastjsonValue, FastjsonValue>([
          [mq(1), 101],
          [mq(0), 100],
        ]),
      },
      messageQueueTable: {},
    },
  },
  'topic-stats-table': {
    type: bean({ offsetTable: { map: MESSAGE_QUEUE, of: bean() } }),
    expected: {
      offsetTable: new FjMap<FastjsonValue, FastjsonValue>([
        [mq(0), { lastUpdateTimestamp: 1700000000000, maxOffset: 1000, minOffset: 0 }],
        [mq(1), { lastUpdateTimestamp: 1700000000001, maxOffset: 1001, minOffset: 1 }],
      ]),
    },
  },
  'consume-stats.many': {
    type: bean({ consumeTps: 'double', offsetTable: { map: MESSAGE_QUEUE, of: bean() } }),
    expected: {
      consumeTps: 1 / 3,
      offsetTable: new FjMap<FastjsonValue, FastjsonValue>(
        ['TopicTest', 'TopicOrder'].flatMap((topic) =>
          [0, 1, 2, 3, 4, 5, 6, 7].map((q): [FastjsonValue, FastjsonValue] => [
            { brokerName: 'broker-a', queueId: q, topic },
            {
              brokerOffset: 1000 * q + 7,
              consumerOffset: 1000 * q,
              lastTimestamp: q === 0 ? 0 : 1700000000000 + q,
            },
          ]),
        ),
      ),
    },
  },
  'broker-stats-data': {
    type: bean(
      Object.fromEntries(
        ['statsDay', 'statsHour', 'statsMinute'].map((k) => [k, bean({ avgpt: 'double', tps: 'double' })]),
      ),
    ),
    expected: {
      statsDay: { avgpt: 12345678.9, sum: 9007199254740993n, tps: 1.0e-4 },
      statsHour: { avgpt: 0, sum: 7200, tps: 1 / 3 },
      statsMinute: { avgpt: 1.5, sum: 120, tps: 2 },
    },
  },
  'kv-table.runtime-info': {
    type: bean({ table: { map: 'string', of: 'value' } }),
    expected: {
      table: Object.fromEntries(RUNTIME_INFO_KEYS.map((k, i) => [k, String(i)])),
    },
  },
  'consumer-offset-wrapper': { type: OFFSET_TABLE, expected: OFFSETS },
  'consumerOffset.pretty': { type: OFFSET_TABLE, expected: OFFSETS, options: { pretty: true } },
  'consumerOffset.compact': { type: OFFSET_TABLE, expected: OFFSETS },
  'offset-serialize-wrapper': { type: LOCAL_OFFSETS_TYPE, expected: LOCAL_OFFSETS },
  'offset-serialize-wrapper.pretty': {
    type: LOCAL_OFFSETS_TYPE,
    expected: LOCAL_OFFSETS,
    options: { pretty: true },
  },
  heartbeat: {
    type: bean({
      consumerDataSet: { set: bean({ subscriptionDataSet: { set: SUBSCRIPTION_DATA } }) },
      producerDataSet: { set: bean() },
    }),
    expected: {
      clientID: CLIENT_ID,
      consumerDataSet: [
        {
          consumeFromWhere: 'CONSUME_FROM_LAST_OFFSET',
          consumeType: 'CONSUME_PASSIVELY',
          groupName: 'cg-golden',
          messageModel: 'CLUSTERING',
          subscriptionDataSet: [SUB_RETRY, SUB_TOPIC],
          unitMode: false,
        },
      ],
      producerDataSet: [{ groupName: 'pg-golden' }],
    },
  },
  'lock-batch-request': {
    type: bean({ mqSet: { set: MESSAGE_QUEUE } }),
    expected: { clientId: CLIENT_ID, consumerGroup: 'cg-golden', mqSet: [mq(1), mq(0)] },
  },
  'topic-config-wrapper': { type: TOPIC_CONFIG_WRAPPER, expected: TOPIC_CONFIGS },
  'register-broker-body': {
    type: bean({ filterServerList: VALUES, topicConfigSerializeWrapper: TOPIC_CONFIG_WRAPPER }),
    expected: { filterServerList: FILTER_SERVERS, topicConfigSerializeWrapper: TOPIC_CONFIGS },
  },
  'subscription-group-config.defaults': { type: bean(), expected: subscriptionGroup('cg-golden') },
  'subscription-group-config.custom': {
    type: bean(),
    expected: subscriptionGroup('cg-custom', {
      consumeBroadcastEnable: false,
      retryMaxTimes: 3,
      retryQueueNums: 2,
      brokerId: 1,
      whichBrokerWhenConsumeSlowly: 2,
      notifyConsumerIdsChangedEnable: false,
    }),
  },
  'consumer-connection': {
    type: bean({
      connectionSet: { set: bean() },
      subscriptionTable: { map: 'string', of: SUBSCRIPTION_DATA },
    }),
    expected: {
      connectionSet: [{ clientAddr: '127.0.0.1:53211', clientId: CLIENT_ID, language: 'JAVA', version: 409 }],
      consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
      consumeType: 'CONSUME_PASSIVELY',
      messageModel: 'CLUSTERING',
      subscriptionTable: { TopicTest: SUB_TOPIC },
    },
  },
  'consume-status': { type: CONSUME_STATUS, expected: STATUS_TOPIC_TEST },
  'consume-status.zero': { type: CONSUME_STATUS, expected: STATUS_ZERO },
  'process-queue-info': { type: bean(), expected: processQueueInfo(9007199254740993n, true, true) },
  'consumer-running-info': {
    type: CONSUMER_RUNNING_INFO,
    expected: {
      mqTable: new FjMap<FastjsonValue, FastjsonValue>([
        [{ brokerName: 'broker-a', queueId: 0, topic: '%RETRY%cg-golden' }, PROCESS_QUEUE_INFO_ZERO],
        [{ brokerName: 'broker-a', queueId: 0, topic: 'TopicOrder' }, processQueueInfo(0n, true, true)],
        [mq(2), processQueueInfo(102n, true, false)],
        [mq(10), processQueueInfo(110n, false, false)],
        [{ brokerName: 'broker-b', queueId: 1, topic: 'TopicTest' }, processQueueInfo(200n, false, false)],
      ]),
      properties: Object.fromEntries(RUNNING_INFO_PROPERTIES),
      statusTable: {
        '%RETRY%cg-golden': STATUS_ZERO,
        TopicOrder: { ...STATUS_ZERO, consumeOKTPS: 10, consumeRT: 3.25, pullRT: 0.5, pullTPS: 10 },
        TopicTest: STATUS_TOPIC_TEST,
      },
      // A TreeSet: by topic@subString.
      subscriptionSet: [SUB_RETRY, subscription('TopicOrder', '*', []), SUB_TOPIC],
    },
  },
  'consumer-running-info.empty': {
    type: CONSUMER_RUNNING_INFO,
    expected: { mqTable: {}, properties: {}, statusTable: {}, subscriptionSet: [] },
  },
  'consumer-running-info.jstack': {
    type: CONSUMER_RUNNING_INFO,
    expected: {
      jstack: '"main" Id=1 RUNNABLE\n\tat Main.run(Main.java:7)\n',
      mqTable: {},
      properties: { PROP_CONSUME_TYPE: 'CONSUME_PASSIVELY' },
      statusTable: {},
      subscriptionSet: [],
    },
  },
  'consume-message-directly-result': {
    type: bean(),
    expected: { autoCommit: true, consumeResult: 'CR_SUCCESS', order: false, spentTimeMills: 12 },
  },
  'consume-message-directly-result.thrown': {
    type: bean(),
    expected: {
      autoCommit: false,
      consumeResult: 'CR_THROW_EXCEPTION',
      order: true,
      remark: 'java.lang.IllegalStateException: bad "order" 订单',
      spentTimeMills: 9007199254740993n,
    },
  },
  'consume-message-directly-result.empty': {
    type: bean(),
    expected: { autoCommit: true, order: false, spentTimeMills: 0 },
  },
};

/** Map entries sorted (their order is checked on its own below), everything else as is. */
function canon(v: FastjsonValue): unknown {
  if (v instanceof FjMap) {
    return {
      map: v.entries
        .map(([k, x]): [string, unknown] => [stringifyFastjson(k), canon(x)])
        .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)),
    };
  }
  if (Array.isArray(v)) return v.map(canon);
  if (v !== null && typeof v === 'object') {
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, canon(x)]));
  }
  return v;
}

function sha256(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}

const jsonBodies = bodies.filter((b) => b.file.endsWith('.json'));

describe('golden JSON bodies (fastjson 1.2.69)', () => {
  test('every JSON body in the manifest has a case here, and no case is missing from it', () => {
    assert.deepEqual(jsonBodies.map((b) => b.name).sort(), Object.keys(CASES).sort());
  });

  jsonBodies.forEach((g, index) => {
    const next = jsonBodies[(index + 1) % jsonBodies.length] as GoldenBody;
    test(`${g.name} (${g.javaClass.slice(g.javaClass.lastIndexOf('.') + 1)})`, () => {
      const c = CASES[g.name];
      assert.ok(c, `no case for ${g.name}`);
      const bytes = goldenFile(g.file);
      assert.equal(bytes.length, g.length);
      assert.equal(sha256(bytes), g.sha256);
      assert.equal(g.reparsedEqualsBean, true, 'fastjson read its own bytes back into an equal bean');

      const parsed = parseFastjson(bytes, { what: g.name });
      assert.deepEqual(canon(parsed), canon(c.expected));

      const text = stringifyFastjson(toJava(parsed, c.type, g.name), c.options);
      assert.equal(text, bytes.toString('utf8'));
      assert.equal(Buffer.from(text, 'utf8').toString('hex'), bytes.toString('hex'));

      // One body per frame: two back to back are not one JSON value.
      assert.throws(
        () => parseFastjson(Buffer.concat([bytes, goldenFile(next.file)])),
        FastjsonSyntaxError,
        'two bodies back to back',
      );
      for (const n of [0, 1, Math.floor(bytes.length / 2), bytes.length - 1]) {
        assert.throws(() => parseFastjson(bytes.subarray(0, n)), RocketMQError, `cut to ${n} bytes`);
      }
    });
  });

  test('the same route reads the same in both forms, and the offsets in all three files', () => {
    const parse = (name: string) => {
      const g = bodies.find((b) => b.name === name);
      assert.ok(g);
      return canon(parseFastjson(goldenFile(g.file)));
    };
    assert.deepEqual(parse('topic-route.default'), parse('topic-route.standard'));
    assert.deepEqual(parse('consumerOffset.pretty'), parse('consumer-offset-wrapper'));
    assert.deepEqual(parse('consumerOffset.compact'), parse('consumer-offset-wrapper'));
  });
});

// ---- Wire order of HashMaps and HashSets ------------------------------------------------------------

function parsedBody(name: string): FastjsonRecord {
  const g = bodies.find((b) => b.name === name);
  assert.ok(g);
  return record(parseFastjson(goldenFile(g.file)), name);
}

function stringKeys(v: FastjsonValue | undefined, path: string): string[] {
  return Object.keys(record(v, path));
}

function strings(v: FastjsonValue | undefined, path: string): string[] {
  return array(v, path).map((x) => {
    assert.equal(typeof x, 'string', path);
    return x as string;
  });
}

function queue(v: FastjsonValue, path: string): MessageQueue {
  const r = record(v, path);
  return new MessageQueue(r.topic as string, r.brokerName as string, r.queueId as number);
}

const MESSAGE_QUEUE_KEY: JavaKeyType<MessageQueue> = {
  hashCode: (q) => q.hashCode(),
  equals: (a, b) => a.equals(b),
  compareTo: MessageQueue.compare,
};

describe('golden bodies: HashMap and HashSet order on the wire is Java iteration order', () => {
  // Each check puts the keys in the order the fixture inserted them (the manifest's `content`) into
  // our model of java.util.HashMap and expects the order fastjson wrote. These ConcurrentHashMaps and
  // HashSets are small enough to keep HashMap's 16 buckets, and use the same hash spread.
  test('String keys (HashMap, ConcurrentHashMap, HashSet)', () => {
    const ci = parsedBody('cluster-info');
    assert.deepEqual(
      stringKeys(ci.brokerAddrTable, 'brokerAddrTable'),
      javaHashMapOrder(['broker-a', 'broker-b']),
    );
    assert.deepEqual(
      strings(record(ci.clusterAddrTable, 'clusterAddrTable').DefaultCluster, 'DefaultCluster'),
      javaHashMapOrder(['broker-a', 'broker-b']),
    );
    assert.deepEqual(
      strings(parsedBody('topic-list').topicList, 'topicList'),
      javaHashMapOrder(['TopicTest', 'TopicOrder', '%RETRY%cg-golden', 'TBW102']),
    );
    assert.deepEqual(
      strings(parsedBody('group-list').groupList, 'groupList'),
      javaHashMapOrder(['cg-golden', 'cg-other']),
    );
    assert.deepEqual(
      stringKeys(parsedBody('kv-table').table, 'table'),
      javaHashMapOrder(['broker-a', 'brokerVersionDesc', 'note']),
    );
    for (const name of ['consumer-offset-wrapper', 'consumerOffset.pretty', 'consumerOffset.compact']) {
      assert.deepEqual(
        stringKeys(parsedBody(name).offsetTable, name),
        javaHashMapOrder(['TopicTest@cg-golden', '%RETRY%cg-golden@cg-golden']),
        name,
      );
    }
    assert.deepEqual(
      stringKeys(parsedBody('topic-config-wrapper').topicConfigTable, 'topicConfigTable'),
      javaHashMapOrder(['TopicTest', 'TopicOrder']),
    );
    const sub = record(record(parsedBody('consumer-connection').subscriptionTable, 's').TopicTest, 'sub');
    assert.deepEqual(strings(sub.tagsSet, 'tagsSet'), javaHashMapOrder(['TagA', 'TagB']));
  });

  test('Integer keys (codeSet, consumer offsets)', () => {
    const sub = record(record(parsedBody('consumer-connection').subscriptionTable, 's').TopicTest, 'sub');
    assert.deepEqual(
      array(sub.codeSet, 'codeSet'),
      javaHashMapIterationOrder([javaStringHashCode('TagA'), javaStringHashCode('TagB')], JAVA_INTEGER_KEY),
    );
    const table = record(parsedBody('consumer-offset-wrapper').offsetTable, 'offsetTable');
    assert.deepEqual(
      stringKeys(table['TopicTest@cg-golden'], 'TopicTest@cg-golden').map(Number),
      javaHashMapIterationOrder([0, 1, 3], JAVA_INTEGER_KEY),
    );
  });

  test('MessageQueue keys (MessageQueue.hashCode)', () => {
    const inserted = [0, 1].map((q) => new MessageQueue('TopicTest', 'broker-a', q));
    const javaOrder = javaHashMapIterationOrder(inserted, MESSAGE_QUEUE_KEY).map((q) => q.queueId);
    for (const name of ['consume-stats', 'topic-stats-table']) {
      const table = parsedBody(name).offsetTable;
      assert.ok(table instanceof FjMap, name);
      assert.deepEqual(
        table.keys().map((k) => queue(k, name).queueId),
        javaOrder,
        name,
      );
    }
    const mqSet = array(parsedBody('lock-batch-request').mqSet, 'mqSet');
    assert.deepEqual(
      mqSet.map((m) => queue(m, 'mqSet').queueId),
      javaOrder,
    );
  });
});

// ---- REGISTER_BROKER compressed body ----------------------------------------------------------------

describe('golden compressed REGISTER_BROKER body (RegisterBrokerBody.encode(true))', () => {
  const g = bodies.find((b) => b.name === 'register-broker-body.compressed');
  const json = bodies.find((b) => b.name === 'register-broker-body');

  test('inflates to the binary layout holding the same topics and filter servers', () => {
    assert.ok(g?.decodedTopics && json);
    const bytes = goldenFile(g.file);
    assert.equal(bytes.length, g.length);
    // java.util.zip's BEST_COMPRESSION output need not match Node's zlib, so only the inflated
    // content is compared; the bean's JSON parts are re-emitted byte for byte.
    const raw = decompressBody(bytes, MessageSysFlag.COMPRESSED_FLAG);
    let p = 0;
    const chunk = (): Buffer => {
      const n = raw.readInt32BE(p);
      assert.ok(n >= 0 && p + 4 + n <= raw.length, `length ${n} at ${p}`);
      const out = raw.subarray(p + 4, p + 4 + n);
      p += 4 + n;
      return out;
    };
    const wrapper = record(parsedBody('register-broker-body').topicConfigSerializeWrapper, 'wrapper');

    const dataVersion = chunk();
    const dv = parseFastjson(dataVersion);
    assert.deepEqual(dv, wrapper.dataVersion);
    assert.equal(stringifyFastjson(toJava(dv, bean(), 'dataVersion')), dataVersion.toString('utf8'));

    const count = raw.readInt32BE(p);
    p += 4;
    const topics: string[] = [];
    const table = record(wrapper.topicConfigTable, 'topicConfigTable');
    for (let i = 0; i < count; i++) {
      // TopicConfig.encode: name, read and write queue numbers, perm, filter type; space separated.
      const text = chunk().toString('utf8');
      const [name, ...rest] = text.split(' ');
      assert.ok(name !== undefined);
      const tc = record(table[name], name);
      assert.equal(
        text,
        [tc.topicName, tc.readQueueNums, tc.writeQueueNums, tc.perm, tc.topicFilterType].join(' '),
      );
      assert.equal(rest.length, 4);
      topics.push(name);
    }
    assert.deepEqual([...topics].sort(), g.decodedTopics);
    assert.deepEqual(topics, javaHashMapOrder(Object.keys(table)), 'ConcurrentHashMap order');

    const filterServers = chunk();
    const list = parseFastjson(filterServers);
    assert.deepEqual(list, parsedBody('register-broker-body').filterServerList);
    assert.equal(stringifyFastjson(toJava(list, VALUES, 'filterServerList')), filterServers.toString('utf8'));
    assert.equal(p, raw.length, 'nothing after the filter server list');

    for (const n of [0, 2, 10, Math.floor(bytes.length / 2), bytes.length - 1]) {
      assert.throws(
        () => decompressBody(bytes.subarray(0, n), MessageSysFlag.COMPRESSED_FLAG),
        RocketMQError,
        `cut to ${n} bytes`,
      );
    }
  });
});
