/**
 * What stands between an accepted HA connection and the commit log (ours; upstream serves whoever
 * connects): the transport step the broker plugs in (TLS) and, when the broker asks for it, the
 * signed handshake of ha-handshake.ts, which must arrive whole within haHousekeepingInterval of the
 * connect. A connection refused here gets nothing: no byte is written to it before it is closed,
 * and every refusal logs one line, at most one per refusalLogIntervalMillis.
 */
import type { Socket } from 'node:net';
import type { Clock } from '../../common/clock.js';
import { LogRateLimiter } from '../../common/log-rate-limiter.js';
import type { Logger } from '../../common/logger.js';
import { type HAHandshake, HandshakeReader } from './ha-handshake.js';

/** What the broker plugs into its HA listener. */
export interface HAServerGuard {
  /**
   * Hands an accepted socket to `serve` once HA may be read from it (after a TLS handshake, say), or
   * closes it. Without this, every socket is served as accepted.
   */
  accept?(socket: Socket, serve: (stream: Socket) => void): void;
  /**
   * When set, a connection must open with a handshake this accepts: undefined admits the slave, a
   * string says why not (logged, never sent).
   */
  verify?(handshake: HAHandshake, remoteAddress: string): string | undefined;
  /** Called when the listener closes. */
  close?(): void;
}

/** One refused-connection line per this interval at most, ms [1000], as the TLS acceptor does. */
export const DEFAULT_HA_REFUSAL_LOG_INTERVAL = 1000;

export class HAGate {
  private readonly limiter: LogRateLimiter;
  /** Sockets still in their handshake, closed with the listener. */
  private readonly pending = new Set<Socket>();
  /** Upstream's open port until the broker plugs its guard in. */
  guard: HAServerGuard = {};

  constructor(
    private readonly clock: Clock,
    private readonly log: Logger,
    /** Deadline of a whole handshake, ms from the connect. */
    private readonly handshakeTimeoutMillis: () => number,
    refusalLogIntervalMillis: number,
    /** Receives each admitted connection, with the bytes read after its handshake. */
    private readonly serve: (stream: Socket, initial: Buffer | undefined) => void,
  ) {
    this.limiter = new LogRateLimiter(refusalLogIntervalMillis, () => clock.now());
  }

  /** Connections accepted but not yet admitted. */
  get pendingCount(): number {
    return this.pending.size;
  }

  /** Admits `socket` to `serve` or closes it. */
  accept(socket: Socket): void {
    const accept = this.guard.accept;
    if (accept === undefined) this.handshake(socket);
    else accept.call(this.guard, socket, this.handshake);
  }

  refuse(socket: Socket, reason: string): void {
    const dropped = this.limiter.take('refused');
    if (dropped !== undefined) {
      this.log.warn('HA connection refused', {
        remote: remoteOf(socket),
        reason,
        ...(dropped > 0 ? { suppressed: dropped } : {}),
      });
    }
    socket.destroy();
  }

  close(): void {
    for (const socket of this.pending) socket.destroy();
    this.pending.clear();
    this.guard.close?.();
  }

  private readonly handshake = (socket: Socket): void => {
    const verify = this.guard.verify;
    if (verify === undefined) {
      this.serve(socket, undefined);
      return;
    }
    const reader = new HandshakeReader();
    const remote = remoteOf(socket);
    this.pending.add(socket);
    const timeout = this.handshakeTimeoutMillis();
    const timer = this.clock.setTimeout(() => {
      finish();
      this.refuse(socket, `no whole HA handshake within ${timeout} ms of the connect`);
    }, timeout);
    const finish = () => {
      timer.cancel();
      this.pending.delete(socket);
      socket.off('data', onData);
      socket.off('close', finish);
      socket.off('error', finish);
    };
    const onData = (chunk: Buffer) => {
      const read = reader.push(chunk);
      if (!read.done) return;
      finish();
      if ('refusal' in read) {
        this.refuse(socket, read.refusal);
        return;
      }
      const refusal = verify.call(this.guard, read.handshake, remote);
      if (refusal !== undefined) {
        this.refuse(socket, refusal);
        return;
      }
      this.log.info('HA slave authenticated', { remote, accessKey: read.handshake.accessKey });
      this.serve(socket, read.rest.length > 0 ? read.rest : undefined);
    };
    socket.on('data', onData);
    socket.once('close', finish);
    socket.once('error', finish);
  };
}

function remoteOf(socket: Socket): string {
  return `${socket.remoteAddress ?? '?'}:${socket.remotePort ?? '?'}`;
}
