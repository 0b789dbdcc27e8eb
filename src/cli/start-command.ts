/**
 * `rmq start`: name server and broker in one process (data in ./data, ports 9876 and 10911), the
 * quickest way to a working RocketMQ for development.
 */
import { parseArgs } from 'node:util';
import type { BrokerConfigOverrides } from '../broker/broker-config.js';
import { createLogger } from '../common/logger.js';
import { type Standalone, startStandalone } from '../embedded/standalone.js';
import { parsePort, readBrokerConf } from './broker-options.js';
import type { CliIO } from './io.js';

export const START_USAGE = `Usage: rmq start [options]

Runs a name server and a broker in one process; SIGINT or SIGTERM stops both gracefully.

Options:
  -c, --config <file>        broker.conf (Java properties, upstream key names; its tls.* keys
                             apply to the name server too)
  -d, --data-dir <dir>       store, metadata and name server KV config [./data]
      --namesrv-port <port>  name server port [9876]
      --broker-port <port>   broker port [10911] (also opens port - 2 as the VIP channel)
      --host <address>       listen address of both [all interfaces]
      --broker-ip <address>  address the broker announces (brokerIP1) [first non-loopback IPv4]
`;

export async function startFromArgs(argv: readonly string[], io: CliIO): Promise<Standalone> {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      config: { type: 'string', short: 'c' },
      'data-dir': { type: 'string', short: 'd' },
      'namesrv-port': { type: 'string' },
      'broker-port': { type: 'string' },
      host: { type: 'string' },
      'broker-ip': { type: 'string' },
    },
    strict: true,
  });
  const logger = createLogger('rmq');
  const flags: BrokerConfigOverrides = {};
  if (values['broker-port'] !== undefined)
    flags.listenPort = parsePort(values['broker-port'], '--broker-port');
  if (values['broker-ip'] !== undefined) flags.brokerIP1 = values['broker-ip'];
  const loaded = readBrokerConf(values.config, flags, logger);
  const namesrvPort =
    values['namesrv-port'] === undefined ? 9876 : parsePort(values['namesrv-port'], '--namesrv-port');
  const started = Date.now();
  const pair = await startStandalone({
    dataDir: values['data-dir'] ?? 'data',
    namesrvPort,
    broker: loaded?.config ?? flags,
    ...(loaded === undefined ? {} : { brokerExtraProperties: loaded.properties, tls: loaded.tls }),
    ...(values.host === undefined ? {} : { host: values.host }),
    logger,
  }).catch((error: unknown) => {
    if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') {
      const what = error instanceof Error ? error.message : String(error);
      throw new Error(
        `${what}: is another name server or broker running? Pick free ports with --namesrv-port and --broker-port (the broker also uses port - 2)`,
        { cause: error },
      );
    }
    throw error;
  });
  io.out(
    `rocketmq-ts started in ${Date.now() - started} ms\n` +
      `  name server  ${pair.namesrvAddr}\n` +
      `  broker       ${pair.brokerAddr} (cluster ${pair.broker.config.brokerClusterName}, name ${pair.broker.config.brokerName})\n` +
      `  data         ${pair.broker.config.storePathRootDir}\n`,
  );
  return pair;
}
