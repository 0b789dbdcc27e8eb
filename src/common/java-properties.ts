/**
 * java.util.Properties text, the body of UPDATE_NAMESRV_CONFIG / GET_NAMESRV_CONFIG (and of the broker's
 * config requests and broker.conf). Upstream reads it with `MixAll.string2Properties` -> `Properties.load
 * (InputStream)`, which decodes the bytes as ISO-8859-1, so callers holding a body pass
 * `body.toString('latin1')`. It writes with `MixAll.properties2String`: `key=value\n` per entry, no
 * escaping at all.
 */
import { RemotingCommandError } from './errors.js';

const WHAT = 'properties';

function isBlank(c: string | undefined): boolean {
  return c === ' ' || c === '\t' || c === '\f';
}

/**
 * Properties.LineReader: logical lines with leading blanks removed, comment (`#`, `!`) and blank lines
 * skipped, and a line ending in an odd number of backslashes joined with the next (whose leading
 * blanks are dropped). Line ends are \n, \r and \r\n.
 */
function logicalLines(text: string): string[] {
  const lines: string[] = [];
  let i = 0;
  const n = text.length;
  while (i < n) {
    while (i < n && isBlank(text[i])) i++;
    if (i >= n) break;
    const first = text[i];
    if (first === '\n' || first === '\r') {
      i++;
      continue;
    }
    if (first === '#' || first === '!') {
      while (i < n && text[i] !== '\n' && text[i] !== '\r') i++;
      continue;
    }
    let line = '';
    for (;;) {
      const start = i;
      while (i < n && text[i] !== '\n' && text[i] !== '\r') i++;
      const segment = text.slice(start, i);
      let backslashes = 0;
      for (let j = segment.length - 1; j >= 0 && segment[j] === '\\'; j--) backslashes++;
      if (backslashes % 2 === 0) {
        line += segment;
        break;
      }
      line += segment.slice(0, -1);
      if (i < n && text[i] === '\r') i++;
      if (i < n && text[i] === '\n') i++;
      if (i >= n) break;
      while (i < n && isBlank(text[i])) i++;
    }
    if (i < n && text[i] === '\r') i++;
    if (i < n && text[i] === '\n') i++;
    lines.push(line);
  }
  return lines;
}

/** Properties.loadConvert: \uXXXX, \t \n \r \f, and any other escaped character as itself. */
function loadConvert(s: string): string {
  if (!s.includes('\\')) return s;
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const c = s[i] as string;
    if (c !== '\\') {
      out += c;
      continue;
    }
    const next = s[++i];
    if (next === undefined) break;
    if (next === 'u') {
      const hex = s.slice(i + 1, i + 5);
      if (!/^[0-9a-fA-F]{4}$/.test(hex)) throw new RemotingCommandError(WHAT, 'Malformed \\uxxxx encoding.');
      out += String.fromCharCode(Number.parseInt(hex, 16));
      i += 4;
    } else {
      out += next === 't' ? '\t' : next === 'r' ? '\r' : next === 'n' ? '\n' : next === 'f' ? '\f' : next;
    }
  }
  return out;
}

/**
 * Properties.load: each logical line is a key, then blanks and at most one `=` or `:` (with blanks
 * around it), then the value. A later duplicate key replaces the earlier value. Throws
 * RemotingCommandError where Java throws (a malformed \u escape).
 */
export function parseJavaProperties(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of logicalLines(text)) {
    let keyEnd = 0;
    let valueStart = line.length;
    let hasSeparator = false;
    let escaped = false;
    for (; keyEnd < line.length; keyEnd++) {
      const c = line[keyEnd];
      if (!escaped && (c === '=' || c === ':')) {
        valueStart = keyEnd + 1;
        hasSeparator = true;
        break;
      }
      if (!escaped && isBlank(c)) {
        valueStart = keyEnd + 1;
        break;
      }
      escaped = c === '\\' ? !escaped : false;
    }
    while (valueStart < line.length) {
      const c = line[valueStart];
      if (!isBlank(c)) {
        if (hasSeparator || (c !== '=' && c !== ':')) break;
        hasSeparator = true;
      }
      valueStart++;
    }
    out.set(loadConvert(line.slice(0, keyEnd)), loadConvert(line.slice(valueStart)));
  }
  return out;
}

/** MixAll.properties2String: `key=value\n` per entry in the given order, nothing escaped. */
export function formatJavaProperties(entries: Iterable<readonly [string, string]>): string {
  let out = '';
  for (const [k, v] of entries) out += `${k}=${v}\n`;
  return out;
}
