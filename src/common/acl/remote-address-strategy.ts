/**
 * upstream's RemoteAddressStrategyFactory: the whitelist formats of plain_acl.yml
 * (`globalWhiteRemoteAddresses` and an account's `whiteRemoteAddress`), each parsed once when the
 * file loads and matched against the peer's address (port removed). The formats and the refusals,
 * messages included, are upstream's; CIDR (`10.0.0.0/8`) is not one of them and is refused.
 */
import { AclException, AclFrame } from './acl-exception.js';
import { expandIP, isValidInet4Address, isValidInet6Address } from './inet-address.js';
import { splitTokens } from './permission.js';

export interface RemoteAddressStrategy {
  /** `address` is the peer's host without port. */
  match(address: string): boolean;
}

function refuse(message: string): never {
  throw new AclException(message, AclFrame.remoteAddress);
}

function scopeError(address: string): never {
  refuse(`Netaddress examine scope Exception netaddress is ${address}`);
}

/** Matches nothing: a blank whitelist means "always check the signature". */
export const BLANK_STRATEGY: RemoteAddressStrategy = { match: () => false };
/** `*`, `*.*.*.*`, `*:*:*:*:*:*:*:*`: every peer. */
export const NULL_STRATEGY: RemoteAddressStrategy = { match: () => true };

class OneRemoteAddressStrategy implements RemoteAddressStrategy {
  private readonly expanded: string;

  constructor(address: string) {
    if (!(isValidInet4Address(address) || isValidInet6Address(address))) {
      refuse(`Netaddress examine Exception netaddress is ${address}`);
    }
    this.expanded = expandIP(address, 8).toUpperCase();
  }

  match(address: string): boolean {
    return expandIP(address, 8).toUpperCase() === this.expanded;
  }
}

class MultipleRemoteAddressStrategy implements RemoteAddressStrategy {
  private readonly addresses = new Set<string>();

  constructor(addresses: readonly string[]) {
    for (const a of addresses) {
      if (isValidInet4Address(a)) this.addresses.add(a);
      else if (isValidInet6Address(a)) this.addresses.add(expandIP(a, 8));
      else refuse(`Netaddress examine Exception netaddress is ${a}`);
    }
  }

  match(address: string): boolean {
    return this.addresses.has(isValidInet6Address(address) ? expandIP(address, 8) : address);
  }
}

function isScope(n: number): boolean {
  return n >= 0 && n <= 255;
}

function isIPv6Scope(n: number): boolean {
  return n >= 0 && n <= 0xffff;
}

function parseDecimal(text: string, address: string): number {
  const t = text.trim();
  if (!/^[+-]?\d+$/.test(t)) scopeError(address);
  return Number.parseInt(t, 10);
}

function parseHex(text: string, address: string): number {
  const t = text.trim();
  if (!/^[+-]?[0-9a-fA-F]+$/.test(t)) scopeError(address);
  return Number.parseInt(t, 16);
}

/** AclUtils.verify: the parts before the range are in range (and an IPv4 pattern has four parts). */
function verify(address: string, index: number): void {
  if (address.includes(':')) {
    const parts = splitTokens(expandIP(address, 8), ':');
    for (let i = 0; i < index; i++) {
      const p = parts[i];
      if (p === undefined || !/^[0-9a-fA-F]+$/.test(p) || !isIPv6Scope(Number.parseInt(p, 16))) {
        scopeError(address);
      }
    }
    return;
  }
  const parts = splitTokens(address, '.');
  if (parts.length !== 4) scopeError(address);
  for (let i = 0; i < index; i++) {
    if (!isScope(parseDecimal(parts[i] as string, address))) scopeError(address);
  }
}

/** AclUtils.IPv6AddressCheck: `*` only at the end, a range only in the last (or last but `*`) group. */
function ipv6AddressCheck(address: string): void {
  const asterisk = address.indexOf('*');
  const minus = address.indexOf('-');
  if (asterisk < 0 && minus < 0) return;
  if (asterisk > -1 && asterisk !== address.length - 1) scopeError(address);
  if (minus > -1) {
    const last = address.lastIndexOf(':');
    const bound = asterisk === -1 ? last : address.lastIndexOf(':', last - 1);
    if (minus <= bound) scopeError(address);
  }
}

/** AclUtils.v6ipProcess: the fixed groups before the range, expanded. */
function v6ipProcess(address: string): string {
  const hasAsterisk = address.includes('*');
  const hasMinus = address.includes('-');
  if (hasAsterisk && hasMinus) {
    const last = address.lastIndexOf(':');
    const second = address.slice(0, last).lastIndexOf(':');
    return expandIP(address.slice(0, second), 6);
  }
  if (!hasAsterisk && !hasMinus) return expandIP(address, 8);
  return expandIP(address.slice(0, address.lastIndexOf(':')), 7);
}

/**
 * `192.168.1.1-100`, `192.168.*.*`, `10.10.103.*` (the first `*` or `a-b` among octets 2..4 is the
 * range, the octets after it are not looked at), and IPv6 ranges in hex with `*` last.
 */
class RangeRemoteAddressStrategy implements RemoteAddressStrategy {
  private head: string | undefined;
  private start = 0;
  private end = 0;
  private index = 0;

  constructor(address: string) {
    if (address.includes(':')) {
      ipv6AddressCheck(address);
      const parts = splitTokens(address, ':');
      for (let i = 1; i < parts.length; i++) {
        if (this.analyse(parts, i, address, true)) {
          verify(address, this.index - 1);
          const pre = v6ipProcess(address);
          this.index = splitTokens(pre, ':').length;
          this.head = pre;
          break;
        }
      }
    } else {
      const parts = splitTokens(address, '.');
      if (parts.length < 4) scopeError(address);
      if (
        this.analyse(parts, 1, address, false) ||
        this.analyse(parts, 2, address, false) ||
        this.analyse(parts, 3, address, false)
      ) {
        verify(address, this.index - 1);
        this.head = parts
          .slice(0, this.index)
          .map((p) => `${p.trim()}.`)
          .join('');
      }
    }
  }

  private analyse(parts: readonly string[], index: number, address: string, v6: boolean): boolean {
    const value = (parts[index] as string).trim();
    this.index = index;
    if (value === '*') {
      this.start = 0;
      this.end = v6 ? 0xffff : 255;
    } else if (value.includes('-')) {
      if (value.startsWith('-')) {
        refuse(`RangeRemoteAddressStrategy netaddress examine scope Exception value ${value} `);
      }
      const bounds = splitTokens(value, '-');
      if (bounds.length < 2) scopeError(address);
      const parse = v6 ? parseHex : parseDecimal;
      this.start = parse(bounds[0] as string, address);
      this.end = parse(bounds[1] as string, address);
      const inScope = v6 ? isIPv6Scope : isScope;
      if (!(inScope(this.end) && inScope(this.start) && this.start <= this.end)) {
        refuse(
          `RangeRemoteAddressStrategy netaddress examine scope Exception start is ${this.start} , end is ${this.end}`,
        );
      }
    }
    return this.end > 0;
  }

  match(address: string): boolean {
    const head = this.head;
    if (head === undefined) return false;
    let value: string;
    let radix: number;
    if (isValidInet4Address(address)) {
      if (!address.startsWith(head)) return false;
      const lastDot = address.lastIndexOf('.');
      if (this.index === 3) value = address.slice(head.length);
      else if (this.index === 2) value = address.slice(head.length, lastDot);
      else value = address.slice(head.length, address.lastIndexOf('.', lastDot - 1));
      radix = 10;
    } else if (isValidInet6Address(address)) {
      const expanded = expandIP(address, 8).toUpperCase();
      if (!expanded.startsWith(head)) return false;
      value = expanded.slice(5 * this.index, 5 * this.index + 4);
      radix = 16;
    } else {
      return false;
    }
    const n = Number.parseInt(value, radix);
    return !Number.isNaN(n) && n >= this.start && n <= this.end;
  }
}

/** Expands `prefix{a,b}` into `prefix` + each entry (AclUtils.getAddresses). */
function braceAddresses(address: string, last: string): string[] {
  const prefix = address.slice(0, address.indexOf('{'));
  return splitTokens(last.slice(1, -1), ',').map((p) => prefix + p);
}

/** One whitelist entry into its strategy; throws AclException (upstream's message) for a bad one. */
export function getRemoteAddressStrategy(entry: string | undefined | null): RemoteAddressStrategy {
  if (entry === undefined || entry === null || entry.trim() === '') return BLANK_STRATEGY;
  if (entry === '*' || entry === '*.*.*.*' || entry === '*:*:*:*:*:*:*:*') return NULL_STRATEGY;
  if (entry.endsWith('}')) {
    const v6 = entry.includes(':');
    const parts = splitTokens(entry, v6 ? ':' : '.');
    if (!v6 && parts.length < 4) refuse('MultipleRemoteAddressStrategy has got a/some wrong format IP(s) ');
    const last = parts[parts.length - 1] ?? '';
    if (!last.startsWith('{'))
      refuse('MultipleRemoteAddressStrategy netaddress examine scope Exception netaddress');
    return new MultipleRemoteAddressStrategy(braceAddresses(entry, last));
  }
  if (entry.includes(',')) return new MultipleRemoteAddressStrategy(splitTokens(entry, ','));
  if (entry.includes('*') || entry.includes('-')) return new RangeRemoteAddressStrategy(entry);
  return new OneRemoteAddressStrategy(entry);
}
