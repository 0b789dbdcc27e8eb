/** Where the CLI writes; tests pass their own. */
export interface CliIO {
  out: (text: string) => void;
  err: (text: string) => void;
  /** `out` is a terminal: progress lines that rewrite themselves are shown only then. */
  readonly isTTY?: boolean;
}

/**
 * A failure the command explains in one line of its own and ends with `exitCode`, instead of
 * the generic `rmq: <message>`.
 */
export class CliExitError extends Error {
  constructor(
    message: string,
    readonly exitCode: number,
  ) {
    super(message);
    this.name = 'CliExitError';
  }
}
