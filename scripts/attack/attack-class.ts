/**
 * One class of attack that `npm run attack` replays (issue 26). A class starts what it attacks
 * itself (a broker or name server of ours on 127.0.0.1, in-process or as a child process), sends
 * only to loopback, stops by itself within its time budget and cleans up whatever it started.
 */
export interface AttackOptions {
  /** The short form CI runs: fewer rounds and smaller loads, same verdict rule. */
  readonly short: boolean;
}

export interface AttackVerdict {
  /** The class, as the table in docs/security.md names it (e.g. 'ha-port', 'header-limits'). */
  readonly attack: string;
  /** One case inside the class (e.g. 'VIEW_MESSAGE_BY_ID x2, unread'). */
  readonly case: string;
  readonly verdict: 'held' | 'breached';
  /** The figure behind the verdict, for the printed row (e.g. 'RSS +41 MiB (bound 256 MiB)'). */
  readonly figure: string;
}

export interface AttackClass {
  readonly name: string;
  run(options: AttackOptions): Promise<AttackVerdict[]>;
}
