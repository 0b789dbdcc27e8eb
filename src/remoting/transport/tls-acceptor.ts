/**
 * Upstream's HandshakeHandler for node: every accepted socket waits for its first byte, which
 * decides between a TLS ClientHello and a plaintext frame (tls-detect.ts); the server's tlsMode
 * admits it or closes it. A TLS connection is handed over only once its handshake finished, within
 * tlsHandshakeTimeoutMillis of its first byte, with a client certificate as tlsServerNeedClientAuth
 * asks. Every refusal logs one warning line, at most one per reason per tlsRefusalLogIntervalMillis.
 */
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { createServer as createTlsServer, type TLSSocket, type Server as TlsServer } from 'node:tls';
import { LogRateLimiter } from '../../common/log-rate-limiter.js';
import type { Logger } from '../../common/logger.js';
import { formatAddress } from './address.js';
import { admitConnection, detectConnectionKind } from './tls-detect.js';
import { ServerTlsContext } from './tls-server-context.js';
import type { TlsServerSettings } from './tls-settings.js';

export interface TlsAcceptorOptions {
  settings: Readonly<TlsServerSettings>;
  /** How long a new connection may stay silent before its first byte, ms; 0 waits forever. */
  firstByteTimeoutMs: number;
  logger: Logger;
  /** Receives every admitted connection: the socket itself, or the TLS socket over it. */
  serve(stream: Duplex, remoteAddress: string): void;
}

interface Handshake {
  readonly raw: Socket;
  readonly remoteAddress: string;
  readonly timer: NodeJS.Timeout;
}

function ignoreError(): void {
  // A reset before the first byte or during the handshake: 'close' follows and cleans up.
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Names a connection by both ends, which a TLS socket reports as its raw socket does. */
function socketKey(s: Socket): string {
  return `${s.remoteAddress}|${s.remotePort}|${s.localAddress}|${s.localPort}`;
}

export class TlsAcceptor {
  readonly context: ServerTlsContext;
  private readonly settings: Readonly<TlsServerSettings>;
  private readonly options: TlsAcceptorOptions;
  private readonly logger: Logger;
  private readonly limiter: LogRateLimiter;
  /** Sockets waiting for their first byte or in a TLS handshake. */
  private readonly waiting = new Set<Socket>();
  private readonly handshakes = new Map<string, Handshake>();
  private tlsServer: TlsServer | undefined;
  private closed = false;

  constructor(options: TlsAcceptorOptions) {
    this.options = options;
    this.settings = options.settings;
    this.logger = options.logger;
    this.context = new ServerTlsContext(options.settings, options.logger);
    this.limiter = new LogRateLimiter(options.settings.tlsRefusalLogIntervalMillis);
  }

  /** Connections not yet handed over (waiting for a first byte, or handshaking). */
  get pendingCount(): number {
    return this.waiting.size;
  }

  /** Checks the configured certificate files; throws a ValidationError naming a bad one. */
  prepare(): void {
    this.context.prepare();
  }

  accept(socket: Socket): void {
    if (this.closed) {
      socket.destroy();
      return;
    }
    const remoteAddress =
      socket.remoteAddress !== undefined && socket.remotePort !== undefined
        ? formatAddress(socket.remoteAddress, socket.remotePort)
        : 'unknown';
    this.waiting.add(socket);
    socket.on('error', ignoreError);
    const ms = this.options.firstByteTimeoutMs;
    const timer =
      ms > 0
        ? setTimeout(() => {
            finish();
            socket.destroy();
            this.logger.debug('connection closed before its first byte', { remoteAddress, idleMs: ms });
          }, ms)
        : undefined;
    timer?.unref();
    const onClose = () => finish();
    const onFirst = (chunk: Buffer) => {
      finish();
      // Hand the byte back: the frame reader or the TLS layer reads the stream from its start.
      socket.pause();
      socket.unshift(chunk);
      this.route(socket, chunk[0] ?? 0, remoteAddress);
    };
    const finish = () => {
      if (timer !== undefined) clearTimeout(timer);
      socket.off('data', onFirst);
      socket.off('close', onClose);
      this.waiting.delete(socket);
    };
    socket.once('close', onClose);
    socket.on('data', onFirst);
  }

  /** Closes every connection not yet handed over; later accepts are closed at once. */
  close(): void {
    this.closed = true;
    for (const socket of [...this.waiting]) socket.destroy();
    this.waiting.clear();
  }

  private route(socket: Socket, firstByte: number, remoteAddress: string): void {
    const kind = detectConnectionKind(firstByte);
    const admission = admitConnection(this.settings.tlsMode, kind);
    if (!admission.admit) {
      this.refuse(`refused ${kind}`, admission.reason, remoteAddress);
      socket.destroy();
      return;
    }
    if (kind === 'plaintext') {
      socket.off('error', ignoreError);
      this.options.serve(socket, remoteAddress);
      socket.resume();
      return;
    }
    let server: TlsServer;
    try {
      server = this.handshakeServer();
    } catch (error) {
      this.refuse('tls unavailable', `cannot serve TLS: ${describe(error)}`, remoteAddress, 'error');
      socket.destroy();
      return;
    }
    const key = socketKey(socket);
    const timeoutMs = this.settings.tlsHandshakeTimeoutMillis;
    const timer = setTimeout(() => {
      this.refuse('handshake timeout', `TLS handshake not finished within ${timeoutMs} ms`, remoteAddress);
      socket.destroy();
    }, timeoutMs);
    timer.unref();
    this.handshakes.set(key, { raw: socket, remoteAddress, timer });
    this.waiting.add(socket);
    socket.once('close', () => this.endHandshake(key, socket));
    server.emit('connection', socket);
  }

  /** The tls.Server whose handshakes serve this acceptor, made (test certificate too) on first use. */
  private handshakeServer(): TlsServer {
    if (this.tlsServer !== undefined) return this.tlsServer;
    const server = createTlsServer({
      ...this.context.serverOptions(),
      // Node's own timeout restarts on every byte; the absolute one above is what bounds a handshake.
      handshakeTimeout: this.settings.tlsHandshakeTimeoutMillis,
    });
    server.on('secureConnection', (tlsSocket: TLSSocket) => this.onSecure(tlsSocket));
    server.on('tlsClientError', (error: Error, tlsSocket: TLSSocket) =>
      this.onHandshakeError(error, tlsSocket),
    );
    this.tlsServer = server;
    return server;
  }

  private onSecure(tlsSocket: TLSSocket): void {
    const key = socketKey(tlsSocket);
    const handshake = this.handshakes.get(key);
    if (handshake === undefined) {
      tlsSocket.destroy();
      return;
    }
    this.endHandshake(key, handshake.raw);
    const refusal = this.context.refusePeer(tlsSocket);
    if (refusal !== undefined) {
      this.refuse(refusal, refusal, handshake.remoteAddress);
      tlsSocket.destroy();
      return;
    }
    handshake.raw.off('error', ignoreError);
    this.options.serve(tlsSocket, handshake.remoteAddress);
  }

  private onHandshakeError(error: Error, tlsSocket: TLSSocket): void {
    const key = socketKey(tlsSocket);
    const handshake = this.handshakes.get(key);
    // Once the timeout or a refusal closed the socket, its hang-up is no news.
    if (handshake !== undefined) {
      this.endHandshake(key, handshake.raw);
      this.refuse(
        'handshake failed',
        `TLS handshake failed: ${error.message.trim()}`,
        handshake.remoteAddress,
      );
      // node:tls closes the connection after sending its alert; this makes sure of it.
      setImmediate(() => handshake.raw.destroy());
    }
    tlsSocket.destroy();
  }

  private endHandshake(key: string, raw: Socket): void {
    const handshake = this.handshakes.get(key);
    if (handshake?.raw === raw) {
      clearTimeout(handshake.timer);
      this.handshakes.delete(key);
    }
    this.waiting.delete(raw);
  }

  private refuse(
    reason: string,
    detail: string,
    remoteAddress: string,
    level: 'warn' | 'error' = 'warn',
  ): void {
    const dropped = this.limiter.take(reason);
    if (dropped === undefined) return;
    this.logger[level](detail, {
      remoteAddress,
      tlsMode: this.settings.tlsMode,
      ...(dropped > 0 ? { suppressed: dropped } : {}),
    });
  }
}
