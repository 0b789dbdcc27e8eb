/**
 * `rmq start`: name server and broker in one process (data in ./data, ports 9876 and 10911), the
 * quickest way to a working RocketMQ for development. It runs the development profile
 * (dev-profile.ts) and prints a one-screen banner (start-banner.ts).
 */
import { readFileSync } from 'node:fs';
import { createDashboard, mountDashboard } from '../admin/dashboard/index.js';
import { type BrokerConfigOverrides, loadBrokerConfig } from '../broker/broker-config.js';
import { parseJavaProperties } from '../common/java-properties.js';
import { createLogger } from '../common/logger.js';
import { type Standalone, startStandalone } from '../embedded/standalone.js';
import { parsePort } from './broker-options.js';
import { DEV_BROKER_IP, DEV_LISTEN_HOST, describeProfile, startBrokerOverrides } from './dev-profile.js';
import type { CliIO } from './io.js';
import { parseCliArgs } from './parse-args.js';
import { type CommandPort, checkPortsFree, portInUseFrom } from './port-check.js';
import { recoveryProgressPrinter } from './progress-line.js';
import { formatStartBanner } from './start-banner.js';

/** Upstream's name server port. */
const DEFAULT_NAMESRV_PORT = 9876;
/** BrokerStartup's listenPort. */
const DEFAULT_BROKER_PORT = 10911;
/** The dashboard and /metrics port of `rmq start` (issue 16); `rmq broker` opens none by default. */
const DEFAULT_DASHBOARD_PORT = 8080;

export const START_USAGE = `Usage: rmq start [options]

Runs a name server and a broker in one process; SIGINT or SIGTERM stops both gracefully.

Development profile (rmq broker keeps upstream's defaults; broker.conf and flags win over it):
  enablePropertyFilter=true          SQL92 subscriptions are accepted
  autoCreateTopicEnable=true         topics are created on first send (upstream's default too)
  autoCreateSubscriptionGroup=true   groups are created on first use (upstream's default too)
  brokerIP1=${DEV_BROKER_IP}                announced address: --broker-ip, else --host's address
                                     when it names one, else ${DEV_BROKER_IP} (0.0.0.0: the first
                                     non-loopback address, as upstream)

Options:
  -c, --config <file>        broker.conf (Java properties, upstream key names; its tls.* keys
                             apply to the name server too)
  -d, --data-dir <dir>       store, metadata and name server KV config [./data]
      --namesrv-port <port>  name server port [${DEFAULT_NAMESRV_PORT}]
      --broker-port <port>   broker port [${DEFAULT_BROKER_PORT}] (also opens port - 2 as the VIP channel)
      --host <address>       listen address of the name server, broker and VIP channel
                             [${DEV_LISTEN_HOST}]; 0.0.0.0 listens on every interface (read
                             docs/security.md first: the name server has no ACL by default)
      --broker-ip <address>  address the broker announces (brokerIP1) [see above]
      --dashboard-port <port>  dashboard and Prometheus /metrics on dashboardHost [${DEFAULT_DASHBOARD_PORT}];
                             -1 turns it off (broker.conf dashboardPort, dashboardHost, metricsPort)
`;

/**
 * The ports `rmq start` opens and the flag moving each. The broker's HA port (listenPort + 1) is not
 * among them: rocketmq-ts has no HA service listening. A server added to the process (dashboard,
 * metrics) adds its port here with its flag.
 */
export function startPorts(namesrvPort: number, brokerPort: number): CommandPort[] {
  return [
    { port: namesrvPort, what: 'name server', flag: '--namesrv-port' },
    { port: brokerPort, what: 'broker', flag: '--broker-port' },
    {
      port: brokerPort === 0 ? 0 : brokerPort - 2,
      what: `broker VIP channel, broker port - 2`,
      flag: '--broker-port',
    },
  ];
}

export async function startFromArgs(argv: readonly string[], io: CliIO): Promise<Standalone> {
  const { values } = parseCliArgs({
    args: [...argv],
    options: {
      config: { type: 'string', short: 'c' },
      'data-dir': { type: 'string', short: 'd' },
      'namesrv-port': { type: 'string' },
      'broker-port': { type: 'string' },
      host: { type: 'string' },
      'broker-ip': { type: 'string' },
      'dashboard-port': { type: 'string' },
    },
    strict: true,
  });
  const logger = createLogger('rmq');
  const flags: BrokerConfigOverrides = {};
  if (values['broker-port'] !== undefined)
    flags.listenPort = parsePort(values['broker-port'], '--broker-port');
  if (values['broker-ip'] !== undefined) flags.brokerIP1 = values['broker-ip'];
  const dashboardPort = values['dashboard-port'];
  if (dashboardPort !== undefined)
    flags.dashboardPort = dashboardPort === '-1' ? -1 : parsePort(dashboardPort, '--dashboard-port');
  // Properties.load reads ISO-8859-1.
  const confText = values.config === undefined ? undefined : readFileSync(values.config, 'latin1');
  const fileKeys = new Set(confText === undefined ? [] : parseJavaProperties(confText).keys());
  if (!fileKeys.has('dashboardPort')) flags.dashboardPort ??= DEFAULT_DASHBOARD_PORT;
  const overrides = startBrokerOverrides({
    fileKeys,
    flags,
    host: values.host,
  });
  const loaded =
    confText === undefined
      ? undefined
      : loadBrokerConfig(confText, { source: values.config ?? '', logger, overrides });
  const namesrvPort =
    values['namesrv-port'] === undefined
      ? DEFAULT_NAMESRV_PORT
      : parsePort(values['namesrv-port'], '--namesrv-port');
  const ports = startPorts(namesrvPort, loaded?.config.listenPort ?? flags.listenPort ?? DEFAULT_BROKER_PORT);
  const httpPort = loaded?.config.dashboardPort ?? flags.dashboardPort ?? -1;
  if (httpPort > 0) ports.push({ port: httpPort, what: 'dashboard and /metrics', flag: '--dashboard-port' });
  const host = values.host ?? DEV_LISTEN_HOST;
  await checkPortsFree(ports, host);
  const started = Date.now();
  const onRecoveryProgress = recoveryProgressPrinter(io);
  const pair = await startStandalone({
    dataDir: values['data-dir'] ?? 'data',
    namesrvPort,
    broker: loaded?.config ?? overrides,
    ...(loaded === undefined ? {} : { brokerExtraProperties: loaded.properties, tls: loaded.tls }),
    host,
    ...(onRecoveryProgress === undefined ? {} : { onRecoveryProgress }),
    logger,
  }).catch((error: unknown) => {
    throw portInUseFrom(error, ports) ?? error;
  });
  const config = pair.broker.config;
  const metrics = pair.broker.http.metricsServer?.address;
  const dashboardServer = pair.broker.http.dashboardServer;
  const dashboardAddress = dashboardServer?.address;
  // The dashboard is an admin client of this pair's name server, on the broker's dashboardPort server
  // beside /metrics; it connects on its first API request.
  const dashboard =
    dashboardServer === undefined
      ? undefined
      : createDashboard({
          namesrvAddr: pair.namesrvAddr,
          clientIP: '127.0.0.1',
          // Its own pair on loopback, in this process, serving the test certificate unless
          // broker.conf names one: encrypted, not authenticated, as the broker's own client.
          ...(loaded?.tls?.tlsMode === 'enforcing' ? { tls: { rejectUnauthorized: false } } : {}),
          logger: logger.child('dashboard'),
        });
  if (dashboard !== undefined && dashboardServer !== undefined) mountDashboard(dashboardServer, dashboard);
  io.out(
    formatStartBanner({
      startedInMs: Date.now() - started,
      namesrvAddr: pair.namesrvAddr,
      brokerAddr: pair.brokerAddr,
      clusterName: config.brokerClusterName,
      brokerName: config.brokerName,
      dataDir: config.storePathRootDir,
      profile: describeProfile(config),
      listenHost: host,
      metricsUrl: metrics === undefined ? undefined : `http://${metrics.address}:${metrics.port}/metrics`,
      dashboardUrl:
        dashboardAddress === undefined
          ? undefined
          : `http://${dashboardAddress.address}:${dashboardAddress.port}/`,
    }),
  );
  if (dashboard === undefined) return pair;
  return {
    namesrv: pair.namesrv,
    broker: pair.broker,
    namesrvAddr: pair.namesrvAddr,
    brokerAddr: pair.brokerAddr,
    close: async () => {
      await dashboard.close();
      await pair.close();
    },
  };
}
