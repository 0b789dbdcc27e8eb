/**
 * The development profile is quiet about what it does on purpose: a consumer started before its topic
 * exists, a topic auto-created on first send, the route poll right after it; a failed send warns at
 * most once (the caller has the error). The loggers are pino-style objects handed in through the
 * `logger` option, which also proves that option reaches the broker, the name server and the clients.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { RocketMQLogger } from '../../../src/common/logger-interface.js';
import {
  ConsumeConcurrentlyStatus,
  createProducer,
  createPushConsumer,
  type Embedded,
  startEmbedded,
} from '../../../src/index.js';
import { FAST } from './consumer-support.js';
import { uniqueName } from './support.js';

interface Line {
  level: string;
  msg: string;
  fields: Record<string, unknown>;
}

function capture(): { logger: RocketMQLogger; lines: Line[] } {
  const lines: Line[] = [];
  const at =
    (level: string) =>
    (fields: Record<string, unknown>, msg: string): void => {
      lines.push({ level, msg, fields });
    };
  return { logger: { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') }, lines };
}

function warns(lines: readonly Line[]): string[] {
  return lines
    .filter((l) => l.level === 'warn' || l.level === 'error')
    .map((l) => `${l.fields.component}: ${l.msg}`);
}

let embedded: Embedded;
const server = capture();

before(async () => {
  embedded = await startEmbedded({ logger: server.logger, autoCreateTopicEnable: true });
});

after(async () => {
  await embedded.close();
});

test('a consumer before its topic, the first send that creates it, and the route polls after: no warn', async () => {
  const client = capture();
  const topic = uniqueName('Fresh');
  const consumer = createPushConsumer({
    ...FAST,
    namesrvAddr: embedded.namesrvAddr,
    consumerGroup: uniqueName('cg'),
    logger: client.logger,
  });
  let received!: () => void;
  const delivered = new Promise<void>((resolve) => {
    received = resolve;
  });
  consumer.subscribe(topic, '*');
  consumer.registerMessageListener({
    type: 'concurrently',
    consumeMessage: async () => {
      received();
      return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
    },
  });
  await consumer.start();
  const producer = createProducer({
    namesrvAddr: embedded.namesrvAddr,
    producerGroup: uniqueName('pg'),
    pollNameServerInterval: 200,
    logger: client.logger,
  });
  await producer.start();
  try {
    const sent = await producer.send({ topic, body: 'first' });
    const json = JSON.parse(JSON.stringify(sent)) as {
      queueOffset: unknown;
      messageQueue: { topic: string };
    };
    assert.equal(typeof json.queueOffset, 'number', 'a SendResult goes through JSON.stringify');
    assert.equal(json.messageQueue.topic, topic);
    await delivered;
    assert.ok(
      server.lines.some((l) => l.msg === 'Create new topic by default topic' && l.fields.topic === topic),
      'the broker told its logger (info) it created the topic',
    );
    assert.ok(
      client.lines.some((l) => l.level === 'info' && /topic does not exist yet/.test(l.msg)),
      'the consumer said once, at info, that it waits for the topic',
    );
    assert.deepEqual(warns(client.lines), []);
    assert.deepEqual(warns(server.lines), []);
  } finally {
    await producer.shutdown();
    await consumer.shutdown();
  }
});

test('a failed send warns at most once; the error carries the rest', async () => {
  const client = capture();
  const producer = createProducer({
    namesrvAddr: '127.0.0.1:1',
    producerGroup: uniqueName('pg'),
    logger: client.logger,
  });
  await producer.start();
  try {
    await assert.rejects(producer.send({ topic: uniqueName('Nowhere'), body: 'x' }, { timeoutMs: 1000 }), {
      code: 'ERR_ROCKETMQ_NO_ROUTE',
    });
    const lines = warns(client.lines);
    assert.ok(lines.length <= 1, lines.join('\n'));
    const logged = client.lines.find((l) => l.level === 'warn');
    assert.ok(
      logged === undefined || logged.fields.err instanceof Error,
      'the failure itself, with its stack',
    );
  } finally {
    await producer.shutdown();
  }
});
