/**
 * Judges a history (pure: events in, figures out), in OpenMessaging Chaos' terms. A message is its
 * key. Lost: acknowledged but never consumed. Duplicates: deliveries beyond the first of a key.
 * Order inversions: within a shard, a message first delivered after one with a higher position, so a
 * redelivery of an older message is a duplicate, not an inversion. Unavailability: the longest stretch
 * of the workload without an acknowledgement; recovery: from each healing of a fault to the first
 * acknowledgement after it.
 */
import type { ConsumeEvent, HistoryEvent, SendEvent } from './types.js';

/** How many lost keys and inversions a result names, for the report. */
const EXAMPLES = 5;

export interface CheckOptions {
  /** When each fault was healed (restart, SIGCONT, …), epoch ms. */
  healTimes?: readonly number[];
}

export interface CheckResult {
  sendAttempts: number;
  /** Distinct keys acknowledged. */
  acknowledged: number;
  /** Send events that were acknowledged (a key is sent once, so equal to the above in our workloads). */
  acknowledgedSends: number;
  consumed: number;
  lostMessageCount: number;
  duplicateMessageCount: number;
  orderInversions: number;
  atLeastOnce: boolean;
  maxUnavailableMs: number;
  recoveryTimeMs: number;
  /** From a heal to the first delivery after it, the worst; undefined without heals or deliveries after them. */
  consumeRecoveryMs: number | undefined;
  /** Heal times after which no send was acknowledged at all. */
  unrecoveredHeals: number[];
  lostExamples: string[];
  inversionExamples: string[];
}

/** Heal times of the fault events whose action is one of `actions`. */
export function healTimesOf(events: readonly HistoryEvent[], actions: readonly string[]): number[] {
  return events.filter((e) => e.kind === 'fault' && actions.includes(e.action)).map((e) => e.t);
}

export function check(events: readonly HistoryEvent[], options: CheckOptions = {}): CheckResult {
  const sends = events.filter((e): e is SendEvent => e.kind === 'send');
  const acked = new Set<string>();
  const ackTimes: number[] = [];
  for (const s of sends) {
    if (!s.ok) continue;
    acked.add(s.key);
    ackTimes.push(s.t);
  }
  ackTimes.sort((a, b) => a - b);

  // Stable by time: lines of one process keep their order when two share a millisecond.
  const consumes = events
    .map((e, i) => ({ e, i }))
    .filter((x): x is { e: ConsumeEvent; i: number } => x.e.kind === 'consume')
    .sort((a, b) => a.e.t - b.e.t || a.i - b.i)
    .map((x) => x.e);
  const seen = new Set<string>();
  const highest = new Map<string, { seq: number; key: string }>();
  let duplicates = 0;
  let inversions = 0;
  const inversionExamples: string[] = [];
  for (const c of consumes) {
    if (seen.has(c.key)) {
      duplicates++;
      continue;
    }
    seen.add(c.key);
    if (c.shard === undefined || c.seq === undefined) continue;
    const top = highest.get(c.shard);
    if (top !== undefined && c.seq < top.seq) {
      inversions++;
      if (inversionExamples.length < EXAMPLES)
        inversionExamples.push(`${c.key} (seq ${c.seq}) first delivered after ${top.key} (seq ${top.seq})`);
    } else {
      highest.set(c.shard, { seq: c.seq, key: c.key });
    }
  }
  const lost = [...acked].filter((k) => !seen.has(k));

  let maxUnavailableMs = 0;
  if (sends.length > 0) {
    // A loop, not Math.min(...): a long form's history outgrows the argument limit of a spread call.
    let start = Number.POSITIVE_INFINITY;
    let end = Number.NEGATIVE_INFINITY;
    for (const s of sends) {
      start = Math.min(start, s.t - s.latencyMs);
      end = Math.max(end, s.t);
    }
    let previous = start;
    for (const t of ackTimes) {
      maxUnavailableMs = Math.max(maxUnavailableMs, t - previous);
      previous = t;
    }
    maxUnavailableMs = Math.max(maxUnavailableMs, end - previous);
  }

  let recoveryTimeMs = 0;
  const unrecoveredHeals: number[] = [];
  for (const heal of options.healTimes ?? []) {
    const first = ackTimes.find((t) => t >= heal);
    if (first === undefined) unrecoveredHeals.push(heal);
    else recoveryTimeMs = Math.max(recoveryTimeMs, first - heal);
  }

  let consumeRecoveryMs: number | undefined;
  for (const heal of options.healTimes ?? []) {
    const first = consumes.find((c) => c.t >= heal);
    if (first !== undefined) consumeRecoveryMs = Math.max(consumeRecoveryMs ?? 0, first.t - heal);
  }

  return {
    sendAttempts: sends.length,
    acknowledged: acked.size,
    acknowledgedSends: ackTimes.length,
    consumed: seen.size,
    lostMessageCount: lost.length,
    duplicateMessageCount: duplicates,
    orderInversions: inversions,
    atLeastOnce: lost.length === 0,
    maxUnavailableMs,
    recoveryTimeMs,
    consumeRecoveryMs,
    unrecoveredHeals,
    lostExamples: lost.slice(0, EXAMPLES),
    inversionExamples,
  };
}
