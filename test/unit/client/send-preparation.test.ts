/**
 * A send's message made ready once (upstream sendKernelImpl and DefaultMQProducer.batch, 4.9.8):
 * UNIQ_KEY set once and kept, zlib at >= compressMsgBodyOverHowmuch with sysFlag 0x301 and never for
 * batches, TRAN_MSG setting the prepared flag, retry-topic RECONSUME_TIME/MAX_RECONSUME_TIMES moved
 * into the header, the namespace on the wire only.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { wrapNamespace } from '../../../src/client/namespace.js';
import { toMessage } from '../../../src/client/producer/message-input.js';
import { MessageType } from '../../../src/client/producer/send-hooks.js';
import {
  type PrepareOptions,
  prepareBatch,
  prepareSend,
} from '../../../src/client/producer/send-preparation.js';
import { ValidationError } from '../../../src/common/errors.js';
import { decodeBatch } from '../../../src/common/message/batch.js';
import { decompressBody } from '../../../src/common/message/compression.js';
import { Message } from '../../../src/common/message/message.js';
import { string2messageProperties } from '../../../src/common/message/properties.js';

const OPTIONS: PrepareOptions = {
  maxMessageSize: 4 * 1024 * 1024,
  compressMsgBodyOverHowmuch: 4096,
  compressLevel: 5,
  namespace: undefined,
  wrap: (t) => t,
};

const UNIQ = /^[0-9A-F]{32}$/;

function message(body: Buffer | string = 'hello', topic = 'TopicTest'): Message {
  return new Message(topic, Buffer.isBuffer(body) ? body : Buffer.from(body));
}

describe('UNIQ_KEY', () => {
  test('set once before the first attempt and kept', () => {
    const msg = message();
    const first = prepareSend(msg, OPTIONS);
    assert.match(first.uniqMsgId, UNIQ);
    assert.equal(msg.getProperty('UNIQ_KEY'), first.uniqMsgId);
    assert.equal(string2messageProperties(first.properties).get('UNIQ_KEY'), first.uniqMsgId);
    // Preparing the same message again (a caller resending it) keeps its id.
    assert.equal(prepareSend(msg, OPTIONS).uniqMsgId, first.uniqMsgId);
    const preset = message();
    preset.putProperty('UNIQ_KEY', '0A0000011092232A3A6D0C4D3C100000');
    assert.equal(prepareSend(preset, OPTIONS).uniqMsgId, '0A0000011092232A3A6D0C4D3C100000');
  });

  test('every message gets its own', () => {
    const ids = new Set(Array.from({ length: 200 }, () => prepareSend(message(), OPTIONS).uniqMsgId));
    assert.equal(ids.size, 200);
  });
});

describe('compression', () => {
  test('a body of compressMsgBodyOverHowmuch bytes is compressed with sysFlag 0x301', () => {
    const body = Buffer.alloc(4096, 'abc');
    const msg = message(body);
    const p = prepareSend(msg, OPTIONS);
    assert.equal(p.sysFlag, 0x301);
    assert.ok(p.body.length < body.length);
    assert.deepEqual(decompressBody(p.body, p.sysFlag), body);
    // The caller's message keeps its body.
    assert.equal(msg.body, body);
  });

  test('one byte less is sent as it is', () => {
    const body = Buffer.alloc(4095, 'abc');
    const p = prepareSend(message(body), OPTIONS);
    assert.equal(p.sysFlag, 0);
    assert.equal(p.body, body);
  });

  test('the threshold is the option', () => {
    const p = prepareSend(message('tiny body'), { ...OPTIONS, compressMsgBodyOverHowmuch: 4 });
    assert.equal(p.sysFlag, 0x301);
    assert.deepEqual(decompressBody(p.body, p.sysFlag), Buffer.from('tiny body'));
  });

  test('batches are never compressed', () => {
    const msgs = [message(Buffer.alloc(5000, 'x')), message(Buffer.alloc(5000, 'y'))];
    const p = prepareBatch(msgs, OPTIONS);
    assert.equal(p.sysFlag, 0);
    assert.equal(p.body, p.message.body);
    assert.ok(p.body.length > 10_000);
  });
});

describe('transactions and message types', () => {
  test('TRAN_MSG true sets the prepared flag (Boolean.parseBoolean)', () => {
    for (const [value, flag] of [
      ['true', 0x4],
      ['TRUE', 0x4],
      ['false', 0],
      ['yes', 0],
    ] as const) {
      const msg = message();
      msg.putProperty('TRAN_MSG', value);
      assert.equal(prepareSend(msg, OPTIONS).sysFlag, flag, value);
    }
    const big = message(Buffer.alloc(5000, 1));
    big.putProperty('TRAN_MSG', 'true');
    assert.equal(prepareSend(big, OPTIONS).sysFlag, 0x305);
  });

  test('message type as the hooks see it', () => {
    assert.equal(prepareSend(message(), OPTIONS).msgType, MessageType.Normal_Msg);
    const half = message();
    half.putProperty('TRAN_MSG', 'true');
    assert.equal(prepareSend(half, OPTIONS).msgType, MessageType.Trans_Msg_Half);
    const delayed = message();
    delayed.delayTimeLevel = 2;
    assert.equal(prepareSend(delayed, OPTIONS).msgType, MessageType.Delay_Msg);
    const timed = message();
    timed.putProperty('__STARTDELIVERTIME', '1700000000000');
    timed.putProperty('TRAN_MSG', 'true');
    assert.equal(prepareSend(timed, OPTIONS).msgType, MessageType.Delay_Msg);
  });
});

describe('retry topics', () => {
  test('RECONSUME_TIME and MAX_RECONSUME_TIMES move into the header', () => {
    const msg = message('x', '%RETRY%cg');
    msg.putProperty('RECONSUME_TIME', '3');
    msg.putProperty('MAX_RECONSUME_TIMES', '16');
    const p = prepareSend(msg, OPTIONS);
    assert.equal(p.reconsumeTimes, 3);
    assert.equal(p.maxReconsumeTimes, 16);
    const props = string2messageProperties(p.properties);
    assert.equal(props.has('RECONSUME_TIME'), false);
    assert.equal(props.has('MAX_RECONSUME_TIMES'), false);
  });

  test('a value that is not an int fails the send, naming the property', () => {
    for (const [name, value] of [
      ['RECONSUME_TIME', 'x'],
      ['RECONSUME_TIME', '1e3'],
      ['MAX_RECONSUME_TIMES', '3000000000'],
    ]) {
      const msg = message('x', '%RETRY%cg');
      msg.putProperty(name as string, value as string);
      assert.throws(
        () => prepareSend(msg, OPTIONS),
        (e: unknown) => e instanceof ValidationError && e.message.includes(name as string),
      );
    }
  });

  test('without them the header says 0 and nothing', () => {
    const p = prepareSend(message('x', '%RETRY%cg'), OPTIONS);
    assert.equal(p.reconsumeTimes, 0);
    assert.equal(p.maxReconsumeTimes, undefined);
  });

  test('on other topics they stay properties', () => {
    const msg = message();
    msg.putProperty('RECONSUME_TIME', '3');
    const p = prepareSend(msg, OPTIONS);
    assert.equal(p.reconsumeTimes, 0);
    assert.equal(string2messageProperties(p.properties).get('RECONSUME_TIME'), '3');
  });

  test('with a namespace the retry topic is recognised on the wire topic', () => {
    const msg = message('x', '%RETRY%cg');
    msg.putProperty('RECONSUME_TIME', '1');
    const p = prepareSend(msg, { ...OPTIONS, namespace: 'ns', wrap: (t) => wrapNamespace('ns', t) });
    assert.equal(p.wireTopic, '%RETRY%ns%cg');
    assert.equal(p.reconsumeTimes, 1);
  });
});

describe('namespace', () => {
  test('the wire topic carries it, the caller keeps its topic, INSTANCE_ID names it', () => {
    const msg = message();
    const p = prepareSend(msg, { ...OPTIONS, namespace: 'ns', wrap: (t) => wrapNamespace('ns', t) });
    assert.equal(p.topic, 'TopicTest');
    assert.equal(p.wireTopic, 'ns%TopicTest');
    assert.equal(msg.topic, 'TopicTest');
    assert.equal(string2messageProperties(p.properties).get('INSTANCE_ID'), 'ns');
  });
});

describe('batch encoding', () => {
  test("upstream's MessageBatch: each message with its UNIQ_KEY, ids comma-joined", () => {
    const msgs = [
      toMessage({ topic: 'T', body: 'one', tags: 'a', flag: 3 }),
      toMessage({ topic: 'T', body: 'two', keys: 'k', properties: { p: 'v' } }),
    ];
    const preset = '0A0000011092232A3A6D0C4D3C100000';
    msgs[1]?.putProperty('UNIQ_KEY', preset);
    const p = prepareBatch(msgs, OPTIONS);
    const ids = p.uniqMsgId.split(',');
    assert.equal(ids.length, 2);
    assert.match(ids[0] as string, UNIQ);
    assert.equal(ids[1], preset);
    assert.equal(p.batch, msgs);
    assert.equal(p.topic, 'T');
    const decoded = decodeBatch(p.body);
    assert.deepEqual(
      decoded.map((m) => [
        m.body.toString(),
        m.flag,
        m.getProperty('UNIQ_KEY'),
        m.tags,
        m.keys,
        m.getProperty('p'),
      ]),
      [
        ['one', 3, ids[0], 'a', undefined, undefined],
        ['two', 0, preset, undefined, 'k', 'v'],
      ],
    );
    // The batch message carries WAIT (and no UNIQ_KEY of its own).
    const props = string2messageProperties(p.properties);
    assert.equal(props.get('WAIT'), 'true');
    assert.equal(props.has('UNIQ_KEY'), false);
    assert.equal(p.msgType, MessageType.Normal_Msg);
  });

  test('waitStoreMsgOK false travels on the batch', () => {
    const p = prepareBatch(
      [
        toMessage({ topic: 'T', body: 'a', waitStoreMsgOK: false }),
        toMessage({ topic: 'T', body: 'b', waitStoreMsgOK: false }),
      ],
      OPTIONS,
    );
    assert.equal(string2messageProperties(p.properties).get('WAIT'), 'false');
  });

  test('an encoded batch of exactly maxMessageSize passes', () => {
    const one = prepareBatch([toMessage({ topic: 'T', body: Buffer.alloc(100) })], OPTIONS);
    const size = one.body.length;
    const again = prepareBatch([toMessage({ topic: 'T', body: Buffer.alloc(100) })], {
      ...OPTIONS,
      maxMessageSize: size,
    });
    assert.equal(again.body.length, size);
  });

  test('namespace: wire topic and INSTANCE_ID', () => {
    const p = prepareBatch([toMessage({ topic: 'T', body: 'a' })], {
      ...OPTIONS,
      namespace: 'ns',
      wrap: (t) => wrapNamespace('ns', t),
    });
    assert.equal(p.wireTopic, 'ns%T');
    assert.equal(p.topic, 'T');
    assert.equal(string2messageProperties(p.properties).get('INSTANCE_ID'), 'ns');
  });
});
