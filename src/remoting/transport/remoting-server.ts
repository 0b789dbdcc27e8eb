/**
 * RemotingServer: accepts connections (TCP, or any duplex handed to handle()) and answers requests
 * with the processors registered per request code. Accepted sockets go through the TLS acceptor
 * first, which serves TLS and plaintext on the same port as settings.tls.tlsMode says.
 */
import { EventEmitter } from 'node:events';
import { createServer, type Server, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { RocketMQError } from '../../common/errors.js';
import { LogRateLimiter } from '../../common/log-rate-limiter.js';
import { createLogger, type Logger } from '../../common/logger.js';
import { formatAddress } from './address.js';
import { requestBodyLimit } from './body-limits.js';
import { Connection } from './connection.js';
import { RequestDispatcher } from './dispatcher.js';
import type { RequestProcessor, RPCHook } from './processor.js';
import {
  type ConnectionSettings,
  type RemotingServerOverrides,
  type RemotingServerSettings,
  serverConnectionSettings,
  serverSettings,
} from './settings.js';
import { TlsAcceptor } from './tls-acceptor.js';

export interface RemotingServerOptions {
  logger?: Logger;
}

export interface ListenOptions {
  /** 0 (the default) picks a free port. */
  port?: number;
  /** Defaults to every interface. */
  host?: string;
}

export interface BoundAddress {
  host: string;
  port: number;
  /** `host:port`, IPv6 in brackets. */
  address: string;
}

export interface HandleOptions {
  /** Names the peer in logs and hooks when the stream is not a socket. */
  remoteAddress?: string;
}

export interface RemotingServerEvents {
  connection: [connection: Connection];
}

export class RemotingServer extends EventEmitter<RemotingServerEvents> {
  readonly settings: Readonly<RemotingServerSettings>;
  readonly logger: Logger;
  private readonly connectionSettings: ConnectionSettings;
  private readonly dispatcher: RequestDispatcher;
  private readonly open = new Set<Connection>();
  private readonly acceptor: TlsAcceptor;
  /** One line per limit reached per serverLimitLogIntervalMillis, over all connections. */
  private readonly limitLog: LogRateLimiter;
  private server: Server | undefined;
  private closing = false;

  constructor(settings: RemotingServerOverrides = {}, options: RemotingServerOptions = {}) {
    super();
    this.settings = serverSettings(settings);
    this.logger = options.logger ?? createLogger('remoting.server');
    this.connectionSettings = serverConnectionSettings(this.settings);
    this.limitLog = new LogRateLimiter(this.settings.serverLimitLogIntervalMillis);
    this.acceptor = new TlsAcceptor({
      settings: this.settings.tls,
      // A connection that never sends a byte is idle, as upstream's IdleStateHandler sees it.
      firstByteTimeoutMs: this.settings.serverChannelMaxIdleTimeSeconds * 1000,
      logger: this.logger.child('tls'),
      serve: (stream, remoteAddress) => this.handle(stream, { remoteAddress }),
    });
    const limits = this.settings;
    this.dispatcher = new RequestDispatcher(this.logger, (code) => requestBodyLimit(limits, code));
  }

  registerProcessor(code: number, processor: RequestProcessor): void {
    this.dispatcher.registerProcessor(code, processor);
  }

  registerDefaultProcessor(processor: RequestProcessor): void {
    this.dispatcher.registerDefaultProcessor(processor);
  }

  registerRPCHook(hook: RPCHook): void {
    this.dispatcher.registerRPCHook(hook);
  }

  /** Connections currently open. */
  get connections(): ReadonlySet<Connection> {
    return this.open;
  }

  /** Where listen() bound, or undefined when not listening. */
  get address(): BoundAddress | undefined {
    const bound = this.server?.address();
    if (bound === undefined || bound === null || typeof bound === 'string') return undefined;
    return { host: bound.address, port: bound.port, address: formatAddress(bound.address, bound.port) };
  }

  /** Serves one duplex stream (an accepted socket, or a test's duplexPair end). */
  handle(stream: Duplex, options: HandleOptions = {}): Connection {
    const connection = new Connection(stream, {
      settings: this.connectionSettings,
      handler: this.dispatcher,
      logger: this.logger,
      remoteAddress: options.remoteAddress,
      limitLog: this.limitLog,
    });
    if (this.closing) {
      connection.close('server closed');
      return connection;
    }
    this.open.add(connection);
    connection.once('close', () => this.open.delete(connection));
    this.emit('connection', connection);
    return connection;
  }

  listen(options: ListenOptions = {}): Promise<BoundAddress> {
    if (this.server !== undefined)
      return Promise.reject(new RocketMQError('RemotingServer is already listening'));
    if (this.closing) return Promise.reject(new RocketMQError('RemotingServer is closed'));
    try {
      this.acceptor.prepare();
    } catch (error) {
      return Promise.reject(error);
    }
    const server = createServer({ noDelay: true }, (socket: Socket) => this.acceptor.accept(socket));
    // Node closes a socket accepted past this at once (TLS handshakes in progress count too).
    server.maxConnections = this.settings.serverMaxConnections;
    server.on('drop', this.onDrop);
    this.server = server;
    return new Promise<BoundAddress>((resolve, reject) => {
      const onError = (error: Error) => {
        this.server = undefined;
        reject(error);
      };
      server.once('error', onError);
      server.listen(
        { port: options.port ?? 0, host: options.host, backlog: this.settings.serverSocketBacklog },
        () => {
          server.off('error', onError);
          server.on('error', (error) => this.logger.error('server socket error', { error: error.message }));
          const bound = this.address;
          if (bound === undefined) reject(new RocketMQError('RemotingServer bound to no TCP address'));
          else {
            this.logger.info('listening', { address: bound.address });
            resolve(bound);
          }
        },
      );
    });
  }

  private readonly onDrop = (data?: { remoteAddress?: string; remotePort?: number }): void => {
    const dropped = this.limitLog.take('serverMaxConnections');
    if (dropped === undefined) return;
    this.logger.warn('connection limit reached, new connection closed', {
      remoteAddress:
        data?.remoteAddress === undefined
          ? 'unknown'
          : formatAddress(data.remoteAddress, data.remotePort ?? 0),
      limit: this.settings.serverMaxConnections,
      ...(dropped > 0 ? { suppressed: dropped } : {}),
    });
  };

  /** Stops listening, closes every connection, and resolves when all of them are closed. */
  async close(): Promise<void> {
    this.closing = true;
    this.acceptor.close();
    const server = this.server;
    this.server = undefined;
    const stopped =
      server === undefined
        ? Promise.resolve()
        : new Promise<void>((resolve) => server.close(() => resolve()));
    const closed: Promise<void>[] = [];
    for (const connection of [...this.open]) {
      connection.close('server closed');
      closed.push(connection.whenClosed());
    }
    await Promise.all([stopped, ...closed]);
  }
}
