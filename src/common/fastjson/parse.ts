/**
 * Tolerant parser for the JSON dialect fastjson 1.2.69 writes and reads (JSON.DEFAULT_PARSER_FEATURE:
 * AllowUnQuotedFieldNames, AllowSingleQuotes, AllowArbitraryCommas; DefaultJSONParser.parseObject).
 *
 * Accepted on top of standard JSON:
 *  - keys that are bare numbers (`{0:"a"}`, `{-1.5:2}`), bare identifiers (`{id:1}`: first char A-Z a-z
 *    _ $ or >= U+0100, then A-Z a-z 0-9 _ or >= U+0100, as JSONLexerBase.scanSymbolUnQuoted), single-quoted
 *    strings, and whole objects or arrays (`{{"brokerName":"b","queueId":0,"topic":"T"}:{...}}`);
 *  - single-quoted string values;
 *  - repeated, leading and trailing commas in objects and arrays (AllowArbitraryCommas);
 *  - escapes \0..\7, \v, \F, \', \xHH besides the standard ones (JSONLexerBase.scanString), and raw control
 *    characters inside strings;
 *  - whitespace \b and \f, `/* *\/` and `//` comments (JSONLexerBase.skipWhitespace/skipComment), a
 *    leading byte order mark.
 * Not accepted: fastjson's rarer value syntaxes (`new Date(..)`, `Set[..]`, `undefined`, `NaN`, `x'..'`,
 * number suffixes such as `12L`), which it never writes without WriteClassName.
 *
 * Results (see values.ts): integers are numbers while |n| <= 2^53-1 and bigints beyond (or always
 * bigints with `integers: 'bigint'`); decimals are numbers and one that overflows a double is an error;
 * `-0` as an integer is 0. Objects with only plain keys become records, with a number key stored as its
 * canonical decimal string (`007` -> "7", `1.50` -> "1.5"); an object with an object or array key
 * becomes an FjMap keeping every key typed and every duplicate. Duplicate record keys: the last wins.
 *
 * The parser is a single iterative pass (an explicit frame stack, no recursion), so nesting is limited
 * only by `maxDepth` (default 512, like fastjson's "array level > 512"), and every malformed input gives
 * a FastjsonSyntaxError (a RemotingCommandError) with the offset of the offending UTF-16 code unit.
 * Integer literals are limited to 1,000 characters so BigInt conversion stays cheap.
 */

import { RemotingCommandError } from '../errors.js';
import { type FastjsonRecord, type FastjsonValue, FjMap } from './values.js';

export interface ParseFastjsonOptions {
  /** Deepest nesting of objects and arrays (object keys count too). Default 512. */
  readonly maxDepth?: number;
  /** `auto` (default): number when safe, bigint beyond 2^53-1. `bigint`: every integer is a bigint. */
  readonly integers?: 'auto' | 'bigint';
  /** Names the structure in error messages, e.g. 'route body' or 'consumerOffset.json'. Default 'json body'. */
  readonly what?: string;
}

/** Malformed fastjson text: `position` is the UTF-16 offset (in the decoded text) where it went wrong. */
export class FastjsonSyntaxError extends RemotingCommandError {
  readonly position: number;

  constructor(what: string, message: string, position: number) {
    super(what, `${message} at offset ${position}`);
    this.position = position;
  }
}

const DEFAULT_MAX_DEPTH = 512;
const MAX_NUMBER_LENGTH = 1000;
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);
const MIN_SAFE = -MAX_SAFE;

// Parser modes.
const READ_VALUE = 0;
const ARRAY_ITEM = 1; // after '[' or ',' in an array: an item or ']'
const OBJECT_KEY = 2; // after '{' or ',' in an object: a key or '}'
const VALUE_DONE = 3; // `value` holds a finished value to hand to the enclosing frame

class Frame {
  readonly isObject: boolean;
  readonly start: number;
  readonly keys: FastjsonValue[] = [];
  readonly vals: FastjsonValue[] = [];
  composite = false;
  /** The value now being read is an object or array key of this object. */
  awaitingKey = false;

  constructor(isObject: boolean, start: number) {
    this.isObject = isObject;
    this.start = start;
  }
}

/** Parses fastjson text (a Buffer is decoded as UTF-8, as Java's `new String(data, UTF_8)`). */
export function parseFastjson(text: string | Buffer, options?: ParseFastjsonOptions): FastjsonValue {
  const s = typeof text === 'string' ? text : text.toString('utf8');
  return new Parser(
    s,
    options?.maxDepth ?? DEFAULT_MAX_DEPTH,
    options?.integers === 'bigint',
    options?.what ?? 'json body',
  ).parse();
}

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

function isIdentStart(c: number): boolean {
  return (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || c === 0x5f || c === 0x24 || c >= 0x100;
}

function isIdentPart(c: number): boolean {
  return (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || c === 0x5f || isDigit(c) || c >= 0x100;
}

function hexValue(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  if (c >= 0x61 && c <= 0x66) return c - 0x57;
  if (c >= 0x41 && c <= 0x46) return c - 0x37;
  return -1;
}

function describe(c: number): string {
  if (Number.isNaN(c)) return 'end of input';
  if (c >= 0x21 && c <= 0x7e) return `'${String.fromCharCode(c)}'`;
  return `U+${c.toString(16).toUpperCase().padStart(4, '0')}`;
}

class Parser {
  private pos = 0;
  private readonly len: number;

  constructor(
    private readonly s: string,
    private readonly maxDepth: number,
    private readonly bigintAlways: boolean,
    private readonly what: string,
  ) {
    this.len = s.length;
  }

  private fail(message: string, position: number = this.pos): never {
    throw new FastjsonSyntaxError(this.what, message, position);
  }

  private unexpected(expected: string): never {
    this.fail(`expected ${expected}, found ${describe(this.s.charCodeAt(this.pos))}`);
  }

  parse(): FastjsonValue {
    const s = this.s;
    const stack: Frame[] = [];
    let mode = READ_VALUE;
    let value: FastjsonValue = null;
    if (s.charCodeAt(0) === 0xfeff) this.pos = 1;
    this.skipSpace();
    if (this.pos >= this.len) this.fail('empty input');

    for (;;) {
      if (mode === READ_VALUE) {
        this.skipSpace();
        const c = s.charCodeAt(this.pos);
        if (c === 0x7b || c === 0x5b) {
          if (stack.length >= this.maxDepth) this.fail(`nesting deeper than ${this.maxDepth}`);
          stack.push(new Frame(c === 0x7b, this.pos));
          this.pos++;
          mode = c === 0x7b ? OBJECT_KEY : ARRAY_ITEM;
          continue;
        }
        value = this.scanScalar(c);
        mode = VALUE_DONE;
        continue;
      }

      if (mode === ARRAY_ITEM) {
        this.skipCommas();
        if (s.charCodeAt(this.pos) === 0x5d) {
          this.pos++;
          value = stack.pop()!.vals;
          mode = VALUE_DONE;
        } else {
          mode = READ_VALUE;
        }
        continue;
      }

      if (mode === OBJECT_KEY) {
        this.skipCommas();
        const top = stack[stack.length - 1]!;
        const c = s.charCodeAt(this.pos);
        if (c === 0x7d) {
          this.pos++;
          stack.pop();
          value = closeObject(top);
          mode = VALUE_DONE;
          continue;
        }
        if (c === 0x7b || c === 0x5b) {
          top.awaitingKey = true;
          mode = READ_VALUE;
          continue;
        }
        let key: FastjsonValue;
        if (c === 0x22 || c === 0x27) key = this.scanString(c);
        else if (isDigit(c) || c === 0x2d) key = this.scanNumber();
        else if (isIdentStart(c)) key = this.scanIdentifier();
        else this.unexpected("a key or '}'");
        top.keys.push(key);
        this.expectColon();
        mode = READ_VALUE;
        continue;
      }

      // VALUE_DONE
      const top = stack[stack.length - 1];
      if (top === undefined) {
        this.skipSpace();
        if (this.pos < this.len) this.unexpected('end of input');
        return value;
      }
      if (top.awaitingKey) {
        top.awaitingKey = false;
        top.composite = true;
        top.keys.push(value);
        this.expectColon();
        mode = READ_VALUE;
        continue;
      }
      top.vals.push(value);
      this.skipSpace();
      const c = s.charCodeAt(this.pos);
      if (c === 0x2c) {
        this.pos++;
        mode = top.isObject ? OBJECT_KEY : ARRAY_ITEM;
      } else if (top.isObject && c === 0x7d) {
        this.pos++;
        stack.pop();
        value = closeObject(top);
      } else if (!top.isObject && c === 0x5d) {
        this.pos++;
        stack.pop();
        value = top.vals;
      } else if (Number.isNaN(c)) {
        this.fail(`unterminated ${top.isObject ? 'object' : 'array'} opened at offset ${top.start}`);
      } else {
        this.unexpected(top.isObject ? "',' or '}'" : "',' or ']'");
      }
    }
  }

  private expectColon(): void {
    this.skipSpace();
    if (this.s.charCodeAt(this.pos) !== 0x3a) this.unexpected("':'");
    this.pos++;
  }

  /** Whitespace as fastjson's skipWhitespace sees it (space \t \n \r \f \b) and comments. */
  private skipSpace(): void {
    const s = this.s;
    for (;;) {
      const c = s.charCodeAt(this.pos);
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09 || c === 0x0c || c === 0x08) {
        this.pos++;
      } else if (c === 0x2f) {
        const next = s.charCodeAt(this.pos + 1);
        if (next === 0x2a) {
          const end = s.indexOf('*/', this.pos + 2);
          if (end < 0) this.fail('unterminated comment');
          this.pos = end + 2;
        } else if (next === 0x2f) {
          const end = s.indexOf('\n', this.pos + 2);
          this.pos = end < 0 ? this.len : end + 1;
        } else {
          this.fail(`expected '*' or '/' after '/', found ${describe(next)}`, this.pos + 1);
        }
      } else {
        return;
      }
    }
  }

  private skipCommas(): void {
    for (;;) {
      this.skipSpace();
      if (this.s.charCodeAt(this.pos) !== 0x2c) return;
      this.pos++;
    }
  }

  private scanScalar(c: number): FastjsonValue {
    if (c === 0x22 || c === 0x27) return this.scanString(c);
    if (isDigit(c) || c === 0x2d) return this.scanNumber();
    if (c === 0x74 && this.s.startsWith('true', this.pos)) {
      this.pos += 4;
      return true;
    }
    if (c === 0x66 && this.s.startsWith('false', this.pos)) {
      this.pos += 5;
      return false;
    }
    if (c === 0x6e && this.s.startsWith('null', this.pos)) {
      this.pos += 4;
      return null;
    }
    this.unexpected('a value');
  }

  private scanIdentifier(): string {
    const start = this.pos;
    let i = start + 1;
    while (i < this.len && isIdentPart(this.s.charCodeAt(i))) i++;
    this.pos = i;
    return this.s.slice(start, i);
  }

  private scanNumber(): number | bigint {
    const s = this.s;
    const start = this.pos;
    let i = start;
    const negative = s.charCodeAt(i) === 0x2d;
    if (negative) i++;
    const digitsStart = i;
    let small = 0;
    let c = s.charCodeAt(i);
    while (isDigit(c)) {
      small = small * 10 + (c - 0x30);
      c = s.charCodeAt(++i);
    }
    const digits = i - digitsStart;
    if (digits === 0) this.fail('expected a digit', i);
    let integer = true;
    if (c === 0x2e) {
      integer = false;
      const fracStart = ++i;
      while (isDigit(s.charCodeAt(i))) i++;
      if (i === fracStart) this.fail('expected a digit after the decimal point', i);
      c = s.charCodeAt(i);
    }
    if (c === 0x65 || c === 0x45) {
      integer = false;
      c = s.charCodeAt(++i);
      if (c === 0x2b || c === 0x2d) i++;
      const expStart = i;
      while (isDigit(s.charCodeAt(i))) i++;
      if (i === expStart) this.fail('expected a digit in the exponent', i);
    }
    if (i - start > MAX_NUMBER_LENGTH) this.fail(`number longer than ${MAX_NUMBER_LENGTH} characters`, start);
    this.pos = i;
    if (!integer) {
      const d = Number(s.slice(start, i));
      if (!Number.isFinite(d)) this.fail('number out of double range', start);
      return d;
    }
    if (digits <= 15) {
      // Exact in a double; `+ 0` turns -0 into 0.
      const n = (negative ? -small : small) + 0;
      return this.bigintAlways ? BigInt(n) : n;
    }
    const big = BigInt(s.slice(start, i));
    if (!this.bigintAlways && big >= MIN_SAFE && big <= MAX_SAFE) return Number(big);
    return big;
  }

  private scanString(quote: number): string {
    const s = this.s;
    const len = this.len;
    const start = this.pos;
    let i = start + 1;
    let from = i;
    let out = '';
    for (;;) {
      if (i >= len) this.fail('unterminated string', start);
      const c = s.charCodeAt(i);
      if (c === quote) break;
      if (c !== 0x5c) {
        i++;
        continue;
      }
      if (i > from) out += s.slice(from, i);
      const e = s.charCodeAt(i + 1);
      i += 2;
      switch (e) {
        case 0x22:
        case 0x27:
        case 0x2f:
        case 0x5c:
          out += String.fromCharCode(e);
          break;
        case 0x62:
          out += '\b';
          break;
        case 0x74:
          out += '\t';
          break;
        case 0x6e:
          out += '\n';
          break;
        case 0x76:
          out += '\v';
          break;
        case 0x66:
        case 0x46:
          out += '\f';
          break;
        case 0x72:
          out += '\r';
          break;
        case 0x78: {
          const h = (hexValue(s.charCodeAt(i)) << 4) | hexValue(s.charCodeAt(i + 1));
          if (h < 0) this.fail('bad \\x escape', i - 2);
          out += String.fromCharCode(h);
          i += 2;
          break;
        }
        case 0x75: {
          const a = hexValue(s.charCodeAt(i));
          const b = hexValue(s.charCodeAt(i + 1));
          const c2 = hexValue(s.charCodeAt(i + 2));
          const d = hexValue(s.charCodeAt(i + 3));
          if ((a | b | c2 | d) < 0) this.fail('bad \\u escape', i - 2);
          out += String.fromCharCode((a << 12) | (b << 8) | (c2 << 4) | d);
          i += 4;
          break;
        }
        default:
          if (e >= 0x30 && e <= 0x37) {
            out += String.fromCharCode(e - 0x30);
            break;
          }
          if (Number.isNaN(e)) this.fail('unterminated string', start);
          this.fail(`bad escape \\${String.fromCharCode(e)}`, i - 2);
      }
      from = i;
    }
    this.pos = i + 1;
    if (from === start + 1) return s.slice(from, i);
    return i > from ? out + s.slice(from, i) : out;
  }
}

function closeObject(frame: Frame): FastjsonValue {
  const { keys, vals } = frame;
  if (frame.composite) {
    const map = new FjMap();
    for (let i = 0; i < keys.length; i++) map.entries.push([keys[i]!, vals[i]!]);
    return map;
  }
  const record: FastjsonRecord = {};
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i]!;
    const key = typeof k === 'string' ? k : String(k);
    if (key === '__proto__') {
      // A plain assignment would replace the prototype instead of adding a field.
      Object.defineProperty(record, key, {
        value: vals[i],
        enumerable: true,
        writable: true,
        configurable: true,
      });
    } else {
      record[key] = vals[i]!;
    }
  }
  return record;
}
