/**
 * `rmq namesrv`: the name server alone. Options mirror upstream's mqnamesrv: `-c namesrv.conf`
 * (Java properties: listenPort, kvConfigPath, orderMessageEnable, productEnvName), and flags that
 * override the file.
 */
import { readFileSync } from 'node:fs';
import { parseJavaProperties } from '../common/java-properties.js';
import { createLogger } from '../common/logger.js';
import { createNamesrv, type NamesrvController } from '../namesrv/index.js';
import {
  isTlsPropertyKey,
  parseTlsProperties,
  type TlsSystemConfig,
} from '../remoting/transport/tls-system-config.js';
import type { CliIO } from './io.js';
import { parseCliArgs } from './parse-args.js';

export const NAMESRV_USAGE = `Usage: rmq namesrv [options]

Options:
  -c, --config <file>     namesrv.conf (Java properties: listenPort, kvConfigPath, orderMessageEnable, productEnvName,
                          aclEnable, rocketmqHome, aclPlainFile, aclFileWatchInterval,
                          rejectLiveBrokerTakeover, kvConfigMaxEntrySize, kvConfigMaxTotalSize,
                          and upstream's tls.* system properties)
  -p, --port <port>       listen port [9876]
      --host <address>    listen address [all interfaces]
      --kv-config <path>  KV config file [~/namesrv/kvConfig.json]
`;

const KNOWN_KEYS = new Set([
  'listenPort',
  'kvConfigPath',
  'orderMessageEnable',
  'productEnvName',
  'aclEnable',
  'rocketmqHome',
  'aclPlainFile',
  'aclFileWatchInterval',
  'rejectLiveBrokerTakeover',
  'kvConfigMaxEntrySize',
  'kvConfigMaxTotalSize',
]);

function parsePort(text: string, what: string): number {
  const port = Number(text);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`${what}: not a port: ${text}`);
  return port;
}

/** Starts a name server from command-line arguments; resolves once it listens. */
export async function startNamesrvFromArgs(argv: readonly string[], io: CliIO): Promise<NamesrvController> {
  const { values } = parseCliArgs({
    args: [...argv],
    options: {
      config: { type: 'string', short: 'c' },
      port: { type: 'string', short: 'p' },
      host: { type: 'string' },
      'kv-config': { type: 'string' },
    },
    strict: true,
  });
  const logger = createLogger('namesrv');
  let listenPort: number | undefined;
  let kvConfigPath: string | undefined;
  const settings: {
    orderMessageEnable?: boolean;
    productEnvName?: string;
    listenHost?: string;
    aclEnable?: boolean;
    rocketmqHome?: string;
    aclPlainFile?: string;
    aclFileWatchInterval?: number;
    rejectLiveBrokerTakeover?: boolean;
    kvConfigMaxEntrySize?: number;
    kvConfigMaxTotalSize?: number;
  } = {};
  let tls: Partial<TlsSystemConfig> = {};
  if (values.config !== undefined) {
    // Properties.load reads ISO-8859-1.
    const props = parseJavaProperties(readFileSync(values.config, 'latin1'));
    const parsed = parseTlsProperties(props);
    if (parsed.errors.length > 0) throw new Error(`${values.config}: ${parsed.errors.join('; ')}`);
    tls = parsed.values;
    for (const [key, value] of props) {
      if (key === 'listenPort') listenPort = parsePort(value, `${values.config} listenPort`);
      else if (key === 'kvConfigPath') kvConfigPath = value;
      else if (key === 'orderMessageEnable') settings.orderMessageEnable = value.toLowerCase() === 'true';
      else if (key === 'productEnvName') settings.productEnvName = value;
      else if (key === 'aclEnable') settings.aclEnable = value.toLowerCase() === 'true';
      else if (key === 'rocketmqHome') settings.rocketmqHome = value;
      else if (key === 'aclPlainFile') settings.aclPlainFile = value;
      else if (key === 'aclFileWatchInterval') settings.aclFileWatchInterval = Number(value);
      else if (key === 'rejectLiveBrokerTakeover')
        settings.rejectLiveBrokerTakeover = value.toLowerCase() === 'true';
      else if (key === 'kvConfigMaxEntrySize') settings.kvConfigMaxEntrySize = Number(value);
      else if (key === 'kvConfigMaxTotalSize') settings.kvConfigMaxTotalSize = Number(value);
      if (!KNOWN_KEYS.has(key) && !isTlsPropertyKey(key))
        logger.warn('unknown key in namesrv config ignored', { file: values.config, key });
    }
  }
  if (values.port !== undefined) listenPort = parsePort(values.port, '--port');
  if (values['kv-config'] !== undefined) kvConfigPath = values['kv-config'];
  if (values.host !== undefined) settings.listenHost = values.host;
  const namesrv = createNamesrv({
    ...(listenPort !== undefined ? { listenPort } : {}),
    ...(kvConfigPath !== undefined ? { kvConfigPath } : {}),
    settings,
    tls,
    logger,
  });
  const address = await namesrv.start();
  io.out(`The Name Server boot success. address=${address.address}\n`);
  return namesrv;
}
