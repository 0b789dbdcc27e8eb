/**
 * Options of an admin client (upstream DefaultMQAdminExt's fields) with upstream's defaults, on top
 * of the options every client shares (name servers, credentials, transport).
 */

import type { ClientOptions } from '../client/client-config.js';
import { DEFAULT_TOPIC } from '../common/constants.js';
import { ValidationError } from '../common/errors.js';

export interface AdminOptions extends ClientOptions {
  /** The admin's group on its client instance (upstream adminExtGroup) [admin_ext_group]. */
  adminExtGroup?: string | undefined;
  /** The template topic named in topic creation requests (upstream createTopicKey) [TBW102]. */
  createTopicKey?: string | undefined;
  /**
   * Default timeout of each call, ms (upstream DefaultMQAdminExt.timeoutMillis) [5000]. Consume stats,
   * consumer running info and group offset cloning wait three times as long, as upstream.
   */
  timeoutMillis?: number | undefined;
}

export interface ResolvedAdminOptions {
  readonly adminExtGroup: string;
  readonly createTopicKey: string;
  readonly timeoutMillis: number;
}

export const DEFAULT_ADMIN_OPTIONS = Object.freeze({
  adminExtGroup: 'admin_ext_group',
  createTopicKey: DEFAULT_TOPIC,
  timeoutMillis: 5000,
});

function nonEmpty(name: string, value: unknown, fallback: string): string {
  if (value === undefined) return fallback;
  if (typeof value !== 'string' || value.trim().length === 0)
    throw new ValidationError(`${name} must be a non-empty string`, -1);
  return value;
}

export function resolveAdminOptions(options: AdminOptions): ResolvedAdminOptions {
  const d = DEFAULT_ADMIN_OPTIONS;
  const timeoutMillis = options.timeoutMillis ?? d.timeoutMillis;
  if (!Number.isFinite(timeoutMillis) || timeoutMillis <= 0)
    throw new ValidationError(`timeoutMillis must be a number > 0, got ${timeoutMillis}`, -1);
  return {
    adminExtGroup: nonEmpty('adminExtGroup', options.adminExtGroup, d.adminExtGroup),
    createTopicKey: nonEmpty('createTopicKey', options.createTopicKey, d.createTopicKey),
    timeoutMillis,
  };
}
