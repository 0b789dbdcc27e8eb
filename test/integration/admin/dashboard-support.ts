/**
 * A dashboard on its own HTTP port over an in-process name server and broker, for the API tests and
 * the browser test: what they share is the setup, a JSON fetch helper and a slow poll.
 */
import assert from 'node:assert/strict';
import {
  createDashboard,
  type Dashboard,
  type DashboardOptions,
} from '../../../src/admin/dashboard/index.js';
import type { BrokerConfigOverrides } from '../../../src/broker/broker-config.js';
import { type RunningHttpServer, startHttpServer } from '../../../src/cli/dashboard-server.js';
import { quiet, startCluster, type TestCluster } from '../client/support.js';

export interface DashboardFixture {
  cluster: TestCluster;
  dashboard: Dashboard;
  server: RunningHttpServer;
  /** `http://127.0.0.1:<port>` without the trailing slash. */
  base: string;
  close(): Promise<void>;
}

export async function startDashboardFixture(
  broker: BrokerConfigOverrides = {},
  options: DashboardOptions = {},
): Promise<DashboardFixture> {
  const cluster = await startCluster({ longPollingCheckInterval: 100, ...broker });
  const dashboard = createDashboard({
    namesrvAddr: cluster.namesrvAddr,
    clientIP: '127.0.0.1',
    logger: quiet,
    ...options,
  });
  const server = await startHttpServer([dashboard], { host: '127.0.0.1', port: 0 });
  return {
    cluster,
    dashboard,
    server,
    base: server.url.replace(/\/$/, ''),
    async close() {
      await server.close();
      await dashboard.close();
      await cluster.close();
    },
  };
}

export interface JsonAnswer<T> {
  status: number;
  headers: Headers;
  /** The answer as the caller expects it (checked by its assertions). */
  body: T;
}

export async function api<T = { error?: string }>(
  base: string,
  path: string,
  init: { method?: string; body?: unknown } = {},
): Promise<JsonAnswer<T>> {
  const res = await fetch(`${base}${path}`, {
    method: init.method ?? 'GET',
    ...(init.body === undefined
      ? {}
      : { body: JSON.stringify(init.body), headers: { 'content-type': 'application/json' } }),
  });
  const text = await res.text();
  return {
    status: res.status,
    headers: res.headers,
    body: (text.length > 0 ? JSON.parse(text) : undefined) as T,
  };
}

/** Polls every 50 ms (each probe is HTTP plus admin calls) until `probe` gives a value; fails after `timeoutMs`. */
export async function poll<T>(
  probe: () => Promise<T | undefined>,
  what: string,
  timeoutMs = 15_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) assert.fail(`never happened within ${timeoutMs} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
