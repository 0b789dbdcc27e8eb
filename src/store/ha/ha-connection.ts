/**
 * One slave as its master sees it (upstream HAConnection: ReadSocketService + WriteSocketService in
 * one object, driven by socket events instead of two threads). Reads the slave's 8-byte reports;
 * once the first has said where to start, streams commit-log frames of at most haTransferBatchSize
 * bytes, each within one file, whenever the commit log grows (the HA service calls pump after every
 * write) or the socket drains, and an empty frame when nothing was sent for haSendHeartbeatInterval.
 * A slave silent for haHousekeepingInterval is dropped.
 *
 * Stricter than upstream, on the same wire: the first report is checked as every later one is — an
 * offset beyond the master's end (apache/rocketmq#3015, #1155), one below the master's first file
 * (deleted: #3388) ends the connection with one log line. (A slave may report an offset inside a
 * record: it reports its end while a record split across frames waits for its rest.)
 */
import type { Socket } from 'node:net';
import type { Clock, TimerHandle } from '../../common/clock.js';
import type { Logger } from '../../common/logger.js';
import type { CommitLog } from '../commit-log.js';
import type { MessageStoreConfig } from '../config.js';
import { encodeFrameHeader, ReportReader } from './ha-frame.js';
import { HA_HANDSHAKE_MAGIC } from './ha-handshake.js';

/** Upstream's services wake at least once a second (selector.select(1000)) to check their timers. */
export const HA_TICK_INTERVAL = 1000;

export interface HAConnectionHost {
  readonly commitLog: CommitLog;
  readonly config: MessageStoreConfig;
  readonly clock: Clock;
  readonly log: Logger;
  /** A slave acknowledged everything before `offset`. */
  notifyTransferSome(offset: number): void;
  removeConnection(connection: HAConnection): void;
}

export class HAConnection {
  readonly clientAddr: string;
  /** Where the slave asked to start (-1 until its first report). */
  slaveRequestOffset = -1;
  /** The slave's latest acknowledgement (-1 until its first report). */
  slaveAckOffset = -1;
  private nextTransferFromWhere = -1;
  private readonly reader = new ReportReader();
  private lastReadTimestamp: number;
  private lastWriteTimestamp: number;
  private timer: TimerHandle | undefined;
  private closed = false;
  /** Sent before the socket ends, when closing should tell the slave something. */
  private farewell: Buffer | undefined;
  private readonly tick: number;
  /** Bytes the socket may hold unsent before pump waits for 'drain'. */
  private readonly highWater: number;

  constructor(
    private readonly host: HAConnectionHost,
    private readonly socket: Socket,
    /** Bytes the slave sent after its handshake, read before the socket's next ones. */
    initial?: Buffer,
  ) {
    this.clientAddr = `${socket.remoteAddress ?? '?'}:${socket.remotePort ?? '?'}`;
    const now = host.clock.now();
    this.lastReadTimestamp = now;
    this.lastWriteTimestamp = now;
    const c = host.config;
    this.tick = Math.max(1, Math.min(HA_TICK_INTERVAL, c.haSendHeartbeatInterval, c.haHousekeepingInterval));
    this.highWater = 2 * c.haTransferBatchSize;
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    socket.on('drain', () => this.pump());
    socket.on('error', (err) => this.close(`socket error: ${err.message}`, 'info'));
    socket.on('close', () => this.close(undefined, 'info'));
    this.timer = host.clock.setTimeout(this.onTick, this.tick);
    if (initial !== undefined) this.onData(initial);
  }

  /** Whether the connection has ended (it may end while its first bytes are read). */
  get isClosed(): boolean {
    return this.closed;
  }

  private onData(chunk: Buffer): void {
    if (this.closed) return;
    this.lastReadTimestamp = this.host.clock.now();
    const report = this.reader.push(chunk);
    if (report === undefined) return;
    if (typeof report === 'string') {
      const signed =
        this.slaveRequestOffset < 0 &&
        chunk.subarray(0, HA_HANDSHAKE_MAGIC.length).equals(HA_HANDSHAKE_MAGIC);
      this.close(
        signed
          ? "slave sent a signed HA handshake, but this master speaks upstream's plain HA (aclEnable=false or haAuthMode=plain)"
          : `slave sent something that is not an offset report (${report})`,
      );
      return;
    }
    const refusal = this.slaveRequestOffset < 0 ? this.acceptFirstReport(report) : this.acceptAck(report);
    if (refusal !== undefined) {
      this.close(refusal);
      return;
    }
    this.pump();
  }

  /** Upstream trusts the first report; here it must be somewhere the master can stream from. */
  private acceptFirstReport(offset: number): string | undefined {
    const commitLog = this.host.commitLog;
    const max = commitLog.getMaxOffset();
    const min = commitLog.getMinOffset();
    const fileSize = this.host.config.mappedFileSizeCommitLog;
    if (offset > max) {
      return `slave's commit log ends at ${offset}, beyond the master's end ${max}: refusing it (a slave of another master, or the master lost data); its store needs an operator`;
    }
    if (offset !== 0 && min >= 0 && offset < min) {
      // An empty frame at the first file tells the slave where the master's log starts now.
      this.farewell = encodeFrameHeader(min, 0);
      return `slave's commit log ends at ${offset}, before the master's first file at ${min} (deleted since); a slave with haAllowResetSlave=true starts again from there, else its store needs an operator`;
    }
    this.slaveRequestOffset = offset;
    this.slaveAckOffset = offset;
    this.nextTransferFromWhere = offset === 0 ? Math.max(0, max - (max % fileSize)) : offset;
    this.host.log.info('slave request offset', {
      slave: this.clientAddr,
      requestOffset: offset,
      transferFrom: this.nextTransferFromWhere,
    });
    this.host.notifyTransferSome(offset);
    return undefined;
  }

  private acceptAck(offset: number): string | undefined {
    const max = this.host.commitLog.getMaxOffset();
    if (offset > max) {
      return `slave acknowledged offset ${offset}, beyond the master's end ${max}: refusing it`;
    }
    if (offset > this.slaveAckOffset) this.slaveAckOffset = offset;
    this.host.notifyTransferSome(offset);
    return undefined;
  }

  /** Sends what the slave does not have yet, as long as the socket takes it without queueing much. */
  pump(): void {
    if (this.closed || this.nextTransferFromWhere < 0) return;
    const commitLog = this.host.commitLog;
    const batch = this.host.config.haTransferBatchSize;
    const socket = this.socket;
    while (socket.writableLength < this.highWater) {
      const from = this.nextTransferFromWhere;
      const data = commitLog.getData(from, batch);
      if (data === undefined || data.length === 0) {
        const min = commitLog.getMinOffset();
        if (min >= 0 && from < min) {
          this.close(
            `the slave needs offset ${from}, but the master's first file starts at ${min} (deleted while the slave was behind)`,
          );
        }
        return;
      }
      socket.cork();
      socket.write(encodeFrameHeader(from, data.length));
      socket.write(data);
      socket.uncork();
      this.nextTransferFromWhere = from + data.length;
      this.lastWriteTimestamp = this.host.clock.now();
    }
  }

  private readonly onTick = (): void => {
    this.timer = undefined;
    if (this.closed) return;
    const now = this.host.clock.now();
    const c = this.host.config;
    if (now - this.lastReadTimestamp > c.haHousekeepingInterval) {
      this.close(
        `ha housekeeping: nothing heard from the slave for ${now - this.lastReadTimestamp} ms`,
        'warn',
      );
      return;
    }
    if (
      this.nextTransferFromWhere >= 0 &&
      now - this.lastWriteTimestamp > c.haSendHeartbeatInterval &&
      this.socket.writableLength === 0
    ) {
      this.socket.write(encodeFrameHeader(this.nextTransferFromWhere, 0));
      this.lastWriteTimestamp = now;
    }
    this.pump();
    this.timer = this.host.clock.setTimeout(this.onTick, this.tick);
  };

  /** Ends the connection; `reason` is logged (once) when the close is the master's doing. */
  close(reason?: string, level: 'warn' | 'info' = 'warn'): void {
    if (this.closed) return;
    this.closed = true;
    this.timer?.cancel();
    this.timer = undefined;
    if (reason !== undefined) {
      this.host.log[level]('closing slave connection', { slave: this.clientAddr, reason });
    } else {
      this.host.log.info('slave connection closed', { slave: this.clientAddr });
    }
    if (this.farewell !== undefined) this.socket.end(this.farewell);
    else this.socket.destroy();
    this.host.removeConnection(this);
  }
}
