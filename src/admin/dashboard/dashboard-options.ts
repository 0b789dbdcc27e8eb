/**
 * Options of the web dashboard (an admin client with a JSON API and a static front end), with the
 * defaults of upstream rocketmq-dashboard where it has one.
 */
import { ValidationError } from '../../common/errors.js';
import type { AdminOptions } from '../admin-options.js';
import type { MQAdminExt } from '../mq-admin-ext.js';

export interface DashboardOptions extends AdminOptions {
  /** An admin that is already started (the dashboard then neither starts nor shuts it down). */
  admin?: MQAdminExt | undefined;
  /** Period of the brokers' runtime-info sampling behind the live TPS chart, ms [5000]. */
  tpsSampleIntervalMs?: number | undefined;
  /** Samples kept for the TPS chart [120] (10 minutes at the default interval). */
  tpsSeriesLength?: number | undefined;
  /** Sampling stops when nobody asked for the TPS series for this long, ms [60000]. */
  tpsIdleTimeoutMs?: number | undefined;
  /** Most messages a topic+time search returns (upstream dashboard's page of 2000 messages) [2000]. */
  messageSearchMax?: number | undefined;
  /** Bytes of a message body shown in its preview [4096]. */
  bodyPreviewBytes?: number | undefined;
  /** Largest request body accepted by a POST, bytes [65536]. */
  maxRequestBodyBytes?: number | undefined;
  /**
   * Host names the page may be reached by besides IP addresses and `localhost` (a reverse proxy's
   * name, say); requests naming any other host are refused, against DNS rebinding [none].
   */
  allowedHosts?: readonly string[] | undefined;
  /** Where index.html, app.js and style.css are; default: the package's web/dashboard folder. */
  staticDir?: string | undefined;
}

export interface ResolvedDashboardOptions {
  readonly tpsSampleIntervalMs: number;
  readonly tpsSeriesLength: number;
  readonly tpsIdleTimeoutMs: number;
  readonly messageSearchMax: number;
  readonly bodyPreviewBytes: number;
  readonly maxRequestBodyBytes: number;
}

export const DEFAULT_DASHBOARD_OPTIONS: ResolvedDashboardOptions = Object.freeze({
  tpsSampleIntervalMs: 5000,
  tpsSeriesLength: 120,
  tpsIdleTimeoutMs: 60_000,
  messageSearchMax: 2000,
  bodyPreviewBytes: 4096,
  maxRequestBodyBytes: 65_536,
});

function positiveInt(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value <= 0)
    throw new ValidationError(`${name} must be an integer > 0, got ${value}`, -1);
  return value;
}

export function resolveDashboardOptions(options: DashboardOptions): ResolvedDashboardOptions {
  const d = DEFAULT_DASHBOARD_OPTIONS;
  return {
    tpsSampleIntervalMs: positiveInt(
      'tpsSampleIntervalMs',
      options.tpsSampleIntervalMs,
      d.tpsSampleIntervalMs,
    ),
    tpsSeriesLength: positiveInt('tpsSeriesLength', options.tpsSeriesLength, d.tpsSeriesLength),
    tpsIdleTimeoutMs: positiveInt('tpsIdleTimeoutMs', options.tpsIdleTimeoutMs, d.tpsIdleTimeoutMs),
    messageSearchMax: positiveInt('messageSearchMax', options.messageSearchMax, d.messageSearchMax),
    bodyPreviewBytes: positiveInt('bodyPreviewBytes', options.bodyPreviewBytes, d.bodyPreviewBytes),
    maxRequestBodyBytes: positiveInt(
      'maxRequestBodyBytes',
      options.maxRequestBodyBytes,
      d.maxRequestBodyBytes,
    ),
  };
}
