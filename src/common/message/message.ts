/** The message model (upstream `Message`, `MessageExt`). */

import { ValidationError } from '../errors.js';
import { parseJavaBoolean } from '../java-parse.js';
import { jsonFields } from '../json-value.js';
import { type HostAddress, UNSPECIFIED_HOST } from './host.js';
import { isInt32, javaTrimIsEmpty, requireJavaInt } from './java-lang.js';
import { MessageConst, RESERVED_PROPERTY_NAMES } from './message-const.js';

/** Magic code of a V1 stored record (1-byte topic length); the only one 4.9.8 writes. */
export const MESSAGE_MAGIC_CODE = -626843481; // 0xDAA320A7
/** Magic code of a V2 stored record (2-byte topic length; 5.x, for topics longer than 127 bytes). */
export const MESSAGE_MAGIC_CODE_V2 = -626843477; // 0xDAA320AB
/** Magic code of the filler at the end of a commit log file. */
export const BLANK_MAGIC_CODE = -875286124; // 0xCBD43194

const EMPTY_BODY: Buffer = Buffer.alloc(0);

export interface MessageInit {
  tags?: string;
  /** One string (space separated) or a list joined with spaces. */
  keys?: string | Iterable<string>;
  flag?: number;
  /** Default true; always written to the WAIT property, as Java's constructors do. */
  waitStoreMsgOK?: boolean;
}

export class Message {
  topic = '';
  /** User flag, an int32 carried untouched. */
  flag = 0;
  /** Insertion ordered; see `javaPropertiesOrder` to reproduce Java's iteration order. */
  properties: Map<string, string> = new Map();
  body: Buffer = EMPTY_BODY;
  transactionId: string | undefined = undefined;

  /**
   * `new Message()` is the bare message of Java's no-arg constructor (no properties). With a topic it
   * behaves like Java's `Message(topic, tags, keys, flag, body, waitStoreMsgOK)`: TAGS and KEYS are set
   * when non-empty and WAIT is always set.
   */
  constructor(topic?: string, body?: Buffer | Uint8Array | string, init?: MessageInit) {
    if (topic === undefined) return;
    this.topic = topic;
    if (body !== undefined) this.body = bodyBuffer(body);
    if (init?.flag !== undefined) this.flag = init.flag;
    if (init?.tags !== undefined && init.tags.length > 0) this.tags = init.tags;
    if (init?.keys !== undefined) {
      const keys = typeof init.keys === 'string' ? init.keys : joinKeys(init.keys);
      if (keys.length > 0) this.keys = keys;
    }
    this.waitStoreMsgOK = init?.waitStoreMsgOK ?? true;
  }

  /**
   * What JSON.stringify writes: the fields with bigints as numbers where exact (else strings), the
   * body as base64 and the properties as an object (see common/json-value.ts).
   */
  toJSON(): Record<string, unknown> {
    return jsonFields(this);
  }

  getProperty(name: string): string | undefined {
    return this.properties.get(name);
  }

  /** Sets any property, reserved or not (Java's package-private `putProperty`, used by clients/brokers). */
  putProperty(name: string, value: string): void {
    this.properties.set(name, value);
  }

  clearProperty(name: string): void {
    this.properties.delete(name);
  }

  /** A user property: reserved names (RESERVED_PROPERTY_NAMES) and blank names or values are refused. */
  putUserProperty(name: string, value: string): void {
    if (RESERVED_PROPERTY_NAMES.has(name)) {
      throw new ValidationError(`The Property<${name}> is used by system, input another please`);
    }
    if (value === undefined || javaTrimIsEmpty(value) || name === undefined || javaTrimIsEmpty(name)) {
      throw new ValidationError('The name or value of property can not be null or blank string!');
    }
    this.properties.set(name, value);
  }

  getUserProperty(name: string): string | undefined {
    return this.properties.get(name);
  }

  get tags(): string | undefined {
    return this.properties.get(MessageConst.PROPERTY_TAGS);
  }

  set tags(tags: string) {
    this.properties.set(MessageConst.PROPERTY_TAGS, tags);
  }

  /** The KEYS property as stored: keys separated by single spaces. */
  get keys(): string | undefined {
    return this.properties.get(MessageConst.PROPERTY_KEYS);
  }

  set keys(keys: string) {
    this.properties.set(MessageConst.PROPERTY_KEYS, keys);
  }

  /** Java's two `setKeys` overloads: a string as is, a collection joined with spaces. */
  setKeys(keys: string | Iterable<string>): void {
    this.keys = typeof keys === 'string' ? keys : joinKeys(keys);
  }

  /** The individual keys (empty tokens from repeated spaces dropped, as the broker's indexer does). */
  keyList(): string[] {
    const keys = this.keys;
    if (keys === undefined) return [];
    return keys.split(MessageConst.KEY_SEPARATOR).filter((k) => k.length > 0);
  }

  /** DELAY as an int; 0 when absent; ValidationError when not an int (Java throws NumberFormatException). */
  get delayTimeLevel(): number {
    const t = this.properties.get(MessageConst.PROPERTY_DELAY_TIME_LEVEL);
    return t === undefined ? 0 : requireJavaInt(t, MessageConst.PROPERTY_DELAY_TIME_LEVEL);
  }

  set delayTimeLevel(level: number) {
    if (!isInt32(level)) throw new ValidationError(`delay level ${level} is not an int`);
    this.properties.set(MessageConst.PROPERTY_DELAY_TIME_LEVEL, String(level));
  }

  /** WAIT: true when absent, else Java `Boolean.parseBoolean`. */
  get waitStoreMsgOK(): boolean {
    const v = this.properties.get(MessageConst.PROPERTY_WAIT_STORE_MSG_OK);
    return v === undefined ? true : parseJavaBoolean(v);
  }

  set waitStoreMsgOK(wait: boolean) {
    this.properties.set(MessageConst.PROPERTY_WAIT_STORE_MSG_OK, wait ? 'true' : 'false');
  }

  get instanceId(): string | undefined {
    return this.properties.get(MessageConst.PROPERTY_INSTANCE_ID);
  }

  set instanceId(id: string) {
    this.properties.set(MessageConst.PROPERTY_INSTANCE_ID, id);
  }

  get buyerId(): string | undefined {
    return this.properties.get(MessageConst.PROPERTY_BUYER_ID);
  }

  set buyerId(id: string) {
    this.properties.set(MessageConst.PROPERTY_BUYER_ID, id);
  }
}

function joinKeys(keys: Iterable<string>): string {
  return Array.from(keys).join(MessageConst.KEY_SEPARATOR);
}

/** A stored or pulled message. Java `long` fields are bigint. */
export class MessageExt extends Message {
  brokerName: string | undefined = undefined;
  queueId = 0;
  /** TOTALSIZE of the stored record. */
  storeSize = 0;
  queueOffset = 0n;
  sysFlag = 0;
  bornTimestamp = 0n;
  bornHost: HostAddress = UNSPECIFIED_HOST;
  storeTimestamp = 0n;
  storeHost: HostAddress = UNSPECIFIED_HOST;
  /** Broker-side id: store host + commit log offset (computed on decode). */
  offsetMsgId = '';
  commitLogOffset = 0n;
  /** BODYCRC as stored: CRC32 & 0x7FFFFFFF of the stored (possibly compressed) body. */
  bodyCRC = 0;
  reconsumeTimes = 0;
  preparedTransactionOffset = 0n;
  /** Magic code the record was read with; encode keeps V2 and upgrades V1 when the topic needs it. */
  magicCode: number = MESSAGE_MAGIC_CODE;

  /** What a Java consumer's `getMsgId()` returns: UNIQ_KEY when present, else the offset id. */
  get msgId(): string {
    return this.properties.get(MessageConst.PROPERTY_UNIQ_CLIENT_MESSAGE_ID_KEYIDX) ?? this.offsetMsgId;
  }

  /** As Message's, with `msgId` too. */
  override toJSON(): Record<string, unknown> {
    return jsonFields(this, { msgId: this.msgId });
  }
}

/** A body as given: a Buffer as it is, other bytes without a copy, a string as UTF-8. */
function bodyBuffer(body: Buffer | Uint8Array | string): Buffer {
  if (typeof body === 'string') return Buffer.from(body, 'utf8');
  if (Buffer.isBuffer(body)) return body;
  return Buffer.from(body.buffer, body.byteOffset, body.byteLength);
}
