/**
 * The public producer: `createProducer(options)` returns a Producer (upstream DefaultMQProducer).
 *
 * ```js
 * const producer = createProducer({ namesrvAddr: '127.0.0.1:9876', producerGroup: 'pg' });
 * await producer.start();
 * const r = await producer.send(new Message('Orders', Buffer.from('hi'), { tags: 'TagA' }));
 * await producer.shutdown();
 * ```
 */
import '../../common/async-dispose.js';
import type { Message } from '../../common/message/message.js';
import type { MessageQueue } from '../../common/message/message-queue.js';
import type { SendResult } from '../instance/requests/send-message.js';
import { type MQAdmin, MQAdminFacade } from '../mq-admin.js';
import { DefaultMQProducerImpl, type SendOptions } from './default-mq-producer-impl.js';
import type { MessageInput } from './message-input.js';
import type { ProducerOptions } from './producer-options.js';
import type { SendMessageHook } from './send-hooks.js';

export type OnewayOptions = Omit<SendOptions, 'communicationMode' | 'timeoutMs'>;

export interface Producer extends MQAdmin, AsyncDisposable {
  /** The group as given (without namespace). */
  readonly producerGroup: string;
  /** `ip@instanceName[@unitName]` once started. */
  readonly clientId: string | undefined;
  /** Connects nothing yet: routes are read on the first send. Rejects when the group runs here already. */
  start(): Promise<void>;
  /**
   * Fails sends still waiting with a ClientStateError, unregisters from the brokers and closes the
   * connections no other client of this process shares. Idempotent.
   */
  shutdown(): Promise<void>;
  /** `await using`: calls shutdown() when the scope ends. */
  [Symbol.asyncDispose](): Promise<void>;
  /** One message, by round robin over the topic's writable queues (or `messageQueue`, or `selector`). */
  send(message: Message | MessageInput, options?: SendOptions): Promise<SendResult>;
  /** A batch: one topic, no delay level, stored as one request (upstream `send(Collection<Message>)`). */
  send(
    messages: ReadonlyArray<Message | MessageInput>,
    options?: Omit<SendOptions, 'selector' | 'arg'>,
  ): Promise<SendResult>;
  /** Written to the broker without waiting for its answer; one attempt. */
  sendOneway(message: Message | MessageInput, options?: OnewayOptions): Promise<void>;
  /** The topic's writable queues (for your own selector, or `send(msg, { messageQueue })`). */
  fetchPublishMessageQueues(topic: string): Promise<MessageQueue[]>;
  registerSendMessageHook(hook: SendMessageHook): void;
}

/** Wraps an implementation; the transactional producer extends this. */
export class ProducerFacade extends MQAdminFacade implements Producer {
  protected readonly impl: DefaultMQProducerImpl;
  readonly producerGroup: string;

  constructor(impl: DefaultMQProducerImpl) {
    super();
    this.impl = impl;
    this.producerGroup = impl.options.producerGroup;
  }

  get clientId(): string | undefined {
    return this.impl.clientId;
  }

  start(): Promise<void> {
    return this.impl.start();
  }

  shutdown(): Promise<void> {
    return this.impl.shutdown();
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.shutdown();
  }

  send(message: Message | MessageInput, options?: SendOptions): Promise<SendResult>;
  send(
    messages: ReadonlyArray<Message | MessageInput>,
    options?: Omit<SendOptions, 'selector' | 'arg'>,
  ): Promise<SendResult>;
  send(
    input: Message | MessageInput | ReadonlyArray<Message | MessageInput>,
    options?: SendOptions,
  ): Promise<SendResult> {
    return this.impl.send(input, options);
  }

  sendOneway(message: Message | MessageInput, options?: OnewayOptions): Promise<void> {
    return this.impl.sendOneway(message, options);
  }

  fetchPublishMessageQueues(topic: string): Promise<MessageQueue[]> {
    return this.impl.fetchPublishMessageQueues(topic);
  }

  registerSendMessageHook(hook: SendMessageHook): void {
    this.impl.registerSendMessageHook(hook);
  }

  protected get queries(): MQAdmin {
    return this.impl.admin;
  }
}

/** A producer of `options.producerGroup`; throws a ValidationError naming a bad option. */
export function createProducer(options: ProducerOptions): Producer {
  return new ProducerFacade(new DefaultMQProducerImpl(options));
}
