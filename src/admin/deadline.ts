/**
 * A call's whole timeout, connecting included. The transport bounds a connect by its own
 * connectTimeoutMs, which may be longer than the call's timeout; an admin call to a dead or silent
 * peer must still fail within its timeout, naming the peer.
 */

import type { CallOptions } from '../client/instance/mq-client-api.js';
import { forwardAbort } from '../common/call-aborts.js';
import { RemotingTimeoutError } from '../remoting/transport/errors.js';

export async function withinDeadline<T>(
  peer: string,
  call: CallOptions,
  run: (call: CallOptions) => Promise<T>,
): Promise<T> {
  // A timer of our own, not AbortSignal.timeout: that one does not keep the process alive while
  // the call is all that is left to wait for.
  const deadline = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    deadline.abort();
  }, call.timeoutMs);
  const unlink = forwardAbort(call.signal, deadline);
  try {
    return await run({ timeoutMs: call.timeoutMs, signal: deadline.signal });
  } catch (error) {
    if (timedOut && call.signal?.aborted !== true) {
      throw new RemotingTimeoutError(peer, call.timeoutMs);
    }
    throw error;
  } finally {
    clearTimeout(timer);
    unlink();
  }
}
