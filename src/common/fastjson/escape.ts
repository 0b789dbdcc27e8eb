/**
 * String quoting exactly as fastjson 1.2.69 SerializeWriter.writeStringWithDoubleQuote writes it
 * (every path of that method, and writeFieldValueStringWithDoubleQuoteCheck / write(List<String>),
 * produce the same text; checked against the real jar for all 65,536 UTF-16 code units).
 *
 * Default features (IOUtils.specicalFlags_doubleQuotes + the U+2028/U+2029 special case):
 *  - \b \t \n \f \r " \ are written as two-character escapes;
 *  - every other code unit below 0x20, and 0x7F..0x9F, as \u00XX with upper-case hex;
 *  - U+2028 and U+2029 as \u2028 / \u2029;
 *  - everything else raw: '/' is not escaped, non-ASCII and lone surrogates are written as they are.
 * BrowserCompatible: the same below 0x20, plus '/' as \/ and every code unit >= 0x7F as \uXXXX
 * (upper-case hex, surrogate pairs as two escapes).
 */

const HEX = '0123456789ABCDEF';

function unicodeEscape(c: number): string {
  return `\\u${HEX[(c >>> 12) & 15]}${HEX[(c >>> 8) & 15]}${HEX[(c >>> 4) & 15]}${HEX[c & 15]}`;
}

function controlEscape(c: number): string {
  switch (c) {
    case 0x08:
      return '\\b';
    case 0x09:
      return '\\t';
    case 0x0a:
      return '\\n';
    case 0x0c:
      return '\\f';
    case 0x0d:
      return '\\r';
    default:
      return unicodeEscape(c);
  }
}

function needsDefaultEscape(c: number): boolean {
  return c < 0x20 || c === 0x22 || c === 0x5c || (c >= 0x7f && (c <= 0x9f || c === 0x2028 || c === 0x2029));
}

function needsBrowserEscape(c: number): boolean {
  return c < 0x20 || c === 0x22 || c === 0x2f || c === 0x5c || c >= 0x7f;
}

// Strings of only the characters needsDefaultEscape / needsBrowserEscape let through: a native scan
// finds them faster than the loop below (a send response's batch of message ids is 4 KiB of hex).
const DEFAULT_PLAIN = /^[\u0020\u0021\u0023-\u005b\u005d-\u007e\u00a0-\u2027\u202a-\uffff]*$/;
const BROWSER_PLAIN = /^[\u0020\u0021\u0023-\u002e\u0030-\u005b\u005d-\u007e]*$/;

/** `s` as a double-quoted JSON string, escaped like fastjson; `browserCompatible` selects that feature. */
export function quoteFastjsonString(s: string, browserCompatible: boolean): string {
  if ((browserCompatible ? BROWSER_PLAIN : DEFAULT_PLAIN).test(s)) return `"${s}"`;
  const len = s.length;
  let out = '"';
  let from = 0;
  for (let i = 0; i < len; i++) {
    const c = s.charCodeAt(i);
    if (browserCompatible ? !needsBrowserEscape(c) : !needsDefaultEscape(c)) continue;
    if (i > from) out += s.slice(from, i);
    from = i + 1;
    if (c < 0x20) out += controlEscape(c);
    else if (c === 0x22) out += '\\"';
    else if (c === 0x5c) out += '\\\\';
    else if (c === 0x2f) out += '\\/';
    else out += unicodeEscape(c);
  }
  if (from === 0) return `"${s}"`;
  if (from < len) out += s.slice(from);
  return `${out}"`;
}
