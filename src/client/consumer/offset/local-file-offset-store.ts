/**
 * LocalFileOffsetStore: a broadcasting consumer's offsets, kept in memory and in
 * `<localOffsetStoreDir>/<clientId>/<group>/offsets.json` in upstream's format (OffsetSerializeWrapper,
 * pretty), so a Java client with the same client id and group reads what we wrote and the other way
 * round. Each write replaces the file atomically and keeps the previous one as `offsets.json.bak`;
 * a missing, empty or unreadable file falls back to the backup, as upstream's readLocalOffsetBak.
 *
 * As upstream, persistAll reads the file and overwrites only the held queues, so offsets of queues
 * held earlier stay in it. Writes are serialised: a persist on drop and the periodic persistAll
 * never interleave their read-modify-write.
 */
import { readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { ErrorCode } from '../../../common/errors.js';
import type { Logger } from '../../../common/logger.js';
import type { MessageQueue } from '../../../common/message/message-queue.js';
import { writeFileAtomic } from '../../../common/platform/atomic-file.js';
import {
  decodeOffsetSerializeWrapper,
  encodeOffsetSerializeWrapper,
} from '../../../common/protocol/offset-serialize-wrapper.js';
import { errorText, MQClientError } from '../../errors.js';
import { type OffsetStore, ReadOffsetType } from './offset-store.js';
import { heldQueueKeys, OffsetTable } from './offset-table.js';

const OFFSETS_FILE = 'offsets.json';

/** Upstream's default of `rocketmq.client.localOffsetStoreDir`: `~/.rocketmq_offsets`. */
export function defaultLocalOffsetStoreDir(): string {
  return join(homedir(), '.rocketmq_offsets');
}

/** upstream's storePath: `<dir>/<clientId>/<group>/offsets.json`. */
export function localOffsetStorePath(dir: string, clientId: string, groupName: string): string {
  return join(dir, clientId, groupName, OFFSETS_FILE);
}

/** Neither the offset file nor its backup can be read (upstream: "readLocalOffset Exception"). */
export class LocalOffsetFileError extends MQClientError {
  /** The file that could not be read. */
  readonly file: string;

  constructor(file: string, cause: unknown) {
    super(`readLocalOffset failed: ${file} cannot be read: ${errorText(cause)}`, undefined, {
      cause,
      code: ErrorCode.OFFSET_FILE,
    });
    this.file = file;
  }
}

export interface LocalFileOffsetStoreOptions {
  readonly clientId: string;
  readonly groupName: string;
  readonly logger: Logger;
  /** The directory of every client's offset files [~/.rocketmq_offsets]. */
  readonly localOffsetStoreDir?: string | undefined;
}

type OffsetEntries = Array<[MessageQueue, bigint]>;

export class LocalFileOffsetStore implements OffsetStore {
  /** The offset file; its backup is `${storePath}.bak`. */
  readonly storePath: string;
  private readonly groupName: string;
  private readonly logger: Logger;
  private readonly offsetTable = new OffsetTable();
  /** The last write in progress; the next one starts after it. */
  private writing: Promise<void> = Promise.resolve();

  constructor(options: LocalFileOffsetStoreOptions) {
    this.groupName = options.groupName;
    this.logger = options.logger.child('offset-store');
    this.storePath = localOffsetStorePath(
      options.localOffsetStoreDir ?? defaultLocalOffsetStoreDir(),
      options.clientId,
      options.groupName,
    );
  }

  /** Loads the file (or its backup) into memory. Throws LocalOffsetFileError when neither can be read. */
  async load(): Promise<void> {
    const entries = await this.readLocalOffset();
    if (entries === undefined) return;
    for (const [mq, offset] of entries) this.offsetTable.update(mq, offset, false);
    this.logger.info('load consumer offsets', {
      group: this.groupName,
      file: this.storePath,
      queues: entries.length,
    });
  }

  updateOffset(mq: MessageQueue, offset: bigint, increaseOnly: boolean): void {
    this.offsetTable.update(mq, offset, increaseOnly);
  }

  updateAndFreezeOffset(mq: MessageQueue, offset: bigint): void {
    this.offsetTable.updateAndFreeze(mq, offset);
  }

  readOffsetInMemory(mq: MessageQueue): bigint {
    return this.offsetTable.get(mq) ?? -1n;
  }

  /** From the store: the file's offset, also kept in memory; -1 when the file has none or cannot be read. */
  async readOffset(mq: MessageQueue, type: ReadOffsetType): Promise<bigint> {
    if (type !== ReadOffsetType.READ_FROM_STORE) {
      const inMemory = this.offsetTable.get(mq);
      if (inMemory !== undefined) return inMemory;
      if (type === ReadOffsetType.READ_FROM_MEMORY) return -1n;
    }
    let entries: OffsetEntries | undefined;
    try {
      entries = await this.readLocalOffset();
    } catch {
      // readLocalOffset logged which file failed.
      return -1n;
    }
    const found = entries?.find(([q]) => q.equals(mq));
    if (found === undefined) return -1n;
    this.offsetTable.update(mq, found[1], false);
    return found[1];
  }

  /** Writes the held queues' offsets over those in the file. Resolves once the file is replaced. */
  persistAll(mqs: ReadonlySet<string> | readonly MessageQueue[]): Promise<void> {
    const held = heldQueueKeys(mqs);
    if (held.size === 0) return Promise.resolve();
    return this.exclusive(() =>
      this.writeOver(
        this.offsetTable.entries().filter(([mq]) => held.has(mq.key)),
        'persistAll',
      ),
    );
  }

  persist(mq: MessageQueue): Promise<void> {
    const offset = this.offsetTable.get(mq);
    if (offset === undefined) return Promise.resolve();
    return this.exclusive(() => this.writeOver([[mq, offset]], 'persist'));
  }

  removeOffset(mq: MessageQueue): void {
    this.offsetTable.remove(mq);
    this.logger.info('remove unnecessary messageQueue offset', {
      group: this.groupName,
      mq: mq.toString(),
      offsetTableSize: this.offsetTable.size,
    });
  }

  cloneOffsetTable(topic: string | undefined): Array<[MessageQueue, bigint]> {
    return this.offsetTable.clone(topic);
  }

  /** Broadcasting offsets never go to a broker. */
  async updateConsumeOffsetToBroker(_mq: MessageQueue, _offset: bigint, _oneway: boolean): Promise<void> {}

  private exclusive(work: () => Promise<void>): Promise<void> {
    const run = this.writing.then(work);
    this.writing = run.catch(() => {});
    return run;
  }

  /**
   * The file's table with `updates` put over it, written back. Unlike upstream, which gives up when
   * neither file can be read (and so never writes again), the offsets in memory are written then:
   * they are all that is left.
   */
  private async writeOver(updates: OffsetEntries, what: string): Promise<void> {
    let current: OffsetEntries;
    try {
      current = (await this.readLocalOffset()) ?? [];
    } catch {
      this.logger.error('offset files unreadable, rewriting them from memory', {
        group: this.groupName,
        file: this.storePath,
      });
      current = [];
    }
    try {
      await writeFileAtomic(
        this.storePath,
        encodeOffsetSerializeWrapper([...current, ...updates], { pretty: true }),
      );
    } catch (error) {
      this.logger.error(
        `${what} consumer offset failed`,
        {
          group: this.groupName,
          file: this.storePath,
          error: errorText(error),
        },
        error,
      );
    }
  }

  /** The file's entries; the backup's when the file is missing, empty or unreadable; undefined when neither exists. */
  private async readLocalOffset(): Promise<OffsetEntries | undefined> {
    const content = await this.readText(this.storePath);
    if (content === undefined || content.length === 0) return this.readLocalOffsetBak();
    try {
      return decodeOffsetSerializeWrapper(content, this.storePath);
    } catch (error) {
      this.logger.error(
        'local offset file unreadable, trying its backup',
        {
          group: this.groupName,
          file: this.storePath,
          error: errorText(error),
        },
        error,
      );
      return this.readLocalOffsetBak();
    }
  }

  private async readLocalOffsetBak(): Promise<OffsetEntries | undefined> {
    const bak = `${this.storePath}.bak`;
    const content = await this.readText(bak);
    if (content === undefined || content.length === 0) return undefined;
    try {
      return decodeOffsetSerializeWrapper(content, bak);
    } catch (error) {
      this.logger.error(
        'local offset backup file unreadable',
        {
          group: this.groupName,
          file: bak,
          error: errorText(error),
        },
        error,
      );
      throw new LocalOffsetFileError(bak, error);
    }
  }

  /** The file's text; undefined when it does not exist, or (with a warn line) cannot be read. */
  private async readText(file: string): Promise<string | undefined> {
    try {
      return await readFile(file, 'utf8');
    } catch (error) {
      if ((error as { code?: unknown }).code !== 'ENOENT') {
        this.logger.warn(
          'cannot read local offset file',
          {
            group: this.groupName,
            file,
            error: errorText(error),
          },
          error,
        );
      }
      return undefined;
    }
  }
}
