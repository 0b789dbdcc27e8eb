/**
 * The host's own address as upstream's `RemotingUtil.getLocalAddress` picks it: the broker's default
 * brokerIP1 and a client's default clientIP (and so its client id) must come out the same as a Java
 * peer's on the same host.
 */
import { networkInterfaces } from 'node:os';

/**
 * The first non-loopback IPv4 address that is not 127.0.* or 192.168.*, else the last non-loopback
 * IPv4, else the first IPv6, else 127.0.0.1. (Upstream also skips bridge interfaces, which Node cannot
 * tell apart.)
 */
export function localAddress(): string {
  const ipv4: string[] = [];
  const ipv6: string[] = [];
  for (const addresses of Object.values(networkInterfaces())) {
    for (const a of addresses ?? []) {
      if (a.internal) continue;
      if (a.family === 'IPv4') ipv4.push(a.address);
      else ipv6.push(a.address);
    }
  }
  const preferred = ipv4.find((ip) => !ip.startsWith('127.0') && !ip.startsWith('192.168'));
  return preferred ?? ipv4[ipv4.length - 1] ?? ipv6[0] ?? '127.0.0.1';
}
