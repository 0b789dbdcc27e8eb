/**
 * QUERY_ASSIGNMENT / SET_MESSAGE_REQUEST_MODE bodies and the messageRequestMode.json table in
 * fastjson's layout (bean fields sorted, nulls left out, sets as arrays, the file pretty-printed with
 * tabs), read back from the same text.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { RemotingCommandError } from '../../../src/common/errors.js';
import { MessageQueue } from '../../../src/common/message/message-queue.js';
import { MessageRequestMode } from '../../../src/common/protocol/message-request-mode.js';
import {
  decodeQueryAssignmentRequestBody,
  decodeQueryAssignmentResponseBody,
  encodeQueryAssignmentRequestBody,
  encodeQueryAssignmentResponseBody,
} from '../../../src/common/protocol/query-assignment-body.js';
import {
  decodeMessageRequestModeTable,
  decodeSetMessageRequestModeRequestBody,
  encodeMessageRequestModeTable,
  encodeSetMessageRequestModeRequestBody,
} from '../../../src/common/protocol/set-message-request-mode-body.js';

const MQ = (topic: string, queueId: number) =>
  `{"brokerName":"broker-a","queueId":${queueId},"topic":"${topic}"}`;

describe('QueryAssignmentRequestBody', () => {
  const text =
    '{"clientId":"127.0.0.1@4242","consumerGroup":"cg","messageModel":"CLUSTERING","strategyName":"AVG","topic":"T"}';
  const body = {
    topic: 'T',
    consumerGroup: 'cg',
    clientId: '127.0.0.1@4242',
    strategyName: 'AVG',
    messageModel: 'CLUSTERING',
  } as const;

  test('writes the sorted bean and reads it back', () => {
    assert.equal(encodeQueryAssignmentRequestBody(body).toString(), text);
    assert.deepEqual(decodeQueryAssignmentRequestBody(Buffer.from(text)), body);
  });

  test('an unknown message model reads as undefined, a missing topic is refused', () => {
    const unknown = text.replace('CLUSTERING', 'SOMETHING');
    assert.equal(decodeQueryAssignmentRequestBody(Buffer.from(unknown)).messageModel, undefined);
    assert.throws(
      () => decodeQueryAssignmentRequestBody(Buffer.from('{"clientId":"c","consumerGroup":"g"}')),
      (e: unknown) => e instanceof RemotingCommandError && /\$\.topic: missing/.test(e.message),
    );
  });
});

describe('QueryAssignmentResponseBody', () => {
  test('assignments with mode, attachments only when set', () => {
    const encoded = encodeQueryAssignmentResponseBody({
      messageQueueAssignments: [
        { messageQueue: new MessageQueue('T', 'broker-a', -1), mode: MessageRequestMode.POP },
        {
          messageQueue: new MessageQueue('T', 'broker-a', 1),
          mode: MessageRequestMode.PULL,
          attachments: new Map([['k', 'v']]),
        },
      ],
    }).toString();
    assert.equal(
      encoded,
      `{"messageQueueAssignments":[{"messageQueue":${MQ('T', -1)},"mode":"POP"},` +
        `{"attachments":{"k":"v"},"messageQueue":${MQ('T', 1)},"mode":"PULL"}]}`,
    );
    const back = decodeQueryAssignmentResponseBody(Buffer.from(encoded));
    assert.equal(back.messageQueueAssignments?.length, 2);
    assert.equal(back.messageQueueAssignments?.[0]?.messageQueue.queueId, -1);
    assert.equal(back.messageQueueAssignments?.[0]?.mode, 'POP');
    assert.deepEqual(back.messageQueueAssignments?.[1]?.attachments, new Map([['k', 'v']]));
  });

  test('null assignments (the broker could not assign) stay distinct from an empty set', () => {
    assert.equal(encodeQueryAssignmentResponseBody({ messageQueueAssignments: undefined }).toString(), '{}');
    assert.equal(decodeQueryAssignmentResponseBody(Buffer.from('{}')).messageQueueAssignments, undefined);
    assert.deepEqual(
      decodeQueryAssignmentResponseBody(Buffer.from('{"messageQueueAssignments":[]}'))
        .messageQueueAssignments,
      [],
    );
  });

  test('a missing mode is PULL (the Java default), duplicates of one queue are dropped', () => {
    const text = `{"messageQueueAssignments":[{"messageQueue":${MQ('T', 0)}},{"messageQueue":${MQ('T', 0)},"mode":"POP"}]}`;
    const back = decodeQueryAssignmentResponseBody(Buffer.from(text));
    assert.equal(back.messageQueueAssignments?.length, 1);
    assert.equal(back.messageQueueAssignments?.[0]?.mode, 'PULL');
  });
});

describe('SetMessageRequestModeRequestBody and messageRequestMode.json', () => {
  const body = { topic: 'T', consumerGroup: 'cg', mode: MessageRequestMode.POP, popShareQueueNum: 2 };

  test('the request body', () => {
    const text = '{"consumerGroup":"cg","mode":"POP","popShareQueueNum":2,"topic":"T"}';
    assert.equal(encodeSetMessageRequestModeRequestBody(body).toString(), text);
    assert.deepEqual(decodeSetMessageRequestModeRequestBody(Buffer.from(text)), body);
    // Java field defaults: mode PULL, popShareQueueNum 0; an unknown mode name reads as null.
    assert.deepEqual(
      decodeSetMessageRequestModeRequestBody(Buffer.from('{"consumerGroup":"cg","topic":"T"}')),
      {
        ...body,
        mode: 'PULL',
        popShareQueueNum: 0,
      },
    );
    assert.equal(
      decodeSetMessageRequestModeRequestBody(Buffer.from('{"consumerGroup":"cg","mode":"PUSH","topic":"T"}'))
        .mode,
      undefined,
    );
  });

  test('the table, pretty as the broker writes its file, compact as GET_ALL_MESSAGE_REQUEST_MODE', () => {
    const table = new Map([['T', new Map([['cg', body]])]]);
    const pretty = encodeMessageRequestModeTable(table, { pretty: true });
    assert.equal(
      pretty,
      '{\n\t"messageRequestModeMap":{\n\t\t"T":{\n\t\t\t"cg":{\n\t\t\t\t"consumerGroup":"cg",\n' +
        '\t\t\t\t"mode":"POP",\n\t\t\t\t"popShareQueueNum":2,\n\t\t\t\t"topic":"T"\n\t\t\t}\n\t\t}\n\t}\n}',
    );
    assert.equal(
      encodeMessageRequestModeTable(table),
      '{"messageRequestModeMap":{"T":{"cg":{"consumerGroup":"cg","mode":"POP","popShareQueueNum":2,"topic":"T"}}}}',
    );
    assert.deepEqual(decodeMessageRequestModeTable(pretty), table);
    assert.deepEqual(decodeMessageRequestModeTable('{}'), new Map());
  });
});
