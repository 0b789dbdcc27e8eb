/**
 * mqadmin's option syntax (commons-cli): `-t TopicA`, `--topic TopicA`, `--topic=TopicA`, and options
 * that take no value (`-l`, `-m`). Every command shares `-h` and `-n` as upstream's ServerUtil adds
 * them; ours adds `--json`, `--tls` and the ACL account flags. Refusals are one line and exit code 2.
 */

import { ValidationError } from '../../common/errors.js';
import { checkGroupArg, checkTopicArg } from '../../common/validators.js';

/** A bad command line: printed with the command's usage line, exit code 2. */
export class AdminUsageError extends Error {
  override readonly name = 'AdminUsageError';
}

export interface AdminOption {
  /** The one-letter (or upstream's two-letter) name, without the dash; absent for our own flags. */
  readonly short?: string;
  readonly long: string;
  /** Whether a value follows. */
  readonly arg: boolean;
  readonly required?: boolean;
  readonly desc: string;
}

/** Options every command takes (upstream ServerUtil.buildCommandlineOptions, then ours). */
export const COMMON_OPTIONS: readonly AdminOption[] = [
  { short: 'h', long: 'help', arg: false, desc: 'Print help' },
  {
    short: 'n',
    long: 'namesrvAddr',
    arg: true,
    desc: "Name server address list, eg: '192.168.0.1:9876;192.168.0.2:9876'",
  },
  { long: 'tls', arg: false, desc: "connect with TLS, verifying the server's certificate (system CAs)" },
  {
    long: 'tls-ca',
    arg: true,
    desc: "PEM file of the CA the servers' certificates must lead to (implies --tls)",
  },
  { long: 'tls-insecure', arg: false, desc: 'TLS without verifying the server (implies --tls)' },
  {
    long: 'access-key',
    arg: true,
    desc: 'ACL access key [$RMQ_ACCESS_KEY, else accessKey of $ROCKETMQ_HOME/conf/tools.yml]',
  },
  {
    long: 'secret-key-file',
    arg: true,
    desc: 'file holding the ACL secret key [$RMQ_SECRET_KEY, else secretKey of tools.yml]',
  },
  {
    long: 'secret-key',
    arg: true,
    desc: 'ACL secret key on the command line (visible in ps: prefer the file)',
  },
];

/** The --json flag of read commands. */
export const JSON_OPTION: AdminOption = {
  long: 'json',
  arg: false,
  desc: 'print the result as JSON (longs as decimal strings)',
};

/** Options naming a topic or a group: refused here, before any request, by the producer's rules. */
const TOPIC_OPTIONS: ReadonlySet<string> = new Set(['topic']);
const GROUP_OPTIONS: ReadonlySet<string> = new Set([
  'group',
  'groupName',
  'consumerGroup',
  'consumer',
  'producerGroup',
  'srcGroup',
  'destGroup',
]);

/** A bad name is a bad command line (exit 2), as every other refused value is. */
function checkedName(long: string, value: string): string {
  const check = TOPIC_OPTIONS.has(long) ? checkTopicArg : GROUP_OPTIONS.has(long) ? checkGroupArg : undefined;
  if (check === undefined) return value;
  try {
    return check(`--${long}`, value);
  } catch (error) {
    if (error instanceof ValidationError) throw new AdminUsageError(error.message);
    throw error;
  }
}

/** What was given: a value, or true for an option without one. */
export class OptionValues {
  constructor(private readonly values: ReadonlyMap<string, string | true>) {}

  has(long: string): boolean {
    return this.values.has(long);
  }

  /** The trimmed value, as upstream trims every value it reads; a topic or group name checked. */
  text(long: string): string | undefined {
    const v = this.values.get(long);
    return typeof v === 'string' ? checkedName(long, v.trim()) : undefined;
  }

  /** A value the parser already checked is present (a required option). */
  required(long: string): string {
    const v = this.text(long);
    if (v === undefined) throw new AdminUsageError(`missing option --${long}`);
    return v;
  }

  /** A whole number (Java Integer.parseInt / Long.parseLong), or `fallback` when absent. */
  integer(
    long: string,
    fallback: number,
    min = Number.MIN_SAFE_INTEGER,
    max = Number.MAX_SAFE_INTEGER,
  ): number {
    const raw = this.text(long);
    if (raw === undefined) return fallback;
    if (!/^[+-]?\d+$/.test(raw)) throw new AdminUsageError(`--${long}: not a whole number: ${raw}`);
    const n = Number(raw);
    if (n < min || n > max) throw new AdminUsageError(`--${long}: out of range [${min}, ${max}]: ${raw}`);
    return n;
  }

  /** Java Boolean.parseBoolean: "true" in any case is true, anything else false. */
  bool(long: string, fallback: boolean): boolean {
    const raw = this.text(long);
    return raw === undefined ? fallback : raw.toLowerCase() === 'true';
  }
}

/** Scans argv against the command's options plus the common ones; checks required options. */
export function parseOptions(argv: readonly string[], specs: readonly AdminOption[]): OptionValues {
  const byToken = new Map<string, AdminOption>();
  for (const spec of specs) {
    byToken.set(`--${spec.long}`, spec);
    if (spec.short !== undefined) byToken.set(`-${spec.short}`, spec);
  }
  const values = new Map<string, string | true>();
  for (let i = 0; i < argv.length; i++) {
    const token = argv[i] as string;
    if (!token.startsWith('-') || token === '-' || token === '--') {
      throw new AdminUsageError(`unexpected argument ${JSON.stringify(token)}`);
    }
    const eq = token.startsWith('--') ? token.indexOf('=') : -1;
    const key = eq === -1 ? token : token.slice(0, eq);
    const spec = byToken.get(key);
    if (spec === undefined) throw new AdminUsageError(`unknown option ${key}`);
    if (!spec.arg) {
      if (eq !== -1) throw new AdminUsageError(`option ${key} takes no value`);
      values.set(spec.long, true);
      continue;
    }
    if (eq !== -1) {
      values.set(spec.long, token.slice(eq + 1));
      continue;
    }
    const next = argv[i + 1];
    if (next === undefined) throw new AdminUsageError(`missing argument for option ${key}`);
    values.set(spec.long, next);
    i++;
  }
  if (!values.has('help')) {
    const missing = specs.filter((s) => s.required === true && !values.has(s.long));
    if (missing.length > 0) {
      const names = missing.map((s) => (s.short === undefined ? `--${s.long}` : `-${s.short}`));
      throw new AdminUsageError(
        `missing required option${missing.length > 1 ? 's' : ''}: ${names.join(', ')}`,
      );
    }
  }
  return new OptionValues(values);
}

/** `usage: mqadmin topicRoute [-h] [-l] [-n <arg>] -t <arg>` in our words, then one line per option. */
export function optionsHelp(command: string, specs: readonly AdminOption[]): string {
  const token = (s: AdminOption): string => (s.short === undefined ? `--${s.long}` : `-${s.short}`);
  const parts = specs.map((s) => {
    const t = s.arg ? `${token(s)} <arg>` : token(s);
    return s.required === true ? t : `[${t}]`;
  });
  const heads = specs.map((s) => {
    const names = s.short === undefined ? `    --${s.long}` : `-${s.short},--${s.long}`;
    return s.arg ? `${names} <arg>` : names;
  });
  const width = Math.max(...heads.map((h) => h.length)) + 3;
  const lines = specs.map((s, i) => ` ${(heads[i] as string).padEnd(width)}${s.desc}\n`);
  return `usage: rmq admin ${command} ${parts.join(' ')}\n${lines.join('')}`;
}
