/**
 * Broker2Client (`broker/.../client/net/Broker2Client.java`), the part this broker uses: requests the
 * broker sends to its clients over their own connections.
 */
import type { Logger } from '../../common/logger.js';
import { createRequest } from '../../remoting/protocol/command.js';
import { encodeHeader } from '../../remoting/protocol/header-schema.js';
import { NotifyConsumerIdsChangedRequestHeader } from '../../remoting/protocol/headers/index.js';
import { RequestCode } from '../../remoting/protocol/request-code.js';
import type { ClientChannel } from './client-channel-info.js';

/**
 * NOTIFY_CONSUMER_IDS_CHANGED (oneway, header consumerGroup): the consumer rebalances at once.
 * Never throws; a failure is logged.
 */
export function notifyConsumerIdsChanged(
  channel: ClientChannel,
  consumerGroup: string,
  logger: Logger,
): void {
  const request = createRequest(RequestCode.NOTIFY_CONSUMER_IDS_CHANGED, {
    extFields: encodeHeader(NotifyConsumerIdsChangedRequestHeader, { consumerGroup }),
  });
  const fail = (error: unknown) =>
    logger.error('notifyConsumerIdsChanged exception', {
      group: consumerGroup,
      remoteAddress: channel.remoteAddress,
      error: error instanceof Error ? error.message : String(error),
    });
  try {
    channel.invokeOneway(request).catch(fail);
  } catch (error) {
    fail(error);
  }
}
