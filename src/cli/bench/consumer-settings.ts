/**
 * `rmq bench consumer` flags: upstream's benchmark Consumer (4.9.8) flags with their defaults, plus
 * ours (docs/bench.md, .tmp/bench-contract.md).
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import {
  BenchFlagError,
  COMMON_FLAGS,
  type CommonSettings,
  FlagReader,
  type FlagSpec,
  flagsUsage,
  readCommon,
  scanFlags,
} from './flags.js';

/** Upstream Consumer's thread count (consumeThreadMin = consumeThreadMax). */
export const DEFAULT_CONSUMER_THREADS = 20;
export const DEFAULT_CONSUMER_GROUP = 'benchmark_consumer';
/** The push consumer's own defaults (consumeMessageBatchMaxSize, pullBatchSize). */
export const DEFAULT_BATCH_MAX_SIZE = 1;
export const DEFAULT_PULL_BATCH_SIZE = 32;
/** The push consumer's bounds of consumeConcurrency, consumeMessageBatchMaxSize and pullBatchSize. */
const MAX_CONCURRENCY = 1000;
const MAX_BATCH = 1024;
/** Upstream's group suffix: the current time modulo this. */
const GROUP_SUFFIX_MODULUS = 100;

export type FilterType = 'TAG' | 'SQL92';
export type ConsumeFrom = 'first' | 'last';

const CONSUMER_FLAGS: readonly FlagSpec[] = [
  ...COMMON_FLAGS,
  {
    name: 'threadCount',
    short: 'w',
    value: 'N',
    help: `listener calls running at most at once (consumeThreadMin/Max) [${DEFAULT_CONSUMER_THREADS}]`,
  },
  { name: 'group', short: 'g', value: 'GROUP', help: `consumer group [${DEFAULT_CONSUMER_GROUP}]` },
  {
    name: 'suffixEnable',
    short: 'p',
    value: 'true|false',
    help: 'append _<current ms % 100> to the group [false]',
  },
  { name: 'filterType', short: 'f', value: 'TAG|SQL92', help: 'filter type of -e [none: all messages]' },
  {
    name: 'expression',
    short: 'e',
    value: 'FILE|EXPR',
    help: 'filter expression: a file holding it (as upstream), else the expression itself',
  },
  {
    name: 'failRate',
    short: 'r',
    value: 'RATE',
    help: 'fraction of listener calls answered RECONSUME_LATER, 0..1 [0]',
  },
  {
    name: 'count',
    value: 'N',
    help: 'stop after N messages consumed successfully; 0 = no limit [0]',
  },
  {
    name: 'from',
    value: 'first|last',
    help: 'where a group with no stored offset starts (CONSUME_FROM_FIRST/LAST_OFFSET) [last]',
  },
  {
    name: 'batch-max-size',
    value: 'N',
    help: `messages per listener call (consumeMessageBatchMaxSize) [${DEFAULT_BATCH_MAX_SIZE}]`,
  },
  {
    name: 'pull-batch-size',
    value: 'N',
    help: `messages asked per pull (pullBatchSize) [${DEFAULT_PULL_BATCH_SIZE}]`,
  },
];

export const CONSUMER_USAGE = `Usage: rmq bench consumer [options]

Consumes with our push consumer (clustering, concurrently), like upstream's benchmark Consumer, and
prints upstream's interval line (TPS, failures, born-to-consume and store-to-consume latency) with the
p99 store-to-consume latency. Stops on --count, --duration, SIGINT or SIGTERM; then prints a summary.

Options:
${flagsUsage(CONSUMER_FLAGS)}  -h, --help              print this help
`;

export interface ConsumerSettings extends CommonSettings {
  readonly threadCount: number;
  /** The group after the optional suffix. */
  readonly group: string;
  readonly suffixEnable: boolean;
  readonly filterType: FilterType | undefined;
  /** The expression text (read from the file when -e names one). */
  readonly expression: string | undefined;
  readonly failRate: number;
  /** Successfully consumed messages to stop after, 0 for no limit. */
  readonly count: number;
  readonly from: ConsumeFrom;
  readonly batchMaxSize: number;
  readonly pullBatchSize: number;
}

/** Upstream reads -e as a file (MixAll.file2String); a literal expression is accepted too. */
function expressionOf(value: string): string {
  if (existsSync(value) && statSync(value).isFile()) {
    const text = readFileSync(value, 'utf8').trim();
    if (text.length === 0) throw new BenchFlagError(`-e: the file ${value} is empty`);
    return text;
  }
  return value;
}

export function parseConsumerArgs(
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
  now: number = Date.now(),
): ConsumerSettings {
  const flags = new FlagReader(CONSUMER_FLAGS, scanFlags(argv, CONSUMER_FLAGS));
  const common = readCommon(flags, env);
  const filterType = flags.choice<FilterType>('filterType', ['TAG', 'SQL92']);
  const expressionArg = flags.text('expression');
  // Upstream ignores one without the other and consumes everything; that hides a typo in a script.
  if (filterType !== undefined && expressionArg === undefined) {
    throw new BenchFlagError(`-f ${filterType} needs -e (the expression, or a file holding it)`);
  }
  if (filterType === undefined && expressionArg !== undefined) {
    throw new BenchFlagError('-e needs -f TAG or -f SQL92');
  }
  const suffixEnable = flags.boolean('suffixEnable', false);
  const prefix = flags.text('group', DEFAULT_CONSUMER_GROUP);
  return {
    ...common,
    threadCount: flags.integer('threadCount', DEFAULT_CONSUMER_THREADS, 1, MAX_CONCURRENCY),
    group: suffixEnable ? `${prefix}_${now % GROUP_SUFFIX_MODULUS}` : prefix,
    suffixEnable,
    filterType,
    expression: expressionArg === undefined ? undefined : expressionOf(expressionArg),
    failRate: flags.decimal('failRate', 0, 0, 1),
    count: flags.integer('count', 0, 0),
    from: flags.choice<ConsumeFrom>('from', ['first', 'last'], 'last'),
    batchMaxSize: flags.integer('batch-max-size', DEFAULT_BATCH_MAX_SIZE, 1, MAX_BATCH),
    pullBatchSize: flags.integer('pull-batch-size', DEFAULT_PULL_BATCH_SIZE, 1, MAX_BATCH),
  };
}
