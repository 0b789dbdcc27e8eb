/**
 * createDashboard: the web dashboard as a request handler for any node:http server (an admin client
 * of the cluster its name servers name). `handle` answers /api/* and the front end's files and says
 * whether it did, so a host server can try it before its own routes (e.g. /metrics).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createPullConsumer, type PullConsumer } from '../../client/consumer/pull-consumer/pull-consumer.js';
import { systemClock } from '../../common/clock.js';
import { hostCheck, hostRefusal } from '../../common/platform/http-host-check.js';
import { createAdmin } from '../admin.js';
import type { MQAdminExt } from '../mq-admin-ext.js';
import { getCluster } from './api-cluster.js';
import type { ApiContext } from './api-context.js';
import { deleteGroup, getGroup, getProducers, listGroups, resetOffset, updateGroup } from './api-groups.js';
import {
  type MessagesContext,
  searchByKey,
  searchByTopic,
  TOOLS_CONSUMER_GROUP,
  viewMessage,
} from './api-messages.js';
import { deleteTopic, getTopic, listTopics, updateTopic } from './api-topics.js';
import { type DashboardOptions, resolveDashboardOptions } from './dashboard-options.js';
import { HttpError, Params, readJsonBody, SECURITY_HEADERS, sendError, sendJson } from './http-json.js';
import { defaultStaticDir, loadStaticFiles } from './static-files.js';
import { TpsSampler } from './tps-sampler.js';

export interface Dashboard {
  /** Answers the request when it is the dashboard's (true), else leaves it alone (false). */
  handle(req: IncomingMessage, res: ServerResponse): Promise<boolean>;
  /** Stops the TPS sampling and the clients the dashboard started. Idempotent. */
  close(): Promise<void>;
}

type Route = { method: 'GET' | 'POST'; run(ctx: MessagesContext, params: Params): Promise<unknown> };

/** Reads are GET, every mutation is POST: no GET changes anything. */
const ROUTES: ReadonlyMap<string, Route> = new Map<string, Route>([
  ['/api/cluster', { method: 'GET', run: (ctx) => getCluster(ctx) }],
  ['/api/topics', { method: 'GET', run: (ctx) => listTopics(ctx) }],
  ['/api/topic', { method: 'GET', run: getTopic }],
  ['/api/topic/update', { method: 'POST', run: updateTopic }],
  ['/api/topic/delete', { method: 'POST', run: deleteTopic }],
  ['/api/groups', { method: 'GET', run: (ctx) => listGroups(ctx) }],
  ['/api/group', { method: 'GET', run: getGroup }],
  ['/api/group/update', { method: 'POST', run: updateGroup }],
  ['/api/group/delete', { method: 'POST', run: deleteGroup }],
  ['/api/group/reset-offset', { method: 'POST', run: resetOffset }],
  ['/api/producers', { method: 'GET', run: getProducers }],
  ['/api/messages/by-topic', { method: 'GET', run: searchByTopic }],
  ['/api/messages/by-key', { method: 'GET', run: searchByKey }],
  ['/api/message', { method: 'GET', run: viewMessage }],
]);

/**
 * The dashboard over the cluster of `options.namesrvAddr` (or over `options.admin`). Nothing connects
 * until the first API request, so a host server can create it before it listens.
 */
export function createDashboard(options: DashboardOptions = {}): Dashboard {
  const settings = resolveDashboardOptions(options);
  const {
    admin: given,
    staticDir,
    allowedHosts,
    tpsSampleIntervalMs: _i,
    tpsSeriesLength: _l,
    tpsIdleTimeoutMs: _t,
    messageSearchMax: _m,
    bodyPreviewBytes: _b,
    maxRequestBodyBytes: _r,
    ...clientOptions
  } = options;
  const files = loadStaticFiles(staticDir ?? defaultStaticDir());
  const hostAllowed = hostCheck(allowedHosts ?? []);
  const admin: MQAdminExt = given ?? createAdmin(clientOptions);
  let started: Promise<void> | undefined;
  const ready = (): Promise<void> => {
    started ??= given === undefined ? admin.start() : Promise.resolve();
    return started;
  };
  let consumer: Promise<PullConsumer> | undefined;
  const ctx: MessagesContext = {
    admin,
    settings,
    pullConsumer() {
      consumer ??= (async () => {
        const c = createPullConsumer({ ...clientOptions, consumerGroup: TOOLS_CONSUMER_GROUP });
        await c.start();
        return c;
      })();
      return consumer;
    },
  };
  const tps = new TpsSampler(ctx as ApiContext, options.clock ?? systemClock);
  let closing: Promise<void> | undefined;

  async function api(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    if (url.pathname === '/api/tps') {
      if (req.method !== 'GET' && req.method !== 'HEAD') throw new HttpError(405, 'use GET');
      await ready();
      sendJson(res, 200, await tps.series());
      return;
    }
    const route = ROUTES.get(url.pathname);
    if (route === undefined) throw new HttpError(404, `no route ${url.pathname}`);
    if (req.method !== route.method) {
      res.setHeader('allow', route.method);
      throw new HttpError(405, `${url.pathname} takes ${route.method} only`);
    }
    await ready();
    const params =
      route.method === 'GET'
        ? Params.ofQuery(url.searchParams)
        : new Params(await readJsonBody(req, settings.maxRequestBodyBytes));
    sendJson(res, 200, await route.run(ctx, params));
  }

  return {
    async handle(req, res) {
      const url = new URL(req.url ?? '/', 'http://dashboard.invalid');
      if (!hostAllowed(req.headers.host)) {
        sendJson(res, 403, { error: hostRefusal('allowedHosts') });
        return true;
      }
      if (url.pathname === '/api' || url.pathname.startsWith('/api/')) {
        if (closing !== undefined) {
          sendJson(res, 503, { error: 'the dashboard is shutting down' });
          return true;
        }
        try {
          await api(req, res, url);
        } catch (error) {
          if (!res.headersSent) sendError(res, error);
          else res.destroy();
        }
        return true;
      }
      const file = files.get(url.pathname);
      if (file === undefined) return false;
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        sendJson(res, 405, { error: 'use GET' }, { allow: 'GET, HEAD' });
        return true;
      }
      res.writeHead(200, {
        ...SECURITY_HEADERS,
        'content-type': file.type,
        'content-length': String(file.body.length),
        'cache-control': 'no-cache',
      });
      res.end(req.method === 'HEAD' ? undefined : file.body);
      return true;
    },
    close() {
      closing ??= (async () => {
        await tps.close();
        const c = await consumer?.catch(() => undefined);
        await c?.shutdown();
        if (given === undefined && started !== undefined)
          await started.then(
            () => admin.shutdown(),
            () => undefined,
          );
      })();
      return closing;
    },
  };
}
