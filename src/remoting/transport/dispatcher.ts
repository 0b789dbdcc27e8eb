/**
 * Request dispatch shared by server and client (upstream NettyRemotingAbstract.processRequestCommand):
 * one processor table per code plus a default, RPC hooks around processing, and the rules for which
 * answer goes back and in which serialization.
 */
import { RocketMQError } from '../../common/errors.js';
import type { Logger } from '../../common/logger.js';
import {
  createResponse,
  isOneway,
  type RemotingCommand,
  RPC_TYPE_RESPONSE,
  SerializeType,
} from '../protocol/command.js';
import { ResponseCode } from '../protocol/response-code.js';
import { bodyOverLimitRemark } from './body-limits.js';
import type { BeforeBodyCheck, Connection, InboundRequestHandler } from './connection.js';
import type { RequestProcessor, RPCHook } from './processor.js';

/** Upstream's remark for a rejectRequest() refusal. */
export const REJECT_REQUEST_REMARK = '[REJECTREQUEST]system busy, start flow control for a while';

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** True for an error whose thrower already logged it (`alreadyLogged: true`). */
function alreadyLogged(error: unknown): boolean {
  return (
    typeof error === 'object' &&
    error !== null &&
    (error as { alreadyLogged?: unknown }).alreadyLogged === true
  );
}

export class RequestDispatcher implements InboundRequestHandler {
  private readonly processors = new Map<number, RequestProcessor>();
  private defaultProcessor: RequestProcessor | undefined;
  private readonly hooks: RPCHook[] = [];
  private readonly logger: Logger;
  /** The largest body a request of a code may carry; undefined (a client's dispatcher): no check. */
  private readonly bodyLimit: ((code: number) => number) | undefined;
  /** With body limits: refuses an oversized request from its header, before its body is buffered. */
  readonly checkBeforeBody: BeforeBodyCheck | undefined;

  constructor(logger: Logger, bodyLimit?: (code: number) => number) {
    this.logger = logger;
    this.bodyLimit = bodyLimit;
    this.checkBeforeBody =
      bodyLimit === undefined
        ? undefined
        : (connection, request, bodyLength) => {
            if (!this.processors.has(request.code) && this.defaultProcessor === undefined) return false;
            const limit = bodyLimit(request.code);
            if (bodyLength <= limit) return false;
            this.refuseBody(connection, request, limit, bodyLength);
            return true;
          };
  }

  registerProcessor(code: number, processor: RequestProcessor): void {
    this.processors.set(code, processor);
  }

  registerDefaultProcessor(processor: RequestProcessor): void {
    this.defaultProcessor = processor;
  }

  registerRPCHook(hook: RPCHook): void {
    this.hooks.push(hook);
  }

  get rpcHooks(): readonly RPCHook[] {
    return this.hooks;
  }

  runBeforeHooks(remoteAddr: string, request: RemotingCommand): void {
    for (const hook of this.hooks) hook.doBeforeRequest(remoteAddr, request);
  }

  runAfterHooks(remoteAddr: string, request: RemotingCommand, response: RemotingCommand | undefined): void {
    for (const hook of this.hooks) hook.doAfterResponse(remoteAddr, request, response);
  }

  /** Undefined once answered (or refused) synchronously; else settles when the processor is done. */
  handleRequest(connection: Connection, request: RemotingCommand): Promise<void> | undefined {
    const processor = this.processors.get(request.code) ?? this.defaultProcessor;
    if (processor === undefined) {
      // Answered even when the request was oneway, as upstream does (spec §11 trap 7).
      const remark = ` request type ${request.code} not supported`;
      this.sendQuietly(
        connection,
        createResponse(request, ResponseCode.REQUEST_CODE_NOT_SUPPORTED, {
          remark,
          serializeType: SerializeType.JSON,
        }),
      );
      this.logger.warn('request code not supported', {
        remoteAddress: connection.remoteAddress,
        code: request.code,
      });
      return undefined;
    }
    if (this.bodyLimit !== undefined && request.body !== undefined) {
      const limit = this.bodyLimit(request.code);
      if (request.body.length > limit) {
        this.refuseBody(connection, request, limit, request.body.length);
        return undefined;
      }
    }
    if (processor.rejectRequest?.() === true) {
      // Upstream sends this one without looking at the oneway bit, too.
      this.sendQuietly(
        connection,
        createResponse(request, ResponseCode.SYSTEM_BUSY, {
          remark: REJECT_REQUEST_REMARK,
          serializeType: SerializeType.JSON,
        }),
      );
      return undefined;
    }
    let result: ReturnType<RequestProcessor['processRequest']>;
    try {
      if (this.hooks.length > 0) this.runBeforeHooks(connection.remoteAddress, request);
      result = processor.processRequest(connection, request);
    } catch (error) {
      this.replyError(connection, request, error);
      return undefined;
    }
    if (result instanceof Promise) {
      return result.then(
        (response) => this.finish(connection, request, response),
        (error: unknown) => this.replyError(connection, request, error),
      );
    }
    this.finish(connection, request, result);
    return undefined;
  }

  private finish(
    connection: Connection,
    request: RemotingCommand,
    response: RemotingCommand | undefined,
  ): void {
    try {
      if (this.hooks.length > 0) this.runAfterHooks(connection.remoteAddress, request, response);
    } catch (error) {
      this.replyError(connection, request, error);
      return;
    }
    if (response === undefined || isOneway(request)) return;
    response.opaque = request.opaque;
    response.flag |= RPC_TYPE_RESPONSE;
    try {
      connection.send(response);
    } catch (error) {
      // The response cannot be encoded (too large, bad field): tell the peer instead of leaving it waiting.
      this.replyError(connection, request, error);
    }
  }

  /** Before any processor or hook sees the body, so an oversized one is never decoded. */
  private refuseBody(connection: Connection, request: RemotingCommand, limit: number, size: number): void {
    this.logger.warn('request body exceeds its limit, refused', {
      remoteAddress: connection.remoteAddress,
      code: request.code,
      bodySize: size,
      limit,
    });
    if (isOneway(request)) return;
    this.sendQuietly(
      connection,
      createResponse(request, ResponseCode.MESSAGE_ILLEGAL, {
        remark: bodyOverLimitRemark(request.code, size, limit),
        serializeType: SerializeType.JSON,
      }),
    );
  }

  private replyError(connection: Connection, request: RemotingCommand, error: unknown): void {
    const typed = error instanceof RocketMQError;
    const remark = typed ? error.message : error instanceof Error ? error.toString() : String(error);
    const fields = { remoteAddress: connection.remoteAddress, code: request.code, error: describe(error) };
    // A hook that refuses requests (ACL) logs its refusals itself, rate-limited.
    if (!alreadyLogged(error)) {
      if (typed) this.logger.warn('request failed', fields);
      else this.logger.error('request processor threw', fields);
    }
    if (isOneway(request)) return;
    const code = typed ? error.responseCode : ResponseCode.SYSTEM_ERROR;
    this.sendQuietly(
      connection,
      createResponse(request, code, { remark, serializeType: SerializeType.JSON }),
    );
  }

  private sendQuietly(connection: Connection, response: RemotingCommand): void {
    try {
      connection.send(response);
    } catch (error) {
      this.logger.error('could not send a response', {
        remoteAddress: connection.remoteAddress,
        code: response.code,
        error: describe(error),
      });
    }
  }
}
