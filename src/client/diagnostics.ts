/**
 * The client's events on `node:diagnostics_channel`, so metrics and tracing attach without the
 * client knowing them. Nothing is built for a channel nobody subscribed to.
 *
 * - `tracing:rocketmq-ts:producer:send:*` (a TracingChannel): one trace per send call, retries
 *   included; the context is a SendTraceContext, with `result` or `error` set at the end.
 * - `rocketmq-ts:producer:retry`: a send attempt failed and another follows (SendRetryEvent).
 * - `rocketmq-ts:client:route-change`: a topic's route changed or vanished (RouteChangeEvent).
 * - `rocketmq-ts:client:heartbeat-failure`: a heartbeat to a broker failed (HeartbeatFailureEvent).
 */
import diagnosticsChannel from 'node:diagnostics_channel';
import type { Message } from '../common/message/message.js';
import type { MessageQueue } from '../common/message/message-queue.js';
import type { TopicRouteData } from '../common/protocol/route.js';
import type { SendResult } from './instance/requests/send-message.js';

export const CHANNEL_NAMES = {
  send: 'rocketmq-ts:producer:send',
  retry: 'rocketmq-ts:producer:retry',
  routeChange: 'rocketmq-ts:client:route-change',
  heartbeatFailure: 'rocketmq-ts:client:heartbeat-failure',
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

export const sendChannel = diagnosticsChannel.tracingChannel<SendTraceContext>(CHANNEL_NAMES.send);
export const retryChannel = diagnosticsChannel.channel(CHANNEL_NAMES.retry);
export const routeChangeChannel = diagnosticsChannel.channel(CHANNEL_NAMES.routeChange);
export const heartbeatFailureChannel = diagnosticsChannel.channel(CHANNEL_NAMES.heartbeatFailure);
