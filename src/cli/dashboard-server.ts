/**
 * A minimal node:http server for the dashboard when nothing else hosts it (`rmq dashboard`): each
 * request goes to the handlers in turn; what none serves is a 404. Binds 127.0.0.1 unless told.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RequestHandler {
  /** True when it answered the request. */
  handle(req: IncomingMessage, res: ServerResponse): Promise<boolean>;
}

export interface HttpServerOptions {
  /** [127.0.0.1]: the dashboard can change the cluster, so it is not offered to the network by default. */
  host?: string | undefined;
  /** [8080]; 0 picks a free port. */
  port?: number | undefined;
}

export const DEFAULT_DASHBOARD_HOST = '127.0.0.1';
export const DEFAULT_DASHBOARD_PORT = 8080;

export interface RunningHttpServer {
  /** `http://host:port/` as bound. */
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

function notFound(res: ServerResponse): void {
  res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8', 'x-content-type-options': 'nosniff' });
  res.end('not found\n');
}

export async function startHttpServer(
  handlers: readonly RequestHandler[],
  options: HttpServerOptions = {},
): Promise<RunningHttpServer> {
  const host = options.host ?? DEFAULT_DASHBOARD_HOST;
  const server: Server = createServer((req, res) => {
    void (async () => {
      try {
        for (const h of handlers) if (await h.handle(req, res)) return;
        notFound(res);
      } catch {
        if (!res.headersSent) res.writeHead(500).end();
        else res.destroy();
      }
    })();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? DEFAULT_DASHBOARD_PORT, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const shown = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${shown}:${port}/`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
