/**
 * The recovery progress line a terminal shows while a large store comes back: bytes scanned of the
 * estimate, percent and ETA, rewritten in place; ended with a newline when the scan is done. Not
 * shown when stdout is not a terminal (logs and scripts get the store's "commit log recovered" log).
 */
import type { RecoveryProgress, RecoveryProgressListener } from '../store/recovery-progress.js';
import type { CliIO } from './io.js';

const UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];

export function formatBytes(bytes: number): string {
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit++;
  }
  return unit === 0 ? `${value} B` : `${value.toFixed(1)} ${UNITS[unit]}`;
}

export function formatDuration(ms: number): string {
  const s = Math.ceil(ms / 1000);
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  return m < 60 ? `${m} min ${s % 60} s` : `${Math.floor(m / 60)} h ${m % 60} min`;
}

/** One progress line, without the carriage return. */
export function formatRecoveryProgress(p: RecoveryProgress): string {
  const percent = p.totalBytes === 0 ? 100 : Math.floor((p.scannedBytes / p.totalBytes) * 100);
  const head = `recovering the commit log: ${formatBytes(p.scannedBytes)} of ${formatBytes(p.totalBytes)} (${percent} %)`;
  if (p.done) return `${head} in ${formatDuration(p.elapsedMs)}`;
  if (p.scannedBytes === 0 || p.elapsedMs === 0) return `${head}, ETA unknown`;
  const etaMs = (p.elapsedMs * (p.totalBytes - p.scannedBytes)) / p.scannedBytes;
  return `${head}, ETA ${formatDuration(etaMs)}`;
}

/** The listener that draws the line on `io.out`, or undefined when `io` is not a terminal. */
export function recoveryProgressPrinter(io: CliIO): RecoveryProgressListener | undefined {
  if (io.isTTY !== true) return undefined;
  let width = 0;
  return (p) => {
    const line = formatRecoveryProgress(p);
    // Pads over the rest of a longer previous line (no terminal escape codes needed).
    const padded = line.padEnd(width);
    width = line.length;
    io.out(`\r${padded}${p.done ? '\n' : ''}`);
  };
}
