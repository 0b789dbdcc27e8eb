/**
 * Upstream's HandshakeHandler decision: the first byte a client sends tells a TLS ClientHello from
 * a plaintext remoting frame on the same port, and the server's tlsMode says which it serves.
 */
import type { TlsMode } from './tls-settings.js';

/**
 * TLS record content type 22 (handshake), the first byte of every ClientHello (upstream's
 * HANDSHAKE_MAGIC_CODE). A plaintext frame starts with its 4-byte big-endian length, whose first
 * byte is 0 for any frame under 16 MiB, so the two never meet.
 */
export const HANDSHAKE_MAGIC_CODE = 0x16;

export type ConnectionKind = 'tls' | 'plaintext';

export function detectConnectionKind(firstByte: number): ConnectionKind {
  return firstByte === HANDSHAKE_MAGIC_CODE ? 'tls' : 'plaintext';
}

export type Admission = { readonly admit: true } | { readonly admit: false; readonly reason: string };

const ADMIT: Admission = Object.freeze({ admit: true });

/** Whether a server in `mode` serves a connection of `kind`; a refusal says why, as upstream logs it. */
export function admitConnection(mode: TlsMode, kind: ConnectionKind): Admission {
  if (kind === 'tls' && mode === 'disabled') {
    return {
      admit: false,
      reason:
        'Clients intend to establish an SSL connection while this server is running in SSL disabled mode',
    };
  }
  if (kind === 'plaintext' && mode === 'enforcing') {
    return {
      admit: false,
      reason:
        'Clients intend to establish an insecure connection while this server is running in SSL enforcing mode',
    };
  }
  return ADMIT;
}
