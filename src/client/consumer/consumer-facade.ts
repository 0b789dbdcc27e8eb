/**
 * What the push, lite pull and pull consumer facades share over their ConsumerCore: the group, the
 * client id once started, start/shutdown/`await using`, and the MQAdmin queries.
 */
import '../../common/async-dispose.js';
import { type MQAdmin, MQAdminFacade } from '../mq-admin.js';
import type { ConsumerCore, ResolvedConsumerCoreOptions } from './consumer-core.js';

export abstract class ConsumerFacade<O extends ResolvedConsumerCoreOptions, I extends ConsumerCore<O>>
  extends MQAdminFacade
  implements AsyncDisposable
{
  readonly consumerGroup: string;
  protected readonly impl: I;

  constructor(impl: I) {
    super();
    this.impl = impl;
    this.consumerGroup = impl.options.consumerGroup;
  }

  get clientId(): string | undefined {
    return this.impl.serviceState === 'CREATE_JUST' ? undefined : this.impl.instance.clientId;
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

  protected get queries(): MQAdmin {
    return this.impl.queries;
  }
}
