/** Every attack class `npm run attack` replays, in the order docs/security.md lists them. */
import type { AttackClass } from './attack-class.js';
import { haPort } from './ha-port.js';

export const ATTACK_CLASSES: readonly AttackClass[] = [haPort];
