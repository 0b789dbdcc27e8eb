/**
 * Where the bench tools print: whole lines always; on a terminal also a live progress line rewritten
 * in place (carriage return, erase to end of line). On a pipe or file the progress line is left out,
 * so logs and scripts see only whole lines.
 */
import type { CliIO } from '../io.js';

/** ANSI "erase to the end of the line": a shorter progress line must not leave the old one's tail. */
const ERASE_LINE_END = '\x1b[K';

export class BenchTerminal {
  private progressShown = false;

  constructor(
    private readonly io: CliIO,
    readonly isTTY: boolean,
  ) {}

  /** A whole line; a progress line being shown is wiped first and redrawn at the next tick. */
  line(text: string): void {
    this.clearProgress();
    this.io.out(text.endsWith('\n') ? text : `${text}\n`);
  }

  progress(text: string): void {
    if (!this.isTTY) return;
    this.io.out(`\r${text}${ERASE_LINE_END}`);
    this.progressShown = true;
  }

  clearProgress(): void {
    if (!this.progressShown) return;
    this.io.out(`\r${ERASE_LINE_END}`);
    this.progressShown = false;
  }
}
