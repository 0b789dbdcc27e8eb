/**
 * Disk figures the runtime info reports, as Java's File methods and UtilAll give them: total space
 * (getTotalSpace), free blocks (getFreeSpace), blocks this user may use (getUsableSpace), and
 * upstream's rounded-up used ratio.
 */
import fs from 'node:fs';

export interface DiskSpace {
  total: number;
  free: number;
  usable: number;
}

/** The space of the file system holding `path`; undefined when the path does not exist. */
export function diskSpace(path: string): DiskSpace | undefined {
  try {
    const s = fs.statfsSync(path);
    return { total: s.blocks * s.bsize, free: s.bfree * s.bsize, usable: s.bavail * s.bsize };
  } catch {
    return undefined;
  }
}

/**
 * Upstream `UtilAll.getDiskPartitionSpaceUsedPercent`: used / (used + usable) rounded up to a
 * hundredth, -1 for a blank or missing path (or a file system reporting no space).
 */
export function diskPartitionSpaceUsedPercent(path: string): number {
  if (path === '') return -1;
  const space = diskSpace(path);
  if (space === undefined || space.total <= 0) return -1;
  const used = BigInt(space.total - space.free);
  const entire = used + BigInt(space.usable);
  if (entire === 0n) return -1;
  const round = (used * 100n) % entire === 0n ? 0n : 1n;
  return Number((used * 100n) / entire + round) / 100;
}
