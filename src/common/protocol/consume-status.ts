/**
 * ConsumeStatus (`common/.../protocol/body/ConsumeStatus.java`): one subscribed topic's consumption
 * figures in a ConsumerRunningInfo's statusTable, as ConsumerStatsManager computes them. Five Java
 * doubles and a long; fastjson writes every field, zeros included:
 * `{"consumeFailedMsgs":0,"consumeFailedTPS":0.0,"consumeOKTPS":0.0,"consumeRT":0.0,"pullRT":0.0,"pullTPS":0.0}`.
 */
import { type FjEmittableRecord, javaDouble } from '../fastjson/index.js';
import type { BodyReader } from './body-reader.js';
import { readDouble } from './broker-stats-data.js';

export interface ConsumeStatus {
  /** Average ms per pull over the last minute. */
  pullRT: number;
  /** Messages pulled per second over the last minute. */
  pullTPS: number;
  /** Average ms per listener call over the last minute (the last hour when the minute saw none). */
  consumeRT: number;
  /** Messages consumed successfully per second over the last minute. */
  consumeOKTPS: number;
  /** Messages whose consumption failed per second over the last minute. */
  consumeFailedTPS: number;
  /** Messages whose consumption failed over the last hour (a Java long). */
  consumeFailedMsgs: bigint;
}

/** A new ConsumeStatus as Java makes it: every figure 0. */
export function emptyConsumeStatus(): ConsumeStatus {
  return { pullRT: 0, pullTPS: 0, consumeRT: 0, consumeOKTPS: 0, consumeFailedTPS: 0, consumeFailedMsgs: 0n };
}

/** The bean as fastjson writes it (NaN and infinities, from an empty window, become null). */
export function consumeStatusValue(s: ConsumeStatus): FjEmittableRecord {
  return {
    consumeFailedMsgs: s.consumeFailedMsgs,
    consumeFailedTPS: javaDouble(s.consumeFailedTPS),
    consumeOKTPS: javaDouble(s.consumeOKTPS),
    consumeRT: javaDouble(s.consumeRT),
    pullRT: javaDouble(s.pullRT),
    pullTPS: javaDouble(s.pullTPS),
  };
}

/** Absent or null fields read as Java's initial 0. */
export function readConsumeStatus(r: BodyReader): ConsumeStatus {
  return {
    pullRT: readDouble(r.optional('pullRT')),
    pullTPS: readDouble(r.optional('pullTPS')),
    consumeRT: readDouble(r.optional('consumeRT')),
    consumeOKTPS: readDouble(r.optional('consumeOKTPS')),
    consumeFailedTPS: readDouble(r.optional('consumeFailedTPS')),
    consumeFailedMsgs: r.optional('consumeFailedMsgs')?.long() ?? 0n,
  };
}
