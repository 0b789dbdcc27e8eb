/**
 * The timer's checkpoint, `<storePathRootDir>/config/timerCheckpoint.json` (ours; upstream's binary
 * `config/timercheck` describes its timer log, which we do not keep, so the official broker does not
 * read this file). Written with tmp + rename every timerFlushIntervalMs and at shutdown:
 *
 * - queueOffset: every timer-queue entry below it had reached the wheel;
 * - deliveredUpToMs: every entry below queueOffset with a tag code (due time) below it was given out
 *   and its re-put stored;
 * - lowestPendingOffset: no entry below it was pending, so recovery reads the queue from there.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from '../../common/platform/atomic-file.js';
import { StorePath } from '../config.js';

export interface TimerCheckpoint {
  queueOffset: number;
  deliveredUpToMs: number;
  lowestPendingOffset: number;
}

export function timerCheckpointPath(storePathRootDir: string): string {
  return join(StorePath.config(storePathRootDir), 'timerCheckpoint.json');
}

function isCount(v: unknown): v is number {
  return typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
}

/** Parses the file's text; throws a message naming the file when it is not a checkpoint. */
export function decodeTimerCheckpoint(text: string, file: string): TimerCheckpoint {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (err) {
    throw new Error(`${file} is not JSON: ${err instanceof Error ? err.message : String(err)}`);
  }
  const o = v as Partial<Record<keyof TimerCheckpoint, unknown>> | null;
  if (
    o === null ||
    typeof o !== 'object' ||
    !isCount(o.queueOffset) ||
    !isCount(o.deliveredUpToMs) ||
    !isCount(o.lowestPendingOffset) ||
    o.lowestPendingOffset > o.queueOffset
  ) {
    throw new Error(`${file} is not a timer checkpoint: ${text.slice(0, 200)}`);
  }
  return {
    queueOffset: o.queueOffset,
    deliveredUpToMs: o.deliveredUpToMs,
    lowestPendingOffset: o.lowestPendingOffset,
  };
}

export function encodeTimerCheckpoint(c: TimerCheckpoint): string {
  return `${JSON.stringify(c, ['queueOffset', 'deliveredUpToMs', 'lowestPendingOffset'], 2)}\n`;
}

/** The checkpoint, or undefined when there is none (a store that never held timer messages). */
export async function readTimerCheckpoint(file: string): Promise<TimerCheckpoint | undefined> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw err;
  }
  return decodeTimerCheckpoint(text, file);
}

export function writeTimerCheckpoint(file: string, c: TimerCheckpoint): Promise<void> {
  return writeFileAtomic(file, encodeTimerCheckpoint(c));
}
