/**
 * Imports the operator's named-filter module (broker.conf `namedFilterModule`) once, at broker start.
 * Every way it can fail becomes one ValidationError naming the file and the problem, so the broker
 * refuses to start rather than serve NAMED subscriptions it cannot honour.
 */
import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ValidationError } from '../common/errors.js';
import { type NamedFilterFunction, namedFiltersFromModule } from '../filter/index.js';

export interface LoadNamedFilterModuleOptions {
  /** What a relative path is resolved against; the process's working directory by default. */
  readonly cwd?: string;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * The filters the module at `path` exports (see namedFiltersFromModule for the contract). Throws
 * ValidationError when the file does not exist or is not a file, when importing it throws (syntax
 * error, a throw at top level, a missing dependency), or when it does not export a map of functions.
 */
export async function loadNamedFilterModule(
  path: string,
  options: LoadNamedFilterModuleOptions = {},
): Promise<Map<string, NamedFilterFunction>> {
  const file = resolve(options.cwd ?? process.cwd(), path);
  const where = `named filter module ${file} (namedFilterModule)`;
  try {
    const info = await stat(file);
    if (!info.isFile()) throw new ValidationError(`${where}: not a file`);
  } catch (error) {
    if (error instanceof ValidationError) throw error;
    const code = (error as { code?: unknown }).code;
    throw new ValidationError(
      code === 'ENOENT'
        ? `${where}: the file does not exist`
        : `${where}: cannot be read: ${describe(error)}`,
      1,
      { cause: error },
    );
  }
  let namespace: unknown;
  try {
    namespace = await import(pathToFileURL(file).href);
  } catch (error) {
    throw new ValidationError(`${where}: importing it failed: ${describe(error)}`, 1, { cause: error });
  }
  try {
    return namedFiltersFromModule(namespace);
  } catch (error) {
    throw new ValidationError(`${where}: ${describe(error)}`, 1, { cause: error });
  }
}
