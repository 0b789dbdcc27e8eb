/**
 * What the consumer manager reports (`broker/.../client/ConsumerGroupEvent.java`,
 * ConsumerIdsChangeListener): CHANGE when a group's members or subscriptions changed (with the
 * channels to tell), REGISTER on every consumer heartbeat (with its subscriptions, for the consumer
 * filter manager), UNREGISTER when a group's last member left.
 */
import type { SubscriptionData } from '../../common/protocol/subscription-data.js';
import type { ClientChannel } from './client-channel-info.js';

export type ConsumerGroupEvent =
  | { readonly type: 'CHANGE'; readonly group: string; readonly channels: readonly ClientChannel[] }
  | { readonly type: 'REGISTER'; readonly group: string; readonly subscriptions: readonly SubscriptionData[] }
  | { readonly type: 'UNREGISTER'; readonly group: string };

export interface ConsumerIdsChangeListener {
  handle(event: ConsumerGroupEvent): void;
}
