/**
 * Typed failures of the file store. Each names the file (and offset where one applies) so an operator
 * can find the bytes; none is thrown for a condition the store can handle by itself.
 */

import { ErrorCode, RocketMQError } from '../common/errors.js';

/** A write, fsync, create or delete of a store file failed, or the store refuses writes after one did. */
export class StoreIOError extends RocketMQError {
  readonly fileName: string;

  constructor(fileName: string, message: string, options?: ErrorOptions) {
    super(`${fileName}: ${message}`, 1, { ...options, code: ErrorCode.STORE_IO });
    this.fileName = fileName;
  }
}

/**
 * Store files that do not add up: a bad file name or size, a gap between segments, or a corrupt record
 * followed by valid ones (mid-log damage). `offset` is the position inside `fileName` (-1 for whole-file
 * faults) and `physicalOffset` the commit-log offset of that byte where it is known.
 */
export class StoreCorruptionError extends RocketMQError {
  readonly fileName: string;
  readonly offset: number;
  readonly physicalOffset: number;

  constructor(fileName: string, offset: number, physicalOffset: number, message: string) {
    super(offset >= 0 ? `${fileName} at offset ${offset}: ${message}` : `${fileName}: ${message}`, 1, {
      code: ErrorCode.STORE_CORRUPT,
    });
    this.fileName = fileName;
    this.offset = offset;
    this.physicalOffset = physicalOffset;
  }
}
