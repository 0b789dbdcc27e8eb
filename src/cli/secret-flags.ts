/**
 * Where the commands that sign requests read the ACL secret key: a file (`--secret-key-file`), the
 * environment, or, still accepted with a warning, `--secret-key` on the command line, where every
 * user of the machine sees it in `ps`.
 */
import { readFileSync } from 'node:fs';

/** The warning printed once when the secret comes from argv. */
export const ARGV_SECRET_WARNING =
  'warning: --secret-key is visible to every user in ps; use --secret-key-file <file> or RMQ_SECRET_KEY\n';

/** The secret key, or undefined when none is given; `warn` hears the argv warning. */
export function secretKeyOf(
  flag: string | undefined,
  file: string | undefined,
  envValue: string | undefined,
  warn: (line: string) => void,
): string | undefined {
  if (file !== undefined) {
    if (flag !== undefined) throw new Error('--secret-key and --secret-key-file: give one');
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (error) {
      throw new Error(`--secret-key-file ${file}: ${error instanceof Error ? error.message : String(error)}`);
    }
    // A file written with echo ends with a newline that is not part of the secret.
    return text.replace(/\r?\n$/, '');
  }
  if (flag !== undefined) {
    warn(ARGV_SECRET_WARNING);
    return flag;
  }
  return envValue === '' ? undefined : envValue;
}
