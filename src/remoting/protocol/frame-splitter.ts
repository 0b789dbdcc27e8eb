/**
 * Streaming frame splitter: a pure state machine fed arbitrary chunks of a TCP stream, emitting the
 * content of each complete frame (the bytes after the 4-byte length). The declared length is checked
 * against the limit before anything is buffered for it, so a hostile length cannot make us allocate.
 */
import { RemotingCommandError } from '../../common/errors.js';
import { DEFAULT_MAX_FRAME_SIZE } from './frame.js';

/**
 * Looks at a frame that spans chunks once its header has arrived, before its body is buffered:
 * `head` is the frame content up to the end of the header (type/length word and header, no body),
 * `bodyLength` what the body will be. Returning true drops the rest of the frame unbuffered; it is
 * then never delivered (the inspector has dealt with it, e.g. refused it).
 */
export type FrameHeadInspector = (head: Buffer, bodyLength: number) => boolean;

/** Receives one frame's content; returning false (nothing else) stops the delivery (see push()). */
export type FrameSink = (payload: Buffer) => unknown;

/** Headers larger than this are not inspected early (the frame is buffered and delivered as usual). */
const MAX_INSPECTED_HEADER = 64 * 1024;

export class FrameSplitter {
  readonly maxFrameSize: number;
  private readonly inspector: FrameHeadInspector | undefined;
  /** Bytes of a dropped frame still to come. */
  private skipping = 0;
  /** The pending frame's header length once read from its first 8 bytes; -1 before. */
  private headerLength = -1;
  /** The pending frame was offered to the inspector (or cannot be). */
  private inspected = false;
  /** Bytes of an incomplete frame (or of an incomplete length prefix) carried over between chunks. */
  private parts: Buffer[] = [];
  private partsLength = 0;
  /** Total size of the frame being assembled, prefix included; -1 while the prefix is incomplete. */
  private expected = -1;
  /** The rest of a chunk whose delivery was stopped, frames not yet split out. */
  private held: Buffer | undefined;
  /** The sink asked to stop at the frame continuePending() just delivered. */
  private stopped = false;
  /** Counts frames completed or dropped, so a reader can tell one incomplete frame from the next. */
  private sequence = 0;

  constructor(maxFrameSize = DEFAULT_MAX_FRAME_SIZE, inspector?: FrameHeadInspector) {
    this.maxFrameSize = maxFrameSize;
    this.inspector = inspector;
  }

  /** Bytes held for an incomplete frame, and of a chunk whose delivery was stopped. */
  get buffered(): number {
    return this.partsLength + (this.held?.length ?? 0);
  }

  /** A frame has begun and not yet completed (or, when dropped, not yet been skipped to its end). */
  get inProgress(): boolean {
    return this.partsLength > 0 || this.skipping > 0;
  }

  /** Delivery is stopped with bytes held back (see push()). */
  get holding(): boolean {
    return this.held !== undefined;
  }

  /** Changes each time a frame completes or is dropped: the same value means the same frame. */
  get frameSequence(): number {
    return this.sequence;
  }

  /**
   * Feeds one chunk; calls `onFrame` for every frame it completes, in order. `onFrame` returning
   * false stops the delivery: the rest of the chunk is held, unparsed, until resume(), and chunks
   * pushed meanwhile are appended to it. Throws RemotingCommandError on a bad length, after which the
   * stream cannot be resynchronised.
   */
  push(input: Buffer, onFrame: FrameSink): void {
    if (this.held !== undefined) {
      this.held = Buffer.concat([this.held, input]);
      return;
    }
    this.process(input, onFrame);
  }

  /** Delivers what a stopped push() held back, as push() would; a no-op when nothing is held. */
  resume(onFrame: FrameSink): void {
    const held = this.held;
    if (held === undefined) return;
    this.held = undefined;
    this.process(held, onFrame);
  }

  private process(input: Buffer, onFrame: FrameSink): void {
    let chunk = input;
    let pos = 0;
    if (this.skipping > 0) {
      const dropped = Math.min(this.skipping, chunk.length);
      this.skipping -= dropped;
      if (this.skipping === 0) this.sequence++;
      if (dropped === chunk.length) return;
      chunk = chunk.subarray(dropped);
    }
    if (this.partsLength > 0) {
      pos = this.continuePending(chunk, onFrame);
      if (pos < 0) return;
      if (this.stopped) {
        this.hold(chunk, pos);
        return;
      }
    }
    // Fast path: frames lying wholly inside this chunk are emitted as views, without copying.
    while (chunk.length - pos >= 4) {
      const frameSize = this.checkLength(chunk.readInt32BE(pos));
      if (chunk.length - pos < frameSize) break;
      const payload = chunk.subarray(pos + 4, pos + frameSize);
      pos += frameSize;
      if (onFrame(payload) === false) {
        this.hold(chunk, pos);
        return;
      }
    }
    if (pos < chunk.length) {
      const rest = chunk.subarray(pos);
      this.parts.push(rest);
      this.partsLength = rest.length;
      this.expected = rest.length >= 4 ? this.checkLength(rest.readInt32BE(0)) : -1;
      this.inspectPending();
    }
  }

  private hold(chunk: Buffer, pos: number): void {
    this.stopped = false;
    if (pos < chunk.length) this.held = chunk.subarray(pos);
  }

  /** Completes the pending frame from `chunk`; returns where the chunk's unused bytes start, or -1. */
  private continuePending(chunk: Buffer, onFrame: FrameSink): number {
    let pos = 0;
    if (this.expected < 0) {
      const missing = 4 - this.partsLength;
      if (chunk.length < missing) {
        this.parts.push(chunk);
        this.partsLength += chunk.length;
        return -1;
      }
      const prefix = Buffer.concat([...this.parts, chunk.subarray(0, missing)], 4);
      this.expected = this.checkLength(prefix.readInt32BE(0));
      this.parts = [prefix];
      this.partsLength = 4;
      pos = missing;
    }
    const need = this.expected - this.partsLength;
    if (chunk.length - pos < need) {
      this.parts.push(pos === 0 ? chunk : chunk.subarray(pos));
      this.partsLength += chunk.length - pos;
      this.inspectPending();
      return -1;
    }
    this.parts.push(chunk.subarray(pos, pos + need));
    const frame = Buffer.concat(this.parts, this.expected);
    this.resetPending();
    this.stopped = onFrame(frame.subarray(4)) === false;
    return pos + need;
  }

  private resetPending(): void {
    this.sequence++;
    this.parts = [];
    this.partsLength = 0;
    this.expected = -1;
    this.headerLength = -1;
    this.inspected = false;
  }

  /**
   * Offers the pending (incomplete) frame's head to the inspector once its header is in, and drops
   * the frame if told to. The header length is read once and the head copied once, so a header that
   * trickles in is not copied over and over.
   */
  private inspectPending(): void {
    if (this.inspector === undefined || this.inspected || this.expected < 0) return;
    if (this.headerLength < 0) {
      if (this.partsLength < 8) return;
      this.headerLength = Buffer.concat(this.parts, 8).readUInt32BE(4) & 0xffffff;
      if (this.headerLength > MAX_INSPECTED_HEADER || 8 + this.headerLength > this.expected) {
        this.inspected = true;
        return;
      }
    }
    const headEnd = 8 + this.headerLength;
    if (this.partsLength < headEnd) return;
    this.inspected = true;
    const head = Buffer.concat(this.parts, headEnd).subarray(4);
    if (!this.inspector(head, this.expected - headEnd)) return;
    this.skipping = this.expected - this.partsLength;
    // Still the same frame until its last byte is skipped.
    const sequence = this.sequence;
    this.resetPending();
    this.sequence = sequence;
  }

  /** Validates a length prefix; returns the whole frame size including the prefix. */
  private checkLength(totalLength: number): number {
    if (totalLength < 4) {
      throw new RemotingCommandError('frame', `total length ${totalLength} is below the minimum of 4`);
    }
    if (totalLength > this.maxFrameSize - 4) {
      throw new RemotingCommandError(
        'frame',
        `frame of ${totalLength + 4} bytes exceeds the limit of ${this.maxFrameSize}`,
      );
    }
    return totalLength + 4;
  }
}
