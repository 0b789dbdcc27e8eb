/**
 * The messages `rmq bench producer` sends, built as upstream's benchmark Producer and BatchProducer
 * build theirs: one random alphanumeric body shared by every message, a fresh Message per send,
 * optional key (the send time in seconds), tag, delay level and filler user properties.
 */
import { randomBytes, randomInt } from 'node:crypto';
import { Message } from '../../common/message/message.js';

const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
/** Upstream starts the property values at a random number below this. */
const PROPERTY_START_BOUND = 100;

/** `size` random alphanumeric bytes (upstream's RandomStringUtils.randomAlphanumeric body). */
export function randomBody(size: number): Buffer {
  // One randomBytes call, not one randomInt per byte: a 4 MiB body is built at once. The modulo's
  // slight bias toward the first letters does not matter for a payload.
  const body = randomBytes(size);
  for (let i = 0; i < size; i++) body[i] = ALPHANUMERIC.charCodeAt((body[i] as number) % ALPHANUMERIC.length);
  return body;
}

/**
 * Producer's properties: pairs `prop<i>=hello<v>`, `prop<i+1>=<v>` until the names and values
 * together exceed `size` characters.
 */
export function putPairedProperties(msg: Message, size: number, start: number): void {
  let total = 0;
  for (let i = 0, value = start; ; i += 2, value += 2) {
    const name1 = `prop${i}`;
    const value1 = `hello${value}`;
    const name2 = `prop${i + 1}`;
    const value2 = String(value);
    msg.putUserProperty(name1, value1);
    msg.putUserProperty(name2, value2);
    total += name1.length + value1.length + name2.length + value2.length;
    if (total > size) return;
  }
}

/** BatchProducer's properties: `prop<i>=hello<v>` one at a time until they exceed `size` characters. */
export function putSingleProperties(msg: Message, size: number, start: number): void {
  let total = 0;
  for (let i = 0, value = start; ; i++, value++) {
    const name = `prop${i}`;
    const text = `hello${value}`;
    msg.putUserProperty(name, text);
    total += name.length + text.length;
    if (total > size) return;
  }
}

export interface MessageShape {
  readonly topic: string;
  readonly body: Buffer;
  readonly keyEnable: boolean;
  /** 0: no tag; else tags tag0..tag(n-1) in turn. */
  readonly tagCount: number;
  /** 0: not delayed. */
  readonly delayLevel: number;
  readonly propertySize: number;
}

export class MessageBuilder {
  /** Messages built so far: the tags go round by it. */
  private built = 0;

  constructor(private readonly shape: MessageShape) {}

  /** One message for a plain send (Producer). */
  single(nowMs: number): Message {
    const msg = this.base(nowMs);
    if (this.shape.delayLevel > 0) msg.delayTimeLevel = this.shape.delayLevel;
    if (this.shape.propertySize > 0) {
      putPairedProperties(msg, this.shape.propertySize, randomInt(PROPERTY_START_BOUND));
    }
    return msg;
  }

  /** `count` messages for one batch send (BatchProducer). */
  batch(count: number, nowMs: number): Message[] {
    const msgs: Message[] = [];
    for (let i = 0; i < count; i++) {
      const msg = this.base(nowMs);
      if (this.shape.propertySize > 0) {
        putSingleProperties(msg, this.shape.propertySize, randomInt(PROPERTY_START_BOUND));
      }
      msgs.push(msg);
    }
    return msgs;
  }

  private base(nowMs: number): Message {
    const msg = new Message(this.shape.topic, this.shape.body);
    if (this.shape.keyEnable) msg.keys = String(Math.floor(nowMs / 1000));
    if (this.shape.tagCount > 0) msg.tags = `tag${this.built % this.shape.tagCount}`;
    this.built++;
    return msg;
  }
}
