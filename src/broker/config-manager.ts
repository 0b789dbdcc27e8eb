/**
 * ConfigManager (`common/.../ConfigManager.java`): a table the broker keeps as one JSON file, loaded
 * at start and rewritten whole after changes.
 *
 * Loading follows upstream: an empty or unreadable main file falls back to `<file>.bak` (which each
 * write leaves behind), and a missing pair is a fresh start. One difference: upstream also starts
 * empty when the main file is corrupt and there is no `.bak`, which silently drops the table on the
 * next write; here that stops the start with an error naming the file.
 *
 * Writes (`writeFileAtomic`: tmp + fsync + .bak + rename) run one at a time. A write encodes the
 * table when it starts, so changes made while one is in flight are coalesced into the next.
 * A failed write is logged and the change stays in memory, as upstream.
 */
import { readFile } from 'node:fs/promises';
import { RocketMQError } from '../common/errors.js';
import type { Logger } from '../common/logger.js';
import { writeFileAtomic } from '../common/platform/atomic-file.js';

function errorCode(error: unknown): unknown {
  return (error as { code?: unknown }).code;
}

/** How config files are read and written; tests substitute an in-memory one. */
export interface ConfigFileIO {
  /** The file's text, or undefined when it does not exist. */
  read(file: string): Promise<string | undefined>;
  /** Replaces the file atomically, keeping the previous content as `<file>.bak`. */
  writeAtomic(file: string, content: string): Promise<void>;
}

export const NODE_CONFIG_FILE_IO: ConfigFileIO = {
  async read(file) {
    try {
      return await readFile(file, 'utf8');
    } catch (error) {
      const code = errorCode(error);
      if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
      throw error;
    }
  },
  writeAtomic: writeFileAtomic,
};

export abstract class ConfigManager {
  protected readonly logger: Logger;
  private readonly io: ConfigFileIO;
  private tail: Promise<void> = Promise.resolve();
  private queued: Promise<void> | undefined;

  constructor(logger: Logger, io: ConfigFileIO = NODE_CONFIG_FILE_IO) {
    this.logger = logger;
    this.io = io;
  }

  /** The file this table lives in. */
  abstract configFilePath(): string;

  /** The table as JSON (pretty for the file, compact for request bodies). */
  abstract encode(pretty?: boolean): string;

  /** Replaces or merges the table with the file's content; throws on malformed content. */
  protected abstract decode(json: string, file: string): void;

  /** Reads the file (or its .bak); rejects with a RocketMQError naming the file when neither loads. */
  async load(): Promise<void> {
    const file = this.configFilePath();
    let main: string | undefined;
    let mainError: unknown;
    try {
      main = await this.io.read(file);
      if (main !== undefined && main.length > 0) {
        this.decode(main, file);
        this.logger.info('config file loaded', { file });
        return;
      }
    } catch (error) {
      mainError = error;
      this.logger.error('config file failed to load, trying the backup', {
        file,
        error: (error as Error).message,
      });
    }
    const backup = `${file}.bak`;
    let bak: string | undefined;
    try {
      bak = await this.io.read(backup);
      if (bak !== undefined && bak.length > 0) {
        this.decode(bak, backup);
        this.logger.warn('config file loaded from its backup', { file: backup });
        return;
      }
    } catch (error) {
      throw new RocketMQError(`cannot load ${file} nor ${backup}: ${(error as Error).message}`, 1, {
        cause: error,
      });
    }
    if (mainError !== undefined) {
      throw new RocketMQError(
        `cannot load ${file} (${(mainError as Error).message}) and there is no backup; fix or remove the file`,
        1,
        { cause: mainError },
      );
    }
  }

  /**
   * Schedules a write of the table; resolves once a write that started after this call finished
   * (never rejects: a failure is logged).
   */
  persist(): Promise<void> {
    if (this.queued !== undefined) return this.queued;
    const next = this.tail.then(() => {
      this.queued = undefined;
      return this.writeNow();
    });
    this.queued = next;
    this.tail = next;
    return next;
  }

  /** Resolves once every scheduled write has finished. */
  flushed(): Promise<void> {
    return this.tail;
  }

  /** The file's content; called when a write starts. */
  protected encodeForFile(): string {
    return this.encode(true);
  }

  /** Called when a write failed (after logging it). */
  protected onPersistFailed(): void {}

  private async writeNow(): Promise<void> {
    const file = this.configFilePath();
    try {
      await this.io.writeAtomic(file, this.encodeForFile());
    } catch (error) {
      this.logger.error('persisting a config file failed', { file, error: (error as Error).message });
      this.onPersistFailed();
    }
  }
}
