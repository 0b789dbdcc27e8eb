/**
 * The Host header check of our HTTP servers (the dashboard, the broker's /metrics): an IP address,
 * `localhost` or a name the operator allowed. A page of another site whose name was rebound to
 * 127.0.0.1 sends its own name and is refused (DNS rebinding), so it cannot read topic names or
 * drive the dashboard through the operator's browser.
 */
import { isIP } from 'node:net';

export type HostCheck = (host: string | undefined) => boolean;

/** A check allowing IP addresses, `localhost` and `allowed` (case-insensitive, without port). */
export function hostCheck(allowed: readonly string[]): HostCheck {
  const names = new Set(['localhost', ...allowed.map((h) => h.trim().toLowerCase()).filter((h) => h !== '')]);
  return (host) => {
    // HTTP/1.0 requests may omit Host; a browser always sends one, so no rebinding rides on them.
    if (host === undefined) return true;
    const name = host.startsWith('[') ? host.slice(1, host.indexOf(']')) : (host.split(':')[0] ?? '');
    return isIP(name) !== 0 || names.has(name.toLowerCase());
  };
}

/** The remark of a refused Host, naming the setting that allows it. */
export function hostRefusal(setting: string): string {
  return `Host not allowed: add it to ${setting}`;
}
