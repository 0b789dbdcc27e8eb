/**
 * The address checks upstream's whitelists rely on: commons-validator's InetAddressValidator and
 * AclUtils.expandIP. Kept strict: an IPv6 address with a `/prefix` is refused, so CIDR notation is
 * never taken for an address in either family.
 */

/** Dotted quad, each part 0..255 without leading zeros (commons-validator 1.7). */
export function isValidInet4Address(text: string): boolean {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(text);
  if (m === null) return false;
  for (let i = 1; i <= 4; i++) {
    const part = m[i] as string;
    if (Number(part) > 255) return false;
    if (part.length > 1 && part.startsWith('0')) return false;
  }
  return true;
}

const IPV6_MAX_GROUPS = 8;

/** Eight hex groups, one `::` at most, an IPv4 tail allowed, a `%zone` allowed, no `/prefix`. */
export function isValidInet6Address(text: string): boolean {
  if (text.includes('/')) return false;
  const zone = text.split('%');
  if (zone.length > 2) return false;
  if (zone.length === 2 && !/^[^\s/%]+$/.test(zone[1] as string)) return false;
  const address = zone[0] as string;
  const compressed = address.includes('::');
  if (compressed && address.indexOf('::') !== address.lastIndexOf('::')) return false;
  if (
    (address.startsWith(':') && !address.startsWith('::')) ||
    (address.endsWith(':') && !address.endsWith('::'))
  ) {
    return false;
  }
  // Java's split drops trailing empty strings; the list is then fixed up for `::` at either end.
  const octets = address.split(':');
  while (octets.length > 0 && octets[octets.length - 1] === '') octets.pop();
  if (compressed) {
    if (address.endsWith('::')) octets.push('');
    else if (address.startsWith('::') && octets.length > 0) octets.shift();
  }
  if (octets.length > IPV6_MAX_GROUPS) return false;
  let valid = 0;
  let empty = 0;
  for (let i = 0; i < octets.length; i++) {
    const octet = octets[i] as string;
    if (octet.length === 0) {
      empty++;
      if (empty > 1) return false;
    } else {
      empty = 0;
      if (i === octets.length - 1 && octet.includes('.')) {
        if (!isValidInet4Address(octet)) return false;
        valid += 2;
        continue;
      }
      if (!/^[0-9a-fA-F]{1,4}$/.test(octet)) return false;
    }
    valid++;
  }
  return !(valid > IPV6_MAX_GROUPS || (valid < IPV6_MAX_GROUPS && !compressed));
}

/**
 * AclUtils.expandIP: upper case, `::` widened to the missing groups, each group left-padded to four
 * digits. `parts` is how many groups the result should have (8 for a whole address).
 */
export function expandIP(address: string, parts: number): string {
  let text = address.toUpperCase();
  const separators = text.split(':').length - 1;
  const pad = parts - separators;
  if (pad > 0) text = text.split('::').join(':'.repeat(pad + 1));
  return text
    .split(':')
    .map((g) => (g.length < 4 ? g.padStart(4, '0') : g))
    .join(':');
}

/**
 * The address a whitelist is matched against: upstream drops everything from the last `:` (the
 * port); our connections write IPv6 peers as `[host]:port`, so the brackets go too.
 */
export function whiteRemoteAddressOf(remoteAddr: string): string {
  const colon = remoteAddr.lastIndexOf(':');
  let host = colon < 0 ? remoteAddr : remoteAddr.slice(0, colon);
  if (host.startsWith('[') && host.endsWith(']')) host = host.slice(1, -1);
  if (host.startsWith('::ffff:') && host.includes('.')) host = host.slice(7);
  return host;
}
