/**
 * Settings of the broker's HTTP servers (web dashboard, Prometheus `/metrics`), ours: upstream has
 * no such server. Their defaults, how they parse and what they must be.
 */
import { DEFAULT_HTTP_HOST } from '../common/platform/http-server.js';
import { type ConfigKeySpec, INT, ownedBy, STR } from './broker-config-keys.js';

export interface BrokerHttpConfig {
  /**
   * Port of the broker's HTTP server for the web dashboard, which also serves Prometheus `/metrics`;
   * -1 [default] is off (upstream has no such server), 0 any free port. `rmq start` sets 8080.
   * Read at start.
   */
  dashboardPort: number;
  /** Interface of the dashboard and metrics servers [127.0.0.1]; `0.0.0.0` exposes them. Read at start. */
  dashboardHost: string;
  /**
   * Port of a server answering only `/metrics`, for a scrape port apart from the dashboard's; -1
   * [default] is off, 0 any free port; equal to dashboardPort, the one server serves both. Read at start.
   */
  metricsPort: number;
  /**
   * Host names `/metrics` answers to besides IP addresses and `localhost`, comma-separated (the name
   * Prometheus scrapes by); any other Host is refused with 403, as the dashboard does [none]. Read
   * at start.
   */
  httpAllowedHosts: string;
}

const ours = ownedBy('rocketmq-ts');

/** The HTTP keys broker.conf may set, with how each parses. */
export const HTTP_CONFIG_KEYS: { readonly [K in keyof BrokerHttpConfig]: ConfigKeySpec } = {
  dashboardPort: ours(INT),
  dashboardHost: ours(STR),
  metricsPort: ours(INT),
  httpAllowedHosts: ours(STR),
};

export const DEFAULT_HTTP_CONFIG: Readonly<BrokerHttpConfig> = Object.freeze({
  dashboardPort: -1,
  dashboardHost: DEFAULT_HTTP_HOST,
  metricsPort: -1,
  httpAllowedHosts: '',
});

export function checkHttpConfig(c: BrokerHttpConfig, errors: string[]): void {
  for (const [name, v] of [
    ['dashboardPort', c.dashboardPort],
    ['metricsPort', c.metricsPort],
  ] as const) {
    if (!Number.isInteger(v) || v < -1 || v > 65535)
      errors.push(`${name} must be -1 (off), 0 (any free port) or 1..65535, got ${v}`);
  }
  if (c.dashboardHost.trim() === '') errors.push('dashboardHost must not be blank');
}
