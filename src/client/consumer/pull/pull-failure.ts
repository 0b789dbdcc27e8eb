/**
 * What both pull loops (the push consumer's PullMessageService, the lite pull consumer's pull tasks)
 * do after a failed pull, as upstream's two do alike: wait briefly after the broker's FLOW_CONTROL
 * answer (the broker is only shedding load), else pullTimeDelayMillsWhenException, and tell the
 * pull-failure channel when the queue is pulled again.
 */
import type { MessageQueue } from '../../../common/message/message-queue.js';
import { ResponseCode } from '../../../remoting/protocol/response-code.js';
import { pullFailureChannel } from '../../diagnostics.js';
import { MQBrokerError } from '../../errors.js';

/** Upstream's pause before re-pulling after a broker's FLOW_CONTROL answer, ms. */
export const PULL_TIME_DELAY_MILLS_WHEN_BROKER_FLOW_CONTROL = 20;

/** The pause before `mq` is pulled again after `error`, published on the pull-failure channel. */
export function delayAfterPullFailure(
  consumerGroup: string,
  mq: MessageQueue,
  error: unknown,
  pullTimeDelayMillsWhenException: number,
): number {
  const delay =
    error instanceof MQBrokerError && error.responseCode === ResponseCode.FLOW_CONTROL
      ? PULL_TIME_DELAY_MILLS_WHEN_BROKER_FLOW_CONTROL
      : pullTimeDelayMillsWhenException;
  if (pullFailureChannel.hasSubscribers) {
    pullFailureChannel.publish({ consumerGroup, messageQueue: mq, error, retryInMs: delay });
  }
  return delay;
}
