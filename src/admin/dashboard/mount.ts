/**
 * Puts the dashboard on a route-table server (the broker's dashboardPort server of `rmq start`):
 * every path and method goes to the dashboard, except the server's exact routes (`/metrics`), which
 * win over a prefix. The dashboard checks methods itself (405 for a GET on a change route).
 */
import type { HttpRouteTable } from '../../common/platform/http-server.js';
import type { Dashboard } from './dashboard.js';

/** Methods routed to the dashboard: those it answers, and those it refuses with 405 itself. */
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH'];

/** Routes every request the table has no exact route for to `dashboard`; returns the undo. */
export function mountDashboard(table: HttpRouteTable, dashboard: Dashboard): () => void {
  const removers = METHODS.map((method) =>
    table.route(method, '/*', async (req, res) => {
      if (await dashboard.handle(req, res)) return;
      res.writeHead(404, {
        'content-type': 'text/plain; charset=utf-8',
        'x-content-type-options': 'nosniff',
      });
      res.end('not found\n');
    }),
  );
  return () => {
    for (const remove of removers) remove();
  };
}
