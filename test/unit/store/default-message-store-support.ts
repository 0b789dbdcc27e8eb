/**
 * Shared pieces of the DefaultMessageStore tests: small configurations, opening and reopening a store,
 * messages shaped like the official producer's, and reading a whole queue back.
 */
import * as fs from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Clock, ManualClock } from '../../../src/common/clock.js';
import { createLogger } from '../../../src/common/logger.js';
import type { HostAddress } from '../../../src/common/message/host.js';
import type { MessageExt } from '../../../src/common/message/message.js';
import { decodeMessage } from '../../../src/common/message/stored-format.js';
import { tagsString2tagsCode } from '../../../src/common/message/tag-hash.js';
import { type MessageStoreConfig, messageStoreConfig } from '../../../src/store/config.js';
import {
  DefaultMessageStore,
  type DefaultMessageStoreOptions,
} from '../../../src/store/default-message-store.js';
import { GetMessageStatus } from '../../../src/store/message-store.js';
import type { MessageExtBrokerInner } from '../../../src/store/stored-record-writer.js';

export const STORE_HOST: HostAddress = Object.freeze({ address: '127.0.0.1', port: 10911 });
export const BORN_HOST: HostAddress = Object.freeze({ address: '127.0.0.1', port: 50000 });
export const quiet = createLogger('test', { level: 'silent' });

const roots: string[] = [];

/** A fresh store directory, removed by `removeTempDirs`. */
export function tempDir(prefix = 'rmq-dms-'): string {
  const root = fs.mkdtempSync(join(tmpdir(), prefix));
  roots.push(root);
  return root;
}

export function removeTempDirs(): void {
  for (const r of roots.splice(0)) fs.rmSync(r, { recursive: true, force: true });
}

/** Small files so a few hundred messages span several commit-log, consume-queue and index files. */
export function storeConfig(root: string, overrides: Partial<MessageStoreConfig> = {}): MessageStoreConfig {
  return messageStoreConfig({
    storePathRootDir: root,
    mappedFileSizeCommitLog: 8 * 1024,
    mappedFileSizeConsumeQueue: 20 * 20,
    maxMessageSize: 4 * 1024,
    maxHashSlotNum: 64,
    maxIndexNum: 256,
    ...overrides,
  });
}

export interface OpenOptions extends DefaultMessageStoreOptions {
  clock?: Clock;
}

/** Constructs, loads and starts a store (ManualClock unless one is given). */
export async function openStore(
  root: string,
  overrides: Partial<MessageStoreConfig> = {},
  options: OpenOptions = {},
): Promise<DefaultMessageStore> {
  const store = new DefaultMessageStore(storeConfig(root, overrides), {
    logger: quiet,
    clock: new ManualClock(),
    brokerStoreHost: STORE_HOST,
    ...options,
  });
  await store.load();
  await store.start();
  return store;
}

export function props(entries: Record<string, string>): string {
  return Object.entries(entries)
    .map(([k, v]) => `${k}\u0001${v}`)
    .join('\u0002');
}

/** The UNIQ_KEY of message `i` (32 hex digits, like the client's). */
export function uniqKey(i: number, salt = 0): string {
  return `7F000001${salt.toString(16).padStart(8, '0')}${i.toString(16).toUpperCase().padStart(16, '0')}`;
}

export interface MsgInit {
  topic?: string;
  queueId?: number;
  tag?: string;
  body?: Buffer | string;
  keys?: string;
  extra?: Record<string, string>;
  sysFlag?: number;
  salt?: number;
}

/** Message `i` as the official producer builds it: TAGS, KEYS, a user property, UNIQ_KEY, WAIT. */
export function msg(i: number, init: MsgInit = {}): MessageExtBrokerInner {
  const tag = init.tag ?? ['TagA', 'TagB', 'TagC'][i % 3] ?? 'TagA';
  const entries: Record<string, string> = {
    KEYS: init.keys ?? `key-${i} k2-${i}`,
    idx: String(i),
    UNIQ_KEY: uniqKey(i, init.salt),
    WAIT: 'true',
    TAGS: tag,
    ...init.extra,
  };
  const body = init.body ?? `body-${i}`;
  return {
    topic: init.topic ?? 'TopicTest',
    queueId: init.queueId ?? 0,
    flag: 0,
    body: typeof body === 'string' ? Buffer.from(body) : body,
    propertiesString: props(entries),
    tagsCode: tagsString2tagsCode(tag),
    sysFlag: init.sysFlag ?? 0,
    bornTimestamp: 1_700_000_000_000n + BigInt(i),
    bornHost: BORN_HOST,
    storeHost: STORE_HOST,
    reconsumeTimes: 0,
    preparedTransactionOffset: 0n,
  };
}

/** Puts and asserts PUT_OK; returns the append result. */
export async function put(store: DefaultMessageStore, m: MessageExtBrokerInner) {
  const r = await store.putMessage(m);
  if (r.putMessageStatus !== 'PUT_OK' || r.appendMessageResult === undefined) {
    throw new Error(`put failed: ${r.putMessageStatus}`);
  }
  return r.appendMessageResult;
}

/** Every message of the queue from `from`, pulling `maxMsgNums` at a time until OFFSET_OVERFLOW_ONE. */
export async function pullAll(
  store: DefaultMessageStore,
  topic: string,
  queueId: number,
  from = 0n,
  maxMsgNums = 32,
): Promise<MessageExt[]> {
  const out: MessageExt[] = [];
  let offset = from;
  for (let guard = 0; guard < 100_000; guard++) {
    const r = await store.getMessage('g', topic, queueId, offset, maxMsgNums);
    if (r.status !== GetMessageStatus.FOUND) {
      if (
        r.status === GetMessageStatus.OFFSET_OVERFLOW_ONE ||
        r.status === GetMessageStatus.NO_MESSAGE_IN_QUEUE
      ) {
        return out;
      }
      throw new Error(`pull ${topic}/${queueId} at ${offset}: ${r.status}`);
    }
    for (const record of r.messages) out.push(decodeMessage(record));
    offset = r.nextBeginOffset;
  }
  throw new Error('pullAll did not end');
}
