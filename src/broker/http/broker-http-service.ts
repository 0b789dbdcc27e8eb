/**
 * The broker's HTTP servers, off unless broker.conf asks (upstream has none): `dashboardPort` opens
 * the server the web dashboard adds its routes to, which answers `/metrics` too; `metricsPort`, when
 * set apart, opens one answering `/metrics` only. Both bind `dashboardHost` (127.0.0.1 by default).
 * prom-client is loaded, and the registry built, on the first scrape: a broker nobody scrapes pays
 * nothing for it, and starting the broker does not wait for it.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Registry } from 'prom-client';
import type { Logger } from '../../common/logger.js';
import { type HostCheck, hostCheck, hostRefusal } from '../../common/platform/http-host-check.js';
import { HttpServer } from '../../common/platform/http-server.js';
import type { BrokerContext } from '../processor/broker-context.js';
import { createBrokerRegistry } from './broker-metrics.js';

/** The path Prometheus scrapes. */
export const METRICS_PATH = '/metrics';

export class BrokerHttpService {
  /** The dashboardPort server (it answers /metrics too), when dashboardPort is not -1. */
  readonly dashboardServer: HttpServer | undefined;
  /** The server answering /metrics: the metricsPort one, else the dashboard's; undefined when both are off. */
  readonly metricsServer: HttpServer | undefined;
  private registry: Promise<Registry> | undefined;
  /** The dashboard's Host check: /metrics names every topic, DENY ones included. */
  private readonly hostAllowed: HostCheck;

  constructor(
    private readonly broker: BrokerContext,
    private readonly logger: Logger,
  ) {
    const { dashboardPort, metricsPort, httpAllowedHosts } = broker.config;
    this.hostAllowed = hostCheck(httpAllowedHosts.split(','));
    this.dashboardServer =
      dashboardPort === -1
        ? undefined
        : new HttpServer({
            what: "the broker's dashboard and /metrics",
            portSetting: 'dashboardPort',
            logger,
          });
    this.metricsServer =
      metricsPort === -1 || metricsPort === dashboardPort
        ? this.dashboardServer
        : new HttpServer({ what: "the broker's /metrics", portSetting: 'metricsPort', logger });
    this.metricsServer?.route('GET', METRICS_PATH, (req, res) => this.serveMetrics(req, res));
  }

  /** The registry /metrics serves (loads prom-client on first use). */
  metricsRegistry(): Promise<Registry> {
    this.registry ??= import('prom-client').then((prom) => createBrokerRegistry(prom, this.broker));
    return this.registry;
  }

  private async serveMetrics(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (!this.hostAllowed(req.headers.host)) {
      const body = `${hostRefusal('httpAllowedHosts')}\n`;
      res.writeHead(403, {
        'content-type': 'text/plain; charset=utf-8',
        'content-length': String(Buffer.byteLength(body)),
        'x-content-type-options': 'nosniff',
      });
      res.end(body);
      return;
    }
    const registry = await this.metricsRegistry();
    const body = await registry.metrics();
    res.writeHead(200, {
      'content-type': registry.contentType,
      'content-length': String(Buffer.byteLength(body)),
      'cache-control': 'no-store',
    });
    res.end(body);
  }

  /** Listens on the configured ports; a busy port rejects with an HttpPortInUseError naming its setting. */
  async start(): Promise<void> {
    const { dashboardPort, metricsPort, dashboardHost } = this.broker.config;
    if (this.dashboardServer !== undefined) {
      const a = await this.dashboardServer.listen(dashboardPort, dashboardHost);
      this.logger.info('dashboard and metrics HTTP server listening', { address: `${a.address}:${a.port}` });
    }
    if (this.metricsServer !== undefined && this.metricsServer !== this.dashboardServer) {
      const a = await this.metricsServer.listen(metricsPort, dashboardHost);
      this.logger.info('metrics HTTP server listening', { address: `${a.address}:${a.port}` });
    }
  }

  async shutdown(): Promise<void> {
    await Promise.all([this.dashboardServer?.close(), this.metricsServer?.close()]);
  }
}
