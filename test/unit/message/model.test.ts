import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ValidationError } from '../../../src/common/errors.js';
import {
  CompressionType,
  clearCompressedFlag,
  compressionFlag,
  getCompressionType,
  getTransactionValue,
  javaStringCompare,
  Message,
  MessageConst,
  MessageExt,
  MessageQueue,
  MessageSysFlag,
  RESERVED_PROPERTY_NAMES,
  resetTransactionValue,
} from '../../../src/common/message/index.js';

describe('Message', () => {
  test('new Message() is bare; with a topic it sets WAIT like Java constructors', () => {
    assert.equal(new Message().properties.size, 0);
    const m = new Message('T', Buffer.from('b'));
    assert.deepEqual([...m.properties], [['WAIT', 'true']]);
    const full = new Message('T', Buffer.from('b'), {
      tags: 'TagA',
      keys: ['k1', 'k2'],
      flag: 9,
      waitStoreMsgOK: false,
    });
    assert.equal(full.tags, 'TagA');
    assert.equal(full.keys, 'k1 k2');
    assert.equal(full.flag, 9);
    assert.equal(full.waitStoreMsgOK, false);
    assert.equal(full.getProperty('WAIT'), 'false');
    const empty = new Message('T', Buffer.from('b'), { tags: '', keys: '' });
    assert.equal(empty.tags, undefined, 'empty tags and keys are not set');
    assert.equal(empty.keys, undefined);
  });

  test('keys helpers', () => {
    const m = new Message();
    m.setKeys(['a', 'b']);
    assert.equal(m.keys, 'a b');
    m.setKeys('x  y');
    assert.deepEqual(m.keyList(), ['x', 'y']);
  });

  test('delay level and WAIT parsing follow Java', () => {
    const m = new Message();
    assert.equal(m.delayTimeLevel, 0);
    m.delayTimeLevel = 3;
    assert.equal(m.getProperty('DELAY'), '3');
    m.putProperty('DELAY', '+07');
    assert.equal(m.delayTimeLevel, 7);
    m.putProperty('DELAY', 'x');
    assert.throws(() => m.delayTimeLevel, ValidationError);
    assert.throws(() => {
      m.delayTimeLevel = 1.5;
    }, ValidationError);
    assert.equal(m.waitStoreMsgOK, true, 'absent means true');
    m.putProperty('WAIT', 'TRUE');
    assert.equal(m.waitStoreMsgOK, true);
    m.putProperty('WAIT', 'yes');
    assert.equal(m.waitStoreMsgOK, false);
  });

  test('putUserProperty refuses reserved names and blank names or values', () => {
    const m = new Message();
    for (const name of ['TAGS', 'KEYS', 'UNIQ_KEY', 'DELAY', 'CLUSTER', 'INNER_MULTI_QUEUE_OFFSET']) {
      assert.throws(() => m.putUserProperty(name, 'v'), {
        message: `The Property<${name}> is used by system, input another please`,
      });
    }
    // Upstream's set omits these, so users may set them.
    for (const name of ['TRAN_PREPARED_QUEUE_OFFSET', 'TRANSACTION_CHECK_TIMES', 'INNER_MULTI_DISPATCH']) {
      assert.equal(RESERVED_PROPERTY_NAMES.has(name), false);
    }
    assert.equal(RESERVED_PROPERTY_NAMES.size, 31);
    assert.throws(() => m.putUserProperty(' ', 'v'), /can not be null or blank/);
    assert.throws(() => m.putUserProperty('k', '\t\n'), /can not be null or blank/);
    m.putUserProperty('k', 'v');
    assert.equal(m.getUserProperty('k'), 'v');
  });

  test('MessageExt.msgId is UNIQ_KEY when present, else the offset id', () => {
    const e = new MessageExt();
    e.offsetMsgId = 'OFFSET';
    assert.equal(e.msgId, 'OFFSET');
    e.putProperty(MessageConst.PROPERTY_UNIQ_CLIENT_MESSAGE_ID_KEYIDX, 'UNIQ');
    assert.equal(e.msgId, 'UNIQ');
    assert.equal(e.properties.has('WAIT'), false, 'decoded messages get no WAIT');
  });
});

describe('MessageQueue', () => {
  test('compare: topic, broker name (UTF-16 units), then queueId', () => {
    const q = (t: string, b: string, i: number) => new MessageQueue(t, b, i);
    assert.equal(q('T', 'b', 1).compareTo(q('T', 'b', 2)), -1);
    assert.equal(q('a', 'z', 0).compareTo(q('B', 'a', 0)), 31, 'Java returns the code unit difference');
    assert.equal(q('T', 'broker-a', 9).compareTo(q('T', 'broker-b', 0)), -1);
    assert.equal(q('T', 'ab', 0).compareTo(q('T', 'abc', 0)), -1);
    assert.equal(q('T', 'b', 2147483647).compareTo(q('T', 'b', -1)), -2147483648, 'int overflow as in Java');
    // U+FFFF sorts after a surrogate pair's high unit, though its code point is lower.
    assert.ok(javaStringCompare('\uffff', '😀') > 0);
    const sorted = [q('T', 'b', 1), q('T', 'a', 2), q('S', 'z', 0)].sort(MessageQueue.compare).map(String);
    assert.deepEqual(sorted, [
      'MessageQueue [topic=S, brokerName=z, queueId=0]',
      'MessageQueue [topic=T, brokerName=a, queueId=2]',
      'MessageQueue [topic=T, brokerName=b, queueId=1]',
    ]);
  });

  test('key is stable and unambiguous; hashCode is Java’s', () => {
    assert.equal(new MessageQueue('T', 'b', 1).key, new MessageQueue('T', 'b', 1).key);
    assert.notEqual(new MessageQueue('a|b', 'c', 1).key, new MessageQueue('a', 'b|c', 1).key);
    assert.ok(new MessageQueue('T', 'b', 1).equals(new MessageQueue('T', 'b', 1)));
    // 31 * (31 * (31 + "b".hashCode()) + 1) + "T".hashCode()
    assert.equal(new MessageQueue('T', 'b', 1).hashCode(), 31 * (31 * (31 + 98) + 1) + 84);
  });
});

describe('MessageSysFlag', () => {
  test('bits and helpers', () => {
    assert.equal(MessageSysFlag.COMPRESSION_TYPE_COMPARATOR, 0x700);
    assert.equal(getCompressionType(0x1), CompressionType.ZLIB, 'no type bits means ZLIB');
    assert.equal(getCompressionType(0x301), CompressionType.ZLIB);
    assert.equal(getCompressionType(0x101), CompressionType.LZ4);
    assert.equal(getCompressionType(0x201), CompressionType.ZSTD);
    assert.throws(() => getCompressionType(0x401), /unknown compression type 4/);
    assert.equal(compressionFlag(CompressionType.ZLIB), 0x300);
    assert.equal(clearCompressedFlag(0x301), 0x300);
    assert.equal(getTransactionValue(0x3f), 0xc);
    assert.equal(resetTransactionValue(0x3f, MessageSysFlag.TRANSACTION_PREPARED_TYPE), 0x37);
  });
});
