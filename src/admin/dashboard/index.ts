/** The web dashboard: a request handler over the admin API, for any node:http server. */
export { createDashboard, type Dashboard } from './dashboard.js';
export { type DashboardOptions, DEFAULT_DASHBOARD_OPTIONS } from './dashboard-options.js';
export { mountDashboard } from './mount.js';
