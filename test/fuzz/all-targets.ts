/** Every in-process fuzz target of the project, for the unit-test run and for `npm run fuzz`. */
import { bodyTarget } from './body-targets.js';
import type { FuzzTarget } from './engine.js';
import { fastjsonTarget } from './fastjson-target.js';
import { messageTargets } from './message-targets.js';
import { protocolTargets } from './protocol-targets.js';

export const allTargets: FuzzTarget[] = [...protocolTargets, fastjsonTarget, bodyTarget, ...messageTargets];
