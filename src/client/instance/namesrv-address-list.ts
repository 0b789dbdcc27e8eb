/**
 * The name servers a client asks, and which one it asks first. Upstream's NettyRemotingClient sticks
 * to one name server until a call to it fails, then moves to the next; here a call that cannot reach
 * the chosen one moves on at once and tries the others within what is left of its timeout, so one
 * dead name server costs a connect attempt, not a failed call.
 */
import {
  RemotingAbortedError,
  RemotingConnectError,
  RemotingConnectionClosedError,
} from '../../remoting/transport/errors.js';
import { ClientErrorCode, MQClientError } from '../errors.js';

export class NamesrvAddressList {
  private list: readonly string[];
  private chosen = 0;

  constructor(list: readonly string[]) {
    this.list = [...list];
  }

  get addresses(): readonly string[] {
    return this.list;
  }

  /** `updateNameServerAddressList`: a new list keeps the chosen server when it is still in it. */
  update(list: readonly string[]): void {
    const current = this.list[this.chosen];
    this.list = [...list];
    const kept = current === undefined ? -1 : this.list.indexOf(current);
    this.chosen = Math.max(kept, 0);
  }

  /** The servers in the order a call tries them: the chosen one first, then round the list. */
  order(): string[] {
    const n = this.list.length;
    const out: string[] = [];
    for (let i = 0; i < n; i++) out.push(this.list[(this.chosen + i) % n] as string);
    return out;
  }

  /** Makes `address` the first to try from now on. */
  choose(address: string): void {
    const i = this.list.indexOf(address);
    if (i >= 0) this.chosen = i;
  }

  /**
   * Runs `call` against the name servers in order until one answers. Only failures to reach a server
   * move on (refused, unreachable, closed while waiting); a timeout has used the budget and an abort
   * is final, so both end the call. The first server that answers becomes the chosen one.
   */
  async invoke<T>(call: (address: string, deadline: number) => Promise<T>, deadline: number): Promise<T> {
    const order = this.order();
    if (order.length === 0) {
      throw new MQClientError(
        'No name server address, please set it.',
        ClientErrorCode.NO_NAME_SERVER_EXCEPTION,
      );
    }
    let last: unknown;
    for (const address of order) {
      if (last !== undefined && Date.now() >= deadline) break;
      try {
        const result = await call(address, deadline);
        this.choose(address);
        return result;
      } catch (error) {
        if (error instanceof RemotingAbortedError) throw error;
        if (!(error instanceof RemotingConnectError || error instanceof RemotingConnectionClosedError))
          throw error;
        last = error;
      }
    }
    throw last;
  }
}
