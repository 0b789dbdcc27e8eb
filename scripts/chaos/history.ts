/**
 * A history file: one HistoryEvent per line (JSON), appended as the workload runs and read back by
 * the checker, so that a verdict can always be re-derived from the file it names.
 */
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import type { HistoryEvent } from './types.js';

/** Lines are buffered and written in batches of this many (a crash of the runner loses at most these). */
const FLUSH_EVERY_LINES = 256;

export class History {
  private pending: string[] = [];

  constructor(readonly file: string) {
    writeFileSync(file, '');
  }

  append(event: HistoryEvent): void {
    this.pending.push(JSON.stringify(event));
    if (this.pending.length >= FLUSH_EVERY_LINES) this.flush();
  }

  /** Writes what is buffered; call before reading the file back. */
  flush(): void {
    if (this.pending.length === 0) return;
    appendFileSync(this.file, `${this.pending.join('\n')}\n`);
    this.pending = [];
  }
}

function isHistoryEvent(value: unknown): value is HistoryEvent {
  if (typeof value !== 'object' || value === null) return false;
  const kind = (value as { kind?: unknown }).kind;
  const t = (value as { t?: unknown }).t;
  return (kind === 'send' || kind === 'consume' || kind === 'fault') && typeof t === 'number';
}

/** The events of a history file, in file order; a line that is not an event fails with its number. */
export function readHistory(file: string): HistoryEvent[] {
  const events: HistoryEvent[] = [];
  const lines = readFileSync(file, 'utf8').split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    if (line.trim() === '') continue;
    const parsed: unknown = JSON.parse(line);
    if (!isHistoryEvent(parsed)) throw new Error(`${file}:${i + 1}: not a history event`);
    events.push(parsed);
  }
  return events;
}
