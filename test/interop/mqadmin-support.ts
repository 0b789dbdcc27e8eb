/**
 * What the mqadmin suites share: our name server and broker on loopback, a RemotingClient for the
 * requests a test sends itself (heartbeats, offset commits), and an `admin()` that runs the official
 * mqadmin of the given line and fails the test unless the command succeeded.
 */
import { createLogger } from '../../src/common/logger.js';
import { RemotingClient } from '../../src/remoting/transport/index.js';
import { mqadmin, type UpstreamLine } from './harness.js';
import { type LoopbackPair, startLoopbackPair } from './loopback-pair.js';

export interface AdminPeer {
  readonly pair: LoopbackPair;
  readonly client: RemotingClient;
  /** Runs mqadmin against the pair; resolves with its stdout. */
  admin(...args: string[]): Promise<string>;
  close(): Promise<void>;
}

export async function startAdminPeer(name: string, upstream: UpstreamLine): Promise<AdminPeer> {
  const pair = await startLoopbackPair(name);
  // The broker notifies this client of group changes (code 40); it has nothing to do with them.
  const client = new RemotingClient({}, { logger: createLogger(`${name}-client`, { level: 'error' }) });
  return {
    pair,
    client,
    async admin(...args: string[]): Promise<string> {
      const r = await mqadmin(pair.namesrvAddr, args, 60_000, { upstream });
      const printed = `${r.stdout}\n${r.stderr.slice(-3000)}`;
      if (r.exitCode !== 0) throw new Error(`mqadmin ${args.join(' ')} exited ${r.exitCode}:\n${printed}`);
      // mqadmin prints a failed command's exception and may still exit 0
      if (/Exception|not supported/.test(`${r.stdout}\n${r.stderr}`)) {
        throw new Error(`mqadmin ${args.join(' ')} failed:\n${printed}`);
      }
      return r.stdout;
    },
    async close(): Promise<void> {
      await client.close();
      await pair.close();
    },
  };
}
