/**
 * Writes a string as fastjson does for a header (QuoteFieldNames, default escaping): the JSON escapes
 * of `JSON.stringify`, which match fastjson for control characters, quotes and backslashes.
 * Kept behind one function so the byte-exact fixture tests pin the behaviour in a single place.
 */
export function quoteJsonString(s: string): string {
  return JSON.stringify(s);
}
