/** createAdmin: the admin client's factory (upstream `new DefaultMQAdminExt(...)`). */
import type { AdminOptions } from './admin-options.js';
import { DefaultMQAdminExt } from './default-mq-admin-ext.js';
import type { MQAdminExt } from './mq-admin-ext.js';

/**
 * An admin client; options are checked now, nothing connects until `start()`. Give it `credentials`
 * of an admin account when the brokers run with ACL.
 */
export function createAdmin(options: AdminOptions = {}): MQAdminExt {
  return new DefaultMQAdminExt(options);
}
