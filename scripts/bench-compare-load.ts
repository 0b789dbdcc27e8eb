/**
 * One run of a load generator for bench-compare: the Java one (interop LoadProducer / LoadConsumer on
 * the official 4.9.8 client) or ours (`rmq bench producer|consumer` from the same build as this
 * script), with the same flags (docs/bench.md). It reads the generator's `--json` summary
 * and works out, from the generator's interval lines, the wall-clock window its summary measured, so
 * that the broker's CPU time can be read over exactly that window.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { javaLoadCommand } from '../test/interop/harness.js';
import { removeTempDir, rmqCommand, spawnTracked, stopped, tempDir } from './bench-support.js';

export const GENERATORS = ['java', 'rmq'] as const;
export type Generator = (typeof GENERATORS)[number];
export type Role = 'producer' | 'consumer';

/** After its deadline a generator gets SIGTERM (it stops and prints its summary), then this long before SIGKILL. */
const STOP_GRACE_MS = 30_000;
/** How often the generators print their interval line here: often enough to find the run's start. */
export const REPORT_INTERVAL_S = 1;

export interface LoadResult {
  readonly generator: Generator;
  readonly summary: Readonly<Record<string, unknown>>;
  /** epoch ms of the window the summary measured (after the warm-up) */
  readonly from: number;
  readonly to: number;
  /** epoch ms the process was started and ended */
  readonly spawnedAt: number;
  readonly exitedAt: number;
}

let runs = 0;

/** The command line, and the temp dir to remove after the run. */
function command(
  generator: Generator,
  role: Role,
  args: readonly string[],
): [string, string[], string | undefined] {
  if (generator === 'rmq') return [process.execPath, [...rmqCommand(), 'bench', role, ...args], undefined];
  const home = tempDir('rmq-bench-compare-java-');
  const main = role === 'producer' ? 'LoadProducer' : 'LoadConsumer';
  return ['java', javaLoadCommand(main, args, { home }), home];
}

function numberField(summary: Readonly<Record<string, unknown>>, key: string): number {
  const v = summary[key];
  return typeof v === 'number' ? v : Number.NaN;
}

/**
 * Runs one generator to its end. `args` are the contract's flags without --json and
 * --report-interval; `warmupS` must be the --warmup among them. Rejects on a non-zero exit or a
 * missing summary, with the end of its stderr.
 */
export async function runLoad(
  generator: Generator,
  role: Role,
  args: readonly string[],
  options: { dir: string; warmupS: number; timeoutMs: number },
): Promise<LoadResult> {
  const jsonFile = join(options.dir, `${generator}-${role}-${++runs}.json`);
  const [cmd, argv, home] = command(generator, role, [
    ...args,
    '--json',
    jsonFile,
    '--report-interval',
    String(REPORT_INTERVAL_S),
  ]);
  const spawnedAt = Date.now();
  // The Java one runs under ParentWatchdog, which ends it when its stdin closes: keep that a pipe.
  const child = spawnTracked(cmd, argv, generator === 'java' ? 'pipe' : 'ignore');
  let firstReportAt: number | undefined;
  let stderr = '';
  const tail: string[] = [];
  child.stderr?.setEncoding('utf8').on('data', (d: string) => {
    stderr = (stderr + d).slice(-3000);
  });
  if (child.stdout !== null) {
    createInterface({ input: child.stdout }).on('line', (line) => {
      tail.push(line);
      if (tail.length > 5) tail.shift();
      // The line's own timestamp, not when it got here: a busy machine delays the pipe.
      const at = /Current Time: (\d+)/.exec(line)?.[1];
      if (at !== undefined) firstReportAt ??= Number(at);
    });
  }
  const exited = new Promise<number | null>((resolvePromise) => {
    child.once('exit', (code) => resolvePromise(code));
    child.once('error', (e) => {
      stderr += `cannot run ${cmd}: ${e.message}`;
      resolvePromise(-1);
    });
  });
  const deadline = setTimeout(() => {
    stderr += `\n(no end after ${options.timeoutMs} ms: SIGTERM)`;
    child.kill('SIGTERM');
    void stopped(child, STOP_GRACE_MS);
  }, options.timeoutMs);
  const code = await exited.finally(() => clearTimeout(deadline));
  if (home !== undefined) removeTempDir(home);
  const exitedAt = Date.now();
  const what = `${generator === 'rmq' ? 'rmq bench' : 'java Load'} ${role}`;
  if (code !== 0)
    throw new Error(`${what} exited ${code}: ${stderr.trim() || tail.join('\n')}`.slice(0, 2000));
  let summary: Record<string, unknown>;
  try {
    summary = JSON.parse(readFileSync(jsonFile, 'utf8')) as Record<string, unknown>;
  } catch (error) {
    throw new Error(`${what}: no summary in ${jsonFile}: ${String(error)}`);
  }
  const measuredMs = numberField(summary, 'measuredMs');
  // The first interval line comes one interval after the load began, and the warm-up runs from there.
  const from =
    firstReportAt === undefined
      ? exitedAt - measuredMs
      : firstReportAt - REPORT_INTERVAL_S * 1000 + options.warmupS * 1000;
  return {
    generator,
    summary,
    from,
    to: Math.min(from + measuredMs, exitedAt),
    spawnedAt,
    exitedAt,
  };
}

export function summaryNumber(result: LoadResult, key: string): number {
  return numberField(result.summary, key);
}
