/**
 * One parked POP or NOTIFICATION request (upstream `longpolling/PopRequest`): the request as it came,
 * its connection, when its long poll ends (`bornTime + pollTime`), the filter new messages must pass,
 * and the settler of the handler's pending promise. `complete` guards against answering twice.
 */
import type { RemotingCommand } from '../../remoting/protocol/command.js';
import type { ProcessorContext } from '../../remoting/transport/index.js';
import type { MessageFilter } from '../../store/message-store.js';

/** Upstream PopRequest.isTimeout: a request this close to its end is answered instead of kept. */
export const POP_REQUEST_TIMEOUT_SLACK_MS = 50;

export type PopResponder = (response: RemotingCommand | PromiseLike<RemotingCommand>) => void;

export class PopRequest {
  private completed = false;

  constructor(
    readonly remotingCommand: RemotingCommand,
    readonly ctx: ProcessorContext,
    /** Clock time when the long poll ends. */
    readonly expired: number,
    readonly messageFilter: MessageFilter | undefined,
    /** The `topic@group@queueId` key it is parked under. */
    readonly key: string,
    private readonly responder: PopResponder,
  ) {}

  isTimeout(now: number): boolean {
    return now > this.expired - POP_REQUEST_TIMEOUT_SLACK_MS;
  }

  /** True the first time only. */
  complete(): boolean {
    if (this.completed) return false;
    this.completed = true;
    return true;
  }

  respond(response: RemotingCommand | PromiseLike<RemotingCommand>): void {
    this.responder(response);
  }

  get channelOpen(): boolean {
    return this.ctx.connection.isOpen;
  }
}
