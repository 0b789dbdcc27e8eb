/**
 * Java `.properties` syntax (java.util.Properties.load), used by broker.conf and namesrv.conf:
 * `#`/`!` comments, `key=value`, `key:value` or `key value`, backslash line continuations, and the
 * escapes \t \n \r \f \\ \uXXXX. Later keys replace earlier ones, as in Java.
 */
import { ValidationError } from './errors.js';

function isWhitespace(c: string): boolean {
  return c === ' ' || c === '\t' || c === '\f';
}

/** Joins continuation lines into logical lines, dropping comments and blank lines. */
function logicalLines(text: string): Array<{ line: string; number: number }> {
  const physical = text.split(/\r\n|\r|\n/);
  const out: Array<{ line: string; number: number }> = [];
  let current = '';
  let start = 0;
  let continuing = false;
  for (let i = 0; i < physical.length; i++) {
    let line = physical[i] as string;
    let j = 0;
    while (j < line.length && isWhitespace(line[j] as string)) j++;
    line = line.slice(j);
    if (!continuing) {
      if (line.length === 0 || line[0] === '#' || line[0] === '!') continue;
      start = i + 1;
    }
    // An odd number of trailing backslashes continues the line.
    let backslashes = 0;
    for (let k = line.length - 1; k >= 0 && line[k] === '\\'; k--) backslashes++;
    if (backslashes % 2 === 1) {
      current += line.slice(0, -1);
      continuing = true;
      continue;
    }
    out.push({ line: current + line, number: start });
    current = '';
    continuing = false;
  }
  if (continuing) out.push({ line: current, number: start });
  return out;
}

function unescapeProperty(s: string, lineNumber: number): string {
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const c = s[i] as string;
    if (c !== '\\') {
      out += c;
      continue;
    }
    const n = s[++i];
    if (n === undefined) break;
    if (n === 't') out += '\t';
    else if (n === 'n') out += '\n';
    else if (n === 'r') out += '\r';
    else if (n === 'f') out += '\f';
    else if (n === 'u') {
      const hex = s.slice(i + 1, i + 5);
      if (!/^[0-9a-fA-F]{4}$/.test(hex)) {
        throw new ValidationError(`properties line ${lineNumber}: malformed \\uxxxx escape`);
      }
      out += String.fromCharCode(Number.parseInt(hex, 16));
      i += 4;
    } else out += n;
  }
  return out;
}

/** Parses properties text into an insertion-ordered map. Throws ValidationError on a bad \u escape. */
export function parseJavaProperties(text: string): Map<string, string> {
  const result = new Map<string, string>();
  for (const { line, number } of logicalLines(text)) {
    let i = 0;
    let key = '';
    // The key ends at the first unescaped '=', ':' or whitespace.
    while (i < line.length) {
      const c = line[i] as string;
      if (c === '\\') {
        key += c + (line[i + 1] ?? '');
        i += 2;
        continue;
      }
      if (c === '=' || c === ':' || isWhitespace(c)) break;
      key += c;
      i++;
    }
    while (i < line.length && isWhitespace(line[i] as string)) i++;
    if (line[i] === '=' || line[i] === ':') i++;
    while (i < line.length && isWhitespace(line[i] as string)) i++;
    result.set(unescapeProperty(key, number), unescapeProperty(line.slice(i), number));
  }
  return result;
}
