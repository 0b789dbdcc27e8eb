/**
 * Runs a chaos scenario's short form as the runner would, in a temp work dir, and hands back its rows.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Scenario, Verdict } from '../../../scripts/chaos/types.js';

export async function runShort(scenario: Scenario, deadlineMs: number): Promise<Verdict[]> {
  const workDir = mkdtempSync(join(tmpdir(), `rmq-chaos-${scenario.name}-`));
  const signal = AbortSignal.timeout(deadlineMs);
  try {
    return await scenario.run({
      long: false,
      workDir,
      clients: ['ours'],
      log: (line) => {
        if (process.env.CHAOS_VERBOSE !== undefined) process.stderr.write(`${line}\n`);
      },
      signal,
    });
  } finally {
    rmSync(workDir, { recursive: true, force: true });
  }
}

/** One line per row, for the test's output when it fails. */
export function describe(rows: readonly Verdict[]): string {
  return rows
    .map((r) => `${r.scenario} [${r.mode}] ${JSON.stringify(r.figures)} failures: ${r.failures.join('; ')}`)
    .join('\n');
}
