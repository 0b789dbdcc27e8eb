/**
 * The store's `lock` file (upstream DefaultMessageStore takes an OS file lock on it in start()).
 * Node has no advisory file locks, so exclusion works in two layers: a registry of the store roots
 * this process has open, and the owner's pid written into the lock file after upstream's "lock"
 * marker. A pid that is alive and not ours means another process has the store open; a stale pid
 * (the owner crashed) is taken over. Upstream never reads the file, so the extra text is harmless to
 * the official broker, and a clean release leaves exactly upstream's content.
 */

import * as fs from 'node:fs';
import { dirname, resolve } from 'node:path';
import { StorePath } from './config.js';
import { describeError, fsyncDirectory } from './file-io.js';
import { StoreIOError } from './store-error.js';

const LOCK_MARKER = 'lock';
const OWNER = /\bpid=(\d{1,10})\b/;
const heldRoots = new Set<string>();

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: the process exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export class StoreLock {
  readonly path: string;
  private readonly root: string;
  private fd: number;

  private constructor(root: string, path: string, fd: number) {
    this.root = root;
    this.path = path;
    this.fd = fd;
  }

  /** Takes the store at `storePathRootDir`; throws StoreIOError naming the holder when it is taken. */
  static acquire(storePathRootDir: string): StoreLock {
    const root = resolve(storePathRootDir);
    const path = StorePath.lock(root);
    if (heldRoots.has(root)) {
      throw new StoreIOError(path, 'the store is already open in this process');
    }
    let fd: number;
    try {
      fs.mkdirSync(dirname(path), { recursive: true });
      fd = fs.openSync(path, fs.constants.O_RDWR | fs.constants.O_CREAT, 0o644);
    } catch (err) {
      throw new StoreIOError(path, `cannot open the lock file: ${describeError(err)}`, { cause: err });
    }
    try {
      const head = Buffer.alloc(64);
      const n = fs.readSync(fd, head, 0, head.length, 0);
      const owner = OWNER.exec(head.toString('latin1', 0, n));
      const pid = owner === null ? 0 : Number(owner[1]);
      if (pid > 0 && pid !== process.pid && isAlive(pid)) {
        throw new StoreIOError(
          path,
          `the store is in use by process ${pid} (if no broker uses this directory, remove "pid=${pid}" from the file)`,
        );
      }
      fs.ftruncateSync(fd, 0);
      fs.writeSync(fd, `${LOCK_MARKER} pid=${process.pid}\n`, 0);
      fs.fsyncSync(fd);
      fsyncDirectory(dirname(path));
    } catch (err) {
      fs.closeSync(fd);
      if (err instanceof StoreIOError) throw err;
      throw new StoreIOError(path, `cannot write the lock file: ${describeError(err)}`, { cause: err });
    }
    heldRoots.add(root);
    return new StoreLock(root, path, fd);
  }

  /** Leaves upstream's content ("lock") and lets the store be opened again. */
  release(): void {
    if (this.fd < 0) return;
    try {
      fs.ftruncateSync(this.fd, 0);
      fs.writeSync(this.fd, LOCK_MARKER, 0);
      fs.fsyncSync(this.fd);
    } catch {
      // The pid left behind belongs to this process, which is about to stop using the store.
    } finally {
      fs.closeSync(this.fd);
      this.fd = -1;
      heldRoots.delete(this.root);
    }
  }
}
