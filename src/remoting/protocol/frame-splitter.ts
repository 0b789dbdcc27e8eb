/**
 * Streaming frame splitter: a pure state machine fed arbitrary chunks of a TCP stream, emitting the
 * content of each complete frame (the bytes after the 4-byte length). The declared length is checked
 * against the limit before anything is buffered for it, so a hostile length cannot make us allocate.
 */
import { RemotingCommandError } from '../../common/errors.js';
import { DEFAULT_MAX_FRAME_SIZE } from './frame.js';

export class FrameSplitter {
  readonly maxFrameSize: number;
  /** Bytes of an incomplete frame (or of an incomplete length prefix) carried over between chunks. */
  private parts: Buffer[] = [];
  private partsLength = 0;
  /** Total size of the frame being assembled, prefix included; -1 while the prefix is incomplete. */
  private expected = -1;

  constructor(maxFrameSize = DEFAULT_MAX_FRAME_SIZE) {
    this.maxFrameSize = maxFrameSize;
  }

  /** Bytes held for an incomplete frame. */
  get buffered(): number {
    return this.partsLength;
  }

  /**
   * Feeds one chunk; calls `onFrame` for every frame it completes, in order. Throws
   * RemotingCommandError on a bad length, after which the stream cannot be resynchronised.
   */
  push(chunk: Buffer, onFrame: (payload: Buffer) => void): void {
    let pos = 0;
    if (this.partsLength > 0) {
      pos = this.continuePending(chunk, onFrame);
      if (pos < 0) return;
    }
    // Fast path: frames lying wholly inside this chunk are emitted as views, without copying.
    while (chunk.length - pos >= 4) {
      const frameSize = this.checkLength(chunk.readInt32BE(pos));
      if (chunk.length - pos < frameSize) break;
      onFrame(chunk.subarray(pos + 4, pos + frameSize));
      pos += frameSize;
    }
    if (pos < chunk.length) {
      const rest = chunk.subarray(pos);
      this.parts.push(rest);
      this.partsLength = rest.length;
      this.expected = rest.length >= 4 ? this.checkLength(rest.readInt32BE(0)) : -1;
    }
  }

  /** Completes the pending frame from `chunk`; returns where the chunk's unused bytes start, or -1. */
  private continuePending(chunk: Buffer, onFrame: (payload: Buffer) => void): number {
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
      return -1;
    }
    this.parts.push(chunk.subarray(pos, pos + need));
    const frame = Buffer.concat(this.parts, this.expected);
    this.parts = [];
    this.partsLength = 0;
    this.expected = -1;
    onFrame(frame.subarray(4));
    return pos + need;
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
