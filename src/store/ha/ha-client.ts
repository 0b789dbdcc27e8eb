/**
 * The slave's end of replication (upstream HAService.HAClient): connects to the master's HA address,
 * reports its commit-log end at once (upstream waits a heartbeat interval first), then every
 * haSendHeartbeatInterval and after each append; appends each frame's bytes where its commit log
 * ends. Frames that do not fit — an offset other than the slave's end, a size below 0 or above 4 MiB,
 * bytes that are not records, a master silent for haHousekeepingInterval (ours: upstream only
 * watches its own writes) — end the connection with one log line, and it connects again after
 * reconnectInterval. A frame cut off by a closed connection is dropped: nothing of it is written.
 */
import { connect, type Socket } from 'node:net';
import type { Clock, TimerHandle } from '../../common/clock.js';
import type { Logger } from '../../common/logger.js';
import type { CommitLog } from '../commit-log.js';
import type { MessageStoreConfig } from '../config.js';
import { HA_TICK_INTERVAL } from './ha-connection.js';
import { encodeReport, FrameReader } from './ha-frame.js';

/** Upstream HAClient waits 5 s before connecting again (waitForRunning(1000 * 5)). */
export const HA_CLIENT_RECONNECT_INTERVAL = 5000;

export interface HAClientOptions {
  clock: Clock;
  logger: Logger;
  /** ms between connection attempts [5000]. */
  reconnectInterval?: number;
  /**
   * Called when the master's log starts beyond this slave's end (its files were deleted) and
   * haAllowResetSlave is set: empties the slave's store, which then asks for the master's first file.
   */
  resetTo?: () => Promise<void>;
}

/** How the slave reaches its master, which the broker plugs in (TLS, the signed handshake). */
export interface HAClientTransport {
  /**
   * Opens the connection to the master; `ready` names the event after which the socket is usable.
   * Default: plain TCP, ready on 'connect'.
   */
  connector?: (host: string, port: number) => { socket: Socket; ready: 'connect' | 'secureConnect' };
  /** The signed handshake to send before the first report (ha-handshake.ts), made per connection. */
  handshake?: () => Buffer;
}

function plainConnect(host: string, port: number): { socket: Socket; ready: 'connect' } {
  return { socket: connect({ host, port, noDelay: true }), ready: 'connect' };
}

export class HAClient {
  private masterAddress: string | undefined;
  private socket: Socket | undefined;
  private reader = new FrameReader();
  private currentReportedOffset = 0;
  private lastReadTimestamp = 0;
  private lastWriteTimestamp = 0;
  private tickTimer: TimerHandle | undefined;
  private reconnectTimer: TimerHandle | undefined;
  private running = false;
  /** Set while the store is being emptied (haAllowResetSlave): no connection meanwhile. */
  private resetting = false;
  /**
   * Where an emptied slave asks to start (the master's first file): an empty slave reporting 0
   * would get the master's last file only.
   */
  private resumeFrom: number | undefined;
  private readonly tick: number;
  private readonly reconnectInterval: number;
  /** Plain TCP and no handshake (upstream's) unless the broker says otherwise. */
  transport: HAClientTransport = {};
  /** Frames appended since the connection opened (tests and stats). */
  appendedFrames = 0;

  constructor(
    private readonly commitLog: CommitLog,
    private readonly config: MessageStoreConfig,
    private readonly options: HAClientOptions,
  ) {
    this.tick = Math.max(
      1,
      Math.min(HA_TICK_INTERVAL, config.haSendHeartbeatInterval, config.haHousekeepingInterval),
    );
    this.reconnectInterval = options.reconnectInterval ?? HA_CLIENT_RECONNECT_INTERVAL;
  }

  get log(): Logger {
    return this.options.logger;
  }

  /** Whether a connection to the master is open. */
  get connected(): boolean {
    return this.socket !== undefined;
  }

  getMasterAddress(): string | undefined {
    return this.masterAddress;
  }

  start(): void {
    this.running = true;
    if (this.masterAddress !== undefined) this.connectMaster();
  }

  /** Upstream updateMasterAddress: a new address takes effect at once (the old connection ends). */
  updateMasterAddress(addr: string | undefined): void {
    const next = addr === undefined || addr.trim() === '' ? undefined : addr.trim();
    if (next === this.masterAddress) return;
    this.log.info('update master address', { old: this.masterAddress, new: next });
    this.masterAddress = next;
    this.closeMaster();
    this.reconnectTimer?.cancel();
    this.reconnectTimer = undefined;
    if (this.running && next !== undefined) this.connectMaster();
  }

  shutdown(): void {
    this.running = false;
    this.reconnectTimer?.cancel();
    this.reconnectTimer = undefined;
    this.closeMaster();
  }

  private connectMaster(): void {
    if (!this.running || this.resetting || this.socket !== undefined || this.masterAddress === undefined)
      return;
    const addr = this.masterAddress;
    const colon = addr.lastIndexOf(':');
    const port = Number(addr.slice(colon + 1));
    if (colon <= 0 || !Number.isInteger(port) || port <= 0 || port > 65535) {
      this.log.warn('master HA address is not host:port', { addr });
      return;
    }
    const { socket, ready } = (this.transport.connector ?? plainConnect)(addr.slice(0, colon), port);
    this.socket = socket;
    this.reader = new FrameReader();
    const now = this.options.clock.now();
    this.lastReadTimestamp = now;
    this.lastWriteTimestamp = now;
    socket.once(ready, () => {
      if (this.socket !== socket) return;
      this.log.info('connected to master', { master: addr });
      this.lastReadTimestamp = this.options.clock.now();
      const handshake = this.transport.handshake;
      if (handshake !== undefined) socket.write(handshake());
      const empty = this.commitLog.mappedFileQueue.getLastMappedFile() === undefined;
      this.reportSlaveMaxOffset(
        empty && this.resumeFrom !== undefined ? this.resumeFrom : this.commitLog.getMaxOffset(),
      );
      this.tickTimer = this.options.clock.setTimeout(this.onTick, this.tick);
    });
    socket.on('data', (chunk: Buffer) => {
      if (this.socket === socket) this.onData(chunk);
    });
    socket.on('error', (err) => {
      if (this.socket === socket) this.closeMaster(`connection to master ${addr}: ${err.message}`, 'info');
    });
    socket.on('close', () => {
      if (this.socket === socket) this.closeMaster(`master ${addr} closed the connection`, 'info');
    });
  }

  private reportSlaveMaxOffset(offset: number): void {
    const socket = this.socket;
    if (socket === undefined) return;
    socket.write(encodeReport(offset));
    this.currentReportedOffset = offset;
    this.lastWriteTimestamp = this.options.clock.now();
  }

  private onData(chunk: Buffer): void {
    this.lastReadTimestamp = this.options.clock.now();
    const frames = this.reader.push(chunk);
    if (typeof frames === 'string') {
      this.closeMaster(`master sent a bad frame: ${frames}`);
      return;
    }
    for (const frame of frames) {
      const end = this.commitLog.getMaxOffset();
      const empty = this.commitLog.mappedFileQueue.getLastMappedFile() === undefined;
      if (!empty && frame.offset !== end) {
        if (this.maybeReset(frame.offset, end)) return;
        this.closeMaster(`master pushed offset ${frame.offset}, but the slave's commit log ends at ${end}`);
        return;
      }
      if (frame.data.length === 0) continue;
      const refused = this.commitLog.appendReplicated(frame.offset, frame.data);
      if (refused !== undefined) {
        this.closeMaster(`cannot append the master's frame: ${refused}`);
        return;
      }
      this.appendedFrames++;
    }
    const max = this.commitLog.getMaxOffset();
    if (max > this.currentReportedOffset) this.reportSlaveMaxOffset(max);
  }

  /**
   * The master's log starts beyond this slave's end (it says so with an empty frame at its first
   * file before it closes): with haAllowResetSlave the slave's store is emptied and the connection
   * starts over from there; without it, the connection ends with a line saying what to do.
   */
  private maybeReset(offset: number, end: number): boolean {
    const fileSize = this.config.mappedFileSizeCommitLog;
    if (offset <= end || offset % fileSize !== 0) return false;
    if (!this.config.haAllowResetSlave || this.options.resetTo === undefined) {
      this.closeMaster(
        `the master's commit log starts at ${offset}, after this slave's end ${end}: the slave cannot catch up; set haAllowResetSlave=true to drop its data and start from the master's first file`,
      );
      return true;
    }
    const resetTo = this.options.resetTo;
    this.closeMaster(
      `the master's commit log starts at ${offset}, after this slave's end ${end}: emptying the slave store (haAllowResetSlave)`,
    );
    this.reconnectTimer?.cancel();
    this.reconnectTimer = undefined;
    this.resetting = true;
    resetTo().then(
      () => {
        this.resetting = false;
        this.resumeFrom = offset;
        this.scheduleReconnect(0);
      },
      (err: unknown) => {
        this.resetting = false;
        this.log.error('cannot empty the slave store', {
          error: err instanceof Error ? err.message : String(err),
        });
        this.scheduleReconnect(this.reconnectInterval);
      },
    );
    return true;
  }

  private readonly onTick = (): void => {
    this.tickTimer = undefined;
    if (this.socket === undefined) return;
    const now = this.options.clock.now();
    if (now - this.lastReadTimestamp > this.config.haHousekeepingInterval) {
      this.closeMaster(
        `HAClient, housekeeping: nothing received from master ${this.masterAddress} for ${now - this.lastReadTimestamp} ms`,
      );
      return;
    }
    if (now - this.lastWriteTimestamp > this.config.haSendHeartbeatInterval) {
      this.reportSlaveMaxOffset(this.commitLog.getMaxOffset());
    }
    this.tickTimer = this.options.clock.setTimeout(this.onTick, this.tick);
  };

  private closeMaster(reason?: string, level: 'warn' | 'info' = 'warn'): void {
    const socket = this.socket;
    if (socket === undefined) return;
    this.socket = undefined;
    this.tickTimer?.cancel();
    this.tickTimer = undefined;
    if (reason !== undefined) this.log[level]('closing connection to master', { reason });
    socket.destroy();
    this.scheduleReconnect(this.reconnectInterval);
  }

  private scheduleReconnect(delay: number): void {
    if (!this.running || this.reconnectTimer !== undefined) return;
    this.reconnectTimer = this.options.clock.setTimeout(() => {
      this.reconnectTimer = undefined;
      this.connectMaster();
    }, delay);
  }
}
