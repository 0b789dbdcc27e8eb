/**
 * `--tls`, `--tls-ca <file>` and `--tls-insecure` of the commands that are clients (`rmq admin`,
 * `rmq dashboard`) as one client `tls` option: verify the server (the system CAs, or the PEM file
 * given), or with --tls-insecure accept any server certificate, as upstream's tools do.
 */
import { readFileSync } from 'node:fs';
import type { TlsClientOptions } from '../remoting/transport/tls-settings.js';

/** Undefined without any TLS flag; an error message when the flags do not fit together. */
export function tlsOptionOfFlags(
  tls: boolean,
  caFile: string | undefined,
  insecure: boolean,
): TlsClientOptions | undefined {
  if (!tls && caFile === undefined && !insecure) return undefined;
  if (caFile !== undefined && insecure) throw new Error('--tls-ca and --tls-insecure contradict each other');
  if (insecure) return { rejectUnauthorized: false };
  if (caFile === undefined) return {};
  let ca: Buffer;
  try {
    ca = readFileSync(caFile);
  } catch (error) {
    throw new Error(`--tls-ca ${caFile}: ${error instanceof Error ? error.message : String(error)}`);
  }
  return { ca };
}
