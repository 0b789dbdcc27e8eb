/**
 * What `send` accepts: a Message, or a plain object that becomes one. Everything is checked here,
 * before any network call, and a bad value fails with a ValidationError naming the field.
 */
import { ValidationError } from '../../common/errors.js';
import { isInt32, javaTrimIsEmpty } from '../../common/message/java-lang.js';
import { Message } from '../../common/message/message.js';
import {
  MessageConst,
  NAME_VALUE_SEPARATOR,
  PROPERTY_SEPARATOR,
} from '../../common/message/message-const.js';
import { messageProperties2String } from '../../common/message/properties.js';
import { checkMessage } from '../../common/validators.js';

export interface MessageInput {
  topic: string;
  /** A string is sent as its UTF-8 bytes. */
  body: Buffer | Uint8Array | string;
  tags?: string | undefined;
  /** One key, keys separated by spaces, or a list of keys. */
  keys?: string | readonly string[] | undefined;
  /** User properties; reserved names (TAGS, KEYS, DELAY, UNIQ_KEY...) are refused. */
  properties?: Readonly<Record<string, string>> | ReadonlyMap<string, string> | undefined;
  /** 1..18 with the broker's default levels (1 s ... 2 h); 0 sends at once. */
  delayTimeLevel?: number | undefined;
  /** User flag, an int32. */
  flag?: number | undefined;
  /** WAIT: the broker answers after the flush (SYNC_FLUSH brokers) [true]. */
  waitStoreMsgOK?: boolean | undefined;
}

/** The properties string of the send header is at most this many bytes (a Java short). */
export const MAX_PROPERTIES_LENGTH = 32767;

const MESSAGE_ILLEGAL = 13;

function fail(field: string, problem: string): never {
  throw new ValidationError(`message ${field} ${problem}`, MESSAGE_ILLEGAL);
}

function bodyOf(body: unknown): Buffer {
  if (Buffer.isBuffer(body)) return body;
  if (typeof body === 'string') return Buffer.from(body, 'utf8');
  if (body instanceof Uint8Array) return Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  return fail('body', `must be a Buffer, Uint8Array or string, got ${body === null ? 'null' : typeof body}`);
}

function entriesOf(properties: MessageInput['properties']): Iterable<[string, string]> {
  if (properties instanceof Map) return properties.entries();
  if (typeof properties !== 'object' || properties === null) {
    return fail('properties', 'must be an object or a Map of strings');
  }
  return Object.entries(properties as Record<string, string>);
}

/** Builds a Message from a plain object (a Message is returned as it is). */
export function toMessage(input: Message | MessageInput): Message {
  if (input instanceof Message) return input;
  if (input === null || typeof input !== 'object') {
    fail(
      '',
      `must be a Message or an object with topic and body, got ${input === null ? 'null' : typeof input}`,
    );
  }
  if (typeof input.topic !== 'string') fail('topic', `must be a string, got ${typeof input.topic}`);
  if (input.tags !== undefined && typeof input.tags !== 'string') fail('tags', 'must be a string');
  const keys = input.keys;
  if (keys !== undefined && typeof keys !== 'string' && !Array.isArray(keys))
    fail('keys', 'must be a string or a list');
  if (input.waitStoreMsgOK !== undefined && typeof input.waitStoreMsgOK !== 'boolean')
    fail('waitStoreMsgOK', `must be true or false, got ${typeof input.waitStoreMsgOK}`);
  const msg = new Message(input.topic, bodyOf(input.body), {
    ...(input.tags === undefined ? {} : { tags: input.tags }),
    ...(keys === undefined ? {} : { keys }),
    ...(input.flag === undefined ? {} : { flag: input.flag }),
    ...(input.waitStoreMsgOK === undefined ? {} : { waitStoreMsgOK: input.waitStoreMsgOK }),
  });
  if (input.properties !== undefined) {
    for (const [name, value] of entriesOf(input.properties)) {
      if (typeof value !== 'string') fail(`property ${name}`, `must be a string, got ${typeof value}`);
      // putUserProperty refuses blank names and values too, but without saying which property it was.
      if (javaTrimIsEmpty(name) || javaTrimIsEmpty(value)) {
        fail(`property ${name}`, 'must have a name and a value that are not blank');
      }
      msg.putUserProperty(name, value);
    }
  }
  if (input.delayTimeLevel !== undefined) {
    if (!isInt32(input.delayTimeLevel) || input.delayTimeLevel < 0) {
      fail('delayTimeLevel', `must be an integer >= 0, got ${input.delayTimeLevel}`);
    }
    if (input.delayTimeLevel > 0) msg.delayTimeLevel = input.delayTimeLevel;
  }
  return msg;
}

/**
 * Upstream's Validators.checkMessage (topic, forbidden topics, body present and not too big) plus a
 * flag outside int32 and a bad DELAY, which the broker would refuse later.
 */
export function validateMessage(msg: Message, maxMessageSize: number): void {
  const body: unknown = msg?.body;
  if (body !== undefined && body !== null && !Buffer.isBuffer(body)) {
    fail('body', `must be a Buffer, got ${typeof body}`);
  }
  checkMessage(msg, maxMessageSize);
  if (!isInt32(msg.flag)) fail('flag', `must be an int32, got ${msg.flag}`);
  if (msg.properties.has(MessageConst.PROPERTY_DELAY_TIME_LEVEL) && msg.delayTimeLevel < 0) {
    fail('delayTimeLevel', `must be >= 0, got ${msg.delayTimeLevel}`);
  }
}

/**
 * The properties string of the send header. Separators inside a name or value would split it into
 * other properties on the broker, and the header keeps its length in a Java short: both refused.
 */
export function encodeProperties(msg: Message): string {
  for (const [name, value] of msg.properties) {
    if (typeof value !== 'string') fail(`property ${name}`, `must be a string, got ${typeof value}`);
    if (name.length === 0) fail('property name', 'must not be empty');
    if (hasSeparator(name) || hasSeparator(value)) {
      fail(`property ${JSON.stringify(name)}`, 'must not contain \\u0001 or \\u0002');
    }
  }
  const text = messageProperties2String(msg.properties);
  // UTF-8 takes at most 3 bytes per UTF-16 unit, so only long strings need counting.
  if (text.length * 3 > MAX_PROPERTIES_LENGTH) {
    const length = Buffer.byteLength(text, 'utf8');
    if (length > MAX_PROPERTIES_LENGTH)
      fail('properties', `take ${length} bytes, more than ${MAX_PROPERTIES_LENGTH}`);
  }
  return text;
}

function hasSeparator(text: string): boolean {
  return text.includes(NAME_VALUE_SEPARATOR) || text.includes(PROPERTY_SEPARATOR);
}
