/**
 * Files `rmq admin` writes under a name a peer chose (a message's UNIQ_KEY, a consumer's client id).
 * Upstream mqadmin joins such values into paths as they are, so `../../x` writes wherever the
 * operator can; here every such name goes through safeFileName and every write through
 * writeFileInside, the one place that builds and opens those paths.
 */
import { createHash } from 'node:crypto';
import { closeSync, constants, lstatSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { ValidationError } from '../../common/errors.js';

/** Longest file name written, in UTF-8 bytes: under the 255 of ext4, xfs and NTFS. */
export const MAX_SAFE_FILE_NAME_BYTES = 200;
/** Characters a name keeps as they are: those of message ids, client ids and topic names. */
const SAFE_NAME = /^[A-Za-z0-9._@#%+=,:[\]-]+$/;
const UNSAFE_CHAR = /[^A-Za-z0-9._@#%+=,:[\]-]/g;
/** Hex digits of the value's SHA-256 that a rewritten name ends with, so two values stay apart. */
const HASH_HEX = 16;

/**
 * `value` itself when it is already a plain file name (mqadmin's names for every ordinary id);
 * otherwise the value with each unsafe character as `_`, cut to fit, a leading dot made `_`, and
 * `~` plus a hash of the whole value, so distinct hostile values never share a file.
 */
export function safeFileName(value: string): string {
  const plain =
    SAFE_NAME.test(value) && !value.startsWith('.') && Buffer.byteLength(value) <= MAX_SAFE_FILE_NAME_BYTES;
  if (plain) return value;
  const hash = createHash('sha256').update(value, 'utf8').digest('hex').slice(0, HASH_HEX);
  const room = MAX_SAFE_FILE_NAME_BYTES - HASH_HEX - 1;
  const cleaned = value.replace(UNSAFE_CHAR, '_').replace(/^\./, '_').slice(0, room);
  return `${cleaned}~${hash}`;
}

/** True when `path` is `dir` itself or below it (both resolved). */
export function isInside(dir: string, path: string): boolean {
  const rel = relative(resolve(dir), resolve(path));
  return rel !== '' && !rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel);
}

/**
 * Creates `dir` if needed, refuses it when it is a symbolic link (a shared /tmp lets another user
 * plant one), and writes `data` to `dir/safeFileName(name)` without following a link planted at that
 * name (O_NOFOLLOW). Returns the path written.
 */
export function writeFileInside(dir: string, name: string, data: string | Uint8Array): string {
  mkdirSync(dir, { recursive: true });
  const st = lstatSync(dir);
  if (st.isSymbolicLink() || !st.isDirectory()) {
    throw new ValidationError(`refusing to write into ${dir}: it is not a plain directory`);
  }
  const path = join(dir, safeFileName(name));
  if (!isInside(dir, path)) throw new ValidationError(`refusing to write outside ${dir}`);
  const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | (constants.O_NOFOLLOW ?? 0);
  const fd = openSync(path, flags, 0o644);
  try {
    const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
    let done = 0;
    while (done < bytes.length) done += writeSync(fd, bytes, done, bytes.length - done);
  } finally {
    closeSync(fd);
  }
  return path;
}
