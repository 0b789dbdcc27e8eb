/**
 * ConsumeMessageOrderlyService: one worker at a time per queue (a local per-queue lock), and only
 * while this member holds the queue's lock on the broker (clustering), takes messages in offset
 * order, runs the listener, and commits; a SUSPEND_CURRENT_QUEUE_A_MOMENT answer puts the batch back
 * in front and tries again after a pause (clamped to [10 ms, 30 s]) so order holds, and after
 * maxReconsumeTimes the messages go to the DLQ through the retry topic. A worker yields its queue
 * after maxTimeConsumeContinuously. Broker locks are renewed every lockInterval.
 */
import type { TimerHandle } from '../../../common/clock.js';
import { MixAll } from '../../../common/constants.js';
import type { MessageExt } from '../../../common/message/message.js';
import { MessageConst } from '../../../common/message/message-const.js';
import { MessageQueue } from '../../../common/message/message-queue.js';
import {
  CMResult,
  type ConsumeMessageDirectlyResult,
} from '../../../common/protocol/consume-message-directly-result.js';
import { MessageModel } from '../../../common/protocol/heartbeat-data.js';
import { errorText } from '../../errors.js';
import type { InnerProducer } from '../../instance/inner.js';
import { wrapNamespace } from '../../namespace.js';
import {
  type ConsumeOrderlyContext,
  ConsumeOrderlyStatus,
  ConsumeReturnType,
  type MessageListenerOrderly,
} from '../listener.js';
import type { ProcessQueue } from '../process-queue.js';
import { retryMessage } from '../send-message-back.js';
import { ConsumeExecutor } from './consume-executor.js';
import type { ConsumeMessageContext } from './consume-hooks.js';
import {
  type ConsumeHost,
  type ConsumeMessageService,
  markConsumeStart,
  runConsumeHooks,
  traceListener,
} from './consume-message-service.js';

/** Upstream's clamps of a suspension, ms. */
const MIN_SUSPEND_MS = 10;
const MAX_SUSPEND_MS = 30_000;
/** Upstream's delays: retry a queue whose lock was lost (10), or not held when its request ran (100), ms. */
const LOCK_LOST_RETRY_MS = 10;
const NOT_LOCKED_RETRY_MS = 100;
/** Upstream's pause before consuming after a lock retry failed, ms. */
const LOCK_RETRY_FAILED_DELAY_MS = 3000;
/** Upstream's delay of the first lock renewal after start, ms. */
const FIRST_LOCK_DELAY_MS = 1000;
/** Waiting for the queue's consume lock (held briefly by a rebalance that removes the queue). */
const CONSUME_LOCK_WAIT_MS = 2_147_483_647;

/** What the orderly service needs beyond ConsumeHost: the instance's inner producer for the DLQ path. */
export interface OrderlyConsumeHost extends ConsumeHost {
  innerProducerForDLQ(): Promise<InnerProducer>;
}

interface ListenerOutcome {
  status: ConsumeOrderlyStatus;
  returnType: ConsumeReturnType;
  /** What the listener threw, if it did. */
  error?: unknown;
}

export class ConsumeMessageOrderlyService implements ConsumeMessageService {
  private readonly host: OrderlyConsumeHost;
  private readonly listener: MessageListenerOrderly;
  private readonly executor: ConsumeExecutor;
  private readonly timers = new Set<TimerHandle>();
  /** mq.key -> the tail of that queue's chain of consume requests (upstream's MessageQueueLock). */
  private readonly queueChains = new Map<string, Promise<void>>();
  private lockTimer: TimerHandle | undefined;
  private stopped = false;
  /** Whether a listener's missing status was told at warn already (once per consumer). */
  private warnedNoStatus = false;

  constructor(host: OrderlyConsumeHost, listener: MessageListenerOrderly) {
    this.host = host;
    this.listener = listener;
    this.executor = new ConsumeExecutor(host.options.consumeConcurrency, host.logger, {
      now: () => host.clock.now(),
      stuckAfterMs: host.options.consumeTimeout * 60_000,
    });
  }

  private get clustering(): boolean {
    return this.host.options.messageModel === MessageModel.CLUSTERING;
  }

  start(): void {
    if (this.clustering) this.scheduleLockAll(FIRST_LOCK_DELAY_MS);
  }

  async shutdown(awaitTerminateMillis: number): Promise<void> {
    this.stopped = true;
    this.lockTimer?.cancel();
    for (const t of this.timers) t.cancel();
    this.timers.clear();
    const idle = this.executor.shutdown();
    if (awaitTerminateMillis > 0) {
      let timer: TimerHandle | undefined;
      await Promise.race([
        idle,
        new Promise<void>((resolve) => {
          timer = this.host.clock.setTimeout(resolve, awaitTerminateMillis);
        }),
      ]);
      timer?.cancel();
    }
    if (this.clustering) await this.host.rebalance.unlockAll(false);
  }

  updateCorePoolSize(corePoolSize: number): void {
    this.executor.setConcurrency(corePoolSize);
  }

  getCorePoolSize(): number {
    return this.executor.corePoolSize;
  }

  submitConsumeRequest(
    _msgs: MessageExt[],
    pq: ProcessQueue,
    mq: MessageQueue,
    dispatchToConsume: boolean,
  ): void {
    if (dispatchToConsume) this.dispatch(pq, mq);
  }

  async consumeMessageDirectly(
    msg: MessageExt,
    brokerName: string | undefined,
  ): Promise<ConsumeMessageDirectlyResult> {
    const mq = new MessageQueue(msg.topic, brokerName ?? '', msg.queueId);
    this.host.resetRetryAndNamespace([msg]);
    const begin = this.host.clock.now();
    const result: ConsumeMessageDirectlyResult = {
      order: true,
      autoCommit: true,
      consumeResult: CMResult.CR_RETURN_NULL,
      remark: undefined,
      spentTimeMills: 0n,
    };
    const context = this.newContext(mq);
    try {
      const status: unknown = await this.listener.consumeMessage([msg], context);
      switch (status) {
        case ConsumeOrderlyStatus.COMMIT:
          result.consumeResult = CMResult.CR_COMMIT;
          break;
        case ConsumeOrderlyStatus.ROLLBACK:
          result.consumeResult = CMResult.CR_ROLLBACK;
          break;
        case ConsumeOrderlyStatus.SUCCESS:
          result.consumeResult = CMResult.CR_SUCCESS;
          break;
        case ConsumeOrderlyStatus.SUSPEND_CURRENT_QUEUE_A_MOMENT:
          result.consumeResult = CMResult.CR_LATER;
          break;
      }
    } catch (error) {
      result.consumeResult = CMResult.CR_THROW_EXCEPTION;
      result.remark = errorText(error);
    }
    // Upstream reads autoCommit after the listener, also when it threw.
    result.autoCommit = context.autoCommit;
    result.spentTimeMills = BigInt(this.host.clock.now() - begin);
    return result;
  }

  private newContext(mq: MessageQueue): ConsumeOrderlyContext {
    return { messageQueue: mq, autoCommit: true, suspendCurrentQueueTimeMillis: -1 };
  }

  /** A ConsumeRequest for the queue, run after any other of the same queue (the local lock). */
  private dispatch(pq: ProcessQueue, mq: MessageQueue): void {
    if (this.stopped) return;
    this.executor.submit(() => {
      const key = mq.key;
      const previous = this.queueChains.get(key) ?? Promise.resolve();
      const run = previous.then(() => this.consume(pq, mq));
      const tail = run.catch(() => undefined);
      this.queueChains.set(key, tail);
      void tail.then(() => {
        if (this.queueChains.get(key) === tail) this.queueChains.delete(key);
      });
      return run;
    });
  }

  private later(delayMs: number, fn: () => void): void {
    if (this.stopped) return;
    const timer = this.host.clock.setTimeout(() => {
      this.timers.delete(timer);
      fn();
    }, delayMs);
    this.timers.add(timer);
  }

  /** `submitConsumeRequestLater`: -1 takes suspendCurrentQueueTimeMillis; clamped to [10 ms, 30 s]. */
  private submitLater(pq: ProcessQueue, mq: MessageQueue, suspendMillis: number): void {
    let delay = suspendMillis === -1 ? this.host.options.suspendCurrentQueueTimeMillis : suspendMillis;
    delay = Math.min(MAX_SUSPEND_MS, Math.max(MIN_SUSPEND_MS, delay));
    this.later(delay, () => this.dispatch(pq, mq));
  }

  /** `tryLockLaterAndReconsume`: lock the queue again later, then consume soon or after a pause. */
  private tryLockLaterAndReconsume(pq: ProcessQueue, mq: MessageQueue, delayMs: number): void {
    this.later(delayMs, () => {
      void (this.stopped ? Promise.resolve(false) : this.host.rebalance.lock(mq)).then((ok) => {
        this.submitLater(pq, mq, ok ? MIN_SUSPEND_MS : LOCK_RETRY_FAILED_DELAY_MS);
      });
    });
  }

  private scheduleLockAll(delayMs: number): void {
    if (this.stopped) return;
    this.lockTimer = this.host.clock.setTimeout(() => {
      this.lockTimer = undefined;
      this.executor.releaseStuck();
      void this.host.rebalance.lockAll().finally(() => this.scheduleLockAll(this.host.options.lockInterval));
    }, delayMs);
  }

  private holdsLock(pq: ProcessQueue): boolean {
    return !this.clustering || (pq.locked && !pq.isLockExpired());
  }

  /** One ConsumeRequest (upstream ConsumeRequest.run): batches in order while the lock is held. */
  private async consume(pq: ProcessQueue, mq: MessageQueue): Promise<void> {
    const host = this.host;
    if (pq.dropped) return;
    if (!this.holdsLock(pq)) {
      this.tryLockLaterAndReconsume(pq, mq, NOT_LOCKED_RETRY_MS);
      return;
    }
    const begin = host.clock.now();
    for (;;) {
      if (pq.dropped) {
        host.logger.warn('the message queue not be able to consume, because it is dropped', {
          mq: mq.toString(),
        });
        return;
      }
      if (this.clustering && (!pq.locked || pq.isLockExpired())) {
        host.logger.warn('the message queue lock lost or expired, so consume later', { mq: mq.toString() });
        this.tryLockLaterAndReconsume(pq, mq, LOCK_LOST_RETRY_MS);
        return;
      }
      if (host.clock.now() - begin > host.options.maxTimeConsumeContinuously) {
        this.submitLater(pq, mq, MIN_SUSPEND_MS);
        return;
      }
      const msgs = pq.takeMessages(host.options.consumeMessageBatchMaxSize);
      if (msgs.length === 0) return;
      host.resetRetryAndNamespace(msgs);
      if (!(await this.consumeBatch(pq, mq, msgs))) return;
    }
  }

  /** The listener over one batch; returns whether the worker goes on with the queue. */
  private async consumeBatch(pq: ProcessQueue, mq: MessageQueue, msgs: MessageExt[]): Promise<boolean> {
    const host = this.host;
    const context = this.newContext(mq);
    let hookContext: ConsumeMessageContext | undefined;
    if (host.hooks.length > 0) {
      hookContext = {
        consumerGroup: host.consumerGroup,
        msgList: msgs,
        mq,
        namespace: host.namespace,
        props: new Map(),
        success: false,
      };
      runConsumeHooks(host, 'before', hookContext);
    }
    const begin = host.clock.now();
    markConsumeStart(msgs, begin);
    if (!(await pq.consumeLock.lock(host.clock, CONSUME_LOCK_WAIT_MS))) return false;
    let outcome: ListenerOutcome;
    try {
      if (pq.dropped) {
        host.logger.warn('consumeMessage, the message queue is dropped', { mq: mq.toString() });
        return false;
      }
      outcome = await traceListener(
        () => this.callListener(msgs, context),
        host.consumerGroup,
        mq,
        msgs,
        true,
      );
    } finally {
      pq.consumeLock.unlock();
    }
    const rt = host.clock.now() - begin;
    let returnType = outcome.returnType;
    // As upstream: any real answer (not a throw or a non-status) that came too late is TIME_OUT.
    const answered = returnType === ConsumeReturnType.SUCCESS || returnType === ConsumeReturnType.FAILED;
    if (answered && rt >= host.options.consumeTimeout * 60_000) returnType = ConsumeReturnType.TIME_OUT;
    if (hookContext !== undefined) {
      hookContext.props.set(MixAll.CONSUME_CONTEXT_TYPE, returnType);
      hookContext.status = outcome.status;
      hookContext.success =
        outcome.status === ConsumeOrderlyStatus.SUCCESS || outcome.status === ConsumeOrderlyStatus.COMMIT;
      runConsumeHooks(host, 'after', hookContext);
    }
    host.stats.incConsumeRT(host.consumerGroup, mq.topic, rt);
    return this.processConsumeResult(msgs, outcome.status, context, pq, mq);
  }

  /** A throw, a rejection or anything but the four statuses counts as SUSPEND_CURRENT_QUEUE_A_MOMENT. */
  private async callListener(msgs: MessageExt[], context: ConsumeOrderlyContext): Promise<ListenerOutcome> {
    const host = this.host;
    try {
      const status: unknown = await this.listener.consumeMessage(msgs, context);
      switch (status) {
        case ConsumeOrderlyStatus.SUCCESS:
        case ConsumeOrderlyStatus.COMMIT:
          return { status, returnType: ConsumeReturnType.SUCCESS };
        case ConsumeOrderlyStatus.SUSPEND_CURRENT_QUEUE_A_MOMENT:
        case ConsumeOrderlyStatus.ROLLBACK:
          host.logger.warn('consumeMessage orderly returned not OK', {
            group: host.consumerGroup,
            status,
            mq: context.messageQueue.toString(),
          });
          return { status, returnType: ConsumeReturnType.FAILED };
        default:
          // As upstream's null status: SUSPEND_CURRENT_QUEUE_A_MOMENT. Said once at warn, then at debug.
          if (this.warnedNoStatus) {
            host.logger.debug('consumeMessage orderly returned no status', {
              group: host.consumerGroup,
              returned: String(status),
            });
          } else {
            this.warnedNoStatus = true;
            host.logger.warn(
              'consumeMessage orderly returned no status: treated as SUSPEND_CURRENT_QUEUE_A_MOMENT, so the queue pauses and these messages are consumed again; return ConsumeOrderlyStatus.SUCCESS to move on (said once)',
              { group: host.consumerGroup, returned: String(status) },
            );
          }
          return {
            status: ConsumeOrderlyStatus.SUSPEND_CURRENT_QUEUE_A_MOMENT,
            returnType: ConsumeReturnType.RETURNNULL,
          };
      }
    } catch (error) {
      host.logger.warn(
        'consumeMessage orderly exception',
        {
          group: host.consumerGroup,
          mq: context.messageQueue.toString(),
          error: errorText(error),
        },
        error,
      );
      return {
        status: ConsumeOrderlyStatus.SUSPEND_CURRENT_QUEUE_A_MOMENT,
        returnType: ConsumeReturnType.EXCEPTION,
        error,
      };
    }
  }

  private async processConsumeResult(
    msgs: MessageExt[],
    status: ConsumeOrderlyStatus,
    context: ConsumeOrderlyContext,
    pq: ProcessQueue,
    mq: MessageQueue,
  ): Promise<boolean> {
    const host = this.host;
    let goOn = true;
    let commitOffset = -1;
    const suspend = async (): Promise<boolean> => {
      host.stats.incConsumeFailedTPS(host.consumerGroup, mq.topic, msgs.length);
      if (await this.checkReconsumeTimes(msgs)) {
        pq.makeMessageToConsumeAgain(msgs);
        this.submitLater(pq, mq, context.suspendCurrentQueueTimeMillis);
        return true;
      }
      return false;
    };
    if (context.autoCommit) {
      if (status === ConsumeOrderlyStatus.SUSPEND_CURRENT_QUEUE_A_MOMENT) {
        if (await suspend()) goOn = false;
        else commitOffset = pq.commit();
      } else {
        if (status !== ConsumeOrderlyStatus.SUCCESS) {
          host.logger.warn(
            'the message queue consume result is illegal, we think you want to ack these message',
            { mq: mq.toString() },
          );
        }
        commitOffset = pq.commit();
        host.stats.incConsumeOKTPS(host.consumerGroup, mq.topic, msgs.length);
      }
    } else {
      switch (status) {
        case ConsumeOrderlyStatus.SUCCESS:
          host.stats.incConsumeOKTPS(host.consumerGroup, mq.topic, msgs.length);
          break;
        case ConsumeOrderlyStatus.COMMIT:
          commitOffset = pq.commit();
          break;
        case ConsumeOrderlyStatus.ROLLBACK:
          pq.rollback();
          this.submitLater(pq, mq, context.suspendCurrentQueueTimeMillis);
          goOn = false;
          break;
        case ConsumeOrderlyStatus.SUSPEND_CURRENT_QUEUE_A_MOMENT:
          if (await suspend()) goOn = false;
          break;
      }
    }
    if (commitOffset >= 0 && !pq.dropped) host.offsetStore.updateOffset(mq, BigInt(commitOffset), false);
    return goOn;
  }

  /**
   * True when the batch must be consumed again (some message is under maxReconsumeTimes, or could
   * not be sent to the DLQ); messages past the limit go to the DLQ through the retry topic.
   */
  private async checkReconsumeTimes(msgs: MessageExt[]): Promise<boolean> {
    let again = false;
    const max = this.host.maxReconsumeTimes();
    for (const msg of msgs) {
      if (msg.reconsumeTimes >= max) {
        msg.properties.set(MessageConst.PROPERTY_RECONSUME_TIME, String(msg.reconsumeTimes));
        if (!(await this.sendToDLQ(msg, max))) {
          again = true;
          msg.reconsumeTimes += 1;
        }
      } else {
        again = true;
        msg.reconsumeTimes += 1;
      }
    }
    return again;
  }

  /** Upstream's orderly sendMessageBack: to the retry topic with reconsume times past the limit, so the broker moves it to the DLQ. */
  private async sendToDLQ(msg: MessageExt, max: number): Promise<boolean> {
    const host = this.host;
    try {
      const retry = retryMessage(
        msg,
        host.consumerGroup,
        wrapNamespace(host.namespace, msg.topic),
        msg.reconsumeTimes,
        max,
      );
      const producer = await host.innerProducerForDLQ();
      await producer.sendInner(retry, 3000);
      return true;
    } catch (error) {
      host.logger.error(
        'sendMessageBack to the DLQ failed',
        {
          group: host.consumerGroup,
          msgId: msg.msgId,
          error: errorText(error),
        },
        error,
      );
      return false;
    }
  }
}
