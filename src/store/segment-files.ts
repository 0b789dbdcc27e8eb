/**
 * The segment files of the consume queues and index files: PositionalFile reporting SegmentFileError,
 * so the logic queues' errors stay their own and apart from the commit log's.
 */

import { rmdirSync } from 'node:fs';
import { join } from 'node:path';
import { ErrorCode, RocketMQError } from '../common/errors.js';
import { type FileFaults, type OpenMode, PositionalFile } from './positional-file.js';

const SYSTEM_ERROR = 1;

/** A file of the consume queue or index that cannot be created, read, written or synced, or is malformed. */
export class SegmentFileError extends RocketMQError {
  readonly file: string;
  /** Byte offset inside the file the problem concerns, when there is one. */
  readonly offset: number | undefined;

  constructor(file: string, message: string, offset?: number, options?: ErrorOptions) {
    super(`${file}${offset === undefined ? '' : ` at offset ${offset}`}: ${message}`, SYSTEM_ERROR, {
      ...options,
      code: ErrorCode.STORE_IO,
    });
    this.file = file;
    this.offset = offset;
  }
}

const segmentFileFaults: FileFaults<SegmentFileError> = {
  io: (file, message, cause) =>
    new SegmentFileError(file, message, undefined, cause === undefined ? undefined : { cause }),
  size: (file, actual, expected) =>
    new SegmentFileError(
      file,
      `file is ${actual} bytes but the store configuration expects ${expected}; check the store settings`,
    ),
};

/** Removes a directory if it is empty; any failure (not empty, gone) is ignored. */
export function removeDirIfEmpty(dir: string): void {
  try {
    rmdirSync(dir);
  } catch {
    // not empty or already gone: either is fine for a best-effort cleanup
  }
}

export class SegmentFile extends PositionalFile<SegmentFileError> {
  private constructor(path: string, fileSize: number, mode: OpenMode) {
    super(path, fileSize, mode, segmentFileFaults);
  }

  /** Creates `dir/name` (and `dir`) of exactly `fileSize` bytes (sparse). */
  static create(dir: string, name: string, fileSize: number): SegmentFile {
    return new SegmentFile(join(dir, name), fileSize, 'create');
  }

  /** Opens an existing file of exactly `fileSize` bytes; an empty one never held data and is sized now. */
  static open(path: string, fileSize: number): SegmentFile {
    return new SegmentFile(path, fileSize, 'open-empty');
  }

  /** A file closed or deleted while its queue flushed has nothing of the queue's left to sync. */
  override datasync(upTo?: number): Promise<void> {
    return this.isClosed ? Promise.resolve() : super.datasync(upTo);
  }
}
