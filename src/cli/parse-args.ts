/**
 * node:util parseArgs for the rmq commands, with one difference: a negative number after an option
 * that takes a value is that value (`--dashboard-port -1`, as the help texts write it), where
 * parseArgs refuses it as "ambiguous" and asks for `--dashboard-port=-1`.
 */
import { type ParseArgsConfig, parseArgs } from 'node:util';

const NEGATIVE_NUMBER = /^-\d+(\.\d+)?$/;

/** `args` with each `--name -1` / `-n -1` of a string option joined into `--name=-1`. */
export function joinNegativeValues(args: readonly string[], options: ParseArgsConfig['options']): string[] {
  const takesValue = new Set<string>();
  for (const [name, option] of Object.entries(options ?? {})) {
    if (option.type !== 'string') continue;
    takesValue.add(`--${name}`);
    if (option.short !== undefined) takesValue.add(`-${option.short}`);
  }
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (arg === '--') {
      out.push(...args.slice(i));
      break;
    }
    const next = args[i + 1];
    if (takesValue.has(arg) && next !== undefined && NEGATIVE_NUMBER.test(next)) {
      out.push(`${arg.startsWith('--') ? arg : `--${longName(arg, options)}`}=${next}`);
      i++;
    } else {
      out.push(arg);
    }
  }
  return out;
}

function longName(short: string, options: ParseArgsConfig['options']): string {
  const entry = Object.entries(options ?? {}).find(([, o]) => `-${o.short}` === short);
  return (entry as [string, unknown])[0];
}

export function parseCliArgs<T extends ParseArgsConfig>(config: T): ReturnType<typeof parseArgs<T>> {
  return parseArgs<T>({ ...config, args: joinNegativeValues(config.args ?? [], config.options) });
}
