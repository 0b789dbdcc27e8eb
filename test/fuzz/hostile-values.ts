/**
 * Field values that have broken or nearly broken request handlers: number edges, Java's boolean and
 * null spellings, system topic names, path escapes, filter syntax, property separators.
 */
export const HOSTILE_VALUES: readonly string[] = [
  '',
  '0',
  '1',
  '-1',
  '3',
  '31',
  '2147483647',
  '-2147483648',
  '9223372036854775807',
  '-9223372036854775808',
  '99999999999999999999',
  'true',
  'false',
  'null',
  'NaN',
  '1.5',
  '1e9',
  'TopicA',
  'TBW102',
  '%RETRY%g',
  '%DLQ%g',
  'SCHEDULE_TOPIC_XXXX',
  'RMQ_SYS_TRANS_HALF_TOPIC',
  '../../escape',
  '..',
  '/etc/passwd',
  'x'.repeat(300),
  'tópico',
  '*',
  'TagA || TagB',
  'a > 5 AND',
  "a = 'x'",
  'SQL92',
  'TAG',
  '\u0000',
  'g',
  'DefaultCluster',
  'KEYS\u0001k\u0002TAGS\u0001A\u0002',
  'DELAY\u000118\u0002',
  'a/b',
  'group-1',
];

/** Numbers a header field of a numeric type gets when not hostile. */
export const PLAIN_NUMBERS: readonly string[] = [
  '0',
  '1',
  '2',
  '-1',
  '3',
  '15',
  '4096',
  '2147483647',
  '1700000000000',
];

function oneOf(items: readonly string[], random: () => number): string {
  return items[Math.floor(random() * items.length)] as string;
}

/**
 * A value for a header field of `type` (a header schema's field type): hostile with `hostileChance`,
 * else a plain value of the type, strings from `texts` (each fuzzer aims them at its own topics).
 */
export function fieldValue(
  type: string,
  random: () => number,
  texts: readonly string[],
  hostileChance: number,
): string {
  if (random() < hostileChance) return oneOf(HOSTILE_VALUES, random);
  if (type === 'boolean') return random() < 0.5 ? 'true' : 'false';
  if (type === 'string') return oneOf(texts, random);
  return oneOf(PLAIN_NUMBERS, random);
}
