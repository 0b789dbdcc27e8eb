/**
 * One workload process on our client: `node workload-child.js '<WorkloadSpec JSON>'`. A producer
 * sends keyed messages in `loops` loops until stdin ends and records every outcome, failures
 * included; a consumer records every delivery before acknowledging it. One HistoryEvent per stdout
 * line (stdout to a pipe is synchronous on Linux, so a SIGKILL loses no line already written).
 */
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { createLogger } from '../../src/common/logger.js';
import type { MessageExt } from '../../src/common/message/message.js';
import { createProducer, createPushConsumer, type Producer, RocketMQError } from '../../src/index.js';
import type { ConsumeEvent, SendEvent } from './types.js';
import type { ConsumerSpec, ProducerSpec, WorkloadSpec } from './workload-spec.js';

/** User properties that carry the shard and position of an ordered message. */
export const SHARD_PROPERTY = 'chaosShard';
export const SEQ_PROPERTY = 'chaosSeq';

function line(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value)}\n`);
}

function statusOf(error: unknown): string {
  if (error instanceof RocketMQError) return `${error.name}:${error.responseCode}`;
  return error instanceof Error ? error.name : 'Error';
}

async function sendLoop(producer: Producer, spec: ProducerSpec, loop: number, stop: AbortSignal) {
  const shard = `${spec.client}-s${loop}`;
  for (let seq = 0; !stop.aborted; seq++) {
    const key = `${spec.client}-${loop}-${seq}`;
    const message = {
      topic: spec.topic,
      body: key,
      keys: key,
      ...(spec.ordered ? { properties: { [SHARD_PROPERTY]: shard, [SEQ_PROPERTY]: String(seq) } } : {}),
    };
    const started = Date.now();
    const base = { kind: 'send' as const, client: spec.client, key, ...(spec.ordered ? { shard, seq } : {}) };
    try {
      const r = spec.ordered
        ? await producer.send(message, {
            selector: (mqs) => mqs[loop % mqs.length] as (typeof mqs)[0],
            arg: loop,
          })
        : await producer.send(message);
      const done = Date.now();
      const event: SendEvent = {
        ...base,
        t: done,
        ok: true,
        status: r.sendStatus,
        queueId: r.messageQueue.queueId,
        queueOffset: Number(r.queueOffset),
        msgId: r.msgId,
        latencyMs: done - started,
      };
      line(event);
    } catch (error) {
      const done = Date.now();
      line({
        ...base,
        t: done,
        ok: false,
        status: statusOf(error),
        latencyMs: done - started,
      } satisfies SendEvent);
    }
    if (!stop.aborted) await sleep(spec.intervalMs);
  }
}

async function runProducer(spec: ProducerSpec): Promise<void> {
  const producer = createProducer({
    namesrvAddr: spec.namesrvAddr,
    producerGroup: spec.group,
    pollNameServerInterval: spec.pollNameServerInterval,
    logger: createLogger('chaos-producer', { level: 'silent' }),
  });
  await producer.start();
  line({ ready: true });
  const stop = new AbortController();
  process.stdin.once('end', () => stop.abort());
  process.stdin.resume();
  await Promise.all(Array.from({ length: spec.loops }, (_, i) => sendLoop(producer, spec, i, stop.signal)));
  line({ done: true });
  await producer.shutdown();
}

function consumeEvent(spec: ConsumerSpec, m: MessageExt): ConsumeEvent {
  const shard = m.getUserProperty(SHARD_PROPERTY);
  const seq = m.getUserProperty(SEQ_PROPERTY);
  return {
    kind: 'consume',
    t: Date.now(),
    client: spec.client,
    key: m.keys ?? '',
    ...(shard !== undefined && shard !== null ? { shard } : {}),
    ...(seq !== undefined && seq !== null ? { seq: Number(seq) } : {}),
    queueId: m.queueId,
    queueOffset: Number(m.queueOffset),
    reconsumeTimes: m.reconsumeTimes,
  };
}

async function runConsumer(spec: ConsumerSpec): Promise<void> {
  const consumer = createPushConsumer({
    namesrvAddr: spec.namesrvAddr,
    consumerGroup: spec.group,
    instanceName: spec.instanceName,
    heartbeatBrokerInterval: spec.heartbeatBrokerInterval,
    pollNameServerInterval: spec.pollNameServerInterval,
    consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
    logger: createLogger('chaos-consumer', { level: 'silent' }),
  });
  consumer.subscribe(spec.topic, '*');
  if (spec.orderly) {
    consumer.registerMessageListener({
      type: 'orderly',
      async consumeMessage(msgs) {
        for (const m of msgs) line(consumeEvent(spec, m));
        return 'SUCCESS' as const;
      },
    });
  } else {
    consumer.registerMessageListener({
      type: 'concurrently',
      async consumeMessage(msgs) {
        for (const m of msgs) line(consumeEvent(spec, m));
        return 'CONSUME_SUCCESS' as const;
      },
    });
  }
  await consumer.start();
  line({ ready: true });
  process.stdin.resume();
  await once(process.stdin, 'end');
  await consumer.shutdown();
}

async function main(spec: WorkloadSpec): Promise<void> {
  if (spec.role === 'producer') await runProducer(spec);
  else await runConsumer(spec);
  process.exit(0);
}

const raw = process.argv[2];
if (raw !== undefined && process.argv[1]?.endsWith('workload-child.js')) {
  main(JSON.parse(raw) as WorkloadSpec).catch((error: unknown) => {
    process.stderr.write(
      `workload-child: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exit(1);
  });
}
