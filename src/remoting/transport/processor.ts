/** The interfaces server and client share for handling requests (upstream NettyRequestProcessor, RPCHook). */
import type { RemotingCommand } from '../protocol/command.js';
import type { ProcessorContext } from './connection.js';

export interface RequestProcessor {
  /**
   * Returns the response (opaque and response flag are filled in for it), or undefined to answer
   * nothing now — a long-polling processor answers later through `ctx.writeResponse`. A thrown error
   * becomes a SYSTEM_ERROR response (a RocketMQError's own responseCode) unless the request was oneway.
   */
  processRequest(
    ctx: ProcessorContext,
    request: RemotingCommand,
  ): Promise<RemotingCommand | undefined> | RemotingCommand | undefined;
  /** True to refuse the request with SYSTEM_BUSY `[REJECTREQUEST]` before processing it. */
  rejectRequest?(): boolean;
}

export interface RPCHook {
  doBeforeRequest(remoteAddr: string, request: RemotingCommand): void;
  /** `response` is undefined when a processor answered nothing (server side). */
  doAfterResponse(remoteAddr: string, request: RemotingCommand, response: RemotingCommand | undefined): void;
}
