/** Loads the golden fixtures written by the official Java code (`npm run fixtures`); never edited by hand. */
import { existsSync, readFileSync } from 'node:fs';

/**
 * The fixtures stay in the source tree while the compiled tests live in build/ or in a private
 * .tmp/build-<name>/ directory, so the directory is found by walking up from this file.
 */
function findGoldenDir(): URL {
  let dir = new URL('./', import.meta.url);
  for (let i = 0; i < 8; i++) {
    const candidate = new URL('test/fixtures/golden/', dir);
    if (existsSync(new URL('manifest.json', candidate))) return candidate;
    dir = new URL('../', dir);
  }
  throw new Error(`test/fixtures/golden/manifest.json not found above ${import.meta.url}`);
}

export const GOLDEN_DIR = findGoldenDir();

export function goldenFile(relative: string): Buffer {
  return readFileSync(new URL(relative, GOLDEN_DIR));
}

export interface GoldenHeaderField {
  javaType: string;
  required: boolean;
  value: string | null;
}

export interface GoldenCommand {
  name: string;
  file: string;
  serializeType: 'JSON' | 'ROCKETMQ';
  headerClass?: string;
  code: number;
  flag: number;
  opaque: number;
  language: string;
  version: number;
  remark: string | null;
  extFields: Record<string, string | null> | null;
  bodyHex: string | null;
  headerFields?: Record<string, GoldenHeaderField>;
  /** False for frames written by RemotingCommand.encodeHeader (zero-copy replies), not by NettyEncoder. */
  sameBytesAsNettyEncoder?: boolean;
}

/** An InetSocketAddress as Java recorded it: getHostAddress() text, port, raw address bytes. */
export interface GoldenHost {
  ip: string;
  port: number;
  addressHex: string;
}

/** The MessageExt values handed to MessageDecoder.encode (longs as decimal strings). */
export interface GoldenMessageFields {
  topic: string;
  topicUtf8Length: number;
  queueId: number;
  flag: number;
  queueOffset: string;
  commitLogOffset: string;
  sysFlag: number;
  bornTimestamp: string;
  bornHost: GoldenHost;
  storeTimestamp: string;
  storeHost: GoldenHost;
  reconsumeTimes: number;
  preparedTransactionOffset: string;
  bodyCRC: number;
  bodyLength: number;
  /** The body as stored (compressed when SYSFLAG bit 0 is set). */
  bodyHex: string;
  /** The body before compression. */
  originalBodyHex: string;
  /** messageProperties2String of the HashMap: Java's iteration order. */
  propertiesString: string;
  propertiesHex: string;
  /** Sorted by key. */
  properties: Record<string, string>;
}

/** What MessageDecoder.clientDecode returned for the record. */
export interface GoldenDecodedMessage {
  ok: boolean;
  msgId: string;
  offsetMsgId: string;
  storeSize: number;
  topic: string;
  sysFlag: number;
  queueOffset: string;
  commitLogOffset: string;
  bornHost: GoldenHost;
  storeHost: GoldenHost;
  /** Decompressed; null when Java decoded no body (zero BODY length). */
  bodyHex: string | null;
  properties: Record<string, string>;
}

export interface GoldenMessageRecord {
  name: string;
  /** null when Java could not encode the message (`encodeError`). */
  file: string | null;
  description: string;
  method: string;
  length?: number;
  fields?: GoldenMessageFields;
  expectedOffsetMsgId?: string;
  decoded?: GoldenDecodedMessage;
  encodeError?: string;
}

export interface GoldenPullBodyMessage {
  from: string;
  position: string;
  length: number;
  fields: GoldenMessageFields;
}

export interface GoldenPullBodyDecode {
  msgId: string;
  offsetMsgId: string;
  queueOffset: string;
  commitLogOffset: string;
  /** Decompressed length. */
  bodyLength: number;
}

export interface GoldenBatchMessage {
  topic?: string;
  flag: number;
  bodyHex: string;
  propertiesString?: string;
  properties: Record<string, string>;
}

export interface GoldenMessages {
  records: GoldenMessageRecord[];
  pullBody: {
    file: string;
    description: string;
    length: number;
    messages: GoldenPullBodyMessage[];
    decodes: GoldenPullBodyDecode[];
  };
  batch: {
    file: string;
    method: string;
    description: string;
    length: number;
    inputs: GoldenBatchMessage[];
    decodeMessages: GoldenBatchMessage[];
  };
  commitLogComparison: {
    file: string;
    method: string;
    comparedWith: string;
    differingByteOffsets: number[];
    explanation: string;
  };
  notes: string[];
}

export interface GoldenOffsetMsgId {
  ip: string;
  port: number;
  commitLogOffset: string;
  msgId: string;
  decodeMessageId: { address: GoldenHost; offset: string };
}

export interface GoldenUniqKey {
  how: 'composed' | 'generated';
  id: string;
  length: number;
  getIPStrFromID: string;
  getIPFromIDHex: string;
  getPidFromID: number;
  nearlyTime: { msSinceMonthStart: string };
  inputs: {
    ipHex: string;
    pid: number;
    pidInt16: number;
    classLoaderHash: number;
    /** The int written into the id (may be negative: the span is cast to int). */
    msSinceMonthStart: number;
    counter: number;
    counterInt16: number;
  };
  equalsComposed?: boolean;
}

export interface GoldenMessageIds {
  offsetMsgIds: GoldenOffsetMsgId[];
  uniqKeys: GoldenUniqKey[];
  notes: string[];
}

export interface GoldenTagHash {
  string: string;
  /** UTF-16 code units; null for long strings (see `construction`). */
  utf16: number[] | null;
  length: number;
  construction?: string;
  hashCode: number;
  tagsCode: string;
}

export interface GoldenIndexHash {
  topic: string;
  key: string;
  indexKey: string;
  indexKeyUtf8Hex: string;
  hashCode: number;
  keyHash: number;
  slotIndex: number;
}

export interface GoldenHashes {
  tags: GoldenTagHash[];
  index: GoldenIndexHash[];
  notes: string[];
}

export interface GoldenPropertiesToString {
  name: string;
  description: string;
  /** The map in iteration order; null for a null map. Java allows null keys and values. */
  entries: Array<[string | null, string | null]> | null;
  string: string;
  utf8Hex: string;
  /** string2messageProperties(string), sorted by key. */
  parsedBack: Record<string, string>;
}

export interface GoldenPropertiesFromString {
  name: string;
  input: string;
  inputUtf8Hex: string;
  /** Sorted by key. */
  result: Record<string, string>;
}

export interface GoldenProperties {
  toString: GoldenPropertiesToString[];
  fromString: GoldenPropertiesFromString[];
  notes: string[];
}

export interface GoldenBody {
  name: string;
  file: string;
  javaClass: string;
  method: string;
  content: string;
  length: number;
  sha256?: string;
  reparsedEqualsBean?: boolean;
  decodedTopics?: string[];
}

/** A strategy as allocate/vectors.json describes it (AllocateFixtures.java). */
export type GoldenAllocateStrategy =
  | { type: 'AVG' | 'AVG_BY_CIRCLE' }
  | { type: 'CONFIG'; messageQueueList: Array<[string, number]> }
  | { type: 'MACHINE_ROOM'; consumeridcs: string[] }
  | { type: 'CONSISTENT_HASH'; virtualNodeCnt: number; hashFunction: string | null }
  | { type: 'MACHINE_ROOM_NEARBY'; inner: GoldenAllocateStrategy };

export interface GoldenAllocation {
  currentCID: string;
  /** Positions in mqAll of the queues allocate returned, in its order. */
  result?: number[];
  /** The queues themselves, for strategies over CONFIG (its list need not come from mqAll). */
  resultQueues?: Array<[string, number]>;
  error?: { class: string; message: string };
}

/** One line of allocate/vectors.json. */
export interface GoldenAllocateCase {
  strategy: GoldenAllocateStrategy;
  name: string;
  label: string;
  consumerGroup: string;
  topic: string;
  /** In order, as runs of one broker's queues. */
  mqAll: Array<[string, number[]]>;
  cidAll: string[];
  allocations: GoldenAllocation[];
}

export interface GoldenAllocate {
  file: string;
  cases: number;
  casesPerStrategy: Record<string, number>;
  constructorErrors: Array<{
    strategy: string;
    virtualNodeCnt: number;
    error: { class: string; message: string } | null;
  }>;
  hashFunctions: Record<string, string>;
  machineRoomResolver: string;
  notes: string[];
}

export interface GoldenManifest {
  manifestVersion: number;
  generator: string;
  upstreamVersion: string;
  mqVersion: string;
  remotingVersion: number;
  jars: Record<string, string>;
  jdk: string;
  timeZone: string;
  conventions: string[];
  commands: GoldenCommand[];
  messages: GoldenMessages;
  messageIds: GoldenMessageIds;
  hashes: GoldenHashes;
  properties: GoldenProperties;
  bodies: GoldenBody[];
  allocate: GoldenAllocate;
  /** Files written, manifest.json included. */
  fileCount: number;
}

let manifest: GoldenManifest | undefined;

export function goldenManifest(): GoldenManifest {
  manifest ??= JSON.parse(goldenFile('manifest.json').toString('utf8')) as GoldenManifest;
  return manifest;
}
