/**
 * The consume services (upstream ConsumeMessageService): concurrently or orderly, each runs the
 * listener over what the pulls cached, and commits progress. This file holds what both share: the
 * contract, what they need of the consumer, and the listener-call bookkeeping.
 */
import type { Clock } from '../../../common/clock.js';
import type { Logger } from '../../../common/logger.js';
import type { MessageExt } from '../../../common/message/message.js';
import type { MessageQueue } from '../../../common/message/message-queue.js';
import type { ConsumeMessageDirectlyResult } from '../../../common/protocol/consume-message-directly-result.js';
import { type ConsumeTraceContext, consumeChannel } from '../../diagnostics.js';
import { errorText } from '../../errors.js';
import type { OffsetStore } from '../offset/offset-store.js';
import type { ProcessQueue } from '../process-queue.js';
import type { ResolvedPushConsumerOptions } from '../push/push-consumer-options.js';
import type { RebalanceImpl } from '../rebalance/rebalance-impl.js';
import type { ConsumerStatsRecorder } from '../stats/consumer-stats-recorder.js';
import type { ConsumeMessageContext, ConsumeMessageHook } from './consume-hooks.js';

/** What a consume service needs of its push consumer. */
export interface ConsumeHost {
  /** The group on the wire (with the namespace). */
  readonly consumerGroup: string;
  readonly options: ResolvedPushConsumerOptions;
  readonly offsetStore: OffsetStore;
  readonly rebalance: RebalanceImpl;
  readonly stats: ConsumerStatsRecorder;
  readonly hooks: readonly ConsumeMessageHook[];
  readonly namespace: string | undefined;
  readonly clock: Clock;
  readonly logger: Logger;
  /** Retries before the DLQ: maxReconsumeTimes, -1 meaning 16 (concurrently) or Integer.MAX_VALUE (orderly). */
  maxReconsumeTimes(): number;
  /** CONSUMER_SEND_MSG_BACK, or the inner producer when that fails; rejects when both failed. */
  sendMessageBack(msg: MessageExt, delayLevel: number, brokerName: string | undefined): Promise<void>;
  /** Messages of `%RETRY%<group>` get their real topic back, and every topic loses the namespace. */
  resetRetryAndNamespace(msgs: readonly MessageExt[]): void;
  /** True while the consumer runs (not suspended state; started and not shut down). */
  isRunning(): boolean;
}

export interface ConsumeMessageService {
  start(): void;
  /** Stops taking requests and waits up to `awaitTerminateMillis` for running listeners. */
  shutdown(awaitTerminateMillis: number): Promise<void>;
  updateCorePoolSize(corePoolSize: number): void;
  getCorePoolSize(): number;
  /** Pulled messages of `mq` are cached in `pq`; `dispatchToConsume` when no request was running. */
  submitConsumeRequest(
    msgs: MessageExt[],
    pq: ProcessQueue,
    mq: MessageQueue,
    dispatchToConsume: boolean,
  ): void;
  consumeMessageDirectly(
    msg: MessageExt,
    brokerName: string | undefined,
  ): Promise<ConsumeMessageDirectlyResult>;
}

/** Runs the hooks of one phase; a throwing hook is logged, never fatal. */
export function runConsumeHooks(
  host: ConsumeHost,
  phase: 'before' | 'after',
  context: ConsumeMessageContext,
): void {
  for (const hook of host.hooks) {
    try {
      if (phase === 'before') hook.consumeMessageBefore(context);
      else hook.consumeMessageAfter(context);
    } catch (error) {
      host.logger.warn(
        'consume message hook failed',
        {
          hook: hook.hookName(),
          phase,
          error: errorText(error),
        },
        error,
      );
    }
  }
}

/**
 * The hook context of one consume request with the `before` hooks run on it, or undefined when the
 * consumer has no hooks (the `after` phase then has nothing to run either).
 */
export function beforeConsumeHooks(
  host: ConsumeHost,
  msgs: MessageExt[],
  mq: MessageQueue,
): ConsumeMessageContext | undefined {
  if (host.hooks.length === 0) return undefined;
  const hookContext: ConsumeMessageContext = {
    consumerGroup: host.consumerGroup,
    msgList: msgs,
    mq,
    namespace: host.namespace,
    props: new Map(),
  };
  runConsumeHooks(host, 'before', hookContext);
  return hookContext;
}

/** Sets CONSUME_START_TIME on each message (consume-timeout clean-up reads it). */
export function markConsumeStart(msgs: readonly MessageExt[], now: number): void {
  const text = String(now);
  for (const msg of msgs) msg.properties.set('CONSUME_START_TIME', text);
}

/**
 * The listener call, traced on `tracing:rocketmq-ts:consumer:consume` when anyone listens: the
 * context gets the answer in `status`, and a listener that threw makes the trace end in `error`.
 */
export async function traceListener<O extends { readonly status: string; readonly error?: unknown }>(
  call: () => Promise<O>,
  consumerGroup: string,
  messageQueue: MessageQueue,
  msgs: MessageExt[],
  orderly: boolean,
): Promise<O> {
  // Positional, so that the untraced path (every listener call) builds no context object.
  if (!consumeChannel.hasSubscribers) return call();
  const context: ConsumeTraceContext = { consumerGroup, messageQueue, msgs, orderly };
  let outcome: O | undefined;
  try {
    await consumeChannel.tracePromise(async () => {
      outcome = await call();
      context.status = outcome.status;
      if (outcome.error !== undefined) throw outcome.error;
      return outcome.status;
    }, context);
  } catch (error) {
    if (outcome === undefined) throw error;
  }
  return outcome as O;
}
