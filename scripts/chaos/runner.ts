/**
 * Runs scenarios one after the other, each under a deadline (its signal aborts, then the runner
 * moves on), and formats the verdict table.
 */

import { failedVerdict } from './trial.js';
import type { Scenario, ScenarioContext, Verdict } from './types.js';

/** Whole-scenario deadlines: the short form is for CI, the long one runs by hand. */
export const SCENARIO_DEADLINE_MS = { short: 5 * 60_000, long: 4 * 60 * 60_000 } as const;
/** After the deadline aborts a scenario, how long it may take to wind down before it is given up. */
export const ABORT_GRACE_MS = 60_000;

export interface RunOptions {
  long: boolean;
  workDir: string;
  clients: ScenarioContext['clients'];
  log(line: string): void;
  /** Aborts every scenario (SIGINT). */
  signal: AbortSignal;
}

function failedRow(scenario: Scenario, message: string): Verdict {
  return failedVerdict(scenario.name, '-', message);
}

export async function runScenario(scenario: Scenario, options: RunOptions): Promise<Verdict[]> {
  const deadlineMs = options.long ? SCENARIO_DEADLINE_MS.long : SCENARIO_DEADLINE_MS.short;
  const controller = new AbortController();
  const onAbort = () => controller.abort();
  options.signal.addEventListener('abort', onAbort, { once: true });
  const deadline = setTimeout(() => controller.abort(), deadlineMs);
  let giveUp: NodeJS.Timeout | undefined;
  try {
    const run = scenario.run({
      long: options.long,
      workDir: options.workDir,
      clients: options.clients,
      log: options.log,
      signal: controller.signal,
    });
    const abandoned = new Promise<Verdict[]>((resolve) => {
      controller.signal.addEventListener(
        'abort',
        () => {
          giveUp = setTimeout(
            () => resolve([failedRow(scenario, `still running ${ABORT_GRACE_MS} ms after its deadline`)]),
            ABORT_GRACE_MS,
          );
        },
        { once: true },
      );
    });
    const verdicts = await Promise.race([run, abandoned]);
    if (controller.signal.aborted && !options.signal.aborted)
      for (const v of verdicts) v.failures.push(`deadline of ${deadlineMs} ms passed`);
    return verdicts;
  } catch (error) {
    return [failedRow(scenario, error instanceof Error ? error.message : String(error))];
  } finally {
    clearTimeout(deadline);
    clearTimeout(giveUp);
    options.signal.removeEventListener('abort', onAbort);
  }
}

const COLUMNS = [
  'scenario',
  'mode',
  'cycles',
  'acked',
  'lost',
  'dup',
  'inversions',
  'atLeastOnce',
  'maxUnavailableMs',
  'recoveryTimeMs',
  'result',
] as const;

function row(v: Verdict): string[] {
  return [
    v.scenario,
    v.mode,
    String(v.cycles),
    String(v.acknowledged),
    String(v.lostMessageCount),
    String(v.duplicateMessageCount),
    String(v.orderInversions),
    String(v.atLeastOnce),
    String(v.maxUnavailableMs),
    String(v.recoveryTimeMs),
    v.failures.length === 0 ? 'pass' : 'FAIL',
  ];
}

/** The table, then each row's figures and failures. */
export function formatVerdicts(verdicts: readonly Verdict[]): string {
  const rows = [COLUMNS.map(String), ...verdicts.map(row)];
  const widths = COLUMNS.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  const lines = rows.map((r) =>
    r
      .map((cell, i) => cell.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd(),
  );
  lines.splice(1, 0, widths.map((w) => '-'.repeat(w)).join('  '));
  lines.push('');
  for (const v of verdicts) {
    const figures = Object.entries(v.figures)
      .map(([k, value]) => `${k}=${value}`)
      .join(' ');
    lines.push(`${v.scenario} [${v.mode}]: sent ${v.sendAttempts}, consumed ${v.consumed}; ${figures}`);
    if (v.historyFile !== undefined) lines.push(`  history: ${v.historyFile}`);
    for (const f of v.failures) lines.push(`  FAIL: ${f}`);
  }
  return `${lines.join('\n')}\n`;
}
