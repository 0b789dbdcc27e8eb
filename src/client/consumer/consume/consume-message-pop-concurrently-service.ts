/**
 * ConsumeMessagePopConcurrentlyService (upstream's): popped messages run through a concurrently
 * listener in batches of consumeMessageBatchMaxSize, at most consumeConcurrency at once. Each
 * message consumed is acked (ACK_MESSAGE); a failed one is handed back with
 * CHANGE_MESSAGE_INVISIBLETIME after the delay of upstream's popDelayLevel table (the broker's
 * revive then brings it back through the POP retry topic). A batch whose invisible time passed
 * before it ran is given up (the broker hands the messages out again).
 */
import type { MessageExt } from '../../../common/message/message.js';
import type { MessageQueue } from '../../../common/message/message-queue.js';
import { getInvisibleTime, getPopTime, splitExtraInfo } from '../../../common/pop/extra-info.js';
import { PopMessageConst } from '../../../common/pop/pop-message-const.js';
import { errorText } from '../../errors.js';
import {
  type ConsumeConcurrentlyContext,
  ConsumeConcurrentlyStatus,
  type MessageListenerConcurrently,
} from '../listener.js';
import { ackPopped, changePopInvisibleTime, type PopAckHost } from '../pop/pop-ack.js';
import type { PopProcessQueue } from '../pop/pop-process-queue.js';
import { ConsumeExecutor } from './consume-executor.js';
import { callConcurrentlyListener } from './consume-message-concurrently-service.js';
import {
  beforeConsumeHooks,
  type ConsumeHost,
  markConsumeStart,
  runConsumeHooks,
  traceListener,
} from './consume-message-service.js';

/** Upstream DefaultMQPushConsumerImpl.popDelayLevel: seconds before a failed message comes back, by level. */
export const POP_DELAY_LEVEL: readonly number[] = [
  10, 30, 60, 120, 180, 240, 300, 360, 420, 480, 540, 600, 1200, 1800, 3600, 7200,
];
const ACK_ALL = 2147483647;

export interface PopConsumeHost extends ConsumeHost {
  readonly popAckHost: PopAckHost;
}

/** Seconds a failed message stays invisible (upstream changePopInvisibleTime's table look-up). */
export function popDelaySeconds(delayLevel: number, reconsumeTimes: number): number {
  const level = delayLevel === 0 ? reconsumeTimes : delayLevel;
  const last = POP_DELAY_LEVEL[POP_DELAY_LEVEL.length - 1] as number;
  // A negative level (upstream indexes the table with it and fails) takes the first delay.
  if (level < 0) return POP_DELAY_LEVEL[0] as number;
  return level >= POP_DELAY_LEVEL.length ? last : (POP_DELAY_LEVEL[level] as number);
}

export class ConsumeMessagePopConcurrentlyService {
  private readonly executor: ConsumeExecutor;

  constructor(
    private readonly host: PopConsumeHost,
    private readonly listener: MessageListenerConcurrently,
  ) {
    this.executor = new ConsumeExecutor(host.options.consumeConcurrency, host.logger, {
      now: () => host.clock.now(),
      stuckAfterMs: host.options.consumeTimeout * 60_000,
    });
  }

  async shutdown(): Promise<void> {
    await this.executor.shutdown();
  }

  updateCorePoolSize(size: number): void {
    this.executor.setConcurrency(size);
  }

  submitPopConsumeRequest(msgs: MessageExt[], pq: PopProcessQueue, mq: MessageQueue): void {
    const size = this.host.options.consumeMessageBatchMaxSize;
    for (let i = 0; i < msgs.length; i += size) {
      const batch = msgs.slice(i, i + size);
      if (!this.executor.submit(() => this.consume(batch, pq, mq))) pq.decFoundMsg(batch.length);
    }
  }

  /** ConsumeRequest.isPopTimeout: the batch's invisible time (from its first handle) has passed. */
  private popTimedOut(msgs: readonly MessageExt[]): boolean {
    try {
      const parts = splitExtraInfo(msgs[0]?.properties.get(PopMessageConst.PROPERTY_POP_CK));
      const popTime = Number(getPopTime(parts));
      const invisibleTime = Number(getInvisibleTime(parts));
      if (popTime <= 0 || invisibleTime <= 0) return true;
      return this.host.clock.now() - popTime >= invisibleTime;
    } catch {
      return true;
    }
  }

  private async consume(msgs: MessageExt[], pq: PopProcessQueue, mq: MessageQueue): Promise<void> {
    const host = this.host;
    if (pq.dropped) return;
    if (msgs.length === 0 || this.popTimedOut(msgs)) {
      host.logger.info('the pop message time out so abort consume', {
        group: host.consumerGroup,
        mq: mq.toString(),
      });
      pq.decFoundMsg(msgs.length);
      return;
    }
    const context: ConsumeConcurrentlyContext = {
      messageQueue: mq,
      delayLevelWhenNextConsume: 0,
      ackIndex: ACK_ALL,
    };
    host.resetRetryAndNamespace(msgs);
    const hookContext = beforeConsumeHooks(host, msgs, mq);
    const begin = host.clock.now();
    markConsumeStart(msgs, begin);
    const outcome = await traceListener(
      () => callConcurrentlyListener(this.listener, msgs, context, () => undefined),
      host.consumerGroup,
      mq,
      msgs,
      false,
    );
    if (outcome.error !== undefined) {
      host.logger.warn('consumeMessage exception', {
        group: host.consumerGroup,
        mq: mq.toString(),
        error: errorText(outcome.error),
      });
    }
    if (hookContext !== undefined) {
      hookContext.props.set('ConsumeContextType', outcome.returnType);
      hookContext.status = outcome.status;
      hookContext.success = outcome.status === ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
      runConsumeHooks(host, 'after', hookContext);
    }
    host.stats.incConsumeRT(host.consumerGroup, mq.topic, host.clock.now() - begin);
    if (pq.dropped || this.popTimedOut(msgs)) {
      // The handles are no longer ours (dropped queue) or have expired: the broker hands the
      // messages out again, an ack or change would be refused.
      pq.decFoundMsg(msgs.length);
      host.logger.warn('processQueue invalid or popTimeout, result not applied', {
        group: host.consumerGroup,
        mq: mq.toString(),
        dropped: pq.dropped,
      });
      return;
    }
    await this.processConsumeResult(outcome.status, context, msgs, pq, mq);
  }

  private async processConsumeResult(
    status: ConsumeConcurrentlyStatus,
    context: ConsumeConcurrentlyContext,
    msgs: MessageExt[],
    pq: PopProcessQueue,
    mq: MessageQueue,
  ): Promise<void> {
    const host = this.host;
    let ackIndex = Number.isInteger(context.ackIndex) ? context.ackIndex : ACK_ALL;
    if (status === ConsumeConcurrentlyStatus.CONSUME_SUCCESS) {
      if (ackIndex >= msgs.length) ackIndex = msgs.length - 1;
      ackIndex = Math.max(-1, ackIndex);
      host.stats.incConsumeOKTPS(host.consumerGroup, mq.topic, ackIndex + 1);
      host.stats.incConsumeFailedTPS(host.consumerGroup, mq.topic, msgs.length - ackIndex - 1);
    } else {
      ackIndex = -1;
      host.stats.incConsumeFailedTPS(host.consumerGroup, mq.topic, msgs.length);
    }
    const settles: Array<Promise<unknown>> = [];
    for (let i = 0; i <= ackIndex; i++) {
      settles.push(ackPopped(host.popAckHost, msgs[i] as MessageExt, host.consumerGroup));
      pq.ack();
    }
    for (let i = ackIndex + 1; i < msgs.length; i++) {
      const msg = msgs[i] as MessageExt;
      pq.ack();
      if (msg.reconsumeTimes >= host.maxReconsumeTimes()) {
        settles.push(this.checkNeedAckOrDelay(msg));
        continue;
      }
      settles.push(
        this.changeInvisible(msg, popDelaySeconds(context.delayLevelWhenNextConsume, msg.reconsumeTimes)),
      );
    }
    await Promise.all(settles);
  }

  /** Past maxReconsumeTimes: acked once it is older than twice the last delay, else delayed by its age. */
  private checkNeedAckOrDelay(msg: MessageExt): Promise<unknown> {
    const age = this.host.clock.now() - Number(msg.bornTimestamp);
    const last = POP_DELAY_LEVEL[POP_DELAY_LEVEL.length - 1] as number;
    if (age > last * 1000 * 2) {
      this.host.logger.warn('Consume too many times, ack message async', { msgId: msg.msgId });
      return ackPopped(this.host.popAckHost, msg, this.host.consumerGroup);
    }
    let level = POP_DELAY_LEVEL.length - 1;
    for (; level >= 0; level--) {
      if (age >= (POP_DELAY_LEVEL[level] as number) * 1000) {
        level++;
        break;
      }
    }
    return this.changeInvisible(msg, popDelaySeconds(level, msg.reconsumeTimes));
  }

  private async changeInvisible(msg: MessageExt, delaySeconds: number): Promise<void> {
    try {
      await changePopInvisibleTime(this.host.popAckHost, msg, this.host.consumerGroup, delaySeconds * 1000);
    } catch (error) {
      this.host.logger.error('changePopInvisibleTimeAsync fail', {
        group: this.host.consumerGroup,
        msgId: msg.msgId,
        error: errorText(error),
      });
    }
  }
}
