/**
 * The transactional producer (upstream TransactionMQProducer): a half message is sent, the local
 * transaction runs, and END_TRANSACTION tells the broker to commit or roll it back. A transaction
 * left UNKNOW is settled later by the broker, which asks a producer of the group
 * (CHECK_TRANSACTION_STATE); `checkListener` answers.
 *
 * ```js
 * import { createTransactionProducer, LocalTransactionState } from 'rocketmq-ts';
 * const producer = createTransactionProducer({
 *   namesrvAddr: '127.0.0.1:9876',
 *   producerGroup: 'tx-pg',
 *   checkListener: async (msg) => (await orderExists(msg.keys) ? 'COMMIT_MESSAGE' : 'ROLLBACK_MESSAGE'),
 * });
 * await producer.start();
 * const r = await producer.sendMessageInTransaction(
 *   { topic: 'Orders', body: 'order 42', keys: 'order-42' },
 *   async (msg, order) => { await saveOrder(order); return LocalTransactionState.COMMIT_MESSAGE; },
 *   order,
 * );
 * console.log(r.sendStatus, r.localTransactionState);
 * await producer.shutdown();
 * ```
 */
import { ValidationError } from '../../common/errors.js';
import { withToJSON } from '../../common/json-value.js';
import type { Logger } from '../../common/logger.js';
import type { Message, MessageExt } from '../../common/message/message.js';
import { MessageConst } from '../../common/message/message-const.js';
import type { CheckTransactionStateRequestHeader } from '../../remoting/protocol/headers/check-transaction-state-request-header.js';
import { errorText, MQClientError } from '../errors.js';
import { type SendResult, SendStatus } from '../instance/requests/send-message.js';
import {
  type CheckExecutorLimits,
  CheckRequestExecutor,
  resolveCheckExecutorLimits,
} from './check-request-executor.js';
import { DefaultMQProducerImpl } from './default-mq-producer-impl.js';
import { type LocalTransactionAnswer, LocalTransactionState } from './local-transaction-state.js';
import { type MessageInput, toMessage } from './message-input.js';
import { type Producer, ProducerFacade } from './producer.js';
import type { ProducerOptions } from './producer-options.js';
import {
  checkRemark,
  endHeaderAfterCheck,
  endHeaderAfterSend,
  executeRemark,
  type SettledState,
  settle,
} from './transaction-end.js';

/**
 * Answers the broker's question about a half message whose transaction is still open (upstream
 * TransactionListener.checkLocalTransaction). `msg` is the half message as sent, with its real topic
 * and queue; `msg.transactionId` is its UNIQ_KEY. A throw, a rejection or any other answer than the
 * three states counts as UNKNOW: the broker asks again, up to its transactionCheckMax.
 */
export type TransactionCheckListener = (msg: MessageExt) => LocalTransactionAnswer;

/**
 * Runs the local transaction of a half message the broker has stored (upstream
 * TransactionListener.executeLocalTransaction); `arg` is what sendMessageInTransaction was given.
 * A throw, a rejection or any other answer than the three states counts as UNKNOW.
 */
export type ExecuteLocalTransaction = (msg: Message, arg: unknown) => LocalTransactionAnswer;

export interface TransactionProducerOptions extends ProducerOptions {
  /** Required: answers CHECK_TRANSACTION_STATE for this group. */
  checkListener: TransactionCheckListener;
  /** Checks that start at once; more wait in the queue [1]. */
  checkThreadPoolMinSize?: number | undefined;
  /** Checks running at most, reached only while the queue is full [1]. */
  checkThreadPoolMaxSize?: number | undefined;
  /** Checks waiting at most; one more is dropped with a warn line, and the broker asks again [2000]. */
  checkRequestHoldMax?: number | undefined;
}

/** Upstream TransactionSendResult: the half message's SendResult and what its transaction came to. */
export interface TransactionSendResult extends SendResult {
  readonly localTransactionState: LocalTransactionState;
}

export interface TransactionProducer extends Producer {
  /**
   * Takes no more checks and drops the queued ones (the broker asks again), waits for the checks
   * already running to send their answer, then shuts down as Producer.shutdown does. A check
   * listener that never settles holds shutdown up. Idempotent.
   */
  shutdown(): Promise<void>;
  /**
   * Sends `message` as a half message (invisible to consumers), runs `executeLocalTransaction` once
   * the broker stored it with SEND_OK, and sends the outcome (END_TRANSACTION, oneway) to the master
   * that stored it. A half message stored with another status is rolled back without running the
   * local transaction. Its delay level is ignored. Rejects only when the half message could not be
   * sent (or the input is bad, before any network call); a lost END_TRANSACTION is logged, and the
   * broker's check settles the transaction later.
   */
  sendMessageInTransaction(
    message: Message | MessageInput,
    executeLocalTransaction: ExecuteLocalTransaction,
    arg?: unknown,
  ): Promise<TransactionSendResult>;
}

/** Where upstream leaves the broker's transaction id, when it gives one, for the local transaction. */
const TRANSACTION_ID_PROPERTY = '__transactionId__';

class TransactionProducerFacade extends ProducerFacade implements TransactionProducer {
  private readonly checkListener: TransactionCheckListener;
  private readonly executor: CheckRequestExecutor;
  private readonly logger: Logger;
  private stopping: Promise<void> | undefined;

  constructor(
    impl: DefaultMQProducerImpl,
    checkListener: TransactionCheckListener,
    limits: CheckExecutorLimits,
  ) {
    super(impl);
    this.checkListener = checkListener;
    this.logger = impl.clientConfig.logger.child('transaction');
    this.executor = new CheckRequestExecutor(limits, (error) =>
      this.logger.error(
        'transaction check failed',
        { group: impl.producerGroup, error: errorText(error) },
        error,
      ),
    );
    impl.transactionStateChecker = (brokerAddr, msg, header) => this.onCheck(brokerAddr, msg, header);
  }

  override shutdown(): Promise<void> {
    this.stopping ??= this.doShutdown();
    return this.stopping;
  }

  private async doShutdown(): Promise<void> {
    const dropped = await this.executor.shutdown();
    if (dropped > 0) {
      this.logger.info('transaction checks dropped at shutdown; the broker asks again', {
        group: this.impl.producerGroup,
        dropped,
      });
    }
    await super.shutdown();
  }

  async sendMessageInTransaction(
    message: Message | MessageInput,
    executeLocalTransaction: ExecuteLocalTransaction,
    arg?: unknown,
  ): Promise<TransactionSendResult> {
    if (typeof executeLocalTransaction !== 'function') {
      throw new ValidationError(
        `executeLocalTransaction must be a function (msg, arg) => LocalTransactionState, got ${typeName(executeLocalTransaction)}`,
        -1,
      );
    }
    if (Array.isArray(message)) {
      throw new ValidationError('sendMessageInTransaction takes one message, not a batch', -1);
    }
    const msg = toMessage(message);
    msg.clearProperty(MessageConst.PROPERTY_DELAY_TIME_LEVEL);
    msg.putProperty(MessageConst.PROPERTY_TRANSACTION_PREPARED, 'true');
    msg.putProperty(MessageConst.PROPERTY_PRODUCER_GROUP, this.impl.producerGroup);
    const sendResult = await this.impl.send(msg);

    let settled: SettledState = { state: LocalTransactionState.ROLLBACK_MESSAGE, error: undefined };
    if (sendResult.sendStatus === SendStatus.SEND_OK) {
      if (sendResult.transactionId !== undefined && sendResult.transactionId !== '') {
        msg.putProperty(TRANSACTION_ID_PROPERTY, sendResult.transactionId);
      }
      const uniqKey = msg.getProperty(MessageConst.PROPERTY_UNIQ_CLIENT_MESSAGE_ID_KEYIDX);
      if (uniqKey !== undefined && uniqKey !== '') msg.transactionId = uniqKey;
      settled = await settle('executeLocalTransaction', () => executeLocalTransaction(msg, arg));
      this.logOutcome('executeLocalTransaction', sendResult.msgId, settled);
    }
    const transactionId = sendResult.transactionId ?? msg.transactionId;
    await this.endTransaction(sendResult, transactionId, settled);
    return withToJSON({ ...sendResult, transactionId, localTransactionState: settled.state });
  }

  /** END_TRANSACTION after the local transaction; a failure is logged (the broker checks later). */
  private async endTransaction(
    sendResult: SendResult,
    transactionId: string | undefined,
    settled: SettledState,
  ): Promise<void> {
    const brokerName = sendResult.messageQueue.brokerName;
    try {
      const header = endHeaderAfterSend(this.impl.producerGroup, sendResult, transactionId, settled.state);
      const instance = this.impl.instance;
      const brokerAddr = instance?.findBrokerAddressInPublish(brokerName);
      if (instance === undefined || brokerAddr === undefined) {
        throw new MQClientError(`The broker[${brokerName}] not exist`, undefined, {
          group: this.impl.producerGroup,
        });
      }
      const remark = settled.error === undefined ? undefined : executeRemark(settled.error);
      await instance.api.endTransactionOneway(brokerAddr, header, remark);
    } catch (error) {
      this.logger.warn(
        'local transaction settled, but end broker transaction failed',
        {
          group: this.impl.producerGroup,
          brokerName,
          msgId: sendResult.msgId,
          localTransactionState: settled.state,
          error: errorText(error),
        },
        error,
      );
    }
  }

  /** CHECK_TRANSACTION_STATE from the client instance: queued, run, or dropped when full. */
  private onCheck(brokerAddr: string, msg: MessageExt, header: CheckTransactionStateRequestHeader): void {
    const admission = this.executor.submit(() => this.check(brokerAddr, msg, header));
    if (admission !== 'rejected') return;
    const fields = {
      group: this.impl.producerGroup,
      brokerAddr,
      transactionId: header.transactionId,
      commitLogOffset: header.commitLogOffset,
    };
    if (this.executor.isShutdown) {
      this.logger.info('transaction check ignored: the producer is shutting down', fields);
    } else {
      this.logger.warn('transaction check rejected: checkRequestHoldMax checks wait already', {
        ...fields,
        active: this.executor.activeCount,
        queued: this.executor.queueSize,
      });
    }
  }

  private async check(
    brokerAddr: string,
    msg: MessageExt,
    checkHeader: CheckTransactionStateRequestHeader,
  ): Promise<void> {
    const settled = await settle('checkListener', () => this.checkListener(msg));
    this.logOutcome('checkListener', checkHeader.transactionId, settled);
    const instance = this.impl.instance;
    if (instance === undefined || this.impl.serviceState !== 'RUNNING') return;
    const header = endHeaderAfterCheck(this.impl.producerGroup, msg, checkHeader, settled.state);
    const remark = settled.error === undefined ? undefined : checkRemark(settled.error);
    try {
      await instance.api.endTransactionOneway(brokerAddr, header, remark);
    } catch (error) {
      this.logger.warn(
        'endTransactionOneway after a check failed',
        {
          group: this.impl.producerGroup,
          brokerAddr,
          transactionId: header.transactionId,
          error: errorText(error),
        },
        error,
      );
    }
  }

  private logOutcome(listener: string, id: string | undefined, settled: SettledState): void {
    if (settled.error !== undefined) {
      this.logger.warn(
        `${listener} failed, the transaction stays UNKNOW`,
        {
          group: this.impl.producerGroup,
          transactionId: id,
          error: errorText(settled.error),
        },
        settled.error,
      );
    } else if (settled.state !== LocalTransactionState.COMMIT_MESSAGE) {
      this.logger.info(`${listener} returned ${settled.state}`, {
        group: this.impl.producerGroup,
        transactionId: id,
      });
    }
  }
}

function typeName(value: unknown): string {
  return value === null ? 'null' : typeof value;
}

/**
 * A transactional producer of `options.producerGroup`. Besides the producer's options it takes
 * `checkListener` (required) and the limits of concurrent checks, named as upstream names them:
 * `checkThreadPoolMinSize` [1] checks run at once, more wait in a queue of `checkRequestHoldMax`
 * [2000], and with the queue full up to `checkThreadPoolMaxSize` [1] run; a check beyond that is
 * dropped with a warn line (the broker asks again). Throws a ValidationError naming a bad option.
 */
export function createTransactionProducer(options: TransactionProducerOptions): TransactionProducer {
  const listener: unknown =
    options !== null && typeof options === 'object' ? options.checkListener : undefined;
  if (typeof listener !== 'function') {
    throw new ValidationError(
      `checkListener must be a function (msg) => LocalTransactionState, got ${typeName(listener)}`,
      -1,
    );
  }
  const limits = resolveCheckExecutorLimits(options);
  return new TransactionProducerFacade(
    new DefaultMQProducerImpl(options),
    listener as TransactionCheckListener,
    limits,
  );
}
