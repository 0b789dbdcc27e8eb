/**
 * Producer options (upstream DefaultMQProducer's fields) with upstream's defaults, checked once at
 * creation so a bad value fails there with the option's name.
 */
import { DEFAULT_TOPIC, MixAll } from '../../common/constants.js';
import { ValidationError } from '../../common/errors.js';
import { DEFAULT_COMPRESS_LEVEL, DEFAULT_MAX_MESSAGE_SIZE } from '../../common/message/message-const.js';
import { checkGroupArg, checkTopicArg } from '../../common/validators.js';
import { ResponseCode } from '../../remoting/protocol/response-code.js';
import type { ClientOptions } from '../client-config.js';
import { DEFAULT_LATENCY_MAX, DEFAULT_NOT_AVAILABLE_DURATION } from './mq-fault-strategy.js';

export interface ProducerOptions extends ClientOptions {
  /** Required: producers of one group are interchangeable for transaction checks. */
  producerGroup: string;
  /** Timeout of one send call, retries included, ms [3000]. */
  sendMsgTimeout?: number | undefined;
  /** Further attempts of a SYNC send on another broker [2]. */
  retryTimesWhenSendFailed?: number | undefined;
  /** Further attempts of an ASYNC send after a transport failure [2]. */
  retryTimesWhenSendAsyncFailed?: number | undefined;
  /** A SYNC send stored without SEND_OK (flush or slave timeout) is sent again to another broker [false]. */
  retryAnotherBrokerWhenNotStoreOK?: boolean | undefined;
  /** Bodies of at least this many bytes are zlib-compressed, batches never [4096]. */
  compressMsgBodyOverHowmuch?: number | undefined;
  /** zlib level of compressed bodies (`rocketmq.message.compressLevel`) [5]. */
  compressLevel?: number | undefined;
  /** Largest body (or encoded batch) accepted, bytes [4 MiB]. */
  maxMessageSize?: number | undefined;
  /** Avoid brokers whose recent sends were slow or failed [false]. */
  sendLatencyFaultEnable?: boolean | undefined;
  /** Latency thresholds, ms [50, 100, 550, 1000, 2000, 3000, 15000]. */
  latencyMax?: readonly number[] | undefined;
  /** How long a broker over each threshold is avoided, ms [0, 0, 30000, 60000, 120000, 180000, 600000]. */
  notAvailableDuration?: readonly number[] | undefined;
  /** Queues a topic created on first send gets per broker [4]. */
  defaultTopicQueueNums?: number | undefined;
  /** The template topic of topics created on first send [TBW102]. */
  createTopicKey?: string | undefined;
  /** Broker answers a SYNC send retries on another broker (DefaultMQProducer.retryResponseCodes). */
  retryResponseCodes?: readonly number[] | undefined;
}

export interface ResolvedProducerOptions {
  readonly producerGroup: string;
  readonly sendMsgTimeout: number;
  readonly retryTimesWhenSendFailed: number;
  readonly retryTimesWhenSendAsyncFailed: number;
  readonly retryAnotherBrokerWhenNotStoreOK: boolean;
  readonly compressMsgBodyOverHowmuch: number;
  readonly compressLevel: number;
  readonly maxMessageSize: number;
  readonly sendLatencyFaultEnable: boolean;
  readonly latencyMax: readonly number[];
  readonly notAvailableDuration: readonly number[];
  readonly defaultTopicQueueNums: number;
  readonly createTopicKey: string;
  readonly retryResponseCodes: ReadonlySet<number>;
}

/** Upstream DefaultMQProducer.retryResponseCodes. */
export const DEFAULT_RETRY_RESPONSE_CODES: readonly number[] = Object.freeze([
  ResponseCode.TOPIC_NOT_EXIST,
  ResponseCode.SERVICE_NOT_AVAILABLE,
  ResponseCode.SYSTEM_ERROR,
  ResponseCode.NO_PERMISSION,
  ResponseCode.NO_BUYER_ID,
  ResponseCode.NOT_IN_CURRENT_UNIT,
]);

export const DEFAULT_PRODUCER_OPTIONS = Object.freeze({
  sendMsgTimeout: 3000,
  retryTimesWhenSendFailed: 2,
  retryTimesWhenSendAsyncFailed: 2,
  retryAnotherBrokerWhenNotStoreOK: false,
  compressMsgBodyOverHowmuch: 4096,
  compressLevel: DEFAULT_COMPRESS_LEVEL,
  maxMessageSize: DEFAULT_MAX_MESSAGE_SIZE,
  sendLatencyFaultEnable: false,
  latencyMax: DEFAULT_LATENCY_MAX,
  notAvailableDuration: DEFAULT_NOT_AVAILABLE_DURATION,
  defaultTopicQueueNums: 4,
  createTopicKey: DEFAULT_TOPIC,
  retryResponseCodes: DEFAULT_RETRY_RESPONSE_CODES,
});

function integer(name: string, value: number, min: number, max = Number.MAX_SAFE_INTEGER): number {
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ValidationError(`${name} must be an integer in [${min}, ${max}], got ${value}`, -1);
  }
  return value;
}

function durations(name: string, list: readonly number[]): readonly number[] {
  if (!Array.isArray(list)) throw new ValidationError(`${name} must be a list of numbers`, -1);
  list.forEach((v, i) => {
    integer(`${name}[${i}]`, v, 0);
  });
  return Object.freeze([...list]);
}

function flag(name: string, value: boolean | undefined, fallback: boolean): boolean {
  if (value === undefined) return fallback;
  if (typeof value !== 'boolean')
    throw new ValidationError(`${name} must be true or false, got ${typeof value}`, -1);
  return value;
}

function responseCodes(list: readonly number[]): ReadonlySet<number> {
  if (!Array.isArray(list) || !list.every((c) => Number.isInteger(c))) {
    throw new ValidationError('retryResponseCodes must be a list of integer response codes', -1);
  }
  return new Set(list);
}

/** Defaults applied and every value checked; the group is the one given (namespace applied later). */
export function resolveProducerOptions(options: ProducerOptions): ResolvedProducerOptions {
  if (options === null || typeof options !== 'object') {
    throw new ValidationError('producer options must be an object with a producerGroup', -1);
  }
  const d = DEFAULT_PRODUCER_OPTIONS;
  checkGroupArg('producerGroup', options.producerGroup);
  if (options.producerGroup === MixAll.DEFAULT_PRODUCER_GROUP) {
    throw new ValidationError(
      `producerGroup can not equal ${MixAll.DEFAULT_PRODUCER_GROUP}, please specify another one.`,
      -1,
    );
  }
  const createTopicKey = options.createTopicKey ?? d.createTopicKey;
  checkTopicArg('createTopicKey', createTopicKey);
  const latencyMax = durations('latencyMax', options.latencyMax ?? d.latencyMax);
  const notAvailableDuration = durations(
    'notAvailableDuration',
    options.notAvailableDuration ?? d.notAvailableDuration,
  );
  if (latencyMax.length !== notAvailableDuration.length) {
    throw new ValidationError('latencyMax and notAvailableDuration must have the same length', -1);
  }
  return {
    producerGroup: options.producerGroup,
    sendMsgTimeout: integer('sendMsgTimeout', options.sendMsgTimeout ?? d.sendMsgTimeout, 1),
    retryTimesWhenSendFailed: integer(
      'retryTimesWhenSendFailed',
      options.retryTimesWhenSendFailed ?? d.retryTimesWhenSendFailed,
      0,
    ),
    retryTimesWhenSendAsyncFailed: integer(
      'retryTimesWhenSendAsyncFailed',
      options.retryTimesWhenSendAsyncFailed ?? d.retryTimesWhenSendAsyncFailed,
      0,
    ),
    retryAnotherBrokerWhenNotStoreOK: flag(
      'retryAnotherBrokerWhenNotStoreOK',
      options.retryAnotherBrokerWhenNotStoreOK,
      d.retryAnotherBrokerWhenNotStoreOK,
    ),
    compressMsgBodyOverHowmuch: integer(
      'compressMsgBodyOverHowmuch',
      options.compressMsgBodyOverHowmuch ?? d.compressMsgBodyOverHowmuch,
      0,
    ),
    compressLevel: integer('compressLevel', options.compressLevel ?? d.compressLevel, -1, 9),
    maxMessageSize: integer('maxMessageSize', options.maxMessageSize ?? d.maxMessageSize, 1),
    sendLatencyFaultEnable: flag(
      'sendLatencyFaultEnable',
      options.sendLatencyFaultEnable,
      d.sendLatencyFaultEnable,
    ),
    latencyMax,
    notAvailableDuration,
    defaultTopicQueueNums: integer(
      'defaultTopicQueueNums',
      options.defaultTopicQueueNums ?? d.defaultTopicQueueNums,
      1,
    ),
    createTopicKey,
    retryResponseCodes: responseCodes(options.retryResponseCodes ?? d.retryResponseCodes),
  };
}
