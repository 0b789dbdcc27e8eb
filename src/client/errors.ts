/**
 * The client's errors. They extend the one hierarchy of `common/errors.ts` (RocketMQError with a
 * response code and `retriable`), next to the transport's (RemotingTimeoutError, RemotingConnectError,
 * RemotingConnectionClosedError, RemotingAbortedError) and ValidationError for bad input:
 * - MQBrokerError: a broker or name server answered with a failure code;
 * - MQClientError: the client itself cannot go on (not started, no route, no name server, retries
 *   used up), with upstream's ClientErrorCode where upstream sets one.
 */
import { ErrorCode, RocketMQError, type RocketMQErrorOptions } from '../common/errors.js';
import { ResponseCode } from '../remoting/protocol/response-code.js';

/** Upstream `ClientErrorCode`: response codes of failures the client detects itself. */
export const ClientErrorCode = {
  CONNECT_BROKER_EXCEPTION: 10001,
  ACCESS_BROKER_TIMEOUT: 10002,
  BROKER_NOT_EXIST_EXCEPTION: 10003,
  NO_NAME_SERVER_EXCEPTION: 10004,
  NOT_FOUND_TOPIC_EXCEPTION: 10005,
  REQUEST_TIMEOUT_EXCEPTION: 10006,
  CREATE_REPLY_MESSAGE_EXCEPTION: 10007,
} as const;

/** MQClientException's code when upstream gives none. */
export const CLIENT_ERROR_NO_CODE = -1;

/**
 * Broker answers a later attempt may not get: busy or unavailable brokers, topics not yet created or
 * not yet writable, and the codes the producer retries on (DefaultMQProducer.retryResponseCodes).
 */
const RETRIABLE_RESPONSE_CODES: ReadonlySet<number> = new Set([
  ResponseCode.SYSTEM_ERROR,
  ResponseCode.SYSTEM_BUSY,
  ResponseCode.SERVICE_NOT_AVAILABLE,
  ResponseCode.NO_PERMISSION,
  ResponseCode.TOPIC_NOT_EXIST,
  ResponseCode.NO_BUYER_ID,
  ResponseCode.NOT_IN_CURRENT_UNIT,
  ResponseCode.FLOW_CONTROL,
  ResponseCode.GO_AWAY,
]);

export function isRetriableResponseCode(code: number): boolean {
  return RETRIABLE_RESPONSE_CODES.has(code);
}

/** What a failure was about, for messages and for callers that juggle many topics and brokers. */
export interface ErrorSubject {
  topic?: string | undefined;
  group?: string | undefined;
  brokerAddr?: string | undefined;
}

function subjectText(s: ErrorSubject): string {
  const parts: string[] = [];
  if (s.topic !== undefined) parts.push(`topic ${s.topic}`);
  if (s.group !== undefined) parts.push(`group ${s.group}`);
  if (s.brokerAddr !== undefined) parts.push(`broker ${s.brokerAddr}`);
  return parts.length === 0 ? '' : ` (${parts.join(', ')})`;
}

/** A broker or name server answered a request with a failure code (upstream MQBrokerException). */
export class MQBrokerError extends RocketMQError {
  readonly remark: string | undefined;
  readonly brokerAddr: string;
  readonly topic: string | undefined;
  readonly group: string | undefined;

  constructor(
    responseCode: number,
    remark: string | undefined,
    subject: ErrorSubject & { brokerAddr: string },
  ) {
    super(`CODE: ${responseCode} DESC: ${remark ?? ''}${subjectText(subject)}`, responseCode, {
      retriable: isRetriableResponseCode(responseCode),
      code: ErrorCode.BROKER,
    });
    this.remark = remark;
    this.brokerAddr = subject.brokerAddr;
    this.topic = subject.topic;
    this.group = subject.group;
  }
}

export interface MQClientErrorOptions extends RocketMQErrorOptions, ErrorSubject {}

/** The string code of a client failure without one given, by the upstream code it carries. */
const CLIENT_CODES: ReadonlyMap<number, ErrorCode> = new Map([
  [ClientErrorCode.NOT_FOUND_TOPIC_EXCEPTION, ErrorCode.NO_ROUTE],
  [ResponseCode.TOPIC_NOT_EXIST, ErrorCode.NO_ROUTE],
  [ClientErrorCode.NO_NAME_SERVER_EXCEPTION, ErrorCode.NO_NAME_SERVER],
  [ClientErrorCode.BROKER_NOT_EXIST_EXCEPTION, ErrorCode.BROKER_NOT_FOUND],
  [ClientErrorCode.ACCESS_BROKER_TIMEOUT, ErrorCode.TIMEOUT],
  [ClientErrorCode.REQUEST_TIMEOUT_EXCEPTION, ErrorCode.TIMEOUT],
  [ClientErrorCode.CONNECT_BROKER_EXCEPTION, ErrorCode.CONNECT],
  [ResponseCode.NO_MESSAGE, ErrorCode.NO_MESSAGE],
]);

/** The client cannot do what was asked (upstream MQClientException). */
export class MQClientError extends RocketMQError {
  readonly topic: string | undefined;
  readonly group: string | undefined;
  readonly brokerAddr: string | undefined;

  constructor(
    message: string,
    responseCode: number = CLIENT_ERROR_NO_CODE,
    options: MQClientErrorOptions = {},
  ) {
    super(`${message}${subjectText(options)}`, responseCode, {
      ...options,
      code: options.code ?? CLIENT_CODES.get(responseCode) ?? ErrorCode.CLIENT,
    });
    this.topic = options.topic;
    this.group = options.group;
    this.brokerAddr = options.brokerAddr;
  }
}

/** What a Node user does about a state, after upstream's words (which tools may match on). */
const STATE_HINTS: Readonly<Record<string, string>> = {
  CREATE_JUST: 'call start() first',
  SHUTDOWN_ALREADY: 'the client was shut down; create a new one',
  START_FAILED: 'start() failed; create a new client',
};

/** A call on a client that is not running (not started yet, or shut down, also while the call waited). */
export class ClientStateError extends MQClientError {
  readonly state: string;

  constructor(what: string, state: string, options: MQClientErrorOptions = {}) {
    const hint = STATE_HINTS[state];
    super(
      `The ${what} service state not OK, ${state}${hint === undefined ? '' : `: ${hint}`}`,
      CLIENT_ERROR_NO_CODE,
      { ...options, code: ErrorCode.NOT_RUNNING },
    );
    this.state = state;
  }
}

export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
