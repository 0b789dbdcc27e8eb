/** Every attack class `npm run attack` replays, in the order docs/security.md lists them. */
import type { AttackClass } from './attack-class.js';
import { connectionMemory } from './connection-memory.js';
import { haPort } from './ha-port.js';
import { headerLimits } from './header-limits.js';
import { metadataBounds } from './metadata-bounds.js';
import { namesrvRegister } from './namesrv-register.js';
import { slowFrames } from './slow-frames.js';

export const ATTACK_CLASSES: readonly AttackClass[] = [
  haPort,
  connectionMemory,
  headerLimits,
  slowFrames,
  namesrvRegister,
  metadataBounds,
];
