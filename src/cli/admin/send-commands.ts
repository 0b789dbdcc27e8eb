/** mqadmin's sendMessage: one message from a producer of the command's own. */

import type { SendResult } from '../../client/instance/requests/send-message.js';
import { createProducer } from '../../client/producer/producer.js';
import { MessageQueue } from '../../common/message/message-queue.js';
import type { AdminCommand } from './command.js';
import { left, toJson } from './format.js';
import { AdminUsageError } from './options.js';

const line = (c: readonly unknown[]): string =>
  `${left(c[0], 32)}  ${left(c[1], 4)}  ${left(c[2], 20)}    ${String(c[3])}\n`;

export const sendMessage: AdminCommand = {
  name: 'sendMessage',
  desc: 'Send a message',
  read: false,
  options: [
    { short: 't', long: 'topic', arg: true, required: true, desc: 'Topic name' },
    { short: 'p', long: 'body', arg: true, required: true, desc: 'UTF-8 string format of the message body' },
    { short: 'k', long: 'key', arg: true, desc: 'Message keys' },
    { short: 'c', long: 'tags', arg: true, desc: 'Message tags' },
    { short: 'b', long: 'broker', arg: true, desc: 'Send message to target broker' },
    { short: 'i', long: 'qid', arg: true, desc: 'Send message to target queue' },
    { long: 'json', arg: false, desc: 'print the send result as JSON' },
  ],
  async run({ opts, io, clientOptions }) {
    const topic = opts.required('topic');
    const broker = opts.text('broker');
    if (opts.has('qid') && broker === undefined)
      throw new AdminUsageError('Broker name must be set if the queue is chosen!');
    const queueId = opts.integer('qid', -1, 0);
    // As upstream: a producer group named after the current time, used once.
    const producer = createProducer({ ...clientOptions(), producerGroup: String(Date.now()) });
    let result: SendResult;
    await producer.start();
    try {
      const message = { topic, body: opts.required('body'), tags: opts.text('tags'), keys: opts.text('key') };
      result =
        broker !== undefined && queueId > -1
          ? await producer.send(message, { messageQueue: new MessageQueue(topic, broker, queueId) })
          : await producer.send(message);
    } finally {
      await producer.shutdown();
    }
    if (opts.has('json')) {
      const { messageQueue: mq, ...rest } = result;
      io.out(toJson({ brokerName: mq.brokerName, queueId: mq.queueId, ...rest }));
      return;
    }
    io.out(line(['#Broker Name', '#QID', '#Send Result', '#MsgId']));
    io.out(
      line([result.messageQueue.brokerName, result.messageQueue.queueId, result.sendStatus, result.msgId]),
    );
  },
};
