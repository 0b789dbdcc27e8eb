/**
 * The lite pull consumer's watch over the queues of topics (upstream DefaultLitePullConsumerImpl's
 * topicMessageQueueChangeListenerMap, messageQueuesForTopic and the scheduled
 * fetchTopicMessageQueuesAndCompare, its MonitorMessageQueueChangeThread). Each topic with a
 * TopicMessageQueueChangeListener has its queues read from the name servers every
 * topicMetadataCheckIntervalMillis; the listener hears of each change. It needs no subscription.
 */
import type { Clock, TimerHandle } from '../../../common/clock.js';
import type { Logger } from '../../../common/logger.js';
import type { MessageQueue } from '../../../common/message/message-queue.js';
import { type ClientConfig, withNamespaceOf, withoutNamespaceOf } from '../../client-config.js';
import { errorText } from '../../errors.js';
import type { ServiceState } from '../../instance/mq-client-instance.js';
import type { ResolvedLitePullConsumerOptions } from './lite-pull-consumer-options.js';

/** Upstream's delay of the first topic metadata check, ms. */
const FIRST_METADATA_CHECK_DELAY_MS = 10_000;

/** Called when the queues of a topic change (upstream TopicMessageQueueChangeListener). */
export type TopicMessageQueueChangeListener = (topic: string, messageQueues: MessageQueue[]) => void;

/** What the monitor needs of its lite pull consumer. */
export interface MessageQueueChangeHost {
  readonly options: ResolvedLitePullConsumerOptions;
  readonly clientConfig: ClientConfig;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly serviceState: ServiceState;
  /** The topic's readable queues (the application's topic), as the name servers route them. */
  fetchMessageQueues(topic: string): Promise<MessageQueue[]>;
}

export class MessageQueueChangeMonitor {
  private readonly host: MessageQueueChangeHost;
  /** By topic on the wire (with the namespace). */
  private readonly changeListeners = new Map<string, TopicMessageQueueChangeListener>();
  /** The queues last seen of each topic watched, as queuesKey. */
  private readonly messageQueuesForTopic = new Map<string, string>();
  private metadataTimer: TimerHandle | undefined;

  constructor(host: MessageQueueChangeHost) {
    this.host = host;
  }

  /** A running consumer reads the topic's queues now, so the listener hears of later changes only. */
  registerListener(topic: string, listener: TopicMessageQueueChangeListener): void {
    const wireTopic = withNamespaceOf(this.host.clientConfig, topic);
    if (this.changeListeners.has(wireTopic)) this.host.logger.warn('topic already registered', { topic });
    this.changeListeners.set(wireTopic, listener);
    if (this.host.serviceState === 'RUNNING') {
      void this.host.fetchMessageQueues(topic).then(
        (mqs) => this.messageQueuesForTopic.set(wireTopic, queuesKey(mqs)),
        () => undefined,
      );
    }
  }

  /** The first check comes after upstream's delay, the next ones every topicMetadataCheckIntervalMillis. */
  start(): void {
    this.scheduleMetadataCheck(FIRST_METADATA_CHECK_DELAY_MS);
  }

  /** At start: the queues of the topics registered before, so the first check reports changes only. */
  async fetchRegisteredTopics(): Promise<void> {
    for (const wireTopic of this.changeListeners.keys()) {
      try {
        this.messageQueuesForTopic.set(
          wireTopic,
          queuesKey(
            await this.host.fetchMessageQueues(withoutNamespaceOf(this.host.clientConfig, wireTopic)),
          ),
        );
      } catch (error) {
        this.host.logger.warn(
          'fetch message queues failed',
          { topic: wireTopic, error: errorText(error) },
          error,
        );
      }
    }
  }

  shutdown(): void {
    this.metadataTimer?.cancel();
  }

  private scheduleMetadataCheck(delayMs: number): void {
    this.metadataTimer = this.host.clock.setTimeout(() => {
      void this.fetchTopicMessageQueuesAndCompare().finally(() => {
        if (this.host.serviceState === 'RUNNING')
          this.scheduleMetadataCheck(this.host.options.topicMetadataCheckIntervalMillis);
      });
    }, delayMs);
  }

  private async fetchTopicMessageQueuesAndCompare(): Promise<void> {
    for (const [wireTopic, listener] of this.changeListeners) {
      try {
        const topic = withoutNamespaceOf(this.host.clientConfig, wireTopic);
        const now = await this.host.fetchMessageQueues(topic);
        const key = queuesKey(now);
        if (this.messageQueuesForTopic.get(wireTopic) !== key) {
          this.messageQueuesForTopic.set(wireTopic, key);
          listener(topic, now);
        }
      } catch (error) {
        this.host.logger.warn(
          'topic metadata check failed',
          { topic: wireTopic, error: errorText(error) },
          error,
        );
      }
    }
  }
}

/** The queues as a set: the same queues in any order give the same key. */
function queuesKey(mqs: readonly MessageQueue[]): string {
  return mqs
    .map((mq) => mq.key)
    .sort()
    .join('\n');
}
