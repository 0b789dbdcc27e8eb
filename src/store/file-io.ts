/**
 * The file system calls the store makes, behind one interface so tests can count fsyncs, slow them down
 * or make a write fail without touching a real disk's behaviour.
 */

import * as fs from 'node:fs';
import { dirname } from 'node:path';

export type IOCallback = (err: NodeJS.ErrnoException | null) => void;
export type WriteCallback = (err: NodeJS.ErrnoException | null, written: number) => void;

export interface FileIO {
  openSync(path: string, flags: string): number;
  closeSync(fd: number): void;
  ftruncateSync(fd: number, length: number): void;
  fsyncSync(fd: number): void;
  fdatasyncSync(fd: number): void;
  fdatasync(fd: number, callback: IOCallback): void;
  writeSync(fd: number, buffer: Buffer, offset: number, length: number, position: number): number;
  write(
    fd: number,
    buffer: Buffer,
    offset: number,
    length: number,
    position: number,
    callback: WriteCallback,
  ): void;
  readSync(fd: number, buffer: Buffer, offset: number, length: number, position: number): number;
  fstatSync(fd: number): fs.Stats;
  unlinkSync(path: string): void;
}

export const nodeFileIO: FileIO = {
  openSync: (path, flags) => fs.openSync(path, flags),
  closeSync: (fd) => fs.closeSync(fd),
  ftruncateSync: (fd, length) => fs.ftruncateSync(fd, length),
  fsyncSync: (fd) => fs.fsyncSync(fd),
  fdatasyncSync: (fd) => fs.fdatasyncSync(fd),
  fdatasync: (fd, callback) => fs.fdatasync(fd, callback),
  writeSync: (fd, buffer, offset, length, position) => fs.writeSync(fd, buffer, offset, length, position),
  write: (fd, buffer, offset, length, position, callback) =>
    fs.write(fd, buffer, offset, length, position, callback),
  readSync: (fd, buffer, offset, length, position) => fs.readSync(fd, buffer, offset, length, position),
  fstatSync: (fd) => fs.fstatSync(fd),
  unlinkSync: (path) => fs.unlinkSync(path),
};

/** Makes a directory entry change (create, rename, unlink) durable. */
export function fsyncDirectory(dir: string, io: FileIO = nodeFileIO): void {
  const fd = io.openSync(dir, 'r');
  try {
    io.fsyncSync(fd);
  } finally {
    io.closeSync(fd);
  }
}

/** mkdir -p that makes each directory it creates durable by fsyncing its parent. */
export function mkdirDurable(dir: string, io: FileIO = nodeFileIO): void {
  if (fs.existsSync(dir)) return;
  const parent = dirname(dir);
  if (parent !== dir) mkdirDurable(parent, io);
  try {
    fs.mkdirSync(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return;
    throw err;
  }
  fsyncDirectory(parent, io);
}

/** errno codes of a write the file system refused for space: a full disk, a quota, a file-size limit. */
const OUT_OF_SPACE_CODES: ReadonlySet<string> = new Set(['ENOSPC', 'EDQUOT', 'EFBIG']);

/**
 * Whether `err` (or an error it wraps) is a write refused for space. Such a write stores nothing past
 * the bytes it reports, and nothing written before it is lost, so writing again from the last good
 * position once space returns leaves no hole (unlike EIO, after which the page cache may not match
 * the disk).
 */
export function isOutOfSpace(err: unknown): boolean {
  let e: unknown = err;
  for (let depth = 0; e instanceof Error && depth < 8; depth++) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code !== undefined && OUT_OF_SPACE_CODES.has(code)) return true;
    e = e.cause;
  }
  return false;
}

/** Error text with the errno code first, e.g. `EIO: i/o error, write`. */
export function describeError(err: unknown): string {
  if (err instanceof Error) return err.message;
  return String(err);
}
