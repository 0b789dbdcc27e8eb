import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ValidationError } from '../../../src/common/errors.js';
import { Message } from '../../../src/common/message/index.js';
import {
  checkBatch,
  checkGroup,
  checkMessage,
  checkNotAllowedSendTopic,
  checkNotSystemTopic,
  checkTopic,
  isNotAllowedSendTopic,
  isSystemTopic,
  isTopicOrGroupIllegal,
  validateTopic,
} from '../../../src/common/validators.js';

function fails(fn: () => void, message: string, responseCode: number): void {
  assert.throws(fn, (e: unknown) => {
    assert.ok(e instanceof ValidationError);
    assert.equal(e.message, message);
    assert.equal(e.responseCode, responseCode);
    return true;
  });
}

describe('topic and group names', () => {
  test('allowed characters are exactly [%|a-zA-Z0-9_-]', () => {
    assert.equal(isTopicOrGroupIllegal('%RETRY%group_1-a|b'), false);
    for (const c of [' ', '.', '#', '@', '/', 'é', '\u0000', '\u00ff', '😀']) {
      assert.equal(isTopicOrGroupIllegal(`a${c}b`), true, JSON.stringify(c));
    }
    assert.equal(isTopicOrGroupIllegal(''), false, 'emptiness is the blank check’s job');
  });

  test('client checkTopic: blank, length 127, characters (code -1)', () => {
    checkTopic('TopicTest');
    checkTopic('t'.repeat(127));
    fails(() => checkTopic(''), 'The specified topic is blank', -1);
    fails(() => checkTopic(' \t\u3000'), 'The specified topic is blank', -1);
    fails(() => checkTopic(undefined), 'The specified topic is blank', -1);
    fails(() => checkTopic('t'.repeat(128)), 'The specified topic is longer than topic max length 127.', -1);
    fails(
      () => checkTopic('a b'),
      'The specified topic[a b] contains illegal characters, allowing only ^[%|a-zA-Z0-9_-]+$',
      -1,
    );
    // A no-break space is not Java whitespace, so it is not blank; it is an illegal character.
    fails(
      () => checkTopic('\u00a0'),
      'The specified topic[\u00a0] contains illegal characters, allowing only ^[%|a-zA-Z0-9_-]+$',
      -1,
    );
  });

  test('broker validateTopic: blank, characters, then length (SYSTEM_ERROR)', () => {
    validateTopic('TopicTest');
    fails(() => validateTopic(''), 'The specified topic is blank.', 1);
    fails(
      () => validateTopic('a.b'),
      'The specified topic contains illegal characters, allowing only ^[%|a-zA-Z0-9_-]+$',
      1,
    );
    fails(() => validateTopic('t'.repeat(128)), 'The specified topic is longer than topic max length.', 1);
    // Order differs from the client: an illegal long name reports the characters.
    fails(
      () => validateTopic('.'.repeat(200)),
      'The specified topic contains illegal characters, allowing only ^[%|a-zA-Z0-9_-]+$',
      1,
    );
  });

  test('checkGroup: blank, 255, characters', () => {
    checkGroup('g'.repeat(255));
    fails(() => checkGroup(''), 'the specified group is blank', -1);
    fails(() => checkGroup('g'.repeat(256)), 'the specified group is longer than group max length 255.', -1);
    fails(
      () => checkGroup('g:1'),
      'the specified group[g:1] contains illegal characters, allowing only ^[%|a-zA-Z0-9_-]+$',
      -1,
    );
  });

  test('system topics and topics clients may not send to', () => {
    for (const t of [
      'TBW102',
      'SCHEDULE_TOPIC_XXXX',
      'BenchmarkTest',
      'RMQ_SYS_TRACE_TOPIC',
      'rmq_sys_anything',
    ]) {
      assert.equal(isSystemTopic(t), true, t);
    }
    assert.equal(isSystemTopic('DefaultCluster'), false);
    assert.equal(isSystemTopic('DefaultCluster', new Set(['DefaultCluster'])), true);
    fails(() => checkNotSystemTopic('TBW102'), 'The topic[TBW102] is conflict with system topic.', -1);
    for (const t of [
      'SCHEDULE_TOPIC_XXXX',
      'RMQ_SYS_TRANS_HALF_TOPIC',
      'RMQ_SYS_TRANS_OP_HALF_TOPIC',
      'TRANS_CHECK_MAX_TIME_TOPIC',
      'SELF_TEST_TOPIC',
      'OFFSET_MOVED_EVENT',
    ]) {
      assert.equal(isNotAllowedSendTopic(t), true, t);
    }
    for (const t of ['TBW102', 'BenchmarkTest', 'RMQ_SYS_TRACE_TOPIC', 'rmq_sys_x']) {
      assert.equal(isNotAllowedSendTopic(t), false, t);
    }
    fails(
      () => checkNotAllowedSendTopic('SELF_TEST_TOPIC', true),
      'Sending message to topic[SELF_TEST_TOPIC] is forbidden.',
      16,
    );
  });
});

describe('checkMessage', () => {
  test('topic rules, forbidden topics, then the body (MESSAGE_ILLEGAL)', () => {
    checkMessage(new Message('T', Buffer.from('x')));
    fails(() => checkMessage(undefined), 'the message is null', 13);
    fails(() => checkMessage(new Message('', Buffer.from('x'))), 'The specified topic is blank', -1);
    fails(
      () => checkMessage(new Message('SCHEDULE_TOPIC_XXXX', Buffer.from('x'))),
      'Sending message to topic[SCHEDULE_TOPIC_XXXX] is forbidden.',
      -1,
    );
    fails(() => checkMessage(new Message('T', Buffer.alloc(0))), 'the message body length is zero', 13);
    const noBody = new Message('T');
    (noBody as unknown as { body: undefined }).body = undefined;
    fails(() => checkMessage(noBody), 'the message body is null', 13);
    checkMessage(new Message('T', Buffer.alloc(4 * 1024 * 1024)));
    fails(
      () => checkMessage(new Message('T', Buffer.alloc(4 * 1024 * 1024 + 1))),
      'the message body size over max value, MAX: 4194304',
      13,
    );
    fails(
      () => checkMessage(new Message('T', Buffer.alloc(11)), 10),
      'the message body size over max value, MAX: 10',
      13,
    );
  });

  test('batch rules', () => {
    const m = (topic: string, wait = true) => new Message(topic, Buffer.from('x'), { waitStoreMsgOK: wait });
    checkBatch([m('T'), m('T')]);
    fails(() => checkBatch([]), 'the message batch is empty', -1);
    fails(
      () => checkBatch([m('T'), m('U')]),
      'The topic of the messages in one batch should be the same',
      -1,
    );
    fails(
      () => checkBatch([m('T'), m('T', false)]),
      'The waitStoreMsgOK of the messages in one batch should the same',
      -1,
    );
    fails(() => checkBatch([m('%RETRY%g')]), 'Retry Group is not supported for batching', -1);
    const delayed = m('T');
    delayed.delayTimeLevel = 2;
    fails(() => checkBatch([delayed]), 'TimeDelayLevel is not supported for batching', -1);
  });
});
