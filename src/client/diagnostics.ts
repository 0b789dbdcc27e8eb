/**
 * The client's events on `node:diagnostics_channel`, so metrics and tracing attach without the
 * client knowing them. Nothing is built for a channel nobody subscribed to.
 *
 * - `tracing:rocketmq-ts:producer:send:*` (a TracingChannel): one trace per send call, retries
 *   included; the context is a SendTraceContext, with `result` or `error` set at the end.
 * - `rocketmq-ts:producer:retry`: a send attempt failed and another follows (SendRetryEvent).
 * - `rocketmq-ts:client:route-change`: a topic's route changed (RouteChangeEvent).
 * - `rocketmq-ts:client:heartbeat-failure`: a heartbeat to a broker failed (HeartbeatFailureEvent).
 * - `rocketmq-ts:consumer:rebalance`: the queues a consumer holds of a topic changed (RebalanceEvent).
 * - `tracing:rocketmq-ts:consumer:consume:*` (a TracingChannel): one trace per listener call
 *   (ConsumeTraceContext, `status` or `error` set at the end).
 * - `rocketmq-ts:consumer:pull-failure`: a pull failed and is retried later (PullFailureEvent).
 */
import diagnosticsChannel from 'node:diagnostics_channel';
import type { Message, MessageExt } from '../common/message/message.js';
import type { MessageQueue } from '../common/message/message-queue.js';
import type { TopicRouteData } from '../common/protocol/route.js';
import type { SendResult } from './instance/requests/send-message.js';

export const CHANNEL_NAMES = {
  send: 'rocketmq-ts:producer:send',
  retry: 'rocketmq-ts:producer:retry',
  routeChange: 'rocketmq-ts:client:route-change',
  heartbeatFailure: 'rocketmq-ts:client:heartbeat-failure',
  rebalance: 'rocketmq-ts:consumer:rebalance',
  consume: 'rocketmq-ts:consumer:consume',
  pullFailure: 'rocketmq-ts:consumer:pull-failure',
} as const;

export type CommunicationMode = 'SYNC' | 'ASYNC' | 'ONEWAY';

export interface SendTraceContext {
  readonly producerGroup: string;
  readonly topic: string;
  /** The message sent, or the messages of a batch. */
  readonly message: Message | readonly Message[];
  readonly communicationMode: CommunicationMode;
  /** Set when the send resolves (undefined for oneway). */
  result?: SendResult | undefined;
  /** Set when the send rejects. */
  error?: unknown;
}

export interface SendRetryEvent {
  readonly producerGroup: string;
  readonly topic: string;
  /** Attempts made so far (1 after the first failure). */
  readonly attempt: number;
  readonly messageQueue: MessageQueue;
  readonly brokerAddr: string | undefined;
  readonly error: unknown;
}

export interface RouteChangeEvent {
  readonly clientId: string;
  readonly topic: string;
  /** undefined when the topic is gone from the name servers. */
  readonly route: TopicRouteData | undefined;
}

export interface HeartbeatFailureEvent {
  readonly clientId: string;
  readonly brokerName: string;
  readonly brokerAddr: string;
  readonly error: unknown;
}

export interface RebalanceEvent {
  readonly consumerGroup: string;
  readonly topic: string;
  /** The topic's readable queues. */
  readonly mqAll: MessageQueue[];
  /** The queues this member holds now. */
  readonly mqDivided: MessageQueue[];
}

export interface ConsumeTraceContext {
  readonly consumerGroup: string;
  readonly messageQueue: MessageQueue;
  readonly msgs: readonly MessageExt[];
  readonly orderly: boolean;
  /** The listener's answer (or the failure it counted as) once it settled. */
  status?: string | undefined;
  error?: unknown;
}

export interface PullFailureEvent {
  readonly consumerGroup: string;
  readonly messageQueue: MessageQueue;
  readonly error: unknown;
  /** When the queue is pulled again, ms. */
  readonly retryInMs: number;
}

export const sendChannel = diagnosticsChannel.tracingChannel<SendTraceContext>(CHANNEL_NAMES.send);
export const retryChannel = diagnosticsChannel.channel(CHANNEL_NAMES.retry);
export const routeChangeChannel = diagnosticsChannel.channel(CHANNEL_NAMES.routeChange);
export const heartbeatFailureChannel = diagnosticsChannel.channel(CHANNEL_NAMES.heartbeatFailure);
export const rebalanceChannel = diagnosticsChannel.channel(CHANNEL_NAMES.rebalance);
export const consumeChannel = diagnosticsChannel.tracingChannel<ConsumeTraceContext>(CHANNEL_NAMES.consume);
export const pullFailureChannel = diagnosticsChannel.channel(CHANNEL_NAMES.pullFailure);

/** The context each tracing channel's handlers get, by channel name. */
export interface TraceContexts {
  'rocketmq-ts:producer:send': SendTraceContext;
  'rocketmq-ts:consumer:consume': ConsumeTraceContext;
}

/** The event each plain channel publishes, by channel name. */
export interface ChannelEvents {
  'rocketmq-ts:producer:retry': SendRetryEvent;
  'rocketmq-ts:client:route-change': RouteChangeEvent;
  'rocketmq-ts:client:heartbeat-failure': HeartbeatFailureEvent;
  'rocketmq-ts:consumer:rebalance': RebalanceEvent;
  'rocketmq-ts:consumer:pull-failure': PullFailureEvent;
}

/**
 * A tracing channel's handlers, each optional: node calls those given (@types/node asks for all
 * five). `error` sees the context with `error` set.
 */
export type TraceHandlers<C extends object> = Partial<diagnosticsChannel.TracingChannelSubscribers<C>>;

/**
 * Subscribes `handlers` to a tracing channel of the client with its context typed; the same as
 * `tracingChannel(name).subscribe(handlers)`. Returns what unsubscribes them.
 */
export function subscribeTrace<N extends keyof TraceContexts>(
  name: N,
  handlers: TraceHandlers<TraceContexts[N]>,
): () => void {
  const channel = diagnosticsChannel.tracingChannel<object>(name);
  // Node skips the handlers left out; only the declaration asks for all five.
  const all = handlers as unknown as diagnosticsChannel.TracingChannelSubscribers<object>;
  channel.subscribe(all);
  return () => {
    channel.unsubscribe(all);
  };
}

/**
 * Subscribes `listener` to a plain channel of the client with its event typed; the same as
 * `subscribe(name, listener)` of node:diagnostics_channel. Returns what unsubscribes it.
 */
export function subscribeChannel<N extends keyof ChannelEvents>(
  name: N,
  listener: (event: ChannelEvents[N]) => void,
): () => void {
  const onMessage = (message: unknown): void => listener(message as ChannelEvents[N]);
  diagnosticsChannel.subscribe(name, onMessage);
  return () => {
    diagnosticsChannel.unsubscribe(name, onMessage);
  };
}
