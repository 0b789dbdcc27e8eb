/**
 * When to delete old commit-log files (upstream `DefaultMessageStore.CleanCommitLogService`): every
 * `cleanResourceInterval` ms, files last modified more than `fileReservedTime` hours ago are deleted
 * if the local hour is one of `deleteWhen`, or the disk holding the commit log is fuller than
 * `diskMaxUsedSpaceRatio` percent, or a manual delete was asked for. Above the forced-clean ratio
 * [85%] files go regardless of age; above the warning ratio [90%] the disk is reported full so the
 * store can refuse appends. The file being appended to is never deleted (MappedFileQueue).
 */

import * as fs from 'node:fs';
import { type Clock, systemClock, type TimerHandle } from '../common/clock.js';
import { createLogger, type Logger } from '../common/logger.js';
import type { CommitLog } from './commit-log.js';
import type { MessageStoreConfig } from './config.js';

const MAX_MANUAL_DELETE_FILE_TIMES = 20;

export type CleanCommitLogConfig = Pick<
  MessageStoreConfig,
  'storePathRootDir' | 'fileReservedTime' | 'deleteWhen' | 'diskMaxUsedSpaceRatio'
>;

export interface CleanCommitLogOptions {
  clock?: Clock;
  logger?: Logger;
  /** Upstream `cleanResourceInterval` [10 s]. */
  cleanResourceInterval?: number;
  /** Upstream `deleteCommitLogFilesInterval` [100 ms]: pause between two deleted files. */
  deleteCommitLogFilesInterval?: number;
  /** Upstream `destroyMapedFileIntervalForcibly` [120 s] (no mapped readers to wait for here). */
  destroyMapedFileIntervalForcibly?: number;
  /** Upstream `cleanFileForciblyEnable` [true]. */
  cleanFileForciblyEnable?: boolean;
  /** Upstream system properties `rocketmq.broker.diskSpaceWarningLevelRatio` [0.90] and `...CleanForciblyRatio` [0.85]. */
  diskSpaceWarningLevelRatio?: number;
  diskSpaceCleanForciblyRatio?: number;
  /** Used fraction (0..1) of the disk holding `path`; defaults to statfs (total - free) / total. */
  diskUsedRatio?: (path: string) => number;
  /** Hour of day (0-23) at `ms`; defaults to the local time zone. */
  hourOfDay?: (ms: number) => number;
  /** After files were deleted (the consume queues and index clean up behind the new minimum). */
  onDeleted?: (count: number, minOffset: number) => void;
}

function statfsUsedRatio(path: string): number {
  try {
    const s = fs.statfsSync(path);
    return s.blocks > 0 ? (s.blocks - s.bfree) / s.blocks : -1;
  } catch {
    return -1;
  }
}

/** Upstream `UtilAll.isItTimeToDo`: `when` is hours separated by `;`. */
export function isItTimeToDo(when: string, hour: number): boolean {
  return when.split(';').some((w) => w.trim() !== '' && Number(w) === hour);
}

export class CleanCommitLogService {
  private readonly commitLog: CommitLog;
  private readonly config: CleanCommitLogConfig;
  private readonly clock: Clock;
  private readonly log: Logger;
  private readonly interval: number;
  private readonly deleteFilesInterval: number;
  private readonly intervalForcibly: number;
  private readonly cleanFileForciblyEnable: boolean;
  private readonly warningRatio: number;
  private readonly forciblyRatio: number;
  private readonly diskUsedRatio: (path: string) => number;
  private readonly hourOfDay: (ms: number) => number;
  private readonly onDeleted: ((count: number, minOffset: number) => void) | undefined;
  private manualDeleteFileSeveralTimes = 0;
  private cleanImmediately = false;
  private diskFull = false;
  private timer: TimerHandle | undefined;
  private running: Promise<number> | undefined;

  constructor(commitLog: CommitLog, config: CleanCommitLogConfig, options: CleanCommitLogOptions = {}) {
    this.commitLog = commitLog;
    this.config = config;
    this.clock = options.clock ?? systemClock;
    this.log = options.logger ?? createLogger('store.cleanCommitLog');
    this.interval = options.cleanResourceInterval ?? 10_000;
    this.deleteFilesInterval = options.deleteCommitLogFilesInterval ?? 100;
    this.intervalForcibly = options.destroyMapedFileIntervalForcibly ?? 120_000;
    this.cleanFileForciblyEnable = options.cleanFileForciblyEnable ?? true;
    this.warningRatio = options.diskSpaceWarningLevelRatio ?? 0.9;
    this.forciblyRatio = options.diskSpaceCleanForciblyRatio ?? 0.85;
    this.diskUsedRatio = options.diskUsedRatio ?? statfsUsedRatio;
    this.hourOfDay = options.hourOfDay ?? ((ms) => new Date(ms).getHours());
    this.onDeleted = options.onDeleted;
  }

  start(): void {
    if (this.timer !== undefined) return;
    const tick = (): void => {
      this.timer = this.clock.setTimeout(tick, this.interval);
      if (this.running === undefined) {
        this.running = this.run().finally(() => {
          this.running = undefined;
        });
      }
    };
    this.timer = this.clock.setTimeout(tick, this.interval);
  }

  async shutdown(): Promise<void> {
    this.timer?.cancel();
    this.timer = undefined;
    if (this.running !== undefined) await this.running;
  }

  /** Upstream `executeDeleteFilesManually`: the next 20 rounds delete expired files at any hour. */
  executeDeleteFilesManually(): void {
    this.manualDeleteFileSeveralTimes = MAX_MANUAL_DELETE_FILE_TIMES;
  }

  /** Above the warning ratio: the store should refuse appends until space is back. */
  isDiskFull(): boolean {
    return this.diskFull;
  }

  isTimeToDelete(): boolean {
    return isItTimeToDo(this.config.deleteWhen, this.hourOfDay(this.clock.now()));
  }

  /** Upstream `isSpaceToDelete` for the commit-log disk; also decides cleanImmediately and disk full. */
  isSpaceToDelete(): boolean {
    const ratio = this.config.diskMaxUsedSpaceRatio / 100;
    this.cleanImmediately = false;
    const used = this.diskUsedRatio(this.commitLog.mappedFileQueue.storePath);
    if (used > this.warningRatio) {
      if (!this.diskFull) this.log.error('commit log disk may be full soon; marking the disk full', { used });
      this.diskFull = true;
      this.cleanImmediately = true;
    } else {
      if (this.diskFull) this.log.info('commit log disk space is fine again', { used });
      this.diskFull = false;
      if (used > this.forciblyRatio) this.cleanImmediately = true;
    }
    return used < 0 || used > ratio;
  }

  /** One round (upstream `deleteExpiredFiles`); resolves with the number of files deleted. */
  async run(): Promise<number> {
    const timeUp = this.isTimeToDelete();
    const spaceFull = this.isSpaceToDelete();
    const manual = this.manualDeleteFileSeveralTimes > 0;
    if (!timeUp && !spaceFull && !manual) return 0;
    if (manual) this.manualDeleteFileSeveralTimes--;
    const cleanAtOnce = this.cleanFileForciblyEnable && this.cleanImmediately;
    const expired = this.config.fileReservedTime * 60 * 60 * 1000;
    let deleted = 0;
    try {
      deleted = await this.commitLog.deleteExpiredFile(
        expired,
        this.deleteFilesInterval,
        this.intervalForcibly,
        cleanAtOnce,
      );
    } catch (err) {
      this.log.error('deleting expired commit log files failed', {
        error: err instanceof Error ? err.message : String(err),
      });
      return 0;
    }
    if (deleted > 0) {
      this.log.info('deleted expired commit log files', { deleted, timeUp, spaceFull, cleanAtOnce });
      this.onDeleted?.(deleted, this.commitLog.getMinOffset());
    } else if (spaceFull) {
      this.log.warn('disk space will be full soon, but no file could be deleted');
    }
    return deleted;
  }
}
