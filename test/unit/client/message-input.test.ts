/**
 * Everything `send` accepts is checked before any network call: a bad value fails with a
 * ValidationError whose message names the field (upstream Validators.checkMessage and
 * MessageBatch.generateFromList, plus what the Java types rule out and a Node caller can still pass).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { wrapNamespace } from '../../../src/client/namespace.js';
import { type MessageInput, toMessage } from '../../../src/client/producer/message-input.js';
import {
  type PrepareOptions,
  prepareBatch,
  prepareSend,
} from '../../../src/client/producer/send-preparation.js';
import { ValidationError } from '../../../src/common/errors.js';
import { Message } from '../../../src/common/message/message.js';

const OPTIONS: PrepareOptions = {
  maxMessageSize: 4 * 1024 * 1024,
  compressMsgBodyOverHowmuch: 4096,
  compressLevel: 5,
  namespace: undefined,
  wrap: (t) => t,
};

function rejects(fn: () => unknown, field: RegExp, label = field.source): void {
  assert.throws(
    fn,
    (e: unknown) => {
      assert.ok(e instanceof ValidationError, `${label}: ${String(e)}`);
      assert.match(e.message, field, label);
      assert.equal(e.retriable, false);
      return true;
    },
    label,
  );
}

/** The whole path of a single send's message: build, then prepare. */
function prepare(input: Message | MessageInput, options: Partial<PrepareOptions> = {}) {
  return prepareSend(toMessage(input), { ...OPTIONS, ...options });
}

function input(over: Record<string, unknown> = {}): MessageInput {
  return { topic: 'TopicTest', body: 'hello', ...over } as MessageInput;
}

describe('plain objects become messages', () => {
  test('fields land where upstream puts them', () => {
    const msg = toMessage({
      topic: 'T',
      body: 'héllo',
      tags: 'TagA',
      keys: ['k1', 'k2'],
      properties: { city: 'Zürich' },
      delayTimeLevel: 3,
      flag: -7,
      waitStoreMsgOK: false,
    });
    assert.equal(msg.topic, 'T');
    assert.deepEqual(msg.body, Buffer.from('héllo', 'utf8'));
    assert.equal(msg.tags, 'TagA');
    assert.equal(msg.keys, 'k1 k2');
    assert.equal(msg.getUserProperty('city'), 'Zürich');
    assert.equal(msg.delayTimeLevel, 3);
    assert.equal(msg.flag, -7);
    assert.equal(msg.waitStoreMsgOK, false);
    const fromMap = toMessage({
      topic: 'T',
      body: new Uint8Array([1, 2, 3]),
      properties: new Map([['a', 'b']]),
    });
    assert.deepEqual(fromMap.body, Buffer.from([1, 2, 3]));
    assert.equal(fromMap.getUserProperty('a'), 'b');
    assert.equal(toMessage({ topic: 'T', body: 'x', delayTimeLevel: 0 }).properties.has('DELAY'), false);
    const m = new Message('T', Buffer.from('x'));
    assert.equal(toMessage(m), m);
  });
});

describe('bad single messages name the field', () => {
  const cases: Array<[string, RegExp, () => unknown]> = [
    ['not an object', /message/, () => prepare(null as unknown as MessageInput)],
    ['a string', /message/, () => prepare('T' as unknown as MessageInput)],
    ['topic missing', /topic/, () => prepare(input({ topic: undefined }))],
    ['topic a number', /topic/, () => prepare(input({ topic: 42 }))],
    ['topic empty', /topic/, () => prepare(input({ topic: '' }))],
    ['topic blank', /topic/, () => prepare(input({ topic: ' \t ' }))],
    ['topic too long', /topic/, () => prepare(input({ topic: 't'.repeat(128) }))],
    ['topic with a space', /topic/, () => prepare(input({ topic: 'a b' }))],
    ['topic with a dot', /topic/, () => prepare(input({ topic: 'a.b' }))],
    [
      'topic SCHEDULE_TOPIC_XXXX',
      /topic\[SCHEDULE_TOPIC_XXXX\]/,
      () => prepare(input({ topic: 'SCHEDULE_TOPIC_XXXX' })),
    ],
    ['topic RMQ_SYS_TRANS_HALF_TOPIC', /topic/, () => prepare(input({ topic: 'RMQ_SYS_TRANS_HALF_TOPIC' }))],
    ['topic OFFSET_MOVED_EVENT', /topic/, () => prepare(input({ topic: 'OFFSET_MOVED_EVENT' }))],
    ['body missing', /body/, () => prepare(input({ body: undefined }))],
    ['body null', /body/, () => prepare(input({ body: null }))],
    ['body a number', /body/, () => prepare(input({ body: 12 }))],
    ['body empty', /body/, () => prepare(input({ body: '' }))],
    ['body empty buffer', /body/, () => prepare(input({ body: Buffer.alloc(0) }))],
    ['body too big', /body/, () => prepare(input({ body: Buffer.alloc(1025) }), { maxMessageSize: 1024 })],
    ['tags a number', /tags/, () => prepare(input({ tags: 5 }))],
    ['keys a number', /keys/, () => prepare(input({ keys: 5 }))],
    ['flag past int32', /flag/, () => prepare(input({ flag: 2 ** 31 }))],
    ['flag a fraction', /flag/, () => prepare(input({ flag: 1.5 }))],
    ['flag a string', /flag/, () => prepare(input({ flag: '1' }))],
    ['waitStoreMsgOK a string', /waitStoreMsgOK/, () => prepare(input({ waitStoreMsgOK: 'false' }))],
    ['delay negative', /delayTimeLevel/, () => prepare(input({ delayTimeLevel: -1 }))],
    ['delay a fraction', /delayTimeLevel/, () => prepare(input({ delayTimeLevel: 1.5 }))],
    ['delay a string', /delayTimeLevel/, () => prepare(input({ delayTimeLevel: '3' }))],
    ['properties a string', /properties/, () => prepare(input({ properties: 'a=b' }))],
    ['properties null', /properties/, () => prepare(input({ properties: null }))],
    ['property value a number', /property a/, () => prepare(input({ properties: { a: 1 } }))],
    ['property value empty', /property a/, () => prepare(input({ properties: { a: '' } }))],
    ['property value blank', /property a/, () => prepare(input({ properties: { a: '  ' } }))],
    ['property name blank', /property/, () => prepare(input({ properties: { ' ': 'v' } }))],
    ['reserved TAGS', /TAGS/, () => prepare(input({ properties: { TAGS: 'x' } }))],
    ['reserved UNIQ_KEY', /UNIQ_KEY/, () => prepare(input({ properties: { UNIQ_KEY: 'x' } }))],
    ['reserved DELAY', /DELAY/, () => prepare(input({ properties: { DELAY: '1' } }))],
    ['reserved TRAN_MSG', /TRAN_MSG/, () => prepare(input({ properties: { TRAN_MSG: 'true' } }))],
    ['\\u0001 in a name', /property "a\\u0001b"/, () => prepare(input({ properties: { 'a\u0001b': 'v' } }))],
    ['\\u0002 in a value', /property "a"/, () => prepare(input({ properties: { a: 'x\u0002y' } }))],
    ['\\u0001 in tags', /property "TAGS"/, () => prepare(input({ tags: 'x\u0001y' }))],
    ['\\u0002 in keys', /property "KEYS"/, () => prepare(input({ keys: 'x\u0002y' }))],
  ];
  for (const [name, field, fn] of cases) test(name, () => rejects(fn, field, name));

  test('Message objects are checked the same way', () => {
    const bad = new Message('T', Buffer.from('x'));
    bad.flag = 2 ** 40;
    rejects(() => prepare(bad), /flag/);
    const delay = new Message('T', Buffer.from('x'));
    delay.delayTimeLevel = -2;
    rejects(() => prepare(delay), /delayTimeLevel/);
    const text = new Message('T', Buffer.from('x'));
    text.putProperty('DELAY', 'soon');
    rejects(() => prepare(text), /DELAY/);
    const noBody = new Message('T');
    rejects(() => prepare(noBody), /body/);
    // The constructor takes a string body (as UTF-8); the field itself must hold bytes.
    const stringBody = new Message('T');
    stringBody.body = 'text' as unknown as Buffer;
    rejects(() => prepare(stringBody), /body/);
    assert.deepEqual(new Message('T', 'text').body, Buffer.from('text'));
    const numericTopic = new Message(7 as unknown as string, Buffer.from('x'));
    rejects(() => prepare(numericTopic), /topic/);
    const oddValue = new Message('T', Buffer.from('x'));
    oddValue.properties.set('n', 5 as unknown as string);
    rejects(() => prepare(oddValue), /property n/);
  });

  test('a body of exactly maxMessageSize passes', () => {
    assert.equal(prepare(input({ body: Buffer.alloc(1024, 1) }), { maxMessageSize: 1024 }).body.length, 1024);
  });

  test('with a namespace the wire topic is checked too', () => {
    const wrap = (t: string) => wrapNamespace('ns', t);
    assert.equal(prepare(input({ topic: 't'.repeat(124) }), { namespace: 'ns', wrap }).wireTopic.length, 127);
    rejects(() => prepare(input({ topic: 't'.repeat(125) }), { namespace: 'ns', wrap }), /topic/);
    const dotted = (t: string) => wrapNamespace('a.b', t);
    const msg = toMessage(input());
    rejects(() => prepare(msg, { namespace: 'a.b', wrap: dotted }), /topic/);
    // Refused before the message was touched.
    assert.equal(msg.getProperty('UNIQ_KEY'), undefined);
    assert.equal(msg.getProperty('INSTANCE_ID'), undefined);
  });
});

describe('the properties string fits a Java short', () => {
  /** A message whose properties string is exactly `bytes` long in UTF-8, using `unit` as filler. */
  function withPropertyBytes(bytes: number, unit: string): Message {
    const msg = new Message('T', Buffer.from('x'));
    msg.putProperty('UNIQ_KEY', '7F0000011092232A3A6D0C4D3C100000');
    // WAIT\u0001true\u0002UNIQ_KEY\u0001<32>\u0002big\u0001<value>
    const fixed = Buffer.byteLength(`WAIT\u0001true\u0002UNIQ_KEY\u0001${'0'.repeat(32)}\u0002big\u0001`);
    const unitBytes = Buffer.byteLength(unit);
    const room = bytes - fixed;
    const value = unit.repeat(Math.floor(room / unitBytes)) + 'a'.repeat(room % unitBytes);
    msg.putUserProperty('big', value);
    return msg;
  }

  for (const unit of ['a', 'é', '订']) {
    test(`32767 bytes pass, 32768 fail (${unit})`, () => {
      assert.equal(Buffer.byteLength(prepare(withPropertyBytes(32767, unit)).properties), 32767);
      rejects(() => prepare(withPropertyBytes(32768, unit)), /properties/);
    });
  }
});

describe('batches', () => {
  function batch(...inputs: Array<Message | MessageInput>) {
    return prepareBatch(inputs.map(toMessage), OPTIONS);
  }
  const cases: Array<[string, RegExp, () => unknown]> = [
    ['empty', /batch/, () => batch()],
    ['mixed topics', /topic/, () => batch(input(), input({ topic: 'Other' }))],
    ['a delay level', /TimeDelayLevel/, () => batch(input(), input({ delayTimeLevel: 2 }))],
    ['a retry topic', /Retry/, () => batch(input({ topic: '%RETRY%g' }), input({ topic: '%RETRY%g' }))],
    [
      'waitStoreMsgOK mismatch',
      /waitStoreMsgOK/,
      () => batch(input({ waitStoreMsgOK: true }), input({ waitStoreMsgOK: false })),
    ],
    ['an empty body', /body/, () => batch(input(), input({ body: '' }))],
    ['a forbidden topic', /topic/, () => batch(input({ topic: 'SCHEDULE_TOPIC_XXXX' }))],
    ['a bad property', /property "a"/, () => batch(input(), input({ properties: { a: 'x\u0001' } }))],
    [
      'oversized when encoded',
      /body/,
      () =>
        prepareBatch(
          [toMessage(input({ body: Buffer.alloc(600) })), toMessage(input({ body: Buffer.alloc(600) }))],
          { ...OPTIONS, maxMessageSize: 1024 },
        ),
    ],
  ];
  for (const [name, field, fn] of cases) test(name, () => rejects(fn, field, name));
});
