/** Every attack class `npm run attack` replays, in the order docs/security.md lists them. */
import { aclReadPaths } from './acl-read-paths.js';
import { adminFiles } from './admin-files.js';
import type { AttackClass } from './attack-class.js';
import { metricsHost } from './metrics-host.js';
import { remoteConfig } from './remote-config.js';

export const ATTACK_CLASSES: readonly AttackClass[] = [adminFiles, aclReadPaths, remoteConfig, metricsHost];
