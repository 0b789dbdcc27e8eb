/**
 * DefaultMQProducerImpl: a producer group on a client instance. Routes per topic (TopicPublishInfo),
 * queue choice (MQFaultStrategy), the retry rules of each communication mode, and the send itself.
 *
 * Retry rules, as upstream:
 * - SYNC: up to 1 + retryTimesWhenSendFailed attempts, each on a queue of another broker than the
 *   last; retried after transport failures, client-side failures and broker answers listed in
 *   retryResponseCodes; a stored but not SEND_OK answer is retried only with
 *   retryAnotherBrokerWhenNotStoreOK.
 * - ASYNC: up to 1 + retryTimesWhenSendAsyncFailed attempts, retried only after transport failures
 *   (upstream's async callback never retries a broker's answer).
 * - ONEWAY, a given queue, a selector: one attempt.
 * Every attempt of a call shares its timeout (upstream gives each async retry the whole timeout
 * again; a promise that outlives its timeout would surprise a Node caller more).
 */
import { CallAborts } from '../../common/call-aborts.js';
import { MixAll } from '../../common/constants.js';
import { RocketMQError, ValidationError } from '../../common/errors.js';
import type { Logger } from '../../common/logger.js';
import type { Message, MessageExt } from '../../common/message/message.js';
import { MessageQueue } from '../../common/message/message-queue.js';
import type { CheckTransactionStateRequestHeader } from '../../remoting/protocol/headers/check-transaction-state-request-header.js';
import {
  RemotingAbortedError,
  RemotingConnectError,
  RemotingTimeoutError,
} from '../../remoting/transport/errors.js';
import {
  type ClientConfig,
  resolveClientConfig,
  withNamespaceOf,
  withoutNamespaceOf,
} from '../client-config.js';
import { type CommunicationMode, retryChannel, type SendTraceContext, sendChannel } from '../diagnostics.js';
import { ClientErrorCode, ClientStateError, errorText, MQBrokerError, MQClientError } from '../errors.js';
import type { MQProducerInner } from '../instance/inner.js';
import type { MQClientInstance, ServiceState } from '../instance/mq-client-instance.js';
import { getOrCreateMQClientInstance } from '../instance/mq-client-manager.js';
import {
  buildSendMessageRequest,
  parseSendResponse,
  type SendResult,
  SendStatus,
} from '../instance/requests/send-message.js';
import { NamespacedAdmin } from '../mq-admin.js';
import { type MessageInput, toMessage } from './message-input.js';
import type { MessageQueueSelector } from './message-queue-selector.js';
import { MQFaultStrategy } from './mq-fault-strategy.js';
import {
  type ProducerOptions,
  type ResolvedProducerOptions,
  resolveProducerOptions,
} from './producer-options.js';
import type { SendMessageContext, SendMessageHook } from './send-hooks.js';
import type { SendOptions, WaitOptions } from './send-options.js';
import { type PreparedSend, type PrepareOptions, prepareBatch, prepareSend } from './send-preparation.js';
import { TopicPublishInfo } from './topic-publish-info.js';

export type { SendOptions, WaitOptions };

/** What a transactional producer adds: the answer to a broker's CHECK_TRANSACTION_STATE. */
export type TransactionStateChecker = (
  brokerAddr: string,
  msg: MessageExt,
  header: CheckTransactionStateRequestHeader,
) => void;

type SendInput = Message | MessageInput | ReadonlyArray<Message | MessageInput>;

export class DefaultMQProducerImpl implements MQProducerInner {
  readonly options: ResolvedProducerOptions;
  /** The group on the wire (with the namespace). */
  readonly producerGroup: string;
  readonly topicPublishInfoTable = new Map<string, TopicPublishInfo>();
  private readonly clientOptions: ProducerOptions;
  private readonly faultStrategy: MQFaultStrategy;
  private readonly hooks: SendMessageHook[] = [];
  /** The sends in flight, which shutdown fails. */
  private readonly calls = new CallAborts();
  private readonly config: ClientConfig;
  private readonly prepareOptions: PrepareOptions;
  private readonly logger: Logger;
  private state: ServiceState = 'CREATE_JUST';
  private clientInstance: MQClientInstance | undefined;
  /** searchOffset, maxOffset, viewMessage, queryMessage... through the running instance. */
  readonly admin: NamespacedAdmin;
  private stopping: Promise<void> | undefined;
  transactionStateChecker: TransactionStateChecker | undefined;

  /** `config`: an instance's resolved config, for the instance's own producer (CLIENT_INNER_PRODUCER). */
  constructor(options: ProducerOptions, config?: ClientConfig) {
    this.options = resolveProducerOptions(options);
    this.clientOptions = options;
    this.config =
      config ?? resolveClientConfig(options, options.producerGroup !== MixAll.CLIENT_INNER_PRODUCER_GROUP);
    this.producerGroup = withNamespaceOf(this.config, this.options.producerGroup);
    this.logger = this.config.logger.child('producer');
    this.faultStrategy = new MQFaultStrategy(this.options, this.config.clock);
    this.admin = new NamespacedAdmin(this.config, () => {
      this.makeSureStateOK();
      return (this.clientInstance as MQClientInstance).admin;
    });
    this.prepareOptions = {
      maxMessageSize: this.options.maxMessageSize,
      compressMsgBodyOverHowmuch: this.options.compressMsgBodyOverHowmuch,
      compressLevel: this.options.compressLevel,
      namespace: this.config.namespace,
      wrap: (topic) => withNamespaceOf(this.config, topic),
    };
  }

  get serviceState(): ServiceState {
    return this.state;
  }

  get instance(): MQClientInstance | undefined {
    return this.clientInstance;
  }

  get clientId(): string | undefined {
    return this.clientInstance?.clientId;
  }

  get faultTolerance(): MQFaultStrategy {
    return this.faultStrategy;
  }

  registerSendMessageHook(hook: SendMessageHook): void {
    this.hooks.push(hook);
    this.logger.info('send message hook registered', { hook: hook.hookName() });
  }

  async start(): Promise<void> {
    if (this.state !== 'CREATE_JUST') {
      throw new ClientStateError('producer', `${this.state}, maybe started once`, {
        group: this.producerGroup,
      });
    }
    this.state = 'START_FAILED';
    const instance = getOrCreateMQClientInstance(this.config);
    if (!instance.registerProducer(this.producerGroup, this)) {
      this.state = 'CREATE_JUST';
      throw new MQClientError(
        `The producer group[${this.producerGroup}] has been created before, specify another name please.`,
        undefined,
        { group: this.producerGroup },
      );
    }
    this.clientInstance = instance;
    this.topicPublishInfoTable.set(this.options.createTopicKey, new TopicPublishInfo());
    try {
      instance.start();
    } catch (error) {
      await instance.unregisterProducer(this.producerGroup);
      throw error;
    }
    this.state = 'RUNNING';
    this.logger.info('producer started', { group: this.producerGroup, clientId: instance.clientId });
    await instance.sendHeartbeatToAllBrokerWithLock();
  }

  /**
   * Starts as `instance`'s own producer (upstream's CLIENT_INNER_PRODUCER, which consumers send
   * failed messages back with): registered on that instance, which it never shuts down.
   */
  startInner(instance: MQClientInstance): void {
    if (!instance.registerProducer(this.producerGroup, this)) {
      throw new MQClientError(
        `The producer group[${this.producerGroup}] has been created before`,
        undefined,
        {
          group: this.producerGroup,
        },
      );
    }
    this.clientInstance = instance;
    this.topicPublishInfoTable.set(this.options.createTopicKey, new TopicPublishInfo());
    this.state = 'RUNNING';
  }

  /** InnerProducer: a SYNC send with the given timeout. */
  sendInner(msg: Message, timeoutMs: number): Promise<SendResult> {
    return this.send(msg, { timeoutMs });
  }

  /** InnerProducer: fails waiting sends and leaves the instance (the instance is shutting down). */
  async shutdownInner(): Promise<void> {
    this.state = 'SHUTDOWN_ALREADY';
    this.calls.abortAll(new ClientStateError('producer', 'SHUTDOWN_ALREADY', { group: this.producerGroup }));
    await this.clientInstance?.unregisterProducer(this.producerGroup);
  }

  /**
   * Fails the sends still waiting (ClientStateError), leaves every broker (UNREGISTER_CLIENT) and
   * shuts the client instance down when no other client uses it. Idempotent.
   */
  shutdown(): Promise<void> {
    this.stopping ??= this.doShutdown();
    return this.stopping;
  }

  private async doShutdown(): Promise<void> {
    const instance = this.clientInstance;
    const wasRunning = this.state === 'RUNNING';
    this.state = 'SHUTDOWN_ALREADY';
    this.calls.abortAll(new ClientStateError('producer', 'SHUTDOWN_ALREADY', { group: this.producerGroup }));
    if (instance === undefined) return;
    await instance.unregisterProducer(this.producerGroup);
    await instance.shutdown();
    if (wasRunning) this.logger.info('producer shut down', { group: this.producerGroup });
  }

  // MQProducerInner

  getPublishTopicList(): Iterable<string> {
    return this.topicPublishInfoTable.keys();
  }

  isPublishTopicNeedUpdate(topic: string): boolean {
    return this.topicPublishInfoTable.get(topic)?.ok() !== true;
  }

  updateTopicPublishInfo(topic: string, info: TopicPublishInfo): void {
    this.topicPublishInfoTable.set(topic, info);
  }

  checkTransactionState(
    brokerAddr: string,
    msg: MessageExt,
    header: CheckTransactionStateRequestHeader,
  ): void {
    if (this.transactionStateChecker === undefined) {
      this.logger.warn('checkTransactionState for a producer without a check listener', {
        group: this.producerGroup,
      });
      return;
    }
    this.transactionStateChecker(brokerAddr, msg, header);
  }

  isUnitMode(): boolean {
    return this.config.unitMode;
  }

  // Sending

  /** Any send: one message or a batch, by round robin, to a queue or through a selector. */
  send(input: SendInput, options: SendOptions = {}): Promise<SendResult> {
    const mode: CommunicationMode = options.communicationMode ?? 'SYNC';
    if (mode !== 'SYNC' && mode !== 'ASYNC') {
      return Promise.reject(
        new ValidationError(`communicationMode must be SYNC or ASYNC, got ${String(mode)}`, -1),
      );
    }
    return this.traced(input, mode, options) as Promise<SendResult>;
  }

  /** Sends without waiting for the broker (upstream sendOneway): resolves once the request is written. */
  async sendOneway(
    input: Message | MessageInput,
    options: Omit<SendOptions, 'communicationMode'> = {},
  ): Promise<void> {
    await this.traced(input, 'ONEWAY', options);
  }

  /** The writable queues of `topic`, asking the name servers when the producer has no route yet. */
  async fetchPublishMessageQueues(topic: string): Promise<MessageQueue[]> {
    this.makeSureStateOK();
    const info = await this.tryToFindTopicPublishInfo(withNamespaceOf(this.config, topic));
    return info.messageQueueList.map((mq) => new MessageQueue(topic, mq.brokerName, mq.queueId));
  }

  private traced(
    input: SendInput,
    mode: CommunicationMode,
    options: SendOptions,
  ): Promise<SendResult | undefined> {
    let prepared: PreparedSend;
    try {
      this.makeSureStateOK();
      prepared = this.prepare(input, options);
    } catch (error) {
      return Promise.reject(error);
    }
    if (!sendChannel.hasSubscribers) return this.dispatch(prepared, mode, options);
    const context: SendTraceContext = {
      producerGroup: this.producerGroup,
      topic: prepared.topic,
      message: prepared.batch ?? prepared.message,
      communicationMode: mode,
    };
    return sendChannel.tracePromise(() => this.dispatch(prepared, mode, options), context);
  }

  private prepare(input: SendInput, options: SendOptions): PreparedSend {
    if (Array.isArray(input)) {
      if (options.selector !== undefined)
        throw new ValidationError('a batch cannot be sent through a selector', -1);
      return prepareBatch(
        (input as ReadonlyArray<Message | MessageInput>).map(toMessage),
        this.prepareOptions,
      );
    }
    return prepareSend(toMessage(input as Message | MessageInput), this.prepareOptions);
  }

  private dispatch(
    prepared: PreparedSend,
    mode: CommunicationMode,
    options: SendOptions,
  ): Promise<SendResult | undefined> {
    const timeout = options.timeoutMs ?? this.options.sendMsgTimeout;
    if (!Number.isFinite(timeout) || timeout <= 0) {
      return Promise.reject(new ValidationError(`timeoutMs must be a number > 0, got ${timeout}`, -1));
    }
    const { signal, release } = this.calls.begin(options.signal);
    const call = { prepared, mode, timeout, signal, begin: Date.now() };
    const sent =
      options.messageQueue !== undefined
        ? this.sendToQueue(call, options.messageQueue)
        : options.selector !== undefined
          ? this.sendSelect(call, options.selector, options.arg)
          : this.sendDefaultImpl(call);
    return sent
      .catch((error: unknown) => {
        throw this.finalError(error, prepared);
      })
      .finally(release);
  }

  /** Abort by shutdown becomes a ClientStateError; everything else stays as it is. */
  private finalError(error: unknown, prepared: PreparedSend): unknown {
    if (error instanceof RemotingAbortedError && this.calls.aborted && this.state !== 'RUNNING') {
      return new ClientStateError('producer', 'SHUTDOWN_ALREADY', {
        group: this.producerGroup,
        topic: prepared.topic,
        cause: error,
      });
    }
    return error;
  }

  private makeSureStateOK(): void {
    if (this.state !== 'RUNNING')
      throw new ClientStateError('producer', this.state, { group: this.producerGroup });
  }

  private async sendDefaultImpl(call: SendCall): Promise<SendResult | undefined> {
    const { prepared, mode } = call;
    const info = await this.tryToFindTopicPublishInfo(prepared.wireTopic, call);
    if (!info.ok()) throw this.noRouteError(prepared.topic, prepared.wireTopic);
    const timesTotal =
      mode === 'SYNC'
        ? 1 + this.options.retryTimesWhenSendFailed
        : mode === 'ASYNC'
          ? 1 + this.options.retryTimesWhenSendAsyncFailed
          : 1;
    const brokersSent: string[] = [];
    let mq: MessageQueue | undefined;
    let lastError: unknown;
    let result: SendResult | undefined;
    let timedOut = false;
    let times = 0;
    for (; times < timesTotal; times++) {
      mq = this.faultStrategy.selectOneMessageQueue(info, mq?.brokerName);
      brokersSent.push(mq.brokerName);
      const started = Date.now();
      if (started - call.begin >= call.timeout) {
        timedOut = true;
        break;
      }
      try {
        result = await this.sendKernelImpl(call, mq, call.timeout - (started - call.begin));
        this.faultStrategy.updateFaultItem(mq.brokerName, Date.now() - started, false);
        if (mode !== 'SYNC' || result === undefined) return result;
        if (result.sendStatus !== SendStatus.SEND_OK && this.options.retryAnotherBrokerWhenNotStoreOK)
          continue;
        return result;
      } catch (error) {
        this.faultStrategy.updateFaultItem(mq.brokerName, Date.now() - started, true);
        if (!this.isRetriable(error, mode)) {
          if (result !== undefined) return result;
          throw error;
        }
        lastError = error;
        // Info, not warn: the send goes on, and if it fails for good the caller gets the error itself
        // (with this attempt's failure as its cause); a warn here would say each failure three times.
        this.logger.info(
          times + 1 < timesTotal ? 'send failed, resend at once' : 'send failed, no attempt left',
          {
            group: this.producerGroup,
            topic: prepared.topic,
            brokerName: mq.brokerName,
            queueId: mq.queueId,
            attempt: times + 1,
            error: errorText(error),
          },
          error,
        );
        if (retryChannel.hasSubscribers && times + 1 < timesTotal) {
          retryChannel.publish({
            producerGroup: this.producerGroup,
            topic: prepared.topic,
            attempt: times + 1,
            messageQueue: mq,
            brokerAddr: this.clientInstance?.findBrokerAddressInPublish(mq.brokerName),
            error,
          });
        }
      }
    }
    if (result !== undefined) return result;
    const cost = Date.now() - call.begin;
    // The last attempt's code, so a caller tells a network failure from a broker's refusal at once.
    const code = lastError instanceof RocketMQError ? lastError.code : undefined;
    const subject = {
      topic: prepared.topic,
      group: this.producerGroup,
      cause: lastError,
      retriable: true,
      code,
    };
    if (timedOut) {
      throw new MQClientError(
        `Send timed out after ${cost} ms (timeout ${call.timeout} ms), ${times} attempt(s)`,
        ClientErrorCode.ACCESS_BROKER_TIMEOUT,
        subject,
      );
    }
    throw new MQClientError(
      `Send [${times}] times, still failed, cost [${cost}]ms, BrokersSent: [${brokersSent.join(', ')}]: ${errorText(lastError)}`,
      responseCodeOf(lastError),
      subject,
    );
  }

  /** Whether another attempt may help, by mode (see the file comment). */
  private isRetriable(error: unknown, mode: CommunicationMode): boolean {
    if (error instanceof RemotingAbortedError || error instanceof ValidationError) return false;
    if (this.state !== 'RUNNING') return false;
    if (error instanceof MQBrokerError)
      return mode === 'SYNC' && this.options.retryResponseCodes.has(error.responseCode);
    if (mode === 'ASYNC') return !(error instanceof MQClientError);
    return true;
  }

  private async sendToQueue(call: SendCall, queue: MessageQueue): Promise<SendResult | undefined> {
    const { prepared } = call;
    if (!(queue instanceof MessageQueue))
      throw new ValidationError('messageQueue must be a MessageQueue', -1);
    if (queue.topic !== prepared.topic) {
      throw new ValidationError(
        `message's topic not equal mq's topic (${prepared.topic} != ${queue.topic})`,
        -1,
      );
    }
    return this.sendOnce(call, new MessageQueue(prepared.wireTopic, queue.brokerName, queue.queueId));
  }

  private async sendSelect(
    call: SendCall,
    selector: MessageQueueSelector,
    arg: unknown,
  ): Promise<SendResult | undefined> {
    const { prepared } = call;
    if (typeof selector !== 'function') throw new ValidationError('selector must be a function', -1);
    const info = await this.tryToFindTopicPublishInfo(prepared.wireTopic, call);
    if (!info.ok()) throw this.noRouteError(prepared.topic, prepared.wireTopic);
    const userQueues = info.messageQueueList.map(
      (q) => new MessageQueue(prepared.topic, q.brokerName, q.queueId),
    );
    const chosen = selector(userQueues, prepared.message, arg);
    if (!(chosen instanceof MessageQueue)) {
      throw new MQClientError('select message queue return null.', undefined, {
        topic: prepared.topic,
        group: this.producerGroup,
      });
    }
    return this.sendOnce(call, new MessageQueue(prepared.wireTopic, chosen.brokerName, chosen.queueId));
  }

  private async sendOnce(call: SendCall, mq: MessageQueue): Promise<SendResult | undefined> {
    const remaining = call.timeout - (Date.now() - call.begin);
    if (remaining <= 0) {
      throw new MQClientError(
        `Send timed out before it started (timeout ${call.timeout} ms)`,
        ClientErrorCode.ACCESS_BROKER_TIMEOUT,
        {
          topic: call.prepared.topic,
          group: this.producerGroup,
          retriable: true,
        },
      );
    }
    return this.sendKernelImpl(call, mq, remaining);
  }

  private async sendKernelImpl(
    call: SendCall,
    mq: MessageQueue,
    timeoutMs: number,
  ): Promise<SendResult | undefined> {
    const instance = this.clientInstance as MQClientInstance;
    const { prepared } = call;
    let brokerAddr = instance.findBrokerAddressInPublish(mq.brokerName);
    if (brokerAddr === undefined) {
      await this.tryToFindTopicPublishInfo(mq.topic, call);
      brokerAddr = instance.findBrokerAddressInPublish(mq.brokerName);
    }
    if (brokerAddr === undefined) {
      throw new MQClientError(
        `The broker[${mq.brokerName}] not exist`,
        ClientErrorCode.BROKER_NOT_EXIST_EXCEPTION,
        {
          topic: prepared.topic,
          group: this.producerGroup,
          retriable: true,
        },
      );
    }
    brokerAddr = MixAll.brokerVIPChannel(this.config.vipChannelEnabled, brokerAddr);
    const context = this.hooks.length === 0 ? undefined : this.hookContext(call, mq, brokerAddr);
    if (context !== undefined) this.runHooks('before', context);
    const request = buildSendMessageRequest(
      {
        producerGroup: this.producerGroup,
        topic: prepared.wireTopic,
        defaultTopic: this.options.createTopicKey,
        defaultTopicQueueNums: this.options.defaultTopicQueueNums,
        queueId: mq.queueId,
        sysFlag: prepared.sysFlag,
        bornTimestamp: BigInt(Date.now()),
        flag: prepared.flag,
        properties: prepared.properties,
        reconsumeTimes: prepared.reconsumeTimes,
        unitMode: this.config.unitMode,
        maxReconsumeTimes: prepared.maxReconsumeTimes,
        batch: prepared.batch !== undefined,
        brokerName: mq.brokerName,
      },
      prepared.body,
    );
    try {
      let result: SendResult | undefined;
      if (call.mode === 'ONEWAY') {
        await instance.remoting.invokeOneway(brokerAddr, request, { signal: call.signal });
      } else {
        const response = await instance.remoting.invoke(brokerAddr, request, {
          timeoutMs,
          signal: call.signal,
        });
        result = parseSendResponse(response, {
          brokerAddr,
          brokerName: mq.brokerName,
          topic: prepared.topic,
          group: this.producerGroup,
          uniqMsgId: prepared.uniqMsgId,
        });
      }
      if (context !== undefined) {
        context.sendResult = result;
        this.runHooks('after', context);
      }
      return result;
    } catch (error) {
      if (context !== undefined) {
        context.exception = error;
        this.runHooks('after', context);
      }
      throw error;
    }
  }

  private hookContext(call: SendCall, mq: MessageQueue, brokerAddr: string): SendMessageContext {
    return {
      producerGroup: this.producerGroup,
      message: call.prepared.message,
      mq,
      brokerAddr,
      bornHost: this.config.clientIP,
      communicationMode: call.mode,
      msgType: call.prepared.msgType,
      namespace: this.config.namespace,
      props: new Map(),
    };
  }

  private runHooks(phase: 'before' | 'after', context: SendMessageContext): void {
    for (const hook of this.hooks) {
      try {
        if (phase === 'before') hook.sendMessageBefore(context);
        else hook.sendMessageAfter(context);
      } catch (error) {
        this.logger.warn(
          'send message hook failed',
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
   * The route of `topic`: cached, else asked for; a topic the name servers do not know yet gets the
   * route of createTopicKey (the broker creates the topic on the first send, as the Java client has it).
   */
  async tryToFindTopicPublishInfo(topic: string, call?: SendCall): Promise<TopicPublishInfo> {
    const instance = this.clientInstance as MQClientInstance;
    let info = this.topicPublishInfoTable.get(topic);
    if (info === undefined || !info.ok()) {
      if (info === undefined) this.topicPublishInfoTable.set(topic, new TopicPublishInfo());
      await this.withinCall(call, topic, instance.updateTopicRouteInfoFromNameServer(topic));
      info = this.topicPublishInfoTable.get(topic) as TopicPublishInfo;
    }
    if (info.haveTopicRouterInfo || info.ok()) return info;
    await this.withinCall(call, topic, instance.updateTopicRouteInfoFromNameServer(topic, this.options));
    return this.topicPublishInfoTable.get(topic) as TopicPublishInfo;
  }

  /**
   * A route lookup is shared by every send of the topic and bounded only by mqClientApiTimeout per
   * name server; a send waits for it only within its own timeout and signal (the lookup goes on).
   */
  private withinCall<T>(call: SendCall | undefined, topic: string, lookup: Promise<T>): Promise<T> {
    if (call === undefined) return lookup;
    const namesrv = (this.clientInstance as MQClientInstance).api.namesrv.addresses.join(';');
    return new Promise<T>((resolve, reject) => {
      const finish = () => {
        clearTimeout(timer);
        call.signal.removeEventListener('abort', onAbort);
      };
      const onAbort = () => {
        finish();
        reject(new RemotingAbortedError(namesrv, call.signal.reason));
      };
      const timer = setTimeout(
        () => {
          finish();
          reject(
            new MQClientError(
              `No route info of this topic: ${this.userTopic(topic)}: the name servers did not answer within the send's timeout (is the name server address right?)`,
              ClientErrorCode.NOT_FOUND_TOPIC_EXCEPTION,
              {
                topic: this.userTopic(topic),
                group: this.producerGroup,
                retriable: true,
                cause: new RemotingTimeoutError(namesrv, call.timeout),
              },
            ),
          );
        },
        Math.max(0, call.timeout - (Date.now() - call.begin)),
      );
      if (call.signal.aborted) {
        onAbort();
        return;
      }
      call.signal.addEventListener('abort', onAbort, { once: true });
      lookup.then(
        (value) => {
          finish();
          resolve(value);
        },
        (error: unknown) => {
          finish();
          reject(error);
        },
      );
    });
  }

  /**
   * No usable route: no name server configured, the name servers unreachable (the error is the
   * cause), or no broker can take the topic.
   */
  private noRouteError(topic: string, wireTopic: string): MQClientError {
    const instance = this.clientInstance as MQClientInstance;
    if (instance.api.namesrv.addresses.length === 0) {
      return new MQClientError(
        'No name server address, please set it.',
        ClientErrorCode.NO_NAME_SERVER_EXCEPTION,
        {
          group: this.producerGroup,
        },
      );
    }
    const cause = instance.lastRouteError(wireTopic);
    const why = cause === undefined ? '' : `: ${errorText(cause)}`;
    return new MQClientError(
      `No route info of this topic: ${topic}${why} (${NO_ROUTE_HINT})`,
      ClientErrorCode.NOT_FOUND_TOPIC_EXCEPTION,
      {
        topic,
        group: this.producerGroup,
        retriable: true,
        cause,
      },
    );
  }

  /** The user-facing topic of a wire topic. */
  userTopic(wireTopic: string): string {
    return withoutNamespaceOf(this.config, wireTopic);
  }

  get clientOptionsGiven(): ProducerOptions {
    return this.clientOptions;
  }

  get clientConfig(): ClientConfig {
    return this.config;
  }
}

interface SendCall {
  readonly prepared: PreparedSend;
  readonly mode: CommunicationMode;
  readonly timeout: number;
  readonly signal: AbortSignal;
  readonly begin: number;
}

/** Upstream's no-route text names no cause; these are the usual ones. */
const NO_ROUTE_HINT =
  'is the topic created (or autoCreateTopicEnable on in the broker), and is the name server address right?';

function responseCodeOf(error: unknown): number {
  if (error instanceof MQBrokerError) return error.responseCode;
  if (error instanceof RemotingConnectError) return ClientErrorCode.CONNECT_BROKER_EXCEPTION;
  if (error instanceof RemotingTimeoutError) return ClientErrorCode.ACCESS_BROKER_TIMEOUT;
  if (error instanceof MQClientError) return ClientErrorCode.BROKER_NOT_EXIST_EXCEPTION;
  return -1;
}
