/**
 * RemotingClient: one connection per peer address, opened on first use and reopened on the next use
 * after it closed. Requests pipeline on that connection; requests the peer sends back (broker to
 * client) go to the processors registered here. Each connection that opens emits 'connected' with
 * its address before any request is written on it, so a listener's request goes first (the client
 * instance's heartbeat to a restarted broker).
 */
import { EventEmitter } from 'node:events';
import { isIP, connect as netConnect, type Socket } from 'node:net';
import { type ConnectionOptions as TlsConnectOptions, connect as tlsConnect } from 'node:tls';
import { createLogger, type Logger } from '../../common/logger.js';
import type { RemotingCommand } from '../protocol/command.js';
import { parseAddress } from './address.js';
import { Connection, type InvokeOptions } from './connection.js';
import { RequestDispatcher } from './dispatcher.js';
import { RemotingAbortedError, RemotingConnectError, RemotingTimeoutError } from './errors.js';
import type { RequestProcessor, RPCHook } from './processor.js';
import {
  type ConnectionSettings,
  clientConnectionSettings,
  clientSettings,
  type RemotingClientSettings,
} from './settings.js';
import type { PemInput, TlsClientSettings } from './tls-settings.js';

export interface RemotingClientOptions {
  logger?: Logger;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function pem(input: PemInput | undefined): string | Buffer | Array<string | Buffer> | undefined {
  return input === undefined || typeof input === 'string' || Buffer.isBuffer(input) ? input : [...input];
}

function acceptAnyName(): undefined {
  return undefined;
}

/** node:tls options for `tls`; see TlsClientOptions for why nothing is verified by default. */
export function tlsConnectOptions(host: string, port: number, tls: TlsClientSettings): TlsConnectOptions {
  const options: TlsConnectOptions = {
    host,
    port,
    rejectUnauthorized: tls.authServer,
    ca: pem(tls.ca),
    cert: pem(tls.cert),
    key: pem(tls.key),
    passphrase: tls.passphrase,
  };
  // RFC 6066 allows no IP address as server name.
  const servername = tls.servername ?? (isIP(host) === 0 ? host : undefined);
  if (servername !== undefined) options.servername = servername;
  if (!tls.verifyHostname) options.checkServerIdentity = acceptAnyName;
  return options;
}

export interface RemotingClientEvents {
  connected: [address: string];
}

export class RemotingClient extends EventEmitter<RemotingClientEvents> {
  readonly settings: Readonly<RemotingClientSettings>;
  readonly logger: Logger;
  private readonly connectionSettings: ConnectionSettings;
  private readonly dispatcher: RequestDispatcher;
  private readonly connections = new Map<string, Connection>();
  private readonly connecting = new Map<string, Promise<Connection>>();
  private closed = false;

  constructor(settings: Partial<RemotingClientSettings> = {}, options: RemotingClientOptions = {}) {
    super();
    this.settings = clientSettings(settings);
    this.logger = options.logger ?? createLogger('remoting.client');
    this.connectionSettings = clientConnectionSettings(this.settings);
    this.dispatcher = new RequestDispatcher(this.logger);
  }

  /** For requests the server sends to this client (e.g. NOTIFY_CONSUMER_IDS_CHANGED). */
  registerProcessor(code: number, processor: RequestProcessor): void {
    this.dispatcher.registerProcessor(code, processor);
  }

  registerDefaultProcessor(processor: RequestProcessor): void {
    this.dispatcher.registerDefaultProcessor(processor);
  }

  /** Runs around every invoke (and, as upstream, around requests the server sends here). */
  registerRPCHook(hook: RPCHook): void {
    this.dispatcher.registerRPCHook(hook);
  }

  /** The open connection to `address`, if any. */
  connectionTo(address: string): Connection | undefined {
    const connection = this.connections.get(address);
    return connection?.isOpen ? connection : undefined;
  }

  /** Addresses with an open connection. */
  get connectedAddresses(): string[] {
    return [...this.connections.keys()];
  }

  /**
   * The connection to `address`, opened if needed; concurrent callers share one attempt. A caller's
   * `timeoutMs` shorter than connectTimeoutMs ends its wait (RemotingTimeoutError) without ending the
   * attempt, which other callers may still share.
   */
  getConnection(address: string, signal?: AbortSignal, timeoutMs?: number): Promise<Connection> {
    const existing = this.connectionTo(address);
    if (existing !== undefined) return Promise.resolve(existing);
    const attempt = this.connecting.get(address) ?? this.connect(address);
    const bounded = timeoutMs !== undefined && timeoutMs < this.settings.connectTimeoutMs;
    if (signal === undefined && !bounded) return attempt;
    if (signal?.aborted === true) return Promise.reject(new RemotingAbortedError(address, signal.reason));
    return new Promise<Connection>((resolve, reject) => {
      const onAbort = () => settle(() => reject(new RemotingAbortedError(address, signal?.reason)));
      const timer = bounded
        ? setTimeout(() => settle(() => reject(new RemotingTimeoutError(address, timeoutMs))), timeoutMs)
        : undefined;
      const settle = (end: () => void) => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        end();
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      attempt.then(
        (connection) => settle(() => resolve(connection)),
        (error: unknown) => settle(() => reject(error)),
      );
    });
  }

  /**
   * Sends `request` to `address` and resolves with the response. The request's opaque is overwritten, and its
   * serialize type when the settings name one.
   * The timeout covers connecting too.
   */
  invoke(address: string, request: RemotingCommand, options: InvokeOptions = {}): Promise<RemotingCommand> {
    const connection = this.connectionTo(address);
    if (connection !== undefined) return this.invokeOn(address, connection, request, options);
    const started = Date.now();
    const timeoutMs = options.timeoutMs ?? this.settings.defaultInvokeTimeoutMs;
    return this.getConnection(address, options.signal, timeoutMs).then((opened) => {
      const remaining = timeoutMs - (Date.now() - started);
      if (remaining <= 0) throw new RemotingTimeoutError(address, timeoutMs);
      return this.invokeOn(address, opened, request, { timeoutMs: remaining, signal: options.signal }).catch(
        (error: unknown) => {
          // Report the caller's timeout, not what was left of it after connecting.
          throw error instanceof RemotingTimeoutError ? new RemotingTimeoutError(address, timeoutMs) : error;
        },
      );
    });
  }

  /** Sends `request` marked oneway; resolves once it is queued on the connection. */
  invokeOneway(address: string, request: RemotingCommand, options: InvokeOptions = {}): Promise<void> {
    const connection = this.connectionTo(address);
    if (connection !== undefined) return this.invokeOnewayOn(address, connection, request);
    return this.getConnection(address, options.signal, options.timeoutMs).then((opened) =>
      this.invokeOnewayOn(address, opened, request),
    );
  }

  /** Closes the connection to `address` (pending requests fail at once); resolves when it is closed. */
  closeConnection(address: string): Promise<void> {
    const connection = this.connections.get(address);
    if (connection === undefined) return Promise.resolve();
    connection.close('closed by client');
    return connection.whenClosed();
  }

  /** Closes every connection; later invokes fail with RemotingConnectError. */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.allSettled([...this.connecting.values()]);
    const closing: Promise<void>[] = [];
    for (const connection of this.connections.values()) {
      connection.close('client closed');
      closing.push(connection.whenClosed());
    }
    this.connections.clear();
    await Promise.all(closing);
  }

  private invokeOn(
    address: string,
    connection: Connection,
    request: RemotingCommand,
    options: InvokeOptions,
  ): Promise<RemotingCommand> {
    this.applySerializeType(request);
    if (this.dispatcher.rpcHooks.length === 0) return connection.invoke(request, options);
    try {
      this.dispatcher.runBeforeHooks(address, request);
    } catch (error) {
      return Promise.reject(error);
    }
    return connection.invoke(request, options).then((response) => {
      this.dispatcher.runAfterHooks(address, request, response);
      return response;
    });
  }

  private applySerializeType(request: RemotingCommand): void {
    const type = this.settings.serializeType;
    if (type !== undefined) request.serializeType = type;
  }

  private invokeOnewayOn(address: string, connection: Connection, request: RemotingCommand): Promise<void> {
    this.applySerializeType(request);
    if (this.dispatcher.rpcHooks.length > 0) {
      try {
        this.dispatcher.runBeforeHooks(address, request);
      } catch (error) {
        return Promise.reject(error);
      }
    }
    return connection.invokeOneway(request);
  }

  private connect(address: string): Promise<Connection> {
    if (this.closed) return Promise.reject(new RemotingConnectError(address, 'client is closed'));
    let host: string;
    let port: number;
    try {
      ({ host, port } = parseAddress(address));
    } catch (error) {
      return Promise.reject(new RemotingConnectError(address, describe(error), { cause: error }));
    }
    const tls = this.settings.tls;
    const attempt = new Promise<Connection>((resolve, reject) => {
      // connectTimeoutMs covers the TLS handshake too.
      const socket: Socket =
        tls === undefined
          ? netConnect({ host, port, noDelay: true })
          : tlsConnect(tlsConnectOptions(host, port, tls)).setNoDelay(true);
      const fail = (error: RemotingConnectError) => {
        clearTimeout(timer);
        socket.off('error', onError);
        socket.destroy();
        this.connecting.delete(address);
        this.logger.info('connect failed', { address, error: error.message });
        reject(error);
      };
      const onError = (error: Error) =>
        fail(new RemotingConnectError(address, error.message, { cause: error }));
      const timer = setTimeout(
        () => fail(new RemotingConnectError(address, `timed out after ${this.settings.connectTimeoutMs} ms`)),
        this.settings.connectTimeoutMs,
      );
      socket.once('error', onError);
      socket.once(tls === undefined ? 'connect' : 'secureConnect', () => {
        if (this.closed) {
          fail(new RemotingConnectError(address, 'client is closed'));
          return;
        }
        clearTimeout(timer);
        socket.off('error', onError);
        this.connecting.delete(address);
        resolve(this.adopt(address, socket));
      });
    });
    this.connecting.set(address, attempt);
    return attempt;
  }

  private adopt(address: string, socket: Socket): Connection {
    // An open connection alone does not keep the process alive: each request in flight does (its
    // timeout timer), so an idle client lets a process that forgot to shut it down exit.
    socket.unref();
    const connection = new Connection(socket, {
      settings: this.connectionSettings,
      handler: this.dispatcher,
      logger: this.logger,
      idleCheckHoldsProcess: false,
    });
    this.connections.set(address, connection);
    connection.once('close', (reason) => {
      if (this.connections.get(address) === connection) this.connections.delete(address);
      this.logger.debug('connection closed', { address, reason });
    });
    this.logger.debug('connected', { address, localAddress: connection.localAddress });
    try {
      this.emit('connected', address);
    } catch (error) {
      this.logger.warn('a connected listener failed', { address, error: describe(error) });
    }
    return connection;
  }
}
