/**
 * What `rmq start` and `rmq broker` share: reading a broker.conf (unknown keys are warned about by
 * name) and the port argument check.
 */
import { readFileSync } from 'node:fs';
import {
  type BrokerConfigOverrides,
  type LoadedBrokerConfig,
  loadBrokerConfig,
} from '../broker/broker-config.js';
import type { Logger } from '../common/logger.js';

export function parsePort(text: string, what: string): number {
  const port = Number(text);
  if (!/^\d+$/.test(text) || !Number.isInteger(port) || port > 65535)
    throw new Error(`${what}: not a port: ${text}`);
  return port;
}

/** The broker settings of `file` (Java properties, read as ISO-8859-1 like Properties.load) under `overrides`. */
export function readBrokerConf(
  file: string | undefined,
  overrides: BrokerConfigOverrides,
  logger: Logger,
): LoadedBrokerConfig | undefined {
  if (file === undefined) return undefined;
  return loadBrokerConfig(readFileSync(file, 'latin1'), { source: file, logger, overrides });
}
