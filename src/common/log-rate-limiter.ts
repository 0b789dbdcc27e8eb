/**
 * Rate limit for log lines a remote peer can trigger at will (refused connections, bad handshakes):
 * a flood must not turn into a flood of log lines. At most one line per key per interval; the next
 * line let through carries how many were dropped in between.
 */

export class LogRateLimiter {
  private readonly intervalMs: number;
  private readonly now: () => number;
  private readonly windows = new Map<string, { openedAt: number; dropped: number }>();

  /**
   * `intervalMs` 0 lets every line through. Keys must come from a small fixed set (reasons, not
   * peer addresses): one entry is kept per key.
   */
  constructor(intervalMs: number, now: () => number = Date.now) {
    this.intervalMs = intervalMs;
    this.now = now;
  }

  /**
   * Undefined when this line must be dropped; otherwise how many lines of this key were dropped
   * since the last one let through (0 for the first).
   */
  take(key: string): number | undefined {
    const now = this.now();
    const window = this.windows.get(key);
    if (window !== undefined && now - window.openedAt < this.intervalMs) {
      window.dropped++;
      return undefined;
    }
    const dropped = window?.dropped ?? 0;
    this.windows.set(key, { openedAt: now, dropped: 0 });
    return dropped;
  }
}
