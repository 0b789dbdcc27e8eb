/**
 * The `abort` marker (upstream DefaultMessageStore.createTempFile / isTempFileExist): created when the
 * store starts, deleted on a clean shutdown. Found at start-up, it means the last run ended abnormally
 * and recovery must scan the commit log (recoverAbnormally).
 */

import * as fs from 'node:fs';
import { dirname } from 'node:path';
import { StorePath } from './config.js';
import { describeError, fsyncDirectory } from './file-io.js';
import { StoreIOError } from './store-error.js';

export function abortFileExists(storePathRootDir: string): boolean {
  return fs.existsSync(StorePath.abort(storePathRootDir));
}

/** Creates the marker (if absent) and makes its directory entry durable before any append. */
export function createAbortFile(storePathRootDir: string): void {
  const path = StorePath.abort(storePathRootDir);
  try {
    fs.mkdirSync(dirname(path), { recursive: true });
    fs.closeSync(fs.openSync(path, 'a'));
    fsyncDirectory(dirname(path));
  } catch (err) {
    throw new StoreIOError(path, `cannot create the abort file: ${describeError(err)}`, { cause: err });
  }
}

/** Deletes the marker after a clean shutdown. */
export function deleteAbortFile(storePathRootDir: string): void {
  const path = StorePath.abort(storePathRootDir);
  try {
    fs.rmSync(path, { force: true });
    fsyncDirectory(dirname(path));
  } catch (err) {
    throw new StoreIOError(path, `cannot delete the abort file: ${describeError(err)}`, { cause: err });
  }
}
