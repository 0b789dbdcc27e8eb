/**
 * Connection: the remoting protocol over one duplex byte stream (a TCP socket, or one end of a
 * `stream.duplexPair()` in tests), used alike by server and client. Inbound frames are split and
 * decoded; responses complete this connection's pending requests, requests go to the handler.
 * Outbound commands are written as head + body with the stream corked for the rest of the event-loop
 * turn, so everything answered in one turn leaves in one writev.
 */
import { EventEmitter } from 'node:events';
import { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { LogRateLimiter } from '../../common/log-rate-limiter.js';
import type { Logger } from '../../common/logger.js';
import {
  createResponse,
  isResponse,
  type RemotingCommand,
  RPC_ONEWAY,
  RPC_TYPE_RESPONSE,
  SerializeType,
} from '../protocol/command.js';
import { decodeFrame, encodeFrameHead } from '../protocol/frame.js';
import { FrameSplitter } from '../protocol/frame-splitter.js';
import { HeaderLimitError, headerOverLimitRemark } from '../protocol/header-limits.js';
import { ResponseCode } from '../protocol/response-code.js';
import { formatAddress } from './address.js';
import {
  RemotingAbortedError,
  RemotingConnectionClosedError,
  RemotingTooMuchRequestError,
} from './errors.js';
import { PendingRequests } from './pending-requests.js';
import type { ConnectionSettings } from './settings.js';

export interface InvokeOptions {
  /** Defaults to the owner's `defaultInvokeTimeoutMs`. */
  timeoutMs?: number | undefined;
  signal?: AbortSignal | undefined;
}

/** What a request processor gets besides the request: the connection it came on and a logger. */
export interface ProcessorContext {
  readonly connection: Connection;
  readonly remoteAddress: string;
  readonly logger: Logger;
  /** Sends a response later (long polling); sets the response flag. False if the connection closed. */
  writeResponse(response: RemotingCommand): boolean;
  /** A request to the peer over this same connection (e.g. broker to client). */
  invoke(request: RemotingCommand, options?: InvokeOptions): Promise<RemotingCommand>;
  invokeOneway(request: RemotingCommand): Promise<void>;
  /**
   * The processor holds `request` to answer it later (long polling): it no longer counts among the
   * connection's requests in flight, so held pulls never stop a connection's reading.
   */
  park?(request: RemotingCommand): void;
}

/**
 * Answers a request from its header alone, before its body is read: true when it did (the body is
 * then dropped unbuffered and the request never handled), false to read the body as usual.
 */
export type BeforeBodyCheck = (
  connection: Connection,
  request: RemotingCommand,
  bodyLength: number,
) => boolean;

/** Receives the requests a connection reads; must not throw. */
export interface InboundRequestHandler {
  /**
   * Undefined when the request is done with; otherwise a promise that settles when it is (counted
   * in the connection's requests in flight until then).
   */
  handleRequest(connection: Connection, request: RemotingCommand): Promise<void> | undefined | void;
  /** Offered every request whose frame spans reads, once its header is in (a server's body limits). */
  readonly checkBeforeBody?: BeforeBodyCheck | undefined;
}

export interface ConnectionOptions {
  settings: ConnectionSettings;
  handler: InboundRequestHandler;
  logger: Logger;
  /** How to name the peer when the stream is not a socket (or to override the socket's address). */
  remoteAddress?: string | undefined;
  /** Rate limit of the lines a limit reached logs, shared by a server's connections. */
  limitLog?: LogRateLimiter | undefined;
  /**
   * Whether the idle check may keep the process alive. A client's connections pass false: an idle
   * client must let a process that forgot to shut it down exit (its socket is unref'd too).
   */
  idleCheckHoldsProcess?: boolean | undefined;
}

export interface ConnectionEvents {
  /** Emitted once, synchronously from close(), with the reason. */
  close: [reason: string];
  /** Reading stopped because the peer does not read what we write. */
  readPaused: [];
  readResumed: [];
}

/** Written to learn when everything queued before it has been flushed; writes no bytes. */
const FLUSH_MARKER = Buffer.alloc(0);

function flushTurn(connection: Connection): void {
  connection.flush();
}

function checkIdle(connection: Connection): void {
  connection.checkIdle();
}

function checkFrameDeadline(connection: Connection): void {
  connection.checkFrameDeadline();
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export class Connection extends EventEmitter<ConnectionEvents> implements ProcessorContext {
  readonly stream: Duplex;
  readonly remoteAddress: string;
  readonly localAddress: string;
  readonly logger: Logger;
  readonly settings: Readonly<ConnectionSettings>;
  private readonly handler: InboundRequestHandler;
  private readonly splitter: FrameSplitter;
  private readonly pending: PendingRequests;
  private readonly idleMs: number;
  private readonly idleCheckHoldsProcess: boolean;
  private corked = false;
  private paused = false;
  private reason: string | undefined;
  private streamClosed = false;
  private closeWaiters: Array<() => void> | undefined;
  private lastActivity = Date.now();
  private idleTimer: NodeJS.Timeout | undefined;
  private readonly limitLog: LogRateLimiter | undefined;
  /** Requests handed to the handler and not yet done with (nor parked). */
  private readonly inFlight = new Set<RemotingCommand>();
  /** A flush marker is queued; its callback re-checks whether reading may resume. */
  private markerPending = false;
  private deadlineTimer: NodeJS.Timeout | undefined;
  /** When the incomplete frame (splitter sequence `frameSequence`) began; undefined when none. */
  private frameStartedAt: number | undefined;
  private frameSequence = -1;

  constructor(stream: Duplex, options: ConnectionOptions) {
    super();
    this.stream = stream;
    this.settings = options.settings;
    this.handler = options.handler;
    this.logger = options.logger;
    this.limitLog = options.limitLog;
    this.idleCheckHoldsProcess = options.idleCheckHoldsProcess ?? true;
    const socket = stream instanceof Socket ? stream : undefined;
    this.remoteAddress =
      options.remoteAddress ??
      (socket?.remoteAddress !== undefined && socket.remotePort !== undefined
        ? formatAddress(socket.remoteAddress, socket.remotePort)
        : 'unknown');
    this.localAddress =
      socket?.localAddress !== undefined && socket.localPort !== undefined
        ? formatAddress(socket.localAddress, socket.localPort)
        : 'unknown';
    const check = options.handler.checkBeforeBody;
    this.splitter = new FrameSplitter(
      this.settings.maxFrameSize,
      check === undefined ? undefined : (head, bodyLength) => this.checkHead(check, head, bodyLength),
    );
    this.pending = new PendingRequests(this.remoteAddress, this.onInvokeTimeout);
    this.idleMs = this.settings.channelMaxIdleTimeSeconds * 1000;

    stream.on('data', this.onData);
    stream.on('end', this.onEnd);
    stream.on('error', this.onError);
    stream.on('close', this.onStreamClose);
    if (this.idleMs > 0) this.scheduleIdleCheck(this.idleMs);
  }

  get connection(): Connection {
    return this;
  }

  get isOpen(): boolean {
    return this.reason === undefined;
  }

  /** Why the connection closed; undefined while it is open. */
  get closeReason(): string | undefined {
    return this.reason;
  }

  /** True while reading is paused because the peer does not read our writes. */
  get readPaused(): boolean {
    return this.paused;
  }

  /** Requests sent on this connection still waiting for their response. */
  get pendingCount(): number {
    return this.pending.size;
  }

  /** Bytes held for a frame not yet complete (or not yet delivered while reading is paused). */
  get readBuffered(): number {
    return this.splitter.buffered;
  }

  /** The peer's requests being processed. */
  get requestsInFlight(): number {
    return this.inFlight.size;
  }

  park(request: RemotingCommand): void {
    this.requestDone(request);
  }

  /**
   * Queues one command (request or response) as it is, opaque and flag included. Returns false if the
   * connection is closed; throws RemotingCommandError if the command cannot be encoded.
   */
  send(command: RemotingCommand): boolean {
    if (this.reason !== undefined) return false;
    const head = encodeFrameHead(command, this.settings.maxFrameSize);
    const stream = this.stream;
    if (!this.corked) {
      this.corked = true;
      stream.cork();
      process.nextTick(flushTurn, this);
    }
    stream.write(head);
    const body = command.body;
    if (body !== undefined && body.length > 0) stream.write(body);
    if (stream.writableLength > this.settings.writeBufferHardLimit) {
      this.closeOverLimit(
        'writeBufferHardLimit',
        'write buffer over its hard limit (the peer does not read), closing connection',
        { writableLength: stream.writableLength, limit: this.settings.writeBufferHardLimit },
      );
      return false;
    }
    return true;
  }

  writeResponse(response: RemotingCommand): boolean {
    response.flag |= RPC_TYPE_RESPONSE;
    return this.send(response);
  }

  /**
   * Sends `request` with a fresh opaque (written into the request) and waits for its response.
   * Rejects with RemotingTimeoutError, RemotingAbortedError, RemotingConnectionClosedError or
   * RemotingTooMuchRequestError.
   */
  invoke(request: RemotingCommand, options: InvokeOptions = {}): Promise<RemotingCommand> {
    if (this.reason !== undefined) {
      return Promise.reject(new RemotingConnectionClosedError(this.remoteAddress, this.reason));
    }
    if (this.pending.size >= this.settings.maxPendingRequests) {
      return Promise.reject(
        new RemotingTooMuchRequestError(this.remoteAddress, this.settings.maxPendingRequests),
      );
    }
    const signal = options.signal;
    if (signal?.aborted) return Promise.reject(new RemotingAbortedError(this.remoteAddress, signal.reason));
    const opaque = this.pending.allocateOpaque();
    request.opaque = opaque;
    const response = this.pending.add(
      opaque,
      options.timeoutMs ?? this.settings.defaultInvokeTimeoutMs,
      signal,
    );
    try {
      this.send(request);
    } catch (error) {
      this.pending.fail(opaque, error);
    }
    return response;
  }

  /** Sends `request` marked oneway with a fresh opaque; resolves once it is queued for writing. */
  invokeOneway(request: RemotingCommand): Promise<void> {
    if (this.reason !== undefined) {
      return Promise.reject(new RemotingConnectionClosedError(this.remoteAddress, this.reason));
    }
    request.opaque = this.pending.allocateOpaque();
    request.flag |= RPC_ONEWAY;
    try {
      this.send(request);
    } catch (error) {
      return Promise.reject(error);
    }
    return Promise.resolve();
  }

  /**
   * Closes at once: what this turn queued is handed to the stream, the stream is destroyed and every
   * pending request fails with RemotingConnectionClosedError. Idempotent.
   */
  close(reason = 'closed locally'): void {
    if (this.reason !== undefined) return;
    this.reason = reason;
    if (this.idleTimer !== undefined) clearTimeout(this.idleTimer);
    if (this.deadlineTimer !== undefined) clearTimeout(this.deadlineTimer);
    if (this.corked) {
      this.corked = false;
      this.stream.uncork();
    }
    this.stream.destroy();
    this.pending.failAll(() => new RemotingConnectionClosedError(this.remoteAddress, reason));
    this.logger.debug('connection closed', { remoteAddress: this.remoteAddress, reason });
    this.emit('close', reason);
  }

  /** Resolves once the underlying stream has closed (after close(), or when the peer went away). */
  whenClosed(): Promise<void> {
    if (this.streamClosed) return Promise.resolve();
    const waiters = this.closeWaiters ?? [];
    this.closeWaiters = waiters;
    return new Promise((resolve) => {
      waiters.push(resolve);
    });
  }

  /** End of the turn's batch: one uncork writes everything queued since the first send. */
  flush(): void {
    if (!this.corked) return;
    this.corked = false;
    this.lastActivity = Date.now();
    const stream = this.stream;
    stream.uncork();
    // Measured after the uncork: a socket has by now handed the kernel what it would take, so only a
    // peer that is not reading leaves this much behind.
    if (
      !this.paused &&
      this.reason === undefined &&
      stream.writableLength > this.settings.writeBufferHighWaterMark
    ) {
      this.pauseReading();
    }
  }

  /** Idle timer callback. */
  checkIdle(): void {
    this.idleTimer = undefined;
    if (this.reason !== undefined) return;
    const idleFor = Date.now() - this.lastActivity;
    if (idleFor >= this.idleMs) {
      this.logger.info('closing idle connection', { remoteAddress: this.remoteAddress, idleMs: idleFor });
      this.close(`idle for ${idleFor} ms`);
    } else {
      this.scheduleIdleCheck(this.idleMs - idleFor);
    }
  }

  private scheduleIdleCheck(delayMs: number): void {
    this.idleTimer = setTimeout(checkIdle, Math.max(1, delayMs), this);
    if (!this.idleCheckHoldsProcess) this.idleTimer.unref();
  }

  /**
   * Frame deadline timer callback: closes the connection when the frame in progress began more than
   * frameDeadlineMs ago. While reading is paused by us the frame cannot complete, so its clock
   * starts again once the timer finds it paused.
   */
  checkFrameDeadline(): void {
    this.deadlineTimer = undefined;
    if (this.reason !== undefined || this.frameStartedAt === undefined) return;
    const deadline = this.settings.frameDeadlineMs;
    const now = Date.now();
    if (this.paused) this.frameStartedAt = now;
    const age = now - this.frameStartedAt;
    if (age < deadline) {
      this.deadlineTimer = setTimeout(checkFrameDeadline, deadline - age, this);
      return;
    }
    this.closeOverLimit('frameDeadline', 'frame not completed within its deadline, closing connection', {
      deadlineMs: deadline,
      buffered: this.splitter.buffered,
    });
  }

  /** After a read: starts the deadline clock of a frame that began, stops it when none is pending. */
  private watchFrame(): void {
    const deadline = this.settings.frameDeadlineMs;
    if (deadline <= 0) return;
    if (!this.splitter.inProgress) {
      this.frameStartedAt = undefined;
      return;
    }
    const sequence = this.splitter.frameSequence;
    if (this.frameStartedAt === undefined || sequence !== this.frameSequence) {
      this.frameSequence = sequence;
      this.frameStartedAt = Date.now();
    }
    this.deadlineTimer ??= setTimeout(checkFrameDeadline, deadline, this);
  }

  /** True while the next frame may be delivered; otherwise pauses reading and returns false. */
  private keepReading(): boolean {
    if (this.reason !== undefined || this.paused) return false;
    if (
      this.inFlight.size < this.settings.maxRequestsInFlight &&
      this.stream.writableLength <= this.settings.writeBufferHighWaterMark
    ) {
      return true;
    }
    this.pauseReading();
    return false;
  }

  private pauseReading(): void {
    this.paused = true;
    this.stream.pause();
    this.logger.debug('reading paused', {
      remoteAddress: this.remoteAddress,
      writableLength: this.stream.writableLength,
      requestsInFlight: this.inFlight.size,
    });
    if (this.stream.writableLength > this.settings.writeBufferLowWaterMark) this.awaitFlush();
    this.emit('readPaused');
  }

  /** Learns when everything queued so far has been flushed: a marker's write callback. */
  private awaitFlush(): void {
    if (this.markerPending) return;
    this.markerPending = true;
    this.stream.write(FLUSH_MARKER, this.onMarkerFlushed);
  }

  private readonly onMarkerFlushed = (error?: Error | null): void => {
    this.markerPending = false;
    if (!error) this.tryResume();
  };

  private requestDone(request: RemotingCommand): void {
    if (this.inFlight.delete(request) && this.paused) this.tryResume();
  }

  /** Resumes reading once requests in flight and the write buffer are both under their marks. */
  private tryResume(): void {
    if (!this.paused || this.reason !== undefined) return;
    if (this.inFlight.size >= this.settings.maxRequestsInFlight) return;
    if (this.stream.writableLength > this.settings.writeBufferLowWaterMark) {
      // More was queued behind the marker while we waited; wait for that too.
      this.awaitFlush();
      return;
    }
    this.paused = false;
    this.logger.debug('reading resumed', { remoteAddress: this.remoteAddress });
    this.emit('readResumed');
    try {
      this.splitter.resume(this.onFrame);
    } catch (error) {
      this.closeMalformed(error);
      return;
    }
    if (this.paused || this.reason !== undefined) return;
    this.stream.resume();
    this.watchFrame();
  }

  /** Closes the connection for a limit reached, with one rate-limited warning. */
  private closeOverLimit(limit: string, message: string, fields: Record<string, unknown>): void {
    if (this.reason !== undefined) return;
    this.warnLimited(limit, message, fields);
    this.close(`${limit} reached`);
  }

  private warnLimited(limit: string, message: string, fields: Record<string, unknown>): void {
    const dropped = this.limitLog === undefined ? 0 : this.limitLog.take(limit);
    if (dropped === undefined) return;
    this.logger.warn(message, {
      remoteAddress: this.remoteAddress,
      limit,
      ...fields,
      ...(dropped > 0 ? { suppressed: dropped } : {}),
    });
  }

  /**
   * A header over the limits was not parsed: a request whose opaque could be read is refused with
   * MESSAGE_ILLEGAL and the connection serves on; anything else closes it.
   */
  private refuseHeader(error: HeaderLimitError): void {
    const ids = error.ids;
    if (ids === undefined || (ids.flag & RPC_TYPE_RESPONSE) !== 0) {
      this.closeOverLimit(error.limit, 'request header over its limit, closing connection', {
        error: error.message,
      });
      return;
    }
    this.warnLimited(error.limit, 'request header over its limit, refused', {
      code: ids.code,
      error: error.message,
    });
    if ((ids.flag & RPC_ONEWAY) !== 0) return;
    const request: RemotingCommand = {
      ...ids,
      language: 'JAVA',
      version: 0,
      serializeType: SerializeType.JSON,
    };
    this.send(
      createResponse(request, ResponseCode.MESSAGE_ILLEGAL, {
        remark: headerOverLimitRemark(ids.code, error),
        serializeType: SerializeType.JSON,
      }),
    );
  }

  private readonly onData = (chunk: Buffer): void => {
    if (this.reason !== undefined) return;
    this.lastActivity = Date.now();
    try {
      this.splitter.push(chunk, this.onFrame);
    } catch (error) {
      this.closeMalformed(error);
      return;
    }
    this.watchFrame();
  };

  /** Handles one frame; false stops the splitter until reading resumes. */
  private readonly onFrame = (payload: Buffer): boolean => {
    if (this.reason !== undefined) return false;
    let command: RemotingCommand;
    try {
      command = decodeFrame(payload, this.settings.headerLimits);
    } catch (error) {
      if (error instanceof HeaderLimitError) this.refuseHeader(error);
      else this.closeMalformed(error);
      return this.keepReading();
    }
    if (isResponse(command)) {
      if (!this.pending.complete(command)) {
        this.logger.debug('dropped a response with an unknown opaque', {
          remoteAddress: this.remoteAddress,
          opaque: command.opaque,
          code: command.code,
        });
      }
      return this.keepReading();
    }
    try {
      // Counted before the handler runs, so that a processor may park it (see park()) at once.
      this.inFlight.add(command);
      const done = this.handler.handleRequest(this, command);
      if (done === undefined) this.inFlight.delete(command);
      else {
        const finished = () => this.requestDone(command);
        done.then(finished, finished);
      }
    } catch (error) {
      this.inFlight.delete(command);
      this.logger.error('request handler threw', {
        remoteAddress: this.remoteAddress,
        error: describe(error),
      });
    }
    return this.keepReading();
  };

  /** A frame's head, its body still to come: true if `check` answered the request already. */
  private checkHead(check: BeforeBodyCheck, head: Buffer, bodyLength: number): boolean {
    if (this.reason !== undefined) return false;
    let command: RemotingCommand;
    try {
      command = decodeFrame(head, this.settings.headerLimits);
    } catch {
      // Left to the whole frame, which then fails to decode the same way and closes the connection.
      return false;
    }
    if (isResponse(command)) return false;
    try {
      return check(this, command, bodyLength);
    } catch (error) {
      this.logger.error('request check threw', { remoteAddress: this.remoteAddress, error: describe(error) });
      return false;
    }
  }

  private closeMalformed(error: unknown): void {
    if (this.reason !== undefined) return;
    const message = describe(error);
    this.logger.warn('malformed frame, closing connection', {
      remoteAddress: this.remoteAddress,
      error: message,
    });
    this.close(`malformed frame: ${message}`);
  }

  private readonly onInvokeTimeout = (): void => {
    if (this.settings.closeOnInvokeTimeout) this.close('a request timed out');
  };

  private readonly onEnd = (): void => {
    this.close('closed by peer');
  };

  private readonly onError = (error: Error): void => {
    if (this.reason === undefined) {
      this.logger.debug('stream error', { remoteAddress: this.remoteAddress, error: error.message });
      this.close(`stream error: ${error.message}`);
    }
  };

  private readonly onStreamClose = (): void => {
    this.streamClosed = true;
    this.close('stream closed');
    const waiters = this.closeWaiters;
    this.closeWaiters = undefined;
    if (waiters !== undefined) for (const resolve of waiters) resolve();
  };
}
