/** Where the CLI writes; tests pass their own. */
export interface CliIO {
  out: (text: string) => void;
  err: (text: string) => void;
}
