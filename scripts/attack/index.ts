/** Every attack class `npm run attack` replays, in the order of the findings (docs/security.md). */
import { aclReadPaths } from './acl-read-paths.js';
import { adminFiles } from './admin-files.js';
import type { AttackClass } from './attack-class.js';
import { connectionMemory } from './connection-memory.js';
import { haPort } from './ha-port.js';
import { headerLimits } from './header-limits.js';
import { metadataBounds } from './metadata-bounds.js';
import { metricsHost } from './metrics-host.js';
import { namesrvRegister } from './namesrv-register.js';
import { remoteConfig } from './remote-config.js';
import { slowFrames } from './slow-frames.js';

export const ATTACK_CLASSES: readonly AttackClass[] = [
  haPort,
  adminFiles,
  connectionMemory,
  aclReadPaths,
  headerLimits,
  slowFrames,
  namesrvRegister,
  remoteConfig,
  metadataBounds,
  metricsHost,
];
