/**
 * Shared pieces of the send-back and schedule tests: a started broker over a real store in a temp
 * dir (hand-driven clock, in-memory metadata files, in-memory client), reading a queue back, and
 * waiting for the store's asynchronous appends.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrokerConfigOverrides } from '../../../src/broker/broker-config.js';
import { type BrokerController, createBroker } from '../../../src/broker/broker-controller.js';
import type { MessageExt } from '../../../src/common/message/message.js';
import { decodeMessage } from '../../../src/common/message/stored-format.js';
import type { MessageExtBrokerInner } from '../../../src/store/stored-record-writer.js';
import {
  connectInMemory,
  ManualClock,
  MemoryFileIO,
  quiet,
  settle,
  TEST_ENV,
  type TestClient,
} from './helpers.js';

export const T0 = 1_700_000_000_000;
export const SCHEDULE_TOPIC = 'SCHEDULE_TOPIC_XXXX';

const brokers: BrokerController[] = [];
const roots: string[] = [];

/** For afterEach: shuts every broker down and removes the temp dirs. */
export async function cleanUp(): Promise<void> {
  await Promise.all(brokers.splice(0).map((b) => b.shutdown()));
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
}

export function tempRoot(): string {
  const root = mkdtempSync(join(tmpdir(), 'rmq-schedule-'));
  roots.push(root);
  return root;
}

export interface RunningBroker {
  broker: BrokerController;
  clock: ManualClock;
  client: TestClient;
  root: string;
  io: MemoryFileIO;
}

export interface StartOptions {
  root?: string;
  clock?: ManualClock;
  /** Metadata files; pass the previous broker's to keep its topics and groups across a restart. */
  io?: MemoryFileIO;
  config?: BrokerConfigOverrides;
}

/** A started broker (listening on an ephemeral port) over a store in `root`. */
export async function startBroker(options: StartOptions = {}): Promise<RunningBroker> {
  const root = options.root ?? tempRoot();
  const clock = options.clock ?? new ManualClock(T0);
  const io = options.io ?? new MemoryFileIO();
  const broker = createBroker({
    config: {
      storePathRootDir: root,
      listenPort: 0,
      listenHost: '127.0.0.1',
      brokerName: 'broker-a',
      brokerIP1: '127.0.0.1',
      mappedFileSizeCommitLog: 1 << 20,
      mappedFileSizeConsumeQueue: 20 * 1024,
      ...options.config,
    },
    env: TEST_ENV,
    clock,
    logger: quiet,
    configFileIO: io,
  });
  brokers.push(broker);
  await broker.start();
  return { broker, clock, client: connectInMemory(broker), root, io };
}

/** Stops a broker started by startBroker (its store lock is released for the next one). */
export async function stopBroker(b: RunningBroker): Promise<void> {
  await b.broker.shutdown();
  const i = brokers.indexOf(b.broker);
  if (i >= 0) brokers.splice(i, 1);
}

/** Puts a message straight into the store; resolves with its commit-log offset. */
export async function putMessage(broker: BrokerController, message: MessageExtBrokerInner): Promise<bigint> {
  const result = await broker.messageStore.putMessage(message);
  assert.equal(result.putMessageStatus, 'PUT_OK');
  assert.ok(result.appendMessageResult);
  return result.appendMessageResult.wroteOffset;
}

export interface StoredEntry {
  msg: MessageExt;
  /** The consume-queue tag code (the deliver time for SCHEDULE_TOPIC_XXXX). */
  tagsCode: bigint | undefined;
}

/** Every message of a queue with its consume-queue tag code (body as stored), pulled page by page. */
export async function readQueue(
  broker: BrokerController,
  topic: string,
  queueId: number,
): Promise<StoredEntry[]> {
  const out: StoredEntry[] = [];
  let offset = 0n;
  for (;;) {
    const tagsCodes: Array<bigint | undefined> = [];
    const got = await broker.messageStore.getMessage('reader', topic, queueId, offset, 32, {
      isMatchedByConsumeQueue: (tagsCode) => {
        tagsCodes.push(tagsCode);
        return true;
      },
      isMatchedByCommitLog: () => true,
    });
    if (got.messages.length === 0) return out;
    got.messages.forEach((buf, i) => {
      out.push({ msg: decodeMessage(buf, 0, { decompress: false }), tagsCode: tagsCodes[i] });
    });
    offset = got.nextBeginOffset;
  }
}

/** Turns the event loop until `condition` holds (appends and dispatch happen in later turns). */
export async function until(condition: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 5000; i++) {
    if (condition()) return;
    await settle();
  }
  assert.fail(`never happened: ${what}`);
}

/** Resolves once `count` messages are in the queue. */
export function untilQueueHas(
  broker: BrokerController,
  topic: string,
  queueId: number,
  count: number,
): Promise<void> {
  return until(
    () => broker.messageStore.getMaxOffsetInQueue(topic, queueId) >= BigInt(count),
    `${count} message(s) in ${topic}/${queueId}`,
  );
}

/** Lets pending appends finish (a few turns), so an absence checked afterwards is real. */
export async function quiesce(): Promise<void> {
  for (let i = 0; i < 20; i++) await settle();
}
