/**
 * SEND_BATCH_MESSAGE body (upstream `MessageDecoder.encodeMessages` / `decodeMessages`), each message as
 *   TOTALSIZE i32 | MAGICCODE i32 (0) | BODYCRC i32 (0) | FLAG i32 | BODYLEN i32 | BODY | PROPLEN i16 | PROPERTIES
 * Only flag, body and properties travel; the topic comes from the request header.
 */

import { RemotingCommandError, ValidationError } from '../errors.js';
import { isInt32 } from './java-lang.js';
import { Message } from './message.js';
import { javaPropertiesOrder, messageProperties2String, string2messageProperties } from './properties.js';

/** Bytes of one batch entry besides its body and properties. */
const BATCH_ENTRY_OVERHEAD = 4 + 4 + 4 + 4 + 4 + 2;

export interface EncodeBatchOptions {
  /** 'java' writes properties in Java HashMap iteration order (for byte comparison with Java). */
  propertyOrder?: 'insertion' | 'java';
}

/** Encodes the messages' flag, body and properties back to back. */
export function encodeBatch(messages: readonly Message[], options: EncodeBatchOptions = {}): Buffer {
  const parts: { msg: Message; props: Buffer }[] = [];
  let total = 0;
  for (const msg of messages) {
    if (!isInt32(msg.flag)) throw new ValidationError(`flag ${msg.flag} is not an int`);
    const map = options.propertyOrder === 'java' ? javaPropertiesOrder(msg.properties) : msg.properties;
    const props = Buffer.from(messageProperties2String(map), 'utf8');
    if (props.length > 32767) {
      throw new ValidationError(
        `Properties size of message exceeded, properties size: ${props.length}, maxSize: 32767.`,
        13,
      );
    }
    parts.push({ msg, props });
    total += BATCH_ENTRY_OVERHEAD + msg.body.length + props.length;
  }
  const out = Buffer.allocUnsafe(total);
  let p = 0;
  for (const { msg, props } of parts) {
    const size = BATCH_ENTRY_OVERHEAD + msg.body.length + props.length;
    p = out.writeInt32BE(size, p);
    p = out.writeInt32BE(0, p);
    p = out.writeInt32BE(0, p);
    p = out.writeInt32BE(msg.flag, p);
    p = out.writeInt32BE(msg.body.length, p);
    p += msg.body.copy(out, p);
    p = out.writeInt16BE(props.length, p);
    p += props.copy(out, p);
  }
  return out;
}

export interface DecodeBatchOptions {
  /** Topic to give every decoded message (the batch header's topic); default ''. */
  topic?: string;
  /**
   * Default false, as upstream: TOTALSIZE, MAGICCODE and BODYCRC are skipped and entries are walked by
   * their body and properties lengths. True also refuses an entry whose TOTALSIZE disagrees.
   */
  checkTotalSize?: boolean;
  /** Default false: bodies are views into `body`. */
  copyBody?: boolean;
}

function malformed(message: string): RemotingCommandError {
  return new RemotingCommandError('batch', message);
}

/** Decodes a batch body into bare messages (no WAIT added), in order. */
export function decodeBatch(body: Buffer, options: DecodeBatchOptions = {}): Message[] {
  const out: Message[] = [];
  let p = 0;
  while (p < body.length) {
    const start = p;
    if (body.length - p < 20) {
      throw malformed(
        `truncated entry at offset ${start}: the 20-byte fixed part has ${body.length - p} bytes`,
      );
    }
    const totalSize = body.readInt32BE(p);
    const flag = body.readInt32BE(p + 12);
    const bodyLength = body.readInt32BE(p + 16);
    p += 20;
    if (bodyLength < 0 || bodyLength > body.length - p) {
      throw malformed(
        `BODY length ${bodyLength} at offset ${p - 4} does not fit the ${body.length - p} bytes left`,
      );
    }
    const bodyStart = p;
    p += bodyLength;
    if (body.length - p < 2)
      throw malformed(`truncated entry at offset ${start}: PROPERTIES length missing at ${p}`);
    const propertiesLength = body.readInt16BE(p);
    p += 2;
    if (propertiesLength < 0 || propertiesLength > body.length - p) {
      throw malformed(
        `PROPERTIES length ${propertiesLength} at offset ${p - 2} does not fit the ${body.length - p} bytes left`,
      );
    }
    if (options.checkTotalSize === true && totalSize !== p + propertiesLength - start) {
      throw malformed(
        `entry at offset ${start}: TOTALSIZE ${totalSize} but its fields take ${p + propertiesLength - start}`,
      );
    }
    const msg = new Message();
    if (options.topic !== undefined) msg.topic = options.topic;
    msg.flag = flag;
    const view = body.subarray(bodyStart, bodyStart + bodyLength);
    msg.body = options.copyBody === true ? Buffer.from(view) : view;
    msg.properties = string2messageProperties(body.toString('utf8', p, p + propertiesLength));
    p += propertiesLength;
    out.push(msg);
  }
  return out;
}
