/**
 * How long importing each entry point takes in a fresh node process (the import alone, no loader
 * hook), and how many modules it loads. Prints figures; it is not a test.
 * `npm run bench:import [-- --runs N]` (median of N runs, default 5)
 */
import { ENTRY_POINTS, probeImport } from '../test/helpers/import-probe.js';

const runsArg = process.argv.indexOf('--runs');
const RUNS = runsArg >= 0 ? Number(process.argv[runsArg + 1]) : 5;

for (const entry of ENTRY_POINTS) {
  const { urls } = await probeImport(entry);
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) times.push((await probeImport(entry, { record: false })).importMs);
  times.sort((a, b) => a - b);
  const median = times[Math.floor(times.length / 2)] ?? Number.NaN;
  const modules = new Set(urls.filter((u) => u.startsWith('file:'))).size;
  console.log(
    `${entry.padEnd(20)} ${median.toFixed(0).padStart(6)} ms (median of ${RUNS})  ${modules} modules`,
  );
}
