/**
 * DefaultConsumerIdsChangeListener (`broker/.../client/DefaultConsumerIdsChangeListener.java`): on
 * CHANGE, tells every member of the group (when the broker's notifyConsumerIdsChangedEnable is on);
 * REGISTER and UNREGISTER go to the optional consumer filter hooks.
 */
import type { Logger } from '../../common/logger.js';
import type { SubscriptionData } from '../../common/protocol/subscription-data.js';
import type { BrokerConfig } from '../broker-config.js';
import { notifyConsumerIdsChanged } from './broker2client.js';
import type { ConsumerGroupEvent, ConsumerIdsChangeListener } from './consumer-ids-change-listener.js';

/** What the consumer filter manager (SQL92 / bit-map filtering) wants to hear; filled in later. */
export interface ConsumerFilterHooks {
  register(group: string, subscriptions: readonly SubscriptionData[]): void;
  unregister(group: string): void;
  /** Checks an expression for CHECK_CLIENT_CONFIG; throws with the reason when it does not compile. */
  compile?(expressionType: string, expression: string): void;
}

export class DefaultConsumerIdsChangeListener implements ConsumerIdsChangeListener {
  constructor(
    private readonly config: Pick<BrokerConfig, 'notifyConsumerIdsChangedEnable'>,
    private readonly logger: Logger,
    private readonly filter: ConsumerFilterHooks | undefined = undefined,
  ) {}

  handle(event: ConsumerGroupEvent): void {
    switch (event.type) {
      case 'CHANGE':
        if (!this.config.notifyConsumerIdsChangedEnable) return;
        for (const channel of event.channels) notifyConsumerIdsChanged(channel, event.group, this.logger);
        return;
      case 'REGISTER':
        this.filter?.register(event.group, event.subscriptions);
        return;
      case 'UNREGISTER':
        this.filter?.unregister(event.group);
        return;
    }
  }
}
