/**
 * Flag parsing shared by `rmq bench producer` and `rmq bench consumer`. Upstream's benchmark tools
 * take `-w 64` style flags (commons-cli); we take those, upstream's long names (`--threadCount 64`)
 * and our own long flags (`--duration 3`, `--json=FILE`). A hand-written scanner rather than
 * node:util parseArgs: a value may start with a dash (`-e -1` must say "out of range", not "ambiguous")
 * and every refusal has to be one short line naming the flag.
 */

/** A bad command line: printed as one line, exit code 2, never a stack trace. */
export class BenchFlagError extends Error {
  override readonly name = 'BenchFlagError';
}

export interface FlagSpec {
  /** Upstream's long option name (threadCount), or ours (duration). */
  readonly name: string;
  /** Upstream's one-letter option, when upstream has one. */
  readonly short?: string;
  /** What the value looks like in the usage text: N, S, true|false, FILE... */
  readonly value: string;
  /** Usage text: meaning, [default] and unit. */
  readonly help: string;
}

/** The raw values given, by long name; what was not given is absent. */
export type FlagValues = ReadonlyMap<string, string>;

/** How a flag is named in messages: as the user most likely typed it. */
export function flagLabel(spec: FlagSpec): string {
  return spec.short === undefined ? `--${spec.name}` : `-${spec.short}`;
}

/** Scans `argv` against `specs`: every token a known flag followed by its value. */
export function scanFlags(argv: readonly string[], specs: readonly FlagSpec[]): FlagValues {
  const byToken = new Map<string, FlagSpec>();
  for (const spec of specs) {
    byToken.set(`--${spec.name}`, spec);
    if (spec.short !== undefined) byToken.set(`-${spec.short}`, spec);
  }
  const values = new Map<string, string>();
  for (let i = 0; i < argv.length; i++) {
    const token = argv[i] as string;
    if (!token.startsWith('-') || token === '-' || token === '--') {
      throw new BenchFlagError(`unexpected argument ${JSON.stringify(token)}`);
    }
    const eq = token.startsWith('--') ? token.indexOf('=') : -1;
    const key = eq === -1 ? token : token.slice(0, eq);
    const spec = byToken.get(key);
    if (spec === undefined) throw new BenchFlagError(`unknown flag ${key}`);
    let value: string;
    if (eq !== -1) {
      value = token.slice(eq + 1);
    } else {
      const next = argv[i + 1];
      if (next === undefined) throw new BenchFlagError(`${key} needs a value (${spec.value})`);
      value = next;
      i++;
    }
    values.set(spec.name, value);
  }
  return values;
}

/** Reads typed values out of scanned flags; every refusal names the flag and the value. */
export class FlagReader {
  private readonly specs: ReadonlyMap<string, FlagSpec>;

  constructor(
    specs: readonly FlagSpec[],
    private readonly values: FlagValues,
  ) {
    this.specs = new Map(specs.map((s) => [s.name, s]));
  }

  has(name: string): boolean {
    return this.values.has(name);
  }

  private label(name: string): string {
    const spec = this.specs.get(name);
    if (spec === undefined) throw new Error(`no flag named ${name}`);
    return flagLabel(spec);
  }

  /** Trimmed text, as upstream trims; an empty value is refused. */
  text(name: string, fallback: string): string;
  text(name: string, fallback?: undefined): string | undefined;
  text(name: string, fallback?: string): string | undefined {
    const raw = this.values.get(name);
    if (raw === undefined) return fallback;
    const value = raw.trim();
    if (value.length === 0) throw new BenchFlagError(`${this.label(name)} must not be empty`);
    return value;
  }

  /** A whole number in [min, max]. */
  integer(name: string, fallback: number, min: number, max = Number.MAX_SAFE_INTEGER): number {
    const raw = this.values.get(name)?.trim();
    if (raw === undefined) return fallback;
    if (!/^[+-]?\d+$/.test(raw)) throw new BenchFlagError(`${this.label(name)}: not a whole number: ${raw}`);
    return this.inRange(name, Number(raw), raw, min, max);
  }

  /** A decimal number in [min, max]. */
  decimal(name: string, fallback: number, min: number, max = Number.MAX_SAFE_INTEGER): number {
    const raw = this.values.get(name)?.trim();
    if (raw === undefined) return fallback;
    if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(raw)) {
      throw new BenchFlagError(`${this.label(name)}: not a number: ${raw}`);
    }
    return this.inRange(name, Number(raw), raw, min, max);
  }

  /**
   * true or false. Upstream's Boolean.parseBoolean takes anything else as false; we refuse it, so a
   * typo does not silently turn a feature off.
   */
  boolean(name: string, fallback: boolean): boolean {
    const raw = this.values.get(name)?.trim();
    if (raw === undefined) return fallback;
    const lower = raw.toLowerCase();
    if (lower === 'true') return true;
    if (lower === 'false') return false;
    throw new BenchFlagError(`${this.label(name)}: expected true or false, got ${raw}`);
  }

  /** One of `choices` (as written, case-sensitive). */
  choice<T extends string>(name: string, choices: readonly T[], fallback: T): T;
  choice<T extends string>(name: string, choices: readonly T[], fallback?: undefined): T | undefined;
  choice<T extends string>(name: string, choices: readonly T[], fallback?: T): T | undefined {
    const raw = this.values.get(name)?.trim();
    if (raw === undefined) return fallback;
    const found = choices.find((c) => c === raw);
    if (found === undefined) {
      throw new BenchFlagError(`${this.label(name)}: expected one of ${choices.join(', ')}, got ${raw}`);
    }
    return found;
  }

  private inRange(name: string, value: number, raw: string, min: number, max: number): number {
    if (!Number.isFinite(value) || value < min || value > max) {
      const range = max === Number.MAX_SAFE_INTEGER ? `>= ${min}` : `in [${min}, ${max}]`;
      throw new BenchFlagError(`${this.label(name)}: out of range (${range}): ${raw}`);
    }
    return value;
  }
}

/** Usage lines of `specs`, aligned. */
export function flagsUsage(specs: readonly FlagSpec[]): string {
  const heads = specs.map((s) => {
    const long = `--${s.name} ${s.value}`;
    return s.short === undefined ? `      ${long}` : `  -${s.short}, ${long}`;
  });
  const width = Math.max(...heads.map((h) => h.length)) + 2;
  return specs.map((s, i) => `${(heads[i] as string).padEnd(width)}${s.help}\n`).join('');
}

/** Where the name server is when -n is not given: NAMESRV_ADDR, else upstream's default. */
export const DEFAULT_NAMESRV_ADDR = '127.0.0.1:9876';

/** Upstream's benchmarks print every 10 s. */
export const DEFAULT_REPORT_INTERVAL_S = 10;
/** A smaller report interval than this floods the terminal without adding information. */
export const MIN_REPORT_INTERVAL_S = 0.1;

/** Upstream's benchmark account (its AclClient), used by -a true without -ak/-sk. */
export const BENCH_ACL_ACCESS_KEY = 'rocketmq2';
const BENCH_ACL_SECRET_KEY = '12345678';

/** Flags both tools take (the thread count's default differs, so it is each tool's own). */
export const COMMON_FLAGS: readonly FlagSpec[] = [
  {
    name: 'namesrvAddr',
    short: 'n',
    value: 'ADDR',
    help: `name server(s), host:port[;host:port] [NAMESRV_ADDR, else ${DEFAULT_NAMESRV_ADDR}]`,
  },
  { name: 'topic', short: 't', value: 'TOPIC', help: 'topic [BenchmarkTest]' },
  {
    name: 'aclEnable',
    short: 'a',
    value: 'true|false',
    help: 'sign every request with -ak/-sk (plain ACL) [false]',
  },
  {
    name: 'accessKey',
    short: 'ak',
    value: 'KEY',
    help: `ACL access key, with -a true [${BENCH_ACL_ACCESS_KEY}]`,
  },
  {
    name: 'secretKey',
    short: 'sk',
    value: 'KEY',
    help: `ACL secret key, with -a true [upstream's benchmark account]`,
  },
  {
    name: 'duration',
    value: 'S',
    help: 'stop after S seconds of measurement (after the warm-up); 0 = no limit [0]',
  },
  { name: 'warmup', value: 'S', help: 'seconds at the start not counted in the summary [0]' },
  { name: 'json', value: 'FILE', help: 'write the summary as JSON to FILE at the end' },
  {
    name: 'report-interval',
    value: 'S',
    help: `seconds between two interval lines [${DEFAULT_REPORT_INTERVAL_S}]`,
  },
];

/** The settings every run has, read from COMMON_FLAGS. */
export interface CommonSettings {
  readonly namesrvAddr: string;
  /** Set by -a true: the account every request is signed with. */
  readonly credentials: { readonly accessKey: string; readonly secretKey: string } | undefined;
  readonly topic: string;
  /** Seconds of measurement, 0 for no limit. */
  readonly durationS: number;
  readonly warmupS: number;
  readonly jsonFile: string | undefined;
  readonly reportIntervalS: number;
}

/** A day: longer runs are a typo, and setTimeout cannot wait much longer anyway (2^31 ms). */
const MAX_SECONDS = 86_400;

export function readCommon(flags: FlagReader, env: NodeJS.ProcessEnv): CommonSettings {
  const aclEnable = flags.boolean('aclEnable', false);
  if (!aclEnable && (flags.has('accessKey') || flags.has('secretKey'))) {
    throw new BenchFlagError('-ak and -sk need -a true');
  }
  const fromEnv = env.NAMESRV_ADDR?.trim();
  return {
    namesrvAddr: flags.text(
      'namesrvAddr',
      fromEnv === undefined || fromEnv.length === 0 ? DEFAULT_NAMESRV_ADDR : fromEnv,
    ),
    credentials: aclEnable
      ? {
          accessKey: flags.text('accessKey', BENCH_ACL_ACCESS_KEY),
          secretKey: flags.text('secretKey', BENCH_ACL_SECRET_KEY),
        }
      : undefined,
    topic: flags.text('topic', 'BenchmarkTest'),
    durationS: flags.decimal('duration', 0, 0, MAX_SECONDS),
    warmupS: flags.decimal('warmup', 0, 0, MAX_SECONDS),
    jsonFile: flags.text('json'),
    reportIntervalS: flags.decimal(
      'report-interval',
      DEFAULT_REPORT_INTERVAL_S,
      MIN_REPORT_INTERVAL_S,
      MAX_SECONDS,
    ),
  };
}

/**
 * As upstream's benchmark tools: the binary ROCKETMQ header form, unless ROCKETMQ_SERIALIZE_TYPE
 * chooses (the client reads that variable itself when the option is left undefined).
 */
export function benchSerializeType(): 'ROCKETMQ' | undefined {
  const fromEnv = process.env.ROCKETMQ_SERIALIZE_TYPE;
  return fromEnv === undefined || fromEnv.trim() === '' ? 'ROCKETMQ' : undefined;
}
