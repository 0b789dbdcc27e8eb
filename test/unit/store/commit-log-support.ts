/**
 * Shared pieces of the commit-log, mapped-file and crash tests: temp store directories, small
 * configurations, message builders, and a FileIO wrapper that counts calls, holds fdatasyncs until
 * released, and fails chosen calls.
 */
import * as fs from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { HostAddress } from '../../../src/common/message/host.js';
import { tagsString2tagsCode } from '../../../src/common/message/tag-hash.js';
import { type MessageStoreConfig, messageStoreConfig } from '../../../src/store/config.js';
import { type FileIO, type IOCallback, nodeFileIO, type WriteCallback } from '../../../src/store/file-io.js';
import type { MessageExtBrokerInner } from '../../../src/store/stored-record-writer.js';

export const STORE_HOST: HostAddress = Object.freeze({ address: '10.1.2.3', port: 10911 });
export const BORN_HOST: HostAddress = Object.freeze({ address: '192.168.0.7', port: 54321 });

/** A fresh directory under the OS temp dir; removed by `cleanup`. */
export function tempStoreDir(prefix = 'rmq-cl-'): { root: string; cleanup: () => void } {
  const root = fs.mkdtempSync(join(tmpdir(), prefix));
  return { root, cleanup: () => fs.rmSync(root, { recursive: true, force: true }) };
}

export function smallConfig(root: string, overrides: Partial<MessageStoreConfig> = {}): MessageStoreConfig {
  return messageStoreConfig({
    storePathRootDir: root,
    mappedFileSizeCommitLog: 64 * 1024,
    maxMessageSize: 16 * 1024,
    ...overrides,
  });
}

export function properties(entries: Record<string, string>): string {
  return Object.entries(entries)
    .map(([k, v]) => `${k}\u0001${v}`)
    .join('\u0002');
}

export interface InnerInit {
  topic?: string;
  queueId?: number;
  body?: Buffer | string;
  props?: Record<string, string>;
  propertiesString?: string;
  sysFlag?: number;
  flag?: number;
  bornTimestamp?: bigint;
  bornHost?: HostAddress;
  storeHost?: HostAddress;
  reconsumeTimes?: number;
  preparedTransactionOffset?: bigint;
  waitStoreMsgOK?: boolean;
}

export function inner(init: InnerInit = {}): MessageExtBrokerInner {
  const props = init.props ?? { TAGS: 'TagA', KEYS: 'k1 k2', UNIQ_KEY: '0A0102030000000000000001' };
  const body = init.body ?? 'hello';
  const msg: MessageExtBrokerInner = {
    topic: init.topic ?? 'TopicTest',
    queueId: init.queueId ?? 0,
    flag: init.flag ?? 0,
    body: typeof body === 'string' ? Buffer.from(body) : body,
    propertiesString: init.propertiesString ?? properties(props),
    tagsCode: tagsString2tagsCode(props.TAGS),
    sysFlag: init.sysFlag ?? 0,
    bornTimestamp: init.bornTimestamp ?? 1_700_000_000_123n,
    bornHost: init.bornHost ?? BORN_HOST,
    storeHost: init.storeHost ?? STORE_HOST,
    reconsumeTimes: init.reconsumeTimes ?? 0,
    preparedTransactionOffset: init.preparedTransactionOffset ?? 0n,
  };
  if (init.waitStoreMsgOK !== undefined) msg.waitStoreMsgOK = init.waitStoreMsgOK;
  return msg;
}

/** Deterministic pseudo-random numbers (mulberry32). */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * FileIO that counts calls and lets a test hold fdatasyncs (`holdSyncs`), fail the next write or
 * fdatasync, or make writes fail from a given file position on.
 */
export class TestIO implements FileIO {
  writes = 0;
  fdatasyncs = 0;
  fsyncs = 0;
  holdSyncs = false;
  private held: Array<() => void> = [];
  private syncWaiters: Array<() => void> = [];
  failNextWrite: NodeJS.ErrnoException | undefined;
  failNextSync: NodeJS.ErrnoException | undefined;

  /** Fails the next creation of a segment file (open with 'wx+'). */
  failNextCreate: NodeJS.ErrnoException | undefined;
  openSync(path: string, flags: string): number {
    const err = this.failNextCreate;
    if (err !== undefined && flags === 'wx+') {
      this.failNextCreate = undefined;
      throw err;
    }
    return nodeFileIO.openSync(path, flags);
  }
  closeSync(fd: number): void {
    nodeFileIO.closeSync(fd);
  }
  ftruncateSync(fd: number, length: number): void {
    nodeFileIO.ftruncateSync(fd, length);
  }
  fsyncSync(fd: number): void {
    this.fsyncs++;
    nodeFileIO.fsyncSync(fd);
  }
  fdatasyncSync(fd: number): void {
    this.fdatasyncs++;
    const err = this.takeSyncFailure();
    if (err !== undefined) throw err;
    nodeFileIO.fdatasyncSync(fd);
  }
  fdatasync(fd: number, callback: IOCallback): void {
    this.fdatasyncs++;
    const waiters = this.syncWaiters;
    this.syncWaiters = [];
    for (const w of waiters) w();
    const err = this.takeSyncFailure();
    const done: IOCallback = (e) => {
      callback(e);
      const after = this.syncDoneWaiters;
      this.syncDoneWaiters = [];
      for (const w of after) w();
    };
    const run = (): void => {
      if (err !== undefined) {
        setImmediate(() => done(err));
        return;
      }
      nodeFileIO.fdatasync(fd, done);
    };
    if (this.holdSyncs) this.held.push(run);
    else run();
  }
  /** Lets every held fdatasync go on. */
  releaseSyncs(): void {
    const held = this.held;
    this.held = [];
    for (const run of held) run();
  }
  get heldSyncs(): number {
    return this.held.length;
  }
  private syncDoneWaiters: Array<() => void> = [];
  /** Resolves right after the next fdatasync completion has been handed to the store. */
  syncDone(): Promise<void> {
    return new Promise((resolve) => this.syncDoneWaiters.push(resolve));
  }
  /** Resolves when the next fdatasync is called. */
  nextSync(): Promise<void> {
    return new Promise((resolve) => this.syncWaiters.push(resolve));
  }
  private takeSyncFailure(): NodeJS.ErrnoException | undefined {
    const err = this.failNextSync;
    this.failNextSync = undefined;
    return err;
  }
  writeSync(fd: number, buffer: Buffer, offset: number, length: number, position: number): number {
    this.writes++;
    const err = this.failNextWrite;
    if (err !== undefined) {
      this.failNextWrite = undefined;
      throw err;
    }
    return nodeFileIO.writeSync(fd, buffer, offset, length, position);
  }
  write(
    fd: number,
    buffer: Buffer,
    offset: number,
    length: number,
    position: number,
    callback: WriteCallback,
  ): void {
    this.writes++;
    const err = this.failNextWrite;
    this.failNextWrite = undefined;
    const run = (): void => {
      if (err !== undefined) {
        setImmediate(() => callback(err, 0));
        return;
      }
      nodeFileIO.write(fd, buffer, offset, length, position, callback);
    };
    if (this.holdWrites) this.heldWrites.push(run);
    else run();
  }
  holdWrites = false;
  private heldWrites: Array<() => void> = [];
  releaseWrites(): void {
    const held = this.heldWrites;
    this.heldWrites = [];
    for (const run of held) run();
  }
  reads = 0;
  readSync(fd: number, buffer: Buffer, offset: number, length: number, position: number): number {
    this.reads++;
    return nodeFileIO.readSync(fd, buffer, offset, length, position);
  }
  fstatSync(fd: number): fs.Stats {
    return nodeFileIO.fstatSync(fd);
  }
  unlinkSync(path: string): void {
    nodeFileIO.unlinkSync(path);
  }
}

/** Waits, one event-loop turn at a time, until `condition` holds (at most `turns` turns). */
export async function until(condition: () => boolean, turns = 1000): Promise<void> {
  for (let i = 0; i < turns; i++) {
    if (condition()) return;
    await new Promise((r) => setImmediate(r));
  }
  throw new Error('condition not reached');
}

export function ioError(code: string, syscall: string): NodeJS.ErrnoException {
  const err = new Error(`${code}: injected failure, ${syscall}`) as NodeJS.ErrnoException;
  err.code = code;
  err.syscall = syscall;
  return err;
}
