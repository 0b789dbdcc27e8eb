/**
 * upstream's AclFileWatchService: every `interval` ms, lists the ACL files and compares their number
 * and each one's modification time (we compare the size too, for file systems with coarse mtimes)
 * with the last look; any difference calls `onChange`. Driven by a Clock so tests advance it.
 */
import { stat } from 'node:fs/promises';
import type { Clock, TimerHandle } from '../../clock.js';
import type { Logger } from '../../logger.js';
import { type AclPaths, listAclFiles } from './acl-paths.js';

/** upstream's WATCH_INTERVAL. */
export const DEFAULT_ACL_FILE_WATCH_INTERVAL = 5000;

export async function aclFilesSnapshot(paths: AclPaths): Promise<string> {
  const files = await listAclFiles(paths);
  const parts: string[] = [];
  for (const file of files) {
    const s = await stat(file).catch(() => undefined);
    parts.push(`${file}\0${s?.mtimeMs ?? -1}\0${s?.size ?? -1}`);
  }
  return parts.join('\n');
}

export interface AclFileWatcherOptions {
  paths: AclPaths;
  interval: number;
  clock: Clock;
  logger: Logger;
  /** Called once per detected change; a rejection is the caller's to log. */
  onChange: () => Promise<void>;
}

export class AclFileWatcher {
  private timer: TimerHandle | undefined;
  private last = '';
  private running = false;
  private ticking: Promise<void> = Promise.resolve();

  constructor(private readonly options: AclFileWatcherOptions) {}

  /** `current` is the snapshot the caller just loaded from. */
  start(current: string): void {
    this.last = current;
    this.running = true;
    this.schedule();
  }

  /** Records a change the caller made and loaded itself (an ACL admin request). */
  acknowledge(current: string): void {
    this.last = current;
  }

  /** Resolves when a check under way has finished (tests wait on it after advancing the clock). */
  get idle(): Promise<void> {
    return this.ticking;
  }

  stop(): void {
    this.running = false;
    this.timer?.cancel();
    this.timer = undefined;
  }

  private schedule(): void {
    if (!this.running) return;
    this.timer = this.options.clock.setTimeout(() => {
      this.ticking = this.tick().finally(() => this.schedule());
    }, this.options.interval);
  }

  private async tick(): Promise<void> {
    try {
      const now = await aclFilesSnapshot(this.options.paths);
      if (now === this.last) return;
      // Recorded before loading: a bad file is not retried until it changes again, as upstream.
      this.last = now;
      await this.options.onChange();
    } catch (error) {
      this.options.logger.error('AclFileWatchService service has exception', {
        error: error instanceof Error ? error.message : String(error),
      });
    }
  }
}
