/**
 * Replays every attack class of issue 26 against brokers and name servers it starts on 127.0.0.1 and
 * prints one verdict row per case (held / breached, with the figure). Exit code 1 when any case is
 * breached, so a script or CI can rely on it.
 *
 *   node build/scripts/attack.js [--short] [--only name,name]
 */

import type { AttackVerdict } from './attack/attack-class.js';
import { ATTACK_CLASSES } from './attack/index.js';
import { arg, flag } from './bench-support.js';

const short = flag('short');
const only = arg('only', '')
  .split(',')
  .filter((s) => s !== '');
const unknown = only.filter((n) => !ATTACK_CLASSES.some((c) => c.name === n));
if (unknown.length > 0) {
  console.error(`--only: ${ATTACK_CLASSES.map((c) => c.name).join(', ')}; not ${unknown.join(', ')}`);
  process.exit(2);
}

const rows: AttackVerdict[] = [];
for (const cls of ATTACK_CLASSES) {
  if (only.length > 0 && !only.includes(cls.name)) continue;
  const started = Date.now();
  try {
    const verdicts = await cls.run({ short });
    for (const v of verdicts) {
      rows.push(v);
      console.log(
        `${v.verdict === 'held' ? 'HELD    ' : 'BREACHED'}  ${v.attack.padEnd(16)} ${v.case.padEnd(48)} ${v.figure}`,
      );
    }
  } catch (err) {
    const v: AttackVerdict = {
      attack: cls.name,
      case: '(the class failed to run)',
      verdict: 'breached',
      figure: String(err),
    };
    rows.push(v);
    console.log(`BREACHED  ${v.attack.padEnd(16)} ${v.case.padEnd(48)} ${v.figure}`);
  }
  console.log(`          ${cls.name}: ${((Date.now() - started) / 1000).toFixed(1)} s`);
}
const breached = rows.filter((r) => r.verdict === 'breached').length;
console.log(`${rows.length - breached} held, ${breached} breached`);
process.exit(breached > 0 ? 1 : 0);
