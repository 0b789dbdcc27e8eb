/**
 * The client's request modules, built and read as upstream MQClientAPIImpl 4.9.8 (and 5.x for the
 * heartbeat V2 answer) builds and reads them: header keys, codes, the send answer as a SendResult or
 * an MQBrokerError, route and heartbeat answers, and a random-input loop that only ever gets typed
 * errors. The golden frames were written by the official Java RemotingCommand.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { isRetriableResponseCode, MQBrokerError } from '../../../src/client/errors.js';
import { buildEndTransactionRequest } from '../../../src/client/instance/requests/end-transaction.js';
import {
  buildGetRouteInfoRequest,
  parseGetRouteInfoResponse,
} from '../../../src/client/instance/requests/get-route-info.js';
import {
  buildHeartbeatRequest,
  parseHeartbeatResponse,
} from '../../../src/client/instance/requests/heart-beat.js';
import {
  buildSendMessageRequest,
  parseSendResponse,
  type SendAnswerContext,
  type SendMessageHeader,
  SendStatus,
} from '../../../src/client/instance/requests/send-message.js';
import {
  buildUnregisterClientRequest,
  parseUnregisterClientResponse,
} from '../../../src/client/instance/requests/unregister-client.js';
import { prepareSend } from '../../../src/client/producer/send-preparation.js';
import { RocketMQError } from '../../../src/common/errors.js';
import { Message } from '../../../src/common/message/message.js';
import { decodeHeartbeatData, type HeartbeatData } from '../../../src/common/protocol/heartbeat-data.js';
import { encodeTopicRouteData, type TopicRouteData } from '../../../src/common/protocol/route.js';
import {
  createRequest,
  createResponse,
  type RemotingCommand,
  SerializeType,
} from '../../../src/remoting/protocol/command.js';
import { decodeFrame, encodeFrame } from '../../../src/remoting/protocol/frame.js';
import { decodeHeader } from '../../../src/remoting/protocol/header-schema.js';
import { SendMessageRequestHeaderV2 } from '../../../src/remoting/protocol/headers/send-message-request-header-v2.js';
import { ResponseCode } from '../../../src/remoting/protocol/response-code.js';
import { type GoldenCommand, goldenFile, goldenManifest } from '../../golden-fixtures.js';
import { prng } from '../message/annotated.js';

function golden(name: string, serializeType: 'JSON' | 'ROCKETMQ'): { g: GoldenCommand; bytes: Buffer } {
  const g = goldenManifest().commands.find((c) => c.name === name && c.serializeType === serializeType);
  assert.ok(g, `${name} ${serializeType}`);
  return { g, bytes: goldenFile(g.file) };
}

function response(
  code: number,
  extFields?: Record<string, string>,
  body?: Buffer,
  remark?: string,
): RemotingCommand {
  return createResponse(createRequest(0), code, { extFields, body, remark });
}

const HEADER: SendMessageHeader = {
  producerGroup: 'pg',
  topic: 'TopicTest',
  defaultTopic: 'TBW102',
  defaultTopicQueueNums: 4,
  queueId: 3,
  sysFlag: 0x301,
  bornTimestamp: 1700000000123n,
  flag: -7,
  properties: 'TAGS\u0001a',
  reconsumeTimes: 2,
  unitMode: false,
  maxReconsumeTimes: 16,
  batch: false,
  brokerName: 'broker-a',
};

const CTX: SendAnswerContext = {
  brokerAddr: '10.0.0.1:10911',
  brokerName: 'broker-a',
  topic: 'TopicTest',
  group: 'pg',
  uniqMsgId: '7F0000011092232A3A6D0C4D3C100000',
};

const SEND_OK_FIELDS = {
  msgId: '7F00000100002A9F0000000000001F40',
  queueId: '3',
  queueOffset: '4294967299',
  transactionId: 'tx-1',
};

describe('SEND_MESSAGE_V2 / SEND_BATCH_MESSAGE request', () => {
  test('one-letter keys a..n, code 310', () => {
    const request = buildSendMessageRequest(HEADER, Buffer.from('body'));
    assert.equal(request.code, 310);
    assert.deepEqual(request.extFields, {
      a: 'pg',
      b: 'TopicTest',
      c: 'TBW102',
      d: '4',
      e: '3',
      f: '769',
      g: '1700000000123',
      h: '-7',
      i: 'TAGS\u0001a',
      j: '2',
      k: 'false',
      l: '16',
      m: 'false',
      n: 'broker-a',
    });
    assert.deepEqual(request.body, Buffer.from('body'));
    assert.equal(request.flag, 0);
  });

  test('a batch is code 320 with m=true', () => {
    const request = buildSendMessageRequest({ ...HEADER, batch: true }, Buffer.from('b'));
    assert.equal(request.code, 320);
    assert.equal(request.extFields?.m, 'true');
  });

  test('absent optional fields are left out; k and m are always written', () => {
    const { properties, reconsumeTimes, maxReconsumeTimes, brokerName, ...required } = HEADER;
    const request = buildSendMessageRequest({ ...required, unitMode: true }, Buffer.from('b'));
    assert.deepEqual(Object.keys(request.extFields ?? {}).sort(), [
      'a',
      'b',
      'c',
      'd',
      'e',
      'f',
      'g',
      'h',
      'k',
      'm',
    ]);
    assert.equal(request.extFields?.k, 'true');
  });

  test('the header reads back as it was written', () => {
    const request = buildSendMessageRequest(HEADER, Buffer.from('b'));
    // `bname`, inherited from RpcRequestHeader, is never set by Java clients either.
    assert.deepEqual(decodeHeader(SendMessageRequestHeaderV2, request.extFields), {
      ...HEADER,
      bname: undefined,
    });
  });

  test('a prepared message gives the bytes of the official client (JSON frame)', () => {
    const { g, bytes } = golden('special.send-v2.properties', 'JSON');
    const msg = new Message('TopicTest', Buffer.from(g.bodyHex ?? '', 'hex'), {
      tags: 'TagA',
      keys: ['订单-1', 'order-2'],
    });
    msg.putProperty('UNIQ_KEY', '7F0000011092232A3A6D0C4D3C100000');
    msg.putUserProperty('city', 'Zürich 🏔');
    const prepared = prepareSend(msg, {
      maxMessageSize: 4 * 1024 * 1024,
      compressMsgBodyOverHowmuch: 4096,
      compressLevel: 5,
      namespace: undefined,
      wrap: (t) => t,
    });
    const request = buildSendMessageRequest(
      {
        producerGroup: 'pg-golden',
        topic: prepared.wireTopic,
        defaultTopic: 'TBW102',
        defaultTopicQueueNums: 4,
        queueId: 2,
        sysFlag: prepared.sysFlag,
        bornTimestamp: 1700000000123n,
        flag: prepared.flag,
        properties: prepared.properties,
        reconsumeTimes: prepared.reconsumeTimes,
        unitMode: false,
        maxReconsumeTimes: prepared.maxReconsumeTimes,
        batch: false,
      },
      prepared.body,
    );
    request.opaque = g.opaque;
    assert.deepEqual(encodeFrame(request), bytes);
    // The ROCKETMQ frame of the same request carries the same fields.
    const rocketmq = decodeFrame(golden('special.send-v2.properties', 'ROCKETMQ').bytes.subarray(4));
    assert.deepEqual(
      new Map(Object.entries(rocketmq.extFields ?? {})),
      new Map(Object.entries(request.extFields ?? {})),
    );
  });
});

describe('send answer', () => {
  const stored: Array<[number, SendStatus]> = [
    [ResponseCode.SUCCESS, SendStatus.SEND_OK],
    [ResponseCode.FLUSH_DISK_TIMEOUT, SendStatus.FLUSH_DISK_TIMEOUT],
    [ResponseCode.FLUSH_SLAVE_TIMEOUT, SendStatus.FLUSH_SLAVE_TIMEOUT],
    [ResponseCode.SLAVE_NOT_AVAILABLE, SendStatus.SLAVE_NOT_AVAILABLE],
  ];
  for (const [code, status] of stored) {
    test(`code ${code} is ${status}`, () => {
      const r = parseSendResponse(response(code, SEND_OK_FIELDS), CTX);
      assert.equal(r.sendStatus, status);
      assert.equal(r.msgId, CTX.uniqMsgId);
      assert.equal(r.offsetMsgId, SEND_OK_FIELDS.msgId);
      assert.equal(r.messageQueue.topic, 'TopicTest');
      assert.equal(r.messageQueue.brokerName, 'broker-a');
      assert.equal(r.messageQueue.queueId, 3);
      assert.equal(r.queueOffset, 4294967299n);
      assert.equal(r.transactionId, 'tx-1');
      assert.equal(r.regionId, 'DefaultRegion');
      assert.equal(r.traceOn, true);
    });
  }

  test('MSG_REGION and TRACE_ON as upstream reads them', () => {
    const cases: Array<[Record<string, string>, string, boolean]> = [
      [{}, 'DefaultRegion', true],
      [{ MSG_REGION: '' }, 'DefaultRegion', true],
      [{ MSG_REGION: 'hz' }, 'hz', true],
      [{ TRACE_ON: 'false' }, 'DefaultRegion', false],
      [{ TRACE_ON: 'true' }, 'DefaultRegion', true],
      // Upstream compares with equals("false"): any other text means on.
      [{ TRACE_ON: 'FALSE' }, 'DefaultRegion', true],
      [{ TRACE_ON: '' }, 'DefaultRegion', true],
    ];
    for (const [extra, region, traceOn] of cases) {
      const r = parseSendResponse(response(0, { ...SEND_OK_FIELDS, ...extra }), CTX);
      assert.equal(r.regionId, region, JSON.stringify(extra));
      assert.equal(r.traceOn, traceOn, JSON.stringify(extra));
    }
    const noTx = parseSendResponse(response(0, { msgId: 'x', queueId: '0', queueOffset: '0' }), CTX);
    assert.equal(noTx.transactionId, undefined);
  });

  test("the broker's golden answer (JSON and ROCKETMQ)", () => {
    for (const form of ['JSON', 'ROCKETMQ'] as const) {
      const { bytes } = golden('special.send-response.with-region', form);
      const r = parseSendResponse(decodeFrame(bytes.subarray(4)), CTX);
      assert.equal(r.sendStatus, SendStatus.SEND_OK);
      assert.equal(r.offsetMsgId, '7F00000100002A9F0000000000001F40');
      assert.equal(r.messageQueue.queueId, 2);
      assert.equal(r.queueOffset, 57n);
      assert.equal(r.regionId, 'DefaultRegion');
      assert.equal(r.traceOn, false);
    }
  });

  test('a batch reports the comma-joined ids it was given', () => {
    const r = parseSendResponse(response(0, SEND_OK_FIELDS), { ...CTX, uniqMsgId: 'A,B,C' });
    assert.equal(r.msgId, 'A,B,C');
  });

  test('any other code is an MQBrokerError naming topic, group and broker, retriable per code', () => {
    const codes = [1, 2, 3, 13, 14, 15, 16, 17, 25, 26, 204, 205, 207, 215, 1500, 9999, -1];
    for (const code of codes) {
      assert.throws(
        () => parseSendResponse(response(code, SEND_OK_FIELDS, undefined, `why ${code}`), CTX),
        (e: unknown) => {
          assert.ok(e instanceof MQBrokerError);
          assert.equal(e.responseCode, code);
          assert.equal(e.remark, `why ${code}`);
          assert.equal(e.brokerAddr, CTX.brokerAddr);
          assert.equal(e.topic, 'TopicTest');
          assert.equal(e.group, 'pg');
          assert.match(e.message, new RegExp(`CODE: ${code} DESC: why ${code}`));
          assert.match(e.message, /topic TopicTest/);
          assert.match(e.message, /group pg/);
          assert.match(e.message, /broker 10\.0\.0\.1:10911/);
          assert.equal(e.retriable, isRetriableResponseCode(code));
          return true;
        },
      );
    }
  });

  test('a stored answer without its header fields is a typed error', () => {
    assert.throws(
      () => parseSendResponse(response(0, { queueId: '1', queueOffset: '2' }), CTX),
      (e: unknown) => e instanceof RocketMQError && /msgId/.test(e.message),
    );
    assert.throws(
      () => parseSendResponse(response(0), CTX),
      (e: unknown) => e instanceof RocketMQError,
    );
  });
});

describe('GET_ROUTEINFO_BY_TOPIC', () => {
  const route: TopicRouteData = {
    orderTopicConf: undefined,
    queueDatas: [{ brokerName: 'broker-a', readQueueNums: 4, writeQueueNums: 4, perm: 6, topicSysFlag: 0 }],
    brokerDatas: [{ cluster: 'c', brokerName: 'broker-a', brokerAddrs: new Map([[0, '10.0.0.1:10911']]) }],
    filterServerTable: new Map(),
  };

  test('request: code 105 with the topic', () => {
    const request = buildGetRouteInfoRequest('TopicTest');
    assert.equal(request.code, 105);
    assert.deepEqual(request.extFields, { topic: 'TopicTest' });
  });

  test('answer: the route, in either body form', () => {
    for (const form of ['fastjson', 'standard'] as const) {
      const parsed = parseGetRouteInfoResponse(
        response(0, undefined, encodeTopicRouteData(route, form)),
        'ns:9876',
        'T',
      );
      assert.deepEqual(parsed?.queueDatas, route.queueDatas);
      assert.deepEqual(parsed?.brokerDatas, route.brokerDatas);
    }
  });

  test('TOPIC_NOT_EXIST is no route', () => {
    assert.equal(
      parseGetRouteInfoResponse(response(17, undefined, undefined, 'no topic'), 'ns:9876', 'T'),
      undefined,
    );
  });

  test('SUCCESS without a body, or a failure code: MQBrokerError naming the name server and topic', () => {
    for (const r of [response(0), response(1, undefined, undefined, 'boom'), response(2)]) {
      assert.throws(
        () => parseGetRouteInfoResponse(r, 'ns:9876', 'T'),
        (e: unknown) =>
          e instanceof MQBrokerError &&
          e.brokerAddr === 'ns:9876' &&
          e.topic === 'T' &&
          /broker ns:9876/.test(e.message),
      );
    }
  });

  test('a body that is not a route is a typed error', () => {
    assert.throws(
      () =>
        parseGetRouteInfoResponse(response(0, undefined, Buffer.from('{"queueDatas":5}')), 'ns:9876', 'T'),
      (e: unknown) => e instanceof RocketMQError,
    );
  });
});

describe('HEART_BEAT', () => {
  const data: HeartbeatData = {
    clientID: '10.0.0.9@123#456',
    producerDataSet: [{ groupName: 'pg' }],
    consumerDataSet: [],
  };

  test('request: code 34, the heartbeat in the body', () => {
    const request = buildHeartbeatRequest(data);
    assert.equal(request.code, 34);
    const decoded = decodeHeartbeatData(request.body);
    assert.equal(decoded.clientID, data.clientID);
    assert.deepEqual(decoded.producerDataSet, data.producerDataSet);
  });

  test('answer of a 4.x broker: version only', () => {
    const r = response(0);
    r.version = 409;
    assert.deepEqual(parseHeartbeatResponse(r, 'b:1'), { version: 409, supportV2: false, subChange: false });
  });

  test('answer of a 5.x broker: IS_SUPPORT_HEART_BEAT_V2 and IS_SUB_CHANGE as Boolean.parseBoolean reads them', () => {
    const cases: Array<[Record<string, string>, boolean, boolean]> = [
      [{ IS_SUPPORT_HEART_BEAT_V2: 'true', IS_SUB_CHANGE: 'false' }, true, false],
      [{ IS_SUPPORT_HEART_BEAT_V2: 'true', IS_SUB_CHANGE: 'true' }, true, true],
      [{ IS_SUPPORT_HEART_BEAT_V2: 'TRUE', IS_SUB_CHANGE: 'True' }, true, true],
      [{ IS_SUPPORT_HEART_BEAT_V2: 'yes', IS_SUB_CHANGE: '1' }, false, false],
      [{}, false, false],
    ];
    for (const [ext, supportV2, subChange] of cases) {
      const r = response(0, ext);
      r.version = 475;
      assert.deepEqual(
        parseHeartbeatResponse(r, 'b:1'),
        { version: 475, supportV2, subChange },
        JSON.stringify(ext),
      );
    }
  });

  test('a failure is an MQBrokerError naming the broker', () => {
    assert.throws(
      () => parseHeartbeatResponse(response(2, undefined, undefined, 'busy'), 'b:1'),
      (e: unknown) =>
        e instanceof MQBrokerError && e.responseCode === 2 && e.retriable && /broker b:1/.test(e.message),
    );
  });
});

describe('UNREGISTER_CLIENT and END_TRANSACTION', () => {
  test('unregister: code 35, clientID and the group given', () => {
    const producer = buildUnregisterClientRequest('ip@1', 'pg', undefined);
    assert.equal(producer.code, 35);
    assert.deepEqual(producer.extFields, { clientID: 'ip@1', producerGroup: 'pg' });
    const consumer = buildUnregisterClientRequest('ip@1', undefined, 'cg');
    assert.deepEqual(consumer.extFields, { clientID: 'ip@1', consumerGroup: 'cg' });
    parseUnregisterClientResponse(response(0), 'b:1', 'pg');
    assert.throws(
      () => parseUnregisterClientResponse(response(1, undefined, undefined, 'x'), 'b:1', 'pg'),
      (e: unknown) => e instanceof MQBrokerError && e.group === 'pg' && /group pg/.test(e.message),
    );
  });

  test('end transaction: code 37, the header and the remark', () => {
    const request = buildEndTransactionRequest(
      {
        producerGroup: 'pg',
        tranStateTableOffset: 5n,
        commitLogOffset: 4294967296n,
        commitOrRollback: 8,
        fromTransactionCheck: true,
        msgId: 'm',
        transactionId: 't',
      },
      'local state',
    );
    assert.equal(request.code, 37);
    assert.equal(request.remark, 'local state');
    assert.deepEqual(request.extFields, {
      producerGroup: 'pg',
      tranStateTableOffset: '5',
      commitLogOffset: '4294967296',
      commitOrRollback: '8',
      fromTransactionCheck: 'true',
      msgId: 'm',
      transactionId: 't',
    });
  });
});

describe('random answers', () => {
  test('every parser returns or throws a RocketMQError, never anything else', () => {
    const rnd = prng(20240610);
    const pick = <T>(list: readonly T[]): T => list[Math.floor(rnd() * list.length)] as T;
    const keys = [
      'msgId',
      'queueId',
      'queueOffset',
      'transactionId',
      'MSG_REGION',
      'TRACE_ON',
      'IS_SUPPORT_HEART_BEAT_V2',
      'IS_SUB_CHANGE',
      'x',
    ];
    const values = [
      '',
      '0',
      '-1',
      '2147483648',
      '9223372036854775808',
      'abc',
      '1e3',
      ' 1',
      'true',
      '\u0000',
      '7F00',
    ];
    const bodies = [
      undefined,
      Buffer.alloc(0),
      Buffer.from('{}'),
      Buffer.from('{"queueDatas":[{}]}'),
      Buffer.from('{"brokerDatas":[{"brokerAddrs":{"x":1}}]}'),
      Buffer.from('[1,2'),
      Buffer.from([0xff, 0xfe, 0x00]),
    ];
    const codes = [0, 1, 2, 10, 11, 12, 17, 25, 215, -1, 65535];
    for (let i = 0; i < 2000; i++) {
      const ext: Record<string, string> = {};
      const n = Math.floor(rnd() * 6);
      for (let k = 0; k < n; k++) ext[pick(keys)] = pick(values);
      const r = response(
        pick(codes),
        rnd() < 0.2 ? undefined : ext,
        pick(bodies),
        rnd() < 0.5 ? undefined : 'remark',
      );
      r.serializeType = rnd() < 0.5 ? SerializeType.JSON : SerializeType.ROCKETMQ;
      const calls: Array<() => unknown> = [
        () => parseSendResponse(r, CTX),
        () => parseGetRouteInfoResponse(r, 'ns:1', 'T'),
        () => parseHeartbeatResponse(r, 'b:1'),
        () => parseUnregisterClientResponse(r, 'b:1', 'g'),
      ];
      for (const call of calls) {
        try {
          call();
        } catch (e) {
          assert.ok(e instanceof RocketMQError, `input ${i}: ${String(e)}`);
        }
      }
    }
  });
});
