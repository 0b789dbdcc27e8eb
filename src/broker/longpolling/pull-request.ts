/**
 * One held pull (upstream `broker/.../longpolling/PullRequest.java`): the request as it came, the
 * connection it came on, when it was suspended and for how long, the offset it waits beyond and the
 * filter new messages must pass to wake it. The handler's promise for the request stays pending while
 * it is held; `respond` settles it, and the transport then answers on the original connection.
 */
import type { SubscriptionData } from '../../common/protocol/subscription-data.js';
import type { RemotingCommand } from '../../remoting/protocol/command.js';
import type { ProcessorContext } from '../../remoting/transport/index.js';
import type { MessageFilter } from '../../store/message-store.js';

/** Settles the pending handler promise: with a response, or with the promise of one (its error included). */
export type PullResponder = (response: RemotingCommand | PromiseLike<RemotingCommand>) => void;

export class PullRequest {
  constructor(
    readonly requestCommand: RemotingCommand,
    readonly clientChannel: ProcessorContext,
    /** How long the request may be held, in ms. */
    readonly timeoutMillis: number,
    /** Clock time when it was suspended. */
    readonly suspendTimestamp: number,
    readonly pullFromThisOffset: bigint,
    readonly subscriptionData: SubscriptionData,
    readonly messageFilter: MessageFilter,
    private readonly responder: PullResponder,
  ) {}

  /** Answers the held request; only the first call counts. */
  respond(response: RemotingCommand | PromiseLike<RemotingCommand>): void {
    this.responder(response);
  }

  /** Whether the connection the request came on is still open (a closed one is not answered). */
  get channelOpen(): boolean {
    return this.clientChannel.connection.isOpen;
  }
}
