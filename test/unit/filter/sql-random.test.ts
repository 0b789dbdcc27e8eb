/**
 * Seeded random selectors: parse -> print -> parse gives the same tree and the same verdicts, and no
 * input ever makes the parser or the evaluator throw anything but their typed errors.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  FilterEvaluationError,
  parseSql92,
  parseSqlSelector,
  type SqlExpression,
  SqlParseError,
} from '../../../src/filter/index.js';
import { Gen, genExpression, genProperties, genSoup, seededRandom } from './sql-random.js';

function tryParse(text: string): SqlExpression | undefined {
  try {
    return parseSql92(text);
  } catch (error) {
    if (error instanceof SqlParseError) return undefined;
    throw error;
  }
}

function outcome(e: SqlExpression, props: Map<string, string>): string {
  try {
    return String(e.evaluate(props));
  } catch (error) {
    if (error instanceof FilterEvaluationError) return 'error';
    throw error;
  }
}

test('round trip: printing a parsed selector and parsing it again changes nothing', () => {
  const g = new Gen(seededRandom(20240601));
  let parsed = 0;
  for (let i = 0; i < 3000; i++) {
    const text = genExpression(g, 1 + g.int(4));
    const first = tryParse(text);
    if (first === undefined) continue;
    parsed++;
    const printed = first.toString();
    const second = parseSql92(printed);
    assert.deepEqual(second.root, first.root, `${text}\n  printed: ${printed}`);
    assert.equal(second.toString(), printed);
    for (let j = 0; j < 3; j++) {
      const props = genProperties(g);
      assert.equal(
        outcome(second, props),
        outcome(first, props),
        `${text} with ${JSON.stringify([...props])}`,
      );
    }
  }
  assert.ok(parsed > 1000, `only ${parsed} of 3000 parsed`);
});

test('evaluation only ever throws FilterEvaluationError, and matches() never throws', () => {
  const g = new Gen(seededRandom(7));
  const seen = new Set<string>();
  for (let i = 0; i < 3000; i++) {
    const e = tryParse(genExpression(g, 1 + g.int(4)));
    if (e === undefined) continue;
    for (let j = 0; j < 4; j++) {
      const props = genProperties(g);
      seen.add(outcome(e, props));
      assert.equal(typeof e.matches(props), 'boolean');
    }
  }
  assert.deepEqual([...seen].sort(), ['error', 'false', 'null', 'true']);
});

test('token soup and random characters only ever give SqlParseError', () => {
  const g = new Gen(seededRandom(99));
  const alphabet = "ab01.'()=<>!-+*/ \n\t,ISNOTANDLe\u00e9\u0000\ud800";
  let refused = 0;
  for (let i = 0; i < 4000; i++) {
    let text: string;
    if (i % 2 === 0) {
      text = genSoup(g);
    } else {
      text = '';
      const n = g.int(30);
      for (let k = 0; k < n; k++) text += alphabet[g.int(alphabet.length)];
    }
    try {
      parseSqlSelector(text);
    } catch (error) {
      assert.ok(error instanceof SqlParseError, `${JSON.stringify(text)}: ${String(error)}`);
      assert.ok(error.offset >= 0 && error.offset <= text.length, JSON.stringify(text));
      refused++;
    }
  }
  assert.ok(refused > 2000, `${refused} refused`);
});
