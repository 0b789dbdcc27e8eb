/**
 * Seeded generators of SQL92 selector text and message properties, for the round-trip and robustness
 * tests (and for comparing against upstream's parser). Biased towards the corners: mixed types,
 * missing properties, odd literals, keyword case, comments, and token soup that is mostly invalid.
 */

/** Mulberry32: small, fast, deterministic. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export class Gen {
  constructor(readonly rnd: () => number) {}

  int(n: number): number {
    return Math.floor(this.rnd() * n);
  }

  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)] as T;
  }

  chance(p: number): boolean {
    return this.rnd() < p;
  }
}

export const PROPERTY_NAMES = ['a', 'b', 'c', 'TAGS', 'now', '_x', '$y', 'A1'] as const;

const INTEGERS = [
  '0',
  '1',
  '2',
  '3',
  '5',
  '10',
  '100',
  '2147483647',
  '2147483648',
  '9223372036854775807',
  '5L',
  '7l',
];
const FLOATS = ['3.14', '1.5e3', '.5', '5.', '1E-3', '2.5E+2', '3.1E10', '10.0', '1e400', '0.0', '1e-400'];
const STRINGS = ["'x'", "'abc'", "'3'", "'5'", "'true'", "''", "'it''s'", "'3.14'", "'hello'", "' 5'"];
const BOOLEANS = ['TRUE', 'FALSE', 'NULL', 'true', 'False', 'null'];

export const PROPERTY_VALUES = [
  '3',
  '5',
  '10',
  '-3',
  '3.14',
  'abc',
  'true',
  'TRUE',
  'false',
  '',
  ' 5',
  '5 ',
  'NaN',
  'Infinity',
  '-Infinity',
  '-0',
  '0',
  '0.0',
  '-0.0',
  '1e3',
  '0x1p3',
  '0X1.8P1',
  '2147483648',
  '-2147483648',
  '9223372036854775807',
  '9223372036854775808',
  "'q'",
  '\u0663',
  '\uff15',
  '+5',
  '5L',
  '5d',
  '5f',
  '1_000',
  'hello',
  'x',
  '3.1415E10',
] as const;

function keywordCase(g: Gen, word: string): string {
  const r = g.int(4);
  if (r === 0) return word.toLowerCase();
  if (r === 1) return word[0] + word.slice(1).toLowerCase();
  return word;
}

function space(g: Gen): string {
  if (!g.chance(0.06)) return ' ';
  return g.pick(['  ', '\t', '\n', ' /* c */ ', ' -- c\n', '\r\n', '']);
}

export function genLiteral(g: Gen): string {
  switch (g.int(4)) {
    case 0:
      return g.pick(INTEGERS);
    case 1:
      return g.pick(FLOATS);
    case 2:
      return g.pick(STRINGS);
    default:
      return keywordCase(g, g.pick(BOOLEANS).toUpperCase());
  }
}

function genOperand(g: Gen, depth: number): string {
  const r = g.int(10);
  if (r < 4) return g.pick(PROPERTY_NAMES);
  if (r < 8 || depth <= 0) return genLiteral(g);
  if (r === 8) return `${g.pick(['-', '+', '- '])}${genOperand(g, depth - 1)}`;
  return `(${genExpression(g, depth - 1)})`;
}

function genStringList(g: Gen): string {
  const n = 1 + g.int(4);
  const items: string[] = [];
  for (let i = 0; i < n; i++) items.push(g.chance(0.9) ? g.pick(STRINGS) : genLiteral(g));
  return `(${items.join(g.pick([', ', ',', ' , ']))})`;
}

/** A selector that is usually valid, sometimes refused by upstream's semantic checks. */
export function genExpression(g: Gen, depth: number): string {
  const s = (): string => space(g);
  const k = (w: string): string => keywordCase(g, w);
  const r = depth <= 0 ? g.int(6) : g.int(12);
  switch (r) {
    case 0:
      return `${genOperand(g, depth)}${s()}${g.pick(['=', '<>'])}${s()}${genOperand(g, depth)}`;
    case 1:
      return `${genOperand(g, depth)}${s()}${g.pick(['>', '>=', '<', '<='])}${s()}${genOperand(g, depth)}`;
    case 2:
      return `${genOperand(g, depth)} ${k('IS')} ${g.chance(0.5) ? `${k('NOT')} ` : ''}${k('NULL')}`;
    case 3:
      return `${genOperand(g, depth)} ${g.chance(0.3) ? `${k('NOT')} ` : ''}${k('BETWEEN')} ${genOperand(g, depth)} ${k('AND')} ${genOperand(g, depth)}`;
    case 4:
      return `${g.chance(0.9) ? g.pick(PROPERTY_NAMES) : genOperand(g, depth)} ${g.chance(0.4) ? `${k('NOT')} ` : ''}${k('IN')}${s()}${genStringList(g)}`;
    case 5:
      return g.chance(0.5) ? g.pick(PROPERTY_NAMES) : keywordCase(g, g.pick(BOOLEANS).toUpperCase());
    case 6:
    case 7:
      return `${genExpression(g, depth - 1)} ${k('AND')} ${genExpression(g, depth - 1)}`;
    case 8:
    case 9:
      return `${genExpression(g, depth - 1)} ${k('OR')} ${genExpression(g, depth - 1)}`;
    case 10:
      return `${k('NOT')} ${g.chance(0.5) ? `(${genExpression(g, depth - 1)})` : genExpression(g, depth - 1)}`;
    default:
      return `(${genExpression(g, depth - 1)})`;
  }
}

const SOUP = [
  'a',
  'b',
  'NOT',
  'AND',
  'OR',
  'IS',
  'NULL',
  'IN',
  'BETWEEN',
  'TRUE',
  'FALSE',
  '=',
  '<>',
  '>',
  '>=',
  '<',
  '<=',
  '(',
  ')',
  ',',
  '+',
  '-',
  "'s'",
  "'it''s",
  '5',
  '0',
  '07',
  '1.5',
  '.',
  '5L',
  '0x1F',
  '1e',
  '#',
  '/*',
  '*/',
  '--',
  '\n',
  '"q"',
  '!',
  '\u00e9',
  ';',
];

/** Token soup: mostly invalid text, to check that the parser only ever throws SqlParseError. */
export function genSoup(g: Gen): string {
  const n = 1 + g.int(12);
  const out: string[] = [];
  for (let i = 0; i < n; i++) out.push(g.pick(SOUP));
  return out.join(g.chance(0.5) ? ' ' : g.pick(['', ' ', '  ']));
}

/** Message properties: each name present with probability 2/3. */
export function genProperties(g: Gen): Map<string, string> {
  const m = new Map<string, string>();
  for (const name of PROPERTY_NAMES) {
    if (g.chance(0.67)) m.set(name, g.pick(PROPERTY_VALUES));
  }
  return m;
}
