/**
 * One warn line per ACL denial, rate-limited per kind of denial (at most one a `intervalMs` each; the
 * next line says how many were left out), so a flood of bad requests is not a flood of lines. A line
 * names the accessKey (cut short), the request code and the peer, never the signature, a secret or
 * the payload.
 */
import type { Clock } from '../clock.js';
import { LogRateLimiter } from '../log-rate-limiter.js';
import type { Logger } from '../logger.js';
import { echoAccessKey } from './access-request.js';

/** ms between two lines about the same kind of denial. */
export const DEFAULT_DENIAL_LOG_INTERVAL_MS = 1000;

export interface DenialLogOptions {
  clock: Clock;
  logger: Logger;
  intervalMs?: number;
}

export class DenialLog {
  private readonly limiter: LogRateLimiter;

  constructor(private readonly options: DenialLogOptions) {
    this.limiter = new LogRateLimiter(options.intervalMs ?? DEFAULT_DENIAL_LOG_INTERVAL_MS, () =>
      options.clock.now(),
    );
  }

  /** `kind` comes from a small fixed set (the throw site), never from the peer. */
  denied(
    kind: string,
    code: number,
    accessKey: string | undefined,
    remoteAddress: string,
    reason: string,
  ): void {
    const dropped = this.limiter.take(kind);
    if (dropped === undefined) return;
    this.options.logger.warn('ACL denied a request', {
      code,
      accessKey: accessKey === undefined ? undefined : echoAccessKey(accessKey),
      remoteAddress,
      reason,
      suppressedBefore: dropped > 0 ? dropped : undefined,
    });
  }
}
