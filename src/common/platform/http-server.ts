/**
 * A small HTTP/1.1 server with a route table, shared by the broker's `/metrics` and the web dashboard
 * (which adds its own routes to the same server). A route is a method and either an exact path or a
 * `/prefix/*` path (the longest prefix wins, an exact path beats every prefix). A path nobody serves
 * answers 404, a method its path does not take 405 with `Allow`, a handler that throws 500 without
 * details (the error is logged). HEAD is served by the GET handler (Node drops the body).
 * Lives in common/platform so the broker and the admin layer (the dashboard) can both use it.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { RocketMQError } from '../errors.js';
import type { Logger } from '../logger.js';

/** Answers one request; `url` is the parsed request URL (path and query). */
export type HttpHandler = (req: IncomingMessage, res: ServerResponse, url: URL) => void | Promise<void>;

/** What a module that serves pages needs of the server: a place to put its routes. */
export interface HttpRouteTable {
  /**
   * Serves `method` on `path` (exact, or every path under a `/prefix/*`) with `handler`, replacing a
   * handler already there. Returns a function that removes the route again.
   */
  route(method: string, path: string, handler: HttpHandler): () => void;
}

/** The interface a server binds to unless told otherwise: loopback, never every interface. */
export const DEFAULT_HTTP_HOST = '127.0.0.1';

/** A port another process (or another of our servers) holds; names the setting that moves it. */
export class HttpPortInUseError extends RocketMQError {
  /** As Node's own listen errors, so code that checks `code` and `port` recognises it. */
  override readonly code = 'EADDRINUSE';

  constructor(
    readonly port: number,
    readonly host: string,
    readonly setting: string,
    what: string,
    options?: ErrorOptions,
  ) {
    super(
      `${setting} ${port} on ${host} is already in use (${what}); choose another port with ${setting}`,
      1,
      options,
    );
  }
}

export interface HttpServerOptions {
  /** What the server is for, in errors and logs ("the broker's dashboard and /metrics"). */
  readonly what: string;
  /** The setting that chooses the port, named when the port is busy. */
  readonly portSetting: string;
  readonly logger?: Logger | undefined;
}

type MethodTable = Map<string, HttpHandler>;

function normalizeMethod(method: string): string {
  return method.toUpperCase();
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export class HttpServer implements HttpRouteTable {
  private readonly server: Server;
  private readonly exact = new Map<string, MethodTable>();
  /** `/prefix/` -> methods, longest prefix first. */
  private prefixes: Array<[string, MethodTable]> = [];
  private readonly options: HttpServerOptions;
  private bound: AddressInfo | undefined;

  constructor(options: HttpServerOptions) {
    this.options = options;
    this.server = createServer((req, res) => {
      void this.dispatch(req, res);
    });
  }

  /** Where the server listens once started. */
  get address(): AddressInfo | undefined {
    return this.bound;
  }

  route(method: string, path: string, handler: HttpHandler): () => void {
    const m = normalizeMethod(method);
    const table = this.tableFor(path);
    table.set(m, handler);
    return () => {
      if (table.get(m) === handler) table.delete(m);
    };
  }

  private tableFor(path: string): MethodTable {
    if (!path.startsWith('/')) throw new RocketMQError(`an HTTP route path starts with '/', got ${path}`);
    if (path.endsWith('/*')) {
      const prefix = path.slice(0, -1);
      let entry = this.prefixes.find(([p]) => p === prefix);
      if (entry === undefined) {
        entry = [prefix, new Map()];
        this.prefixes = [...this.prefixes, entry].sort((a, b) => b[0].length - a[0].length);
      }
      return entry[1];
    }
    let table = this.exact.get(path);
    if (table === undefined) {
      table = new Map();
      this.exact.set(path, table);
    }
    return table;
  }

  /** The methods served on `pathname`: an exact route first, else the longest prefix that has any. */
  private match(pathname: string): MethodTable | undefined {
    const exact = this.exact.get(pathname);
    if (exact !== undefined && exact.size > 0) return exact;
    for (const [prefix, table] of this.prefixes) {
      if (table.size > 0 && (pathname.startsWith(prefix) || `${pathname}/` === prefix)) return table;
    }
    return undefined;
  }

  private async dispatch(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let url: URL;
    try {
      url = new URL(req.url ?? '/', 'http://localhost');
    } catch {
      plain(res, 400, 'bad request\n');
      return;
    }
    const table = this.match(url.pathname);
    if (table === undefined) {
      plain(res, 404, 'not found\n');
      return;
    }
    const method = normalizeMethod(req.method ?? 'GET');
    const handler = table.get(method) ?? (method === 'HEAD' ? table.get('GET') : undefined);
    if (handler === undefined) {
      const allow = [...table.keys()];
      if (allow.includes('GET') && !allow.includes('HEAD')) allow.push('HEAD');
      plain(res, 405, 'method not allowed\n', { allow: allow.join(', ') });
      return;
    }
    try {
      await handler(req, res, url);
    } catch (error) {
      this.options.logger?.warn('HTTP handler failed', { path: url.pathname, error: describe(error) });
      if (!res.headersSent) plain(res, 500, 'internal error\n');
      else res.destroy();
    }
  }

  /** Listens on `host` (loopback by default) and `port` (0: any free port). */
  listen(port: number, host: string = DEFAULT_HTTP_HOST): Promise<AddressInfo> {
    return new Promise((resolve, reject) => {
      const onError = (error: NodeJS.ErrnoException): void => {
        if (error.code === 'EADDRINUSE') {
          reject(
            new HttpPortInUseError(port, host, this.options.portSetting, this.options.what, { cause: error }),
          );
        } else {
          reject(
            new RocketMQError(
              `cannot listen on ${host}:${port} (${this.options.portSetting}, ${this.options.what}): ${error.message}`,
              1,
              { cause: error },
            ),
          );
        }
      };
      this.server.once('error', onError);
      this.server.listen({ port, host, exclusive: true }, () => {
        this.server.off('error', onError);
        this.bound = this.server.address() as AddressInfo;
        resolve(this.bound);
      });
    });
  }

  /** Stops listening and ends every connection, requests under way included. Idempotent. */
  close(): Promise<void> {
    if (!this.server.listening) return Promise.resolve();
    return new Promise((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }
}

function plain(
  res: ServerResponse,
  status: number,
  body: string,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, {
    'content-type': 'text/plain; charset=utf-8',
    'content-length': String(Buffer.byteLength(body)),
    'x-content-type-options': 'nosniff',
    ...headers,
  });
  res.end(body);
}
