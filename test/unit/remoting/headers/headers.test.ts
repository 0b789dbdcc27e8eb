import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { javaStringHashCode } from '../../../../src/common/java-hash.js';
import {
  type AnyHeaderSchema,
  decodeHeader,
  encodeHeader,
  encodeHeaderFast,
  type FieldValue,
  type HeaderField,
  HeaderFieldError,
  type HeaderInputOf,
} from '../../../../src/remoting/protocol/header-schema.js';
import {
  ConsumerSendMsgBackRequestHeader,
  CreateTopicRequestHeader,
  createSendMessageRequestHeaderV1,
  createSendMessageRequestHeaderV2,
  EndTransactionRequestHeader,
  GetRouteInfoRequestHeader,
  headerSchemas,
  PullMessageRequestHeader,
  PullMessageResponseHeader,
  RegisterBrokerRequestHeader,
  ResetOffsetRequestHeader,
  requestHeaderByCode,
  responseHeaderByCode,
  SendMessageRequestHeader,
  SendMessageRequestHeaderV2,
  SendMessageResponseHeader,
} from '../../../../src/remoting/protocol/headers/index.js';
import { RequestCode, requestCodeName } from '../../../../src/remoting/protocol/request-code.js';

const schemas: Array<[string, AnyHeaderSchema]> = Object.entries(headerSchemas);

function sampleOf(f: HeaderField, seed: number): FieldValue {
  switch (f.type) {
    case 'string':
      return `${f.prop}-${seed}`;
    case 'int':
      return seed % 2 === 0 ? 2147483647 - seed : -seed;
    case 'long':
      return 2n ** 60n + BigInt(seed);
    case 'boolean':
      return true;
    case 'double':
      return seed + 0.25;
  }
}

function fullValue(schema: AnyHeaderSchema): Record<string, FieldValue> {
  const value: Record<string, FieldValue> = {};
  schema.fields.forEach((f, i) => {
    value[f.prop] = sampleOf(f, i + 1);
  });
  return value;
}

function requiredOnly(schema: AnyHeaderSchema): Record<string, FieldValue> {
  const value: Record<string, FieldValue> = {};
  schema.fields.forEach((f, i) => {
    if (f.required && !f.hasDefault) value[f.prop] = sampleOf(f, i + 1);
  });
  return value;
}

/** Java 8+ HashMap iteration order of a map filled by `put` in the given key order. */
function javaHashMapOrder(keys: readonly string[]): string[] {
  let capacity = 16;
  while (keys.length > capacity * 0.75) capacity *= 2;
  const bucket = (k: string): number => {
    const h = javaStringHashCode(k);
    return (h ^ (h >>> 16)) & (capacity - 1);
  };
  return keys
    .map((k, i) => ({ k, i, b: bucket(k) }))
    .sort((x, y) => x.b - y.b || x.i - y.i)
    .map((x) => x.k);
}

describe('every header', () => {
  test('registry is keyed by the Java simple name', () => {
    assert.ok(schemas.length >= 60);
    for (const [name, schema] of schemas) {
      assert.equal(schema.name, name);
      assert.ok(schema.javaClass.endsWith(`.${name}`));
      assert.ok(schema.javaClass.startsWith('org.apache.rocketmq.common.protocol.header.'));
    }
  });

  for (const [name, schema] of schemas) {
    test(`${name}: round trip with every field set`, () => {
      const value = fullValue(schema);
      const ext = encodeHeader(schema, value as HeaderInputOf<typeof schema>);
      assert.deepEqual(
        Object.keys(ext),
        schema.javaOrder.map((f) => f.key),
      );
      for (const v of Object.values(ext)) assert.equal(typeof v, 'string');
      assert.deepEqual(decodeHeader(schema, ext), value);
    });

    test(`${name}: round trip with required fields only`, () => {
      const ext = encodeHeader(schema, requiredOnly(schema) as HeaderInputOf<typeof schema>);
      const decoded = decodeHeader(schema, ext) as Record<string, FieldValue | undefined>;
      schema.fields.forEach((f, i) => {
        const expected = f.required && !f.hasDefault ? sampleOf(f, i + 1) : f.defaultValue;
        assert.deepEqual(decoded[f.prop], expected, f.prop);
        assert.equal(f.key in ext, expected !== undefined, f.key);
      });
    });

    test(`${name}: each missing required key gives upstream's error`, () => {
      const ext = encodeHeader(schema, fullValue(schema) as HeaderInputOf<typeof schema>);
      for (const f of schema.fields.filter((x) => x.required)) {
        const without = { ...ext };
        delete without[f.key];
        assert.throws(
          () => decodeHeader(schema, without),
          (e: unknown) =>
            e instanceof HeaderFieldError &&
            e.message === `the custom field <${f.key}> is null` &&
            e.responseCode === 1,
        );
      }
    });

    test(`${name}: a bad number in a required field is named`, () => {
      const ext = encodeHeader(schema, fullValue(schema) as HeaderInputOf<typeof schema>);
      for (const f of schema.fields.filter((x) => x.required && (x.type === 'int' || x.type === 'long'))) {
        assert.throws(
          () => decodeHeader(schema, { ...ext, [f.key]: '1x' }),
          (e: unknown) => e instanceof HeaderFieldError && e.field === f.key && e.value === '1x',
        );
      }
    });
  }
});

describe('Java field order', () => {
  // Observed by calling RemotingCommand.getClazzFields on the real 4.9.8 classes.
  const observed: Array<[AnyHeaderSchema, string]> = [
    [
      PullMessageRequestHeader,
      'maxMsgNums,sysFlag,suspendTimeoutMillis,commitOffset,queueId,consumerGroup,bname,subVersion,queueOffset,expressionType,subscription,topic',
    ],
    [PullMessageResponseHeader, 'maxOffset,minOffset,suggestWhichBrokerId,nextBeginOffset'],
    [SendMessageRequestHeaderV2, 'bname,e,d,g,f,a,c,b,m,l,n,i,h,k,j'],
    [
      SendMessageRequestHeader,
      'producerGroup,maxReconsumeTimes,properties,bname,bornTimestamp,topic,sysFlag,reconsumeTimes,flag,queueId,defaultTopic,defaultTopicQueueNums,unitMode,batch',
    ],
    [SendMessageResponseHeader, 'queueOffset,msgId,transactionId,queueId'],
    [
      EndTransactionRequestHeader,
      'fromTransactionCheck,transactionId,msgId,tranStateTableOffset,commitOrRollback,commitLogOffset,bname,producerGroup',
    ],
    [
      ConsumerSendMsgBackRequestHeader,
      'originMsgId,group,unitMode,maxReconsumeTimes,bname,originTopic,offset,delayLevel',
    ],
    [
      RegisterBrokerRequestHeader,
      'brokerName,brokerAddr,haServerAddr,compressed,clusterName,brokerId,bodyCrc32',
    ],
    [ResetOffsetRequestHeader, 'group,timestamp,topic,isForce'],
  ];
  for (const [schema, order] of observed) {
    test(schema.name, () => {
      assert.deepEqual(
        schema.javaOrder.map((f) => f.key),
        order.split(','),
      );
    });
  }
});

describe('PULL_MESSAGE', () => {
  const value = {
    consumerGroup: 'g',
    topic: 'T',
    queueId: 0,
    queueOffset: 0n,
    maxMsgNums: 32,
    sysFlag: 2,
    commitOffset: 0n,
    suspendTimeoutMillis: 15000n,
    subVersion: 1700000000000n,
    expressionType: 'TAG',
    bname: 'broker-a',
  };

  test('the request of spec §1.2', () => {
    const ext = encodeHeader(PullMessageRequestHeader, value);
    assert.deepEqual(ext, {
      bname: 'broker-a',
      commitOffset: '0',
      consumerGroup: 'g',
      expressionType: 'TAG',
      maxMsgNums: '32',
      queueId: '0',
      queueOffset: '0',
      subVersion: '1700000000000',
      suspendTimeoutMillis: '15000',
      sysFlag: '2',
      topic: 'T',
    });
    // The extFields order a real 4.9.8 client puts on the wire for this request (HashMap order).
    assert.deepEqual(
      javaHashMapOrder(Object.keys(ext)),
      'queueId,maxMsgNums,sysFlag,suspendTimeoutMillis,commitOffset,bname,topic,queueOffset,expressionType,subVersion,consumerGroup'.split(
        ',',
      ),
    );
    const decoded = decodeHeader(PullMessageRequestHeader, ext);
    assert.deepEqual(decoded, { ...value, subscription: undefined });
    const queueOffset: bigint = decoded.queueOffset;
    const subscription: string | undefined = decoded.subscription;
    assert.equal(queueOffset, 0n);
    assert.equal(subscription, undefined);
  });

  test('fast encoding writes declaration order with bname last', () => {
    assert.deepEqual(Object.keys(encodeHeaderFast(PullMessageRequestHeader, value)), [
      'consumerGroup',
      'topic',
      'queueId',
      'queueOffset',
      'maxMsgNums',
      'sysFlag',
      'commitOffset',
      'suspendTimeoutMillis',
      'subVersion',
      'expressionType',
      'bname',
    ]);
  });

  test('the response needs all four offsets', () => {
    const ext = {
      suggestWhichBrokerId: '0',
      nextBeginOffset: '9007199254740993',
      minOffset: '0',
      maxOffset: '-1',
    };
    assert.deepEqual(decodeHeader(PullMessageResponseHeader, ext), {
      suggestWhichBrokerId: 0n,
      nextBeginOffset: 9007199254740993n,
      minOffset: 0n,
      maxOffset: -1n,
    });
    const { maxOffset: _omit, ...missing } = ext;
    assert.throws(
      () => decodeHeader(PullMessageResponseHeader, missing),
      /the custom field <maxOffset> is null/,
    );
  });
});

describe('SEND_MESSAGE_V2', () => {
  const v1 = {
    producerGroup: 'pg',
    topic: 'T',
    defaultTopic: 'TBW102',
    defaultTopicQueueNums: 4,
    queueId: 1,
    sysFlag: 0,
    bornTimestamp: 1700000000123n,
    flag: 0,
    properties: 'KEYS\u0001k\u0002',
    reconsumeTimes: 0,
    unitMode: false,
    batch: false,
    maxReconsumeTimes: 16,
    bname: 'broker-a',
  };

  test('single-letter keys, booleans always present', () => {
    const v2 = createSendMessageRequestHeaderV2(v1);
    assert.equal(v2.brokerName, 'broker-a');
    assert.equal(v2.bname, undefined);
    const ext = encodeHeader(SendMessageRequestHeaderV2, v2);
    assert.deepEqual(ext, {
      a: 'pg',
      b: 'T',
      c: 'TBW102',
      d: '4',
      e: '1',
      f: '0',
      g: '1700000000123',
      h: '0',
      i: 'KEYS\u0001k\u0002',
      j: '0',
      k: 'false',
      l: '16',
      m: 'false',
      n: 'broker-a',
    });
    assert.deepEqual(Object.keys(encodeHeaderFast(SendMessageRequestHeaderV2, { ...v2, bname: 'x' })), [
      'a',
      'b',
      'c',
      'd',
      'e',
      'f',
      'g',
      'h',
      'i',
      'j',
      'k',
      'l',
      'm',
      'n',
    ]);
  });

  test('broker side: decode V2 and convert to V1', () => {
    const ext = { a: 'pg', b: 'T', c: 'TBW102', d: '4', e: '3', f: '4', g: '5', h: '6', m: 'True', n: 'bk' };
    const v2 = decodeHeader(SendMessageRequestHeaderV2, ext);
    assert.equal(v2.batch, true);
    assert.equal(v2.unitMode, false);
    assert.equal(v2.reconsumeTimes, undefined);
    const back = createSendMessageRequestHeaderV1(v2);
    assert.deepEqual(back, {
      producerGroup: 'pg',
      topic: 'T',
      defaultTopic: 'TBW102',
      defaultTopicQueueNums: 4,
      queueId: 3,
      sysFlag: 4,
      bornTimestamp: 5n,
      flag: 6,
      properties: undefined,
      reconsumeTimes: undefined,
      unitMode: false,
      batch: true,
      maxReconsumeTimes: undefined,
      bname: 'bk',
    });
    assert.deepEqual(createSendMessageRequestHeaderV1(createSendMessageRequestHeaderV2(v1)), v1);
  });

  test('V1 writes unitMode and batch even when not given', () => {
    const { unitMode: _u, batch: _b, ...rest } = v1;
    const ext = encodeHeader(SendMessageRequestHeader, rest);
    assert.equal(ext.unitMode, 'false');
    assert.equal(ext.batch, 'false');
  });
});

describe('headers with Java defaults', () => {
  test('CreateTopicRequestHeader.order defaults to false but must be present on decode', () => {
    const value = {
      topic: 't',
      defaultTopic: 'TBW102',
      readQueueNums: 8,
      writeQueueNums: 8,
      perm: 6,
      topicFilterType: 'SINGLE_TAG',
    };
    const ext = encodeHeader(CreateTopicRequestHeader, value);
    assert.equal(ext.order, 'false');
    assert.equal(ext.topicSysFlag, undefined);
    const { order: _o, ...noOrder } = ext;
    assert.throws(() => decodeHeader(CreateTopicRequestHeader, noOrder), /the custom field <order> is null/);
  });

  test('ResetOffsetRequestHeader: primitives that are @CFNotNull', () => {
    const ext = encodeHeader(ResetOffsetRequestHeader, { topic: 't', group: 'g' });
    assert.deepEqual(ext, { group: 'g', timestamp: '0', topic: 't', isForce: 'false' });
    assert.throws(
      () => decodeHeader(ResetOffsetRequestHeader, { topic: 't', group: 'g', timestamp: '1' }),
      /<isForce>/,
    );
  });

  test('RegisterBrokerRequestHeader writes compressed and bodyCrc32', () => {
    const ext = encodeHeader(RegisterBrokerRequestHeader, {
      brokerName: 'broker-a',
      brokerAddr: '10.0.0.1:10911',
      clusterName: 'DefaultCluster',
      haServerAddr: '10.0.0.1:10912',
      brokerId: 0n,
    });
    assert.equal(ext.compressed, 'false');
    assert.equal(ext.bodyCrc32, '0');
  });

  test('EndTransactionRequestHeader.fromTransactionCheck is nullable but initialised', () => {
    const h = decodeHeader(EndTransactionRequestHeader, {
      producerGroup: 'p',
      tranStateTableOffset: '1',
      commitLogOffset: '2',
      commitOrRollback: '8',
      msgId: 'm',
    });
    assert.equal(h.fromTransactionCheck, false);
    assert.equal(h.transactionId, undefined);
  });

  test('GetRouteInfoRequestHeader.acceptStandardJsonOnly is a nullable Boolean', () => {
    assert.equal(decodeHeader(GetRouteInfoRequestHeader, { topic: 't' }).acceptStandardJsonOnly, undefined);
    assert.equal(
      decodeHeader(GetRouteInfoRequestHeader, { topic: 't', acceptStandardJsonOnly: 'yes' })
        .acceptStandardJsonOnly,
      false,
    );
    assert.deepEqual(encodeHeader(GetRouteInfoRequestHeader, { topic: 't' }), { topic: 't' });
  });
});

describe('code maps', () => {
  test('request headers by code', () => {
    assert.equal(requestHeaderByCode.get(RequestCode.SEND_MESSAGE), SendMessageRequestHeader);
    assert.equal(requestHeaderByCode.get(RequestCode.SEND_MESSAGE_V2), SendMessageRequestHeaderV2);
    assert.equal(requestHeaderByCode.get(RequestCode.SEND_BATCH_MESSAGE), SendMessageRequestHeaderV2);
    assert.equal(requestHeaderByCode.get(RequestCode.PULL_MESSAGE), PullMessageRequestHeader);
    assert.equal(requestHeaderByCode.get(RequestCode.RESET_CONSUMER_CLIENT_OFFSET), ResetOffsetRequestHeader);
    assert.equal(requestHeaderByCode.get(RequestCode.HEART_BEAT), undefined);
    assert.equal(requestHeaderByCode.get(RequestCode.LOCK_BATCH_MQ), undefined);
    const registered = new Set<AnyHeaderSchema>(Object.values(headerSchemas));
    for (const [code, schema] of [...requestHeaderByCode, ...responseHeaderByCode]) {
      assert.ok(requestCodeName(code) !== undefined, `code ${code}`);
      assert.ok(registered.has(schema), schema.name);
    }
    for (const schema of requestHeaderByCode.values())
      assert.ok(!schema.name.includes('Response'), schema.name);
    for (const schema of responseHeaderByCode.values())
      assert.ok(schema.name.endsWith('ResponseHeader'), schema.name);
  });

  test('response headers by code', () => {
    assert.equal(responseHeaderByCode.get(RequestCode.SEND_MESSAGE_V2), SendMessageResponseHeader);
    assert.equal(responseHeaderByCode.get(RequestCode.PULL_MESSAGE), PullMessageResponseHeader);
    assert.equal(responseHeaderByCode.get(RequestCode.UPDATE_CONSUMER_OFFSET), undefined);
  });
});
