/** Every scenario of `npm run chaos`, in the order they run. */
import { brokerKill } from './scenarios/broker-kill.js';
import { brokerPause } from './scenarios/broker-pause.js';
import { scenario as clockJump } from './scenarios/clock-jump.js';
import { scenario as connectionStorm } from './scenarios/connection-storm.js';
import { consumerChurn } from './scenarios/consumer-churn.js';
import { scenario as diskFull } from './scenarios/disk-full.js';
import { namesrvKill } from './scenarios/namesrv-kill.js';
import { scenario as slowConsumer } from './scenarios/slow-consumer.js';
import type { Scenario } from './types.js';

export const SCENARIOS: readonly Scenario[] = [
  brokerKill,
  brokerPause,
  namesrvKill,
  consumerChurn,
  slowConsumer,
  connectionStorm,
  diskFull,
  clockJump,
];
