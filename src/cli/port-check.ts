/**
 * A port that is already taken ends `rmq start` with one line naming the port, what it was for and
 * the flag that moves it (exit 1), instead of a bare EADDRINUSE — and before a large store spends
 * minutes recovering only to fail at listen().
 */
import { createServer, type Server } from 'node:net';
import { CliExitError } from './io.js';

/** A port the command opens, what it serves and the flag that changes it. */
export interface CommandPort {
  port: number;
  what: string;
  flag: string;
}

export class PortInUseError extends CliExitError {
  constructor(
    readonly port: number,
    readonly what: string,
    readonly flag: string,
  ) {
    super(`port ${port} (${what}) is already in use; pick another with ${flag} <port>`, 1);
    this.name = 'PortInUseError';
  }
}

function errnoCode(error: unknown): string | undefined {
  return typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string'
    ? error.code
    : undefined;
}

/**
 * The PortInUseError an EADDRINUSE from a listen() amounts to, or undefined when the error is
 * something else (or names no port of ours). Node puts the port on the error.
 */
export function portInUseFrom(error: unknown, ports: readonly CommandPort[]): PortInUseError | undefined {
  if (errnoCode(error) !== 'EADDRINUSE') return undefined;
  const port = (error as { port?: unknown }).port;
  const found = ports.find((p) => p.port !== 0 && p.port === port);
  return found === undefined ? undefined : new PortInUseError(found.port, found.what, found.flag);
}

function listenOnce(port: number, host: string | undefined): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen({ port, host, exclusive: true }, () => {
      server.off('error', reject);
      resolve(server);
    });
  });
}

/**
 * Binds every fixed port of `ports` on `host` as the servers will, all at once (so two of our own
 * ports that collide are caught too), then lets them go. Port 0 (any free port) is skipped. Throws
 * PortInUseError for the first one taken. A check, not a reservation: what grabs a port between
 * this and the real listen() still meets portInUseFrom.
 */
export async function checkPortsFree(ports: readonly CommandPort[], host: string | undefined): Promise<void> {
  const held: Server[] = [];
  try {
    for (const p of ports) {
      if (p.port === 0) continue;
      try {
        held.push(await listenOnce(p.port, host));
      } catch (error) {
        throw portInUseFrom(error, [p]) ?? error;
      }
    }
  } finally {
    await Promise.all(held.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
  }
}
