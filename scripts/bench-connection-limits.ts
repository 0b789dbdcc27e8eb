/**
 * The figures of docs/broker-limits.md "Connections and frames": the attack classes of issue 26 on
 * connections (scripts/attack/connection-memory.ts, header-limits.ts, slow-frames.ts) in their full
 * form, each against our broker in a child process (RSS from /proc/<pid>/status), one row per case.
 *
 *   node build/scripts/bench-connection-limits.js [--short]
 */
import { connectionMemory } from './attack/connection-memory.js';
import { headerLimits } from './attack/header-limits.js';
import { slowFrames } from './attack/slow-frames.js';
import { flag } from './bench-support.js';

const short = flag('short');
for (const cls of [connectionMemory, headerLimits, slowFrames]) {
  for (const v of await cls.run({ short })) {
    console.log(`${v.verdict.padEnd(8)}  ${v.attack.padEnd(17)} ${v.case.padEnd(52)} ${v.figure}`);
  }
}
