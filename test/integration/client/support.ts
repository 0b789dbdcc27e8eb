/**
 * What the client integration tests share: our name server and brokers in this process (loopback,
 * ephemeral ports, temp dirs), producers with quiet or captured logs, messages read back through a
 * broker's own store, and waits that poll with a deadline.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrokerConfigOverrides } from '../../../src/broker/broker-config.js';
import { type BrokerController, createBroker } from '../../../src/broker/broker-controller.js';
import type { BrokerRequestHandler } from '../../../src/broker/processor/broker-context.js';
import { BROKER_REQUEST_HANDLERS } from '../../../src/broker/processor/processor-table.js';
import { createProducer, type Producer, type ProducerOptions } from '../../../src/client/index.js';
import { createLogger, type Logger, type LogRecord } from '../../../src/common/logger.js';
import type { MessageExt } from '../../../src/common/message/message.js';
import { MessageConst } from '../../../src/common/message/message-const.js';
import { decodeOffsetMsgId } from '../../../src/common/message/message-id.js';
import { type DecodeMessageOptions, decodeMessage } from '../../../src/common/message/stored-format.js';
import { createTopicConfig } from '../../../src/common/protocol/topic-config.js';
import { startStandalone } from '../../../src/embedded/standalone.js';
import type { NamesrvController } from '../../../src/namesrv/index.js';
import { GetMessageStatus } from '../../../src/store/message-store.js';

export const quiet: Logger = createLogger('test', { level: 'silent' });

/** A logger that keeps every record, debug and up. */
export function capturingLogger(): { logger: Logger; records: LogRecord[] } {
  const records: LogRecord[] = [];
  return { logger: createLogger('client', { level: 'debug', sink: (r) => records.push(r) }), records };
}

/** Settings of every test broker: loopback, any port, small files. */
const BROKER_DEFAULTS: BrokerConfigOverrides = {
  listenPort: 0,
  listenHost: '127.0.0.1',
  brokerIP1: '127.0.0.1',
  brokerIP2: '127.0.0.1',
  mappedFileSizeCommitLog: 4 << 20,
  mappedFileSizeConsumeQueue: 60_000,
};

export interface TestCluster {
  readonly namesrvAddr: string;
  readonly namesrv: NamesrvController;
  /** brokers[0] is `broker-a`, started with the name server. */
  readonly brokers: BrokerController[];
  /** Another broker of the cluster, registered with the same name server. */
  addBroker(brokerName: string, config?: BrokerConfigOverrides): Promise<BrokerController>;
  /** Stops every broker still running, then the name server; removes the temp dir. */
  close(): Promise<void>;
}

export async function startCluster(config: BrokerConfigOverrides = {}): Promise<TestCluster> {
  const dir = mkdtempSync(join(tmpdir(), 'rmq-client-'));
  const logger = createLogger('cluster', { level: 'silent' });
  let pair: Awaited<ReturnType<typeof startStandalone>>;
  try {
    pair = await startStandalone({
      dataDir: join(dir, 'broker-a'),
      namesrvPort: 0,
      host: '127.0.0.1',
      broker: { ...BROKER_DEFAULTS, brokerName: 'broker-a', ...config },
      logger,
    });
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  const brokers: BrokerController[] = [pair.broker];
  return {
    namesrvAddr: pair.namesrvAddr,
    namesrv: pair.namesrv,
    brokers,
    async addBroker(brokerName, extra = {}) {
      const broker = createBroker({
        config: {
          ...BROKER_DEFAULTS,
          brokerName,
          ...extra,
          storePathRootDir: join(dir, brokerName),
          namesrvAddr: pair.namesrvAddr,
        },
        logger: logger.child(brokerName),
      });
      await broker.start();
      brokers.push(broker);
      return broker;
    },
    async close() {
      try {
        await Promise.all(brokers.slice(1).map((b) => b.shutdown()));
        await pair.close();
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}

let groupSeq = 0;

/** A group name no other test of this process uses. */
export function uniqueName(prefix: string): string {
  groupSeq += 1;
  return `${prefix}-${process.pid}-${groupSeq}`;
}

/** A producer of a fresh group on `namesrvAddr`, quiet unless a logger is given. */
export function newProducer(
  options: Partial<ProducerOptions> & { namesrvAddr?: ProducerOptions['namesrvAddr'] },
): Producer {
  return createProducer({
    producerGroup: uniqueName('pg'),
    logger: quiet,
    ...options,
  });
}

/**
 * Creates (or updates) `topic` with `queues` read and write queues on `brokers` and waits until the
 * name server's route has them all.
 */
export async function createTopic(
  cluster: TestCluster,
  topic: string,
  queues: number,
  brokers: readonly BrokerController[] = cluster.brokers,
): Promise<void> {
  // As UPDATE_AND_CREATE_TOPIC (mqadmin updateTopic) does: store the topic, then register it.
  for (const broker of brokers) {
    const config = createTopicConfig(topic, { readQueueNums: queues, writeQueueNums: queues });
    broker.topicConfigManager.updateTopicConfig(config);
    await broker.registerIncrementBrokerData(config, broker.topicConfigManager.dataVersion);
  }
  await until(() => {
    const route = cluster.namesrv.routeInfoManager.pickupTopicRouteData(topic);
    return (
      route !== undefined &&
      brokers.every((b) =>
        route.queueDatas.some((q) => q.brokerName === b.config.brokerName && q.writeQueueNums === queues),
      )
    );
  }, `route of ${topic} with ${queues} queues on the name server`);
}

/** The stored message an offsetMsgId points at, read from the broker's commit log. */
export function storedById(
  broker: BrokerController,
  offsetMsgId: string,
  options: DecodeMessageOptions = {},
): MessageExt {
  const { offset } = decodeOffsetMsgId(offsetMsgId);
  const record = broker.messageStore.selectOneMessageByOffset(offset);
  assert.ok(record !== undefined, `no message at commit log offset ${offset} of ${broker.config.brokerName}`);
  return decodeMessage(record, 0, { copyBody: true, ...options });
}

/** The message at `offset` of a queue, once the store has dispatched it to the consume queue. */
export async function storedAt(
  broker: BrokerController,
  topic: string,
  queueId: number,
  offset: bigint,
): Promise<MessageExt> {
  return until(async () => {
    const result = await broker.messageStore.getMessage('integ-reader', topic, queueId, offset, 1);
    const record = result.messages[0];
    if (result.status !== GetMessageStatus.FOUND || record === undefined) return undefined;
    return decodeMessage(record, 0, { copyBody: true });
  }, `message ${topic}:${queueId}@${offset} on ${broker.config.brokerName}`);
}

/** Every message of a queue from offset 0, once `count` are there. */
export async function queueMessages(
  broker: BrokerController,
  topic: string,
  queueId: number,
  count: number,
): Promise<MessageExt[]> {
  await until(
    () => broker.messageStore.getMaxOffsetInQueue(topic, queueId) >= BigInt(count),
    `${count} messages in ${topic}:${queueId}`,
  );
  const out: MessageExt[] = [];
  for (let i = 0; i < count; i++) out.push(await storedAt(broker, topic, queueId, BigInt(i)));
  return out;
}

/** Messages in the broker's queues of `topic` (sum of max offsets). */
export function storedCount(broker: BrokerController, topic: string): bigint {
  const config = broker.topicConfigManager.selectTopicConfig(topic);
  if (config === undefined) return 0n;
  let total = 0n;
  for (let q = 0; q < config.writeQueueNums; q++) total += broker.messageStore.getMaxOffsetInQueue(topic, q);
  return total;
}

/**
 * Polls `probe` every few ms until it returns something other than undefined or false, and returns
 * that; fails the test after `timeoutMs`.
 */
export async function until<T>(
  probe: () => T | undefined | false | Promise<T | undefined | false>,
  what: string,
  timeoutMs = 5000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) assert.fail(`never happened within ${timeoutMs} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** Turns the event loop a few times, so work started by a timer (a route poll, a heartbeat) can begin. */
export async function turns(n = 3): Promise<void> {
  for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve));
}

/** Milliseconds `promise` takes to settle, and how it settled. */
export async function timed<T>(
  promise: Promise<T>,
): Promise<{ ms: number; value?: T; error?: unknown; ok: boolean }> {
  const started = Date.now();
  try {
    const value = await promise;
    return { ms: Date.now() - started, value, ok: true };
  } catch (error) {
    return { ms: Date.now() - started, error, ok: false };
  }
}

/**
 * Replaces a request handler of `broker` by `wrap(real)`: the real handler stays in charge and the
 * wrapper only watches, delays or rewrites its answer (fault injection on a real broker).
 */
export function wrapHandler(
  broker: BrokerController,
  code: number,
  wrap: (real: BrokerRequestHandler) => BrokerRequestHandler,
): void {
  const real = BROKER_REQUEST_HANDLERS.get(code);
  assert.ok(real !== undefined, `the broker has no handler for code ${code}`);
  broker.registerHandler(code, wrap(real));
}

/** A TCP server that counts connections and never answers: a hung peer, or proof that nobody called. */
export interface SilentServer {
  readonly address: string;
  readonly connections: number;
  close(): Promise<void>;
}

export async function startSilentServer(): Promise<SilentServer> {
  const sockets = new Set<Socket>();
  let connections = 0;
  const server: Server = createServer((socket) => {
    connections += 1;
    sockets.add(socket);
    socket.on('error', () => {});
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return {
    address: `127.0.0.1:${port}`,
    get connections() {
      return connections;
    },
    close() {
      for (const s of sockets) s.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** `127.0.0.1:<port>` where nothing listens (the port was just free). */
export async function deadAddress(): Promise<string> {
  const server = await startSilentServer();
  const address = server.address;
  await server.close();
  return address;
}

/** One send attempt as a SendMessageHook saw it. */
export interface Attempt {
  readonly msgId: string;
  readonly brokerName: string;
  readonly queueId: number;
  /** Set once the attempt ended: the broker's status, or the error's name and response code. */
  outcome?: string;
  error?: unknown;
}

/** Registers a hook on `producer` that records every send attempt, retries included. */
export function recordAttempts(producer: Producer): Attempt[] {
  const attempts: Attempt[] = [];
  producer.registerSendMessageHook({
    hookName: () => 'record-attempts',
    sendMessageBefore(context) {
      attempts.push({
        msgId: context.message.getProperty(MessageConst.PROPERTY_UNIQ_CLIENT_MESSAGE_ID_KEYIDX) ?? '',
        brokerName: context.mq.brokerName,
        queueId: context.mq.queueId,
      });
    },
    sendMessageAfter(context) {
      const msgId = context.message.getProperty(MessageConst.PROPERTY_UNIQ_CLIENT_MESSAGE_ID_KEYIDX);
      const attempt = [...attempts]
        .reverse()
        .find((a) => a.outcome === undefined && a.brokerName === context.mq.brokerName && a.msgId === msgId);
      if (attempt === undefined) return;
      if (context.exception === undefined) {
        attempt.outcome = context.sendResult?.sendStatus ?? 'ONEWAY';
      } else {
        const e = context.exception as { name?: string; responseCode?: number };
        attempt.outcome = `${e.name}:${e.responseCode}`;
        attempt.error = context.exception;
      }
    },
  });
  return attempts;
}
