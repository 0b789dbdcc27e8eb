/**
 * The chaos runner's shared vocabulary: what a workload writes to the history, what a scenario
 * returns, and the context the runner gives each scenario. The verdict fields are OpenMessaging
 * Chaos' names so its readers find their way around our tables.
 */

/** One line of a history file (JSON per line). Times are epoch ms of the process that wrote it. */
export type HistoryEvent = SendEvent | ConsumeEvent | FaultEvent;

/** A send's outcome as the producer saw it. `ok` means acknowledged (SEND_OK, or stored under SYNC_FLUSH). */
export interface SendEvent {
  kind: 'send';
  t: number;
  /** Which workload process wrote it, e.g. `ours-producer-1`, `java-producer-1`. */
  client: string;
  /** Unique per message across the scenario: the checker's identity of a message. */
  key: string;
  /** The ordering shard (messages of one shard go to one queue, one at a time), when ordered. */
  shard?: string;
  /** Position of the message within its shard, counting from 0, when ordered. */
  seq?: number;
  ok: boolean;
  /** SEND_OK, FLUSH_DISK_TIMEOUT, … when ok; the error's name and response code when not. */
  status: string;
  queueId?: number;
  queueOffset?: number;
  msgId?: string;
  /** How long the send took, ms. */
  latencyMs: number;
}

/** A message a consumer's listener saw. */
export interface ConsumeEvent {
  kind: 'consume';
  t: number;
  client: string;
  key: string;
  shard?: string;
  seq?: number;
  queueId: number;
  queueOffset: number;
  reconsumeTimes: number;
}

/** What the runner did (kill, restart, pause, resume, …), so a history reads on its own. */
export interface FaultEvent {
  kind: 'fault';
  t: number;
  action: string;
  target: string;
}

/** One row of the verdict table: a scenario in one mode (flush mode, client side, …). */
export interface Verdict {
  scenario: string;
  /** E.g. `ASYNC_FLUSH, ours`, `orderly, java`. */
  mode: string;
  cycles: number;
  sendAttempts: number;
  acknowledged: number;
  /** Distinct keys consumed. */
  consumed: number;
  lostMessageCount: number;
  duplicateMessageCount: number;
  orderInversions: number;
  /** Every acknowledged message consumed at least once. */
  atLeastOnce: boolean;
  /** Longest stretch without an acknowledged send while the workload ran, ms. */
  maxUnavailableMs: number;
  /** From the fault's healing (restart, SIGCONT, …) to the first acknowledged send after it, ms (the worst cycle). */
  recoveryTimeMs: number;
  /** Figures specific to the scenario (RSS bounds, refused sends, …), printed after the table. */
  figures: Record<string, number | string>;
  /** Each broken promise in a sentence; empty when the row passes. */
  failures: string[];
  /** The history file this row was judged from, when there is one. */
  historyFile?: string;
}

export interface ScenarioContext {
  /** The long form (by hand, many cycles) rather than the short one (CI, every fault once or a few cycles). */
  long: boolean;
  /** Where to write history files and data dirs; removed by the runner unless kept. */
  workDir: string;
  /** Which clients drive the workload; the runner's `--clients` flag. */
  clients: readonly ('ours' | 'java')[];
  /** One progress line (quiet unless `--verbose`). */
  log(line: string): void;
  /** Aborted when the runner's overall deadline passes or on SIGINT. */
  signal: AbortSignal;
}

export interface Scenario {
  /** Short, for `--only` and the table: `broker-kill`, `broker-pause`, `namesrv-kill`, … */
  name: string;
  description: string;
  /** Whether it needs Java (the official client or broker); skipped with a line when Java is missing. */
  needsJava: boolean;
  run(ctx: ScenarioContext): Promise<Verdict[]>;
}
