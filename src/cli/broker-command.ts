/**
 * `rmq broker`: the broker alone, as upstream's mqbroker: `-c broker.conf`, `-n namesrvAddr`
 * (or NAMESRV_ADDR), and flags that override the file.
 */
import { resolve } from 'node:path';
import type { BrokerConfigOverrides } from '../broker/broker-config.js';
import { type BrokerController, createBroker } from '../broker/broker-controller.js';
import { createLogger } from '../common/logger.js';
import { parsePort, readBrokerConf } from './broker-options.js';
import type { CliIO } from './io.js';
import { parseCliArgs } from './parse-args.js';
import { recoveryProgressPrinter } from './progress-line.js';

export const BROKER_USAGE = `Usage: rmq broker [options]

Options:
  -c, --config <file>        broker.conf (Java properties, upstream key names; tls.* keys as
                             upstream's TLS system properties)
  -n, --namesrv <addr>       name servers, "host:port;host:port" [NAMESRV_ADDR]
  -p, --port <port>          listen port [10911] (also opens port - 2 as the VIP channel)
  -d, --store-dir <dir>      storePathRootDir [~/store]
      --host <address>       listen address [all interfaces]; the HA port, where the role
                             opens one, binds haListenHost, else brokerIP2
`;

export async function startBrokerFromArgs(argv: readonly string[], io: CliIO): Promise<BrokerController> {
  const { values } = parseCliArgs({
    args: [...argv],
    options: {
      config: { type: 'string', short: 'c' },
      namesrv: { type: 'string', short: 'n' },
      port: { type: 'string', short: 'p' },
      'store-dir': { type: 'string', short: 'd' },
      host: { type: 'string' },
    },
    strict: true,
  });
  const logger = createLogger('broker');
  const flags: BrokerConfigOverrides = {};
  if (values.namesrv !== undefined) flags.namesrvAddr = values.namesrv;
  if (values.port !== undefined) flags.listenPort = parsePort(values.port, '--port');
  if (values['store-dir'] !== undefined) flags.storePathRootDir = resolve(values['store-dir']);
  if (values.host !== undefined) flags.listenHost = values.host;
  const loaded = readBrokerConf(values.config, flags, logger);
  const onRecoveryProgress = recoveryProgressPrinter(io);
  const broker = createBroker({
    config: loaded?.config ?? flags,
    ...(loaded === undefined ? {} : { extraProperties: loaded.properties, tls: loaded.tls }),
    ...(onRecoveryProgress === undefined ? {} : { onRecoveryProgress }),
    logger,
  });
  await broker.start();
  io.out(
    `The broker[${broker.config.brokerName}, ${broker.brokerAddr}] boot success. ` +
      `namesrvAddr=${broker.config.namesrvAddr ?? '(none)'}\n`,
  );
  return broker;
}
