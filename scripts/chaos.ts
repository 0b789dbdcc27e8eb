/**
 * `npm run chaos`: runs the fault scenarios (scripts/chaos/scenarios.ts) against our name server and
 * broker as child processes on loopback, with our client and the official Java client in turn, and
 * prints a verdict per scenario and mode in OpenMessaging Chaos' terms. Exit status 1 when a row
 * fails. Every child is killed when it ends, however it ends.
 *
 *   --long              the long form (many cycles; by hand)
 *   --only a,b          these scenarios
 *   --clients ours,java which clients drive the workload [ours,java]
 *   --keep              keep the work dir (data dirs, histories)
 *   --verbose           progress lines on stderr
 *   --json              print the verdicts as JSON instead of the table
 *   --history-dir DIR   copy every history file there
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { javaSetup } from '../test/interop/harness.js';
import { arg, choices, flag, tempDir } from './bench-support.js';
import { formatVerdicts, runScenario } from './chaos/runner.js';
import { SCENARIOS } from './chaos/scenarios.js';
import type { Verdict } from './chaos/types.js';

const CLIENTS = ['ours', 'java'] as const;

function javaMissing(): string | undefined {
  if (spawnSync('java', ['-version']).status !== 0) return 'no java on PATH';
  try {
    javaSetup();
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

async function main(): Promise<number> {
  const long = flag('long');
  const verbose = flag('verbose');
  const names = SCENARIOS.map((s) => s.name);
  const only = arg('only', '') === '' ? names : choices('only', '', names);
  let clients = choices('clients', CLIENTS.join(','), CLIENTS);
  const historyDir = arg('history-dir', '');
  const log = (line: string) => {
    if (verbose) process.stderr.write(`${new Date().toISOString()} ${line}\n`);
  };
  const missing = clients.includes('java') ? javaMissing() : undefined;
  if (missing !== undefined) {
    process.stderr.write(`chaos: the Java client is left out (${missing.split('\n')[0]})\n`);
    clients = clients.filter((c) => c !== 'java');
  }
  const workDir = flag('keep') ? mkdtempSync(join(tmpdir(), 'rmq-chaos-')) : tempDir('rmq-chaos-');
  process.stderr.write(
    `chaos: ${long ? 'long' : 'short'} form, clients ${clients.join(',')}, work dir ${workDir}\n`,
  );
  const controller = new AbortController();
  process.once('SIGINT', () => controller.abort());

  const verdicts: Verdict[] = [];
  for (const scenario of SCENARIOS.filter((s) => only.includes(s.name))) {
    if (scenario.needsJava && missing !== undefined) {
      process.stderr.write(`chaos: ${scenario.name} skipped (needs Java)\n`);
      continue;
    }
    const started = Date.now();
    log(`${scenario.name}: ${scenario.description}`);
    const rows = await runScenario(scenario, { long, workDir, clients, log, signal: controller.signal });
    log(`${scenario.name}: ${Date.now() - started} ms`);
    verdicts.push(...rows);
    if (controller.signal.aborted) break;
  }
  if (historyDir !== '') {
    mkdirSync(historyDir, { recursive: true });
    for (const v of verdicts) {
      if (v.historyFile === undefined) continue;
      const target = resolve(historyDir, basename(v.historyFile));
      copyFileSync(v.historyFile, target);
      v.historyFile = target;
    }
  }
  process.stdout.write(json ? `${JSON.stringify(verdicts, null, 2)}\n` : formatVerdicts(verdicts));
  return verdicts.some((v) => v.failures.length > 0) || verdicts.length === 0 ? 1 : 0;
}

const json = flag('json');
main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(
      `chaos: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exit(1);
  },
);
