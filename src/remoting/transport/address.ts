/**
 * Peer addresses as RocketMQ writes them: `host:port`, with IPv6 hosts in brackets (`[::1]:9876`).
 * A bare IPv6 host (`::1:9876`) is also accepted because Java splits on the last colon.
 */
import { ValidationError } from '../../common/errors.js';

export interface HostPort {
  host: string;
  port: number;
}

export function parseAddress(address: string): HostPort {
  const colon = address.lastIndexOf(':');
  if (colon <= 0 || colon === address.length - 1) {
    throw new ValidationError(`address "${address}" is not host:port`);
  }
  let host = address.slice(0, colon);
  if (host.startsWith('[')) {
    if (!host.endsWith(']') || host.length < 3)
      throw new ValidationError(`address "${address}" has a bad IPv6 host`);
    host = host.slice(1, -1);
  }
  const portText = address.slice(colon + 1);
  const port = Number(portText);
  if (!/^\d{1,5}$/.test(portText) || port > 65535) {
    throw new ValidationError(`address "${address}" has a bad port "${portText}"`);
  }
  return { host, port };
}

/**
 * Formats a socket's host and port; IPv4-mapped IPv6 hosts (a dual-stack listener's view of an IPv4
 * peer) are shown as plain IPv4, as Java shows them.
 */
export function formatAddress(host: string, port: number): string {
  const plain = host.startsWith('::ffff:') && host.includes('.') ? host.slice(7) : host;
  return plain.includes(':') ? `[${plain}]:${port}` : `${plain}:${port}`;
}
