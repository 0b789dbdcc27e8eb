/** Every attack class `npm run attack` replays, in the order docs/security.md lists them. */
import type { AttackClass } from './attack-class.js';
import { metadataBounds } from './metadata-bounds.js';
import { namesrvRegister } from './namesrv-register.js';

export const ATTACK_CLASSES: readonly AttackClass[] = [namesrvRegister, metadataBounds];
