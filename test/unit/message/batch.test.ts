import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { RemotingCommandError } from '../../../src/common/errors.js';
import { decodeBatch, encodeBatch, Message } from '../../../src/common/message/index.js';
import { annotated } from './annotated.js';

/** flag 5, body "hi", properties TAGS=A: 20 + 2 + 2 + 6 = 30 bytes. */
const ENTRY = annotated(
  ['TOTALSIZE 30', '0000001E'],
  ['MAGICCODE 0', '00000000'],
  ['BODYCRC 0', '00000000'],
  ['FLAG 5', '00000005'],
  ['BODY length 2', '00000002'],
  ['BODY "hi"', '6869'],
  ['PROPERTIES length 6 (int16)', '0006'],
  ['PROPERTIES TAGS\\u0001A', '544147530141'],
);

/** flag 0, empty body, no properties: 22 bytes. */
const EMPTY_ENTRY = annotated(
  ['TOTALSIZE 22', '00000016'],
  ['MAGICCODE 0', '00000000'],
  ['BODYCRC 0', '00000000'],
  ['FLAG 0', '00000000'],
  ['BODY length 0', '00000000'],
  ['PROPERTIES length 0', '0000'],
);

function bare(flag: number, body: string, props: [string, string][]): Message {
  const m = new Message();
  m.flag = flag;
  m.body = Buffer.from(body);
  m.properties = new Map(props);
  return m;
}

describe('batch body', () => {
  test('encode matches the annotated bytes', () => {
    assert.deepEqual(encodeBatch([bare(5, 'hi', [['TAGS', 'A']])]), ENTRY);
    assert.deepEqual(encodeBatch([bare(0, '', [])]), EMPTY_ENTRY);
    assert.deepEqual(encodeBatch([]), Buffer.alloc(0));
  });

  test('two entries back to back decode in order, with the header topic', () => {
    const both = Buffer.concat([ENTRY, EMPTY_ENTRY]);
    const msgs = decodeBatch(both, { topic: 'TopicTest', checkTotalSize: true });
    assert.equal(msgs.length, 2);
    assert.equal(msgs[0]?.flag, 5);
    assert.equal(msgs[0]?.body.toString(), 'hi');
    assert.equal(msgs[0]?.tags, 'A');
    assert.equal(msgs[0]?.topic, 'TopicTest');
    assert.equal(msgs[1]?.body.length, 0);
    assert.equal(msgs[1]?.properties.size, 0, 'bare messages: no WAIT added');
    assert.deepEqual(encodeBatch(msgs), both);
  });

  test('what a Java producer sends for Message(topic, "TagA", "k", body), in HashMap order', () => {
    const m = new Message('TopicTest', Buffer.from('x'), { tags: 'TagA', keys: 'k' });
    const body = encodeBatch([m], { propertyOrder: 'java' });
    assert.equal(body.toString('utf8', 23), 'KEYS\u0001k\u0002WAIT\u0001true\u0002TAGS\u0001TagA');
    assert.equal(body.readInt32BE(0), body.length);
  });

  test('truncation at every byte is a typed error', () => {
    for (const entry of [ENTRY, EMPTY_ENTRY]) {
      for (let n = 1; n < entry.length; n++) {
        assert.throws(() => decodeBatch(entry.subarray(0, n)), RemotingCommandError, `cut at ${n}`);
        assert.throws(() => decodeBatch(Buffer.concat([ENTRY, entry.subarray(0, n)])), RemotingCommandError);
      }
    }
  });

  test('TOTALSIZE, MAGICCODE and BODYCRC are ignored like upstream, unless checkTotalSize', () => {
    const odd = Buffer.from(ENTRY);
    odd.writeInt32BE(999, 0);
    odd.writeInt32BE(-1, 4);
    odd.writeInt32BE(-1, 8);
    assert.equal(decodeBatch(odd)[0]?.body.toString(), 'hi');
    assert.throws(() => decodeBatch(odd, { checkTotalSize: true }), /TOTALSIZE 999 but its fields take 30/);
  });

  test('negative or oversized lengths are refused with their offset', () => {
    const negBody = Buffer.from(ENTRY);
    negBody.writeInt32BE(-1, 16);
    assert.throws(() => decodeBatch(negBody), /BODY length -1 at offset 16/);
    const negProps = Buffer.from(ENTRY);
    negProps.writeInt16BE(-2, 22);
    assert.throws(() => decodeBatch(negProps), /PROPERTIES length -2 at offset 22/);
    const bigProps = Buffer.from(ENTRY);
    bigProps.writeInt16BE(7, 22);
    assert.throws(
      () => decodeBatch(bigProps),
      /PROPERTIES length 7 at offset 22 does not fit the 6 bytes left/,
    );
  });

  test('properties longer than 32767 bytes are refused (upstream RuntimeException)', () => {
    const m = bare(0, 'x', [['K', 'v'.repeat(32766)]]);
    assert.throws(() => encodeBatch([m]), /Properties size of message exceeded, properties size: 32768/);
  });
});
