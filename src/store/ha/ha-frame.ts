/**
 * The HA wire format of RocketMQ 4.9.x (HAConnection / HAService.HAClient), which has no framing
 * beyond this:
 * - slave to master: 8-byte big-endian commit-log offsets, one after another (the first says where to
 *   start, each later one acknowledges everything before it);
 * - master to slave: frames of an 8-byte offset, a 4-byte size and that many commit-log bytes; a
 *   frame of size 0 is a heartbeat.
 * The readers here take whatever TCP delivers (one byte at a time included) and hand out whole
 * reports and frames; what they refuse ends the connection.
 */

export const HA_REPORT_SIZE = 8;
export const HA_FRAME_HEADER_SIZE = 12;
/** Upstream HAClient's read buffer: no frame can be larger (4 MiB). */
export const HA_MAX_FRAME_BODY = 4 * 1024 * 1024;
/** Offsets beyond this do not survive a round trip through a JavaScript number. */
const MAX_OFFSET = BigInt(Number.MAX_SAFE_INTEGER);

export function encodeReport(offset: number): Buffer {
  const out = Buffer.allocUnsafe(HA_REPORT_SIZE);
  out.writeBigInt64BE(BigInt(offset), 0);
  return out;
}

export function encodeFrameHeader(offset: number, size: number): Buffer {
  const out = Buffer.allocUnsafe(HA_FRAME_HEADER_SIZE);
  out.writeBigInt64BE(BigInt(offset), 0);
  out.writeInt32BE(size, 8);
  return out;
}

/** An offset read off the wire, or why it cannot be one. */
function offsetAt(buf: Buffer, pos: number): number | string {
  const value = buf.readBigInt64BE(pos);
  if (value < 0n) return `negative offset ${value}`;
  if (value > MAX_OFFSET) return `offset ${value} is beyond any commit log`;
  return Number(value);
}

/** The master's reader of a slave's reports. */
export class ReportReader {
  private readonly held = Buffer.alloc(HA_REPORT_SIZE);
  private heldBytes = 0;

  /**
   * Takes `chunk` and returns the newest whole report in it (upstream also acts on the last one
   * only), undefined when none completed, or a string saying why the input is not reports.
   */
  push(chunk: Buffer): number | string | undefined {
    let latest: number | string | undefined;
    let pos = 0;
    while (pos < chunk.length) {
      const take = Math.min(HA_REPORT_SIZE - this.heldBytes, chunk.length - pos);
      chunk.copy(this.held, this.heldBytes, pos, pos + take);
      this.heldBytes += take;
      pos += take;
      if (this.heldBytes === HA_REPORT_SIZE) {
        this.heldBytes = 0;
        latest = offsetAt(this.held, 0);
        if (typeof latest === 'string') return latest;
      }
    }
    return latest;
  }
}

export interface HAFrame {
  offset: number;
  /** The frame's bytes (empty for a heartbeat); a view the reader will not touch again. */
  data: Buffer;
}

/** The slave's reader of a master's frames. */
export class FrameReader {
  private chunks: Buffer[] = [];
  private buffered = 0;

  constructor(private readonly maxBody = HA_MAX_FRAME_BODY) {}

  /** Bytes of a frame not yet complete. */
  get pending(): number {
    return this.buffered;
  }

  /** Takes `chunk`; returns the frames it completed, or why the input is not frames. */
  push(chunk: Buffer): HAFrame[] | string {
    if (chunk.length > 0) {
      this.chunks.push(chunk);
      this.buffered += chunk.length;
    }
    const frames: HAFrame[] = [];
    while (this.buffered >= HA_FRAME_HEADER_SIZE) {
      const head = this.peek(HA_FRAME_HEADER_SIZE);
      const offset = offsetAt(head, 0);
      if (typeof offset === 'string') return `frame header: ${offset}`;
      const size = head.readInt32BE(8);
      if (size < 0) return `frame header: negative size ${size}`;
      if (size > this.maxBody) return `frame header: size ${size} is above the ${this.maxBody}-byte limit`;
      if (this.buffered < HA_FRAME_HEADER_SIZE + size) break;
      const whole = this.take(HA_FRAME_HEADER_SIZE + size);
      frames.push({ offset, data: whole.subarray(HA_FRAME_HEADER_SIZE) });
    }
    return frames;
  }

  /** The first `n` buffered bytes, joining chunks only when the first is too short. */
  private peek(n: number): Buffer {
    const first = this.chunks[0] as Buffer;
    if (first.length >= n) return first;
    const joined = Buffer.concat(this.chunks);
    this.chunks = [joined];
    return joined;
  }

  private take(n: number): Buffer {
    const joined = this.peek(n);
    const out = joined.subarray(0, n);
    const rest = joined.subarray(n);
    this.chunks = rest.length > 0 ? [rest] : [];
    this.buffered -= n;
    return out;
  }
}
