#!/usr/bin/env node
// Thin launcher: the CLI lives in the compiled package (npm run build, or npm start which builds).
import { main } from '../build/src/cli/main.js';

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err) => {
    process.stderr.write(`rmq: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  },
);
