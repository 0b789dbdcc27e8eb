/**
 * ConsumeMessageConcurrentlyService: pulled messages are split into batches of
 * consumeMessageBatchMaxSize and run through the listener, at most consumeConcurrency at once, in
 * any order. A failed message (RECONSUME_LATER, a throw, a wrong answer, or past ctx.ackIndex) is
 * sent back to the broker's retry topic (clustering) or dropped with a warn line (broadcasting); one
 * whose send-back failed is consumed again here after consumeRetryDelayWhenSendBackFailed. Progress
 * is the smallest offset still cached, so it never passes a message not yet consumed. Messages
 * consuming for longer than consumeTimeout are sent back and dropped from the cache.
 */
import type { TimerHandle } from '../../../common/clock.js';
import type { MessageExt } from '../../../common/message/message.js';
import { MessageQueue } from '../../../common/message/message-queue.js';
import {
  CMResult,
  type ConsumeMessageDirectlyResult,
} from '../../../common/protocol/consume-message-directly-result.js';
import { MessageModel } from '../../../common/protocol/heartbeat-data.js';
import { errorText } from '../../errors.js';
import {
  type ConsumeConcurrentlyContext,
  ConsumeConcurrentlyStatus,
  ConsumeReturnType,
  type MessageListenerConcurrently,
} from '../listener.js';
import type { ProcessQueue } from '../process-queue.js';
import { ConsumeExecutor } from './consume-executor.js';
import {
  beforeConsumeHooks,
  type ConsumeHost,
  type ConsumeMessageService,
  markConsumeStart,
  runConsumeHooks,
  traceListener,
} from './consume-message-service.js';

/** Upstream's Integer.MAX_VALUE default of ackIndex: every message of the batch. */
const ACK_ALL = 2147483647;
/** Expired messages sent back per queue per clean-up run (upstream's 16). */
const EXPIRED_PER_RUN = 16;

export interface ListenerOutcome {
  status: ConsumeConcurrentlyStatus;
  returnType: ConsumeReturnType;
  error: unknown;
}

/**
 * One call of a concurrently listener (also the POP consume service's): a throw, a rejection or an
 * answer that is no status counts as RECONSUME_LATER; `noStatus` hears about the last kind.
 */
export async function callConcurrentlyListener(
  listener: MessageListenerConcurrently,
  msgs: MessageExt[],
  context: ConsumeConcurrentlyContext,
  noStatus: (returned: unknown) => void,
): Promise<ListenerOutcome> {
  try {
    const status: unknown = await listener.consumeMessage(msgs, context);
    if (status === ConsumeConcurrentlyStatus.CONSUME_SUCCESS) {
      return { status, returnType: ConsumeReturnType.SUCCESS, error: undefined };
    }
    if (status === ConsumeConcurrentlyStatus.RECONSUME_LATER) {
      return { status, returnType: ConsumeReturnType.FAILED, error: undefined };
    }
    noStatus(status);
    return {
      status: ConsumeConcurrentlyStatus.RECONSUME_LATER,
      returnType: ConsumeReturnType.RETURNNULL,
      error: undefined,
    };
  } catch (error) {
    return {
      status: ConsumeConcurrentlyStatus.RECONSUME_LATER,
      returnType: ConsumeReturnType.EXCEPTION,
      error,
    };
  }
}

export class ConsumeMessageConcurrentlyService implements ConsumeMessageService {
  private readonly host: ConsumeHost;
  private readonly listener: MessageListenerConcurrently;
  private readonly executor: ConsumeExecutor;
  private readonly retryTimers = new Set<TimerHandle>();
  private cleanTimer: TimerHandle | undefined;
  private stopped = false;
  /** Whether a listener's missing status was told at warn already (once per consumer). */
  private warnedNoStatus = false;

  constructor(host: ConsumeHost, listener: MessageListenerConcurrently) {
    this.host = host;
    this.listener = listener;
    this.executor = new ConsumeExecutor(host.options.consumeConcurrency, host.logger, {
      now: () => host.clock.now(),
      stuckAfterMs: host.options.consumeTimeout * 60_000,
    });
  }

  start(): void {
    this.scheduleCleanExpiredMsg();
  }

  async shutdown(awaitTerminateMillis: number): Promise<void> {
    this.stopped = true;
    this.cleanTimer?.cancel();
    for (const t of this.retryTimers) t.cancel();
    this.retryTimers.clear();
    const idle = this.executor.shutdown();
    if (awaitTerminateMillis <= 0) return;
    let timer: TimerHandle | undefined;
    await Promise.race([
      idle,
      new Promise<void>((resolve) => {
        timer = this.host.clock.setTimeout(resolve, awaitTerminateMillis);
      }),
    ]);
    timer?.cancel();
  }

  updateCorePoolSize(corePoolSize: number): void {
    this.executor.setConcurrency(corePoolSize);
  }

  getCorePoolSize(): number {
    return this.executor.corePoolSize;
  }

  submitConsumeRequest(msgs: MessageExt[], pq: ProcessQueue, mq: MessageQueue): void {
    const size = this.host.options.consumeMessageBatchMaxSize;
    if (msgs.length <= size) {
      this.submit(msgs, pq, mq);
      return;
    }
    for (let i = 0; i < msgs.length; i += size) this.submit(msgs.slice(i, i + size), pq, mq);
  }

  async consumeMessageDirectly(
    msg: MessageExt,
    brokerName: string | undefined,
  ): Promise<ConsumeMessageDirectlyResult> {
    const mq = new MessageQueue(msg.topic, brokerName ?? '', msg.queueId);
    this.host.resetRetryAndNamespace([msg]);
    const begin = this.host.clock.now();
    const result: ConsumeMessageDirectlyResult = {
      order: false,
      autoCommit: true,
      consumeResult: CMResult.CR_RETURN_NULL,
      remark: undefined,
      spentTimeMills: 0n,
    };
    this.host.logger.info('consumeMessageDirectly', {
      group: this.host.consumerGroup,
      topic: msg.topic,
      msgId: msg.msgId,
    });
    try {
      const status: unknown = await this.listener.consumeMessage([msg], this.newContext(mq));
      if (status === ConsumeConcurrentlyStatus.CONSUME_SUCCESS) result.consumeResult = CMResult.CR_SUCCESS;
      else if (status === ConsumeConcurrentlyStatus.RECONSUME_LATER) result.consumeResult = CMResult.CR_LATER;
    } catch (error) {
      result.consumeResult = CMResult.CR_THROW_EXCEPTION;
      result.remark = errorText(error);
    }
    result.spentTimeMills = BigInt(this.host.clock.now() - begin);
    return result;
  }

  private newContext(mq: MessageQueue): ConsumeConcurrentlyContext {
    return { messageQueue: mq, delayLevelWhenNextConsume: 0, ackIndex: ACK_ALL };
  }

  private submit(msgs: MessageExt[], pq: ProcessQueue, mq: MessageQueue): void {
    if (!this.executor.submit(() => this.consume(msgs, pq, mq))) {
      this.host.logger.debug('consume request after shutdown, dropped', {
        group: this.host.consumerGroup,
        mq: mq.toString(),
      });
    }
  }

  /** A failed send-back's messages come back here after a pause (upstream submitConsumeRequestLater). */
  private submitLater(msgs: MessageExt[], pq: ProcessQueue, mq: MessageQueue): void {
    if (this.stopped) return;
    const timer = this.host.clock.setTimeout(() => {
      this.retryTimers.delete(timer);
      this.submitConsumeRequest(msgs, pq, mq);
    }, this.host.options.consumeRetryDelayWhenSendBackFailed);
    this.retryTimers.add(timer);
  }

  /** One ConsumeRequest: the listener over `msgs`, then the result applied. */
  private async consume(msgs: MessageExt[], pq: ProcessQueue, mq: MessageQueue): Promise<void> {
    if (pq.dropped) {
      this.host.logger.info('the message queue is dropped, consume request ignored', {
        group: this.host.consumerGroup,
        mq: mq.toString(),
      });
      return;
    }
    const host = this.host;
    const context = this.newContext(mq);
    host.resetRetryAndNamespace(msgs);
    const hookContext = beforeConsumeHooks(host, msgs, mq);
    const begin = host.clock.now();
    markConsumeStart(msgs, begin);
    const outcome = await traceListener(
      () => this.callListener(msgs, context),
      host.consumerGroup,
      mq,
      msgs,
      false,
    );
    const rt = host.clock.now() - begin;
    if (outcome.error !== undefined) {
      host.logger.warn(
        'consumeMessage exception',
        {
          group: host.consumerGroup,
          mq: mq.toString(),
          error: errorText(outcome.error),
        },
        outcome.error,
      );
    }
    let returnType = outcome.returnType;
    // As upstream: any real answer (not a throw or a non-status) that came too late is TIME_OUT.
    const answered = returnType === ConsumeReturnType.SUCCESS || returnType === ConsumeReturnType.FAILED;
    if (answered && rt >= host.options.consumeTimeout * 60_000) {
      returnType = ConsumeReturnType.TIME_OUT;
    }
    if (hookContext !== undefined) {
      hookContext.props.set('ConsumeContextType', returnType);
      hookContext.status = outcome.status;
      hookContext.success = outcome.status === ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
      runConsumeHooks(host, 'after', hookContext);
    }
    host.stats.incConsumeRT(host.consumerGroup, mq.topic, rt);
    if (pq.dropped) {
      host.logger.warn('the message queue was dropped while consuming, result not applied', {
        group: host.consumerGroup,
        mq: mq.toString(),
      });
      return;
    }
    await this.processConsumeResult(outcome.status, context, msgs, pq, mq);
  }

  /** The listener's answer; a throw, a rejection or anything else counts as RECONSUME_LATER. */
  private callListener(msgs: MessageExt[], context: ConsumeConcurrentlyContext): Promise<ListenerOutcome> {
    return callConcurrentlyListener(this.listener, msgs, context, (status) => {
      // As upstream's null status: RECONSUME_LATER. Said once at warn (a listener that forgets to
      // return is a bug that repeats on every batch), then at debug.
      const fields = { group: this.host.consumerGroup, returned: String(status) };
      if (this.warnedNoStatus) {
        this.host.logger.debug('consumeMessage returned neither CONSUME_SUCCESS nor RECONSUME_LATER', fields);
      } else {
        this.warnedNoStatus = true;
        this.host.logger.warn(
          'consumeMessage returned neither CONSUME_SUCCESS nor RECONSUME_LATER: treated as RECONSUME_LATER, so these messages are delivered again later; return ConsumeConcurrentlyStatus.CONSUME_SUCCESS to acknowledge them (said once)',
          fields,
        );
      }
    });
  }

  private async processConsumeResult(
    status: ConsumeConcurrentlyStatus,
    context: ConsumeConcurrentlyContext,
    msgs: MessageExt[],
    pq: ProcessQueue,
    mq: MessageQueue,
  ): Promise<void> {
    const host = this.host;
    if (msgs.length === 0) return;
    let ackIndex = Number.isInteger(context.ackIndex) ? context.ackIndex : ACK_ALL;
    if (status === ConsumeConcurrentlyStatus.CONSUME_SUCCESS) {
      if (ackIndex >= msgs.length) ackIndex = msgs.length - 1;
      const ok = Math.max(0, ackIndex + 1);
      host.stats.incConsumeOKTPS(host.consumerGroup, mq.topic, ok);
      host.stats.incConsumeFailedTPS(host.consumerGroup, mq.topic, msgs.length - ok);
    } else {
      ackIndex = -1;
      host.stats.incConsumeFailedTPS(host.consumerGroup, mq.topic, msgs.length);
    }
    ackIndex = Math.max(-1, ackIndex);
    let done = msgs;
    if (host.options.messageModel === MessageModel.BROADCASTING) {
      for (let i = ackIndex + 1; i < msgs.length; i++) {
        const msg = msgs[i] as MessageExt;
        host.logger.warn('BROADCASTING, the message consume failed, drop it', {
          group: host.consumerGroup,
          topic: msg.topic,
          msgId: msg.msgId,
          queueOffset: msg.queueOffset,
        });
      }
    } else if (ackIndex + 1 < msgs.length) {
      const failed = msgs.slice(ackIndex + 1);
      const backFailed: MessageExt[] = [];
      await Promise.all(
        failed.map(async (msg) => {
          try {
            await host.sendMessageBack(msg, context.delayLevelWhenNextConsume, mq.brokerName);
          } catch (error) {
            host.logger.warn(
              'sendMessageBack failed, consume it again later here',
              {
                group: host.consumerGroup,
                msgId: msg.msgId,
                error: errorText(error),
              },
              error,
            );
            msg.reconsumeTimes += 1;
            backFailed.push(msg);
          }
        }),
      );
      if (backFailed.length > 0) {
        const retry = new Set(backFailed);
        done = msgs.filter((m) => !retry.has(m));
        this.submitLater(backFailed, pq, mq);
      }
    }
    const offset = pq.removeMessage(done);
    if (offset >= 0 && !pq.dropped) host.offsetStore.updateOffset(mq, BigInt(offset), true);
  }

  /** Every consumeTimeout minutes: messages consuming for longer are sent back (delay level 3). */
  private scheduleCleanExpiredMsg(): void {
    const period = this.host.options.consumeTimeout * 60_000;
    this.cleanTimer = this.host.clock.setTimeout(() => {
      void this.cleanExpiredMsg().finally(() => {
        if (!this.stopped) this.scheduleCleanExpiredMsg();
      });
    }, period);
  }

  private async cleanExpiredMsg(): Promise<void> {
    this.executor.releaseStuck();
    const timeoutMs = this.host.options.consumeTimeout * 60_000;
    for (const { mq, pq } of [...this.host.rebalance.processQueueTable.values()]) {
      for (const msg of pq.expiredMessages(timeoutMs, EXPIRED_PER_RUN)) {
        try {
          await this.host.sendMessageBack(msg, 3, mq.brokerName);
          this.host.logger.info('send expire msg back', {
            group: this.host.consumerGroup,
            topic: msg.topic,
            msgId: msg.msgId,
            queueId: msg.queueId,
            queueOffset: msg.queueOffset,
          });
          if (pq.msgTreeMap.firstKey() === Number(msg.queueOffset)) pq.removeMessage([msg]);
        } catch (error) {
          this.host.logger.error(
            'send expired msg failed',
            {
              group: this.host.consumerGroup,
              error: errorText(error),
            },
            error,
          );
          // The messages behind this one could not leave the cache either (only the first one is
          // removed), so sending them back would only deliver them twice; upstream never passes a first
          // message it could not send back either.
          break;
        }
      }
    }
  }
}
