/** Runs an expression the way the upstream comparison harness reports it: ERR, or TRUE/FALSE/NULL/EXC per property set. */
import {
  FilterEvaluationError,
  parseSql92,
  SqlParseError,
  type SqlParseOptions,
} from '../../../src/filter/index.js';

export function verdict(
  text: string,
  contexts: ReadonlyArray<Readonly<Record<string, string>>>,
  options?: SqlParseOptions,
): string {
  let expression: ReturnType<typeof parseSql92>;
  try {
    expression = parseSql92(text, options);
  } catch (error) {
    if (error instanceof SqlParseError) return 'ERR';
    throw error;
  }
  return contexts
    .map((c) => {
      try {
        const v = expression.evaluate(new Map(Object.entries(c)));
        return v === null ? 'NULL' : v ? 'TRUE' : 'FALSE';
      } catch (error) {
        if (error instanceof FilterEvaluationError) return 'EXC';
        throw error;
      }
    })
    .join(' ');
}
