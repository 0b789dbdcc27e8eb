/**
 * A started broker over a real store in a temp dir (hand-driven clock, in-memory metadata files, an
 * in-memory client), for the broker tests that need real messages; and a wait for the store's
 * asynchronous appends and dispatch. Call cleanUp() from afterEach.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrokerConfigOverrides } from '../../../src/broker/broker-config.js';
import { type BrokerController, createBroker } from '../../../src/broker/broker-controller.js';
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

const brokers: BrokerController[] = [];
const roots: string[] = [];

/** For afterEach: shuts every broker down and removes the temp dirs. */
export async function cleanUp(): Promise<void> {
  await Promise.all(brokers.splice(0).map((b) => b.shutdown()));
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
}

/** Shuts `broker` down in cleanUp() (for brokers a test builds itself). */
export function track(broker: BrokerController): BrokerController {
  brokers.push(broker);
  return broker;
}

/** The settings of every test broker: loopback, any port, small files. */
export const TEST_BROKER_CONFIG = {
  listenPort: 0,
  listenHost: '127.0.0.1',
  brokerName: 'broker-a',
  brokerIP1: '127.0.0.1',
  // A slave opens its HA port; brokerIP2 would be the fake host address of TEST_ENV.
  haListenHost: '127.0.0.1',
  mappedFileSizeCommitLog: 1 << 20,
  mappedFileSizeConsumeQueue: 20 * 1024,
} as const;

export function tempRoot(): string {
  const root = mkdtempSync(join(tmpdir(), 'rmq-broker-'));
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
    config: { ...TEST_BROKER_CONFIG, storePathRootDir: root, ...options.config },
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

/** Turns the event loop until `condition` holds (appends and dispatch happen in later turns). */
export async function until(condition: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 5000; i++) {
    if (condition()) return;
    await settle();
  }
  assert.fail(`never happened: ${what}`);
}

/** Resolves once `count` messages are in the queue. */
