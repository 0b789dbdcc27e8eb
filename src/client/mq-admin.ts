/**
 * The lookups every client offers (upstream's MQAdmin interface, which DefaultMQProducer and the
 * consumers implement alike), in the caller's view: topics without the namespace, `{ timeoutMs,
 * signal }` on each call, offsets and timestamps as bigint (Java longs).
 */

import { ValidationError } from '../common/errors.js';
import type { MessageExt } from '../common/message/message.js';
import { MessageQueue } from '../common/message/message-queue.js';
import { checkTopicArg } from '../common/validators.js';
import { ResponseCode } from '../remoting/protocol/response-code.js';
import { type ClientConfig, withNamespaceOf, withoutNamespaceOf } from './client-config.js';
import { MQClientError } from './errors.js';
import { DEFAULT_ADMIN_TIMEOUT_MS, type MQAdminImpl, type QueryResult } from './instance/mq-admin-impl.js';
import type { CallOptions } from './instance/mq-client-api.js';

export interface QueryOptions {
  /** Default 6000 ms (upstream MQAdminImpl.timeoutMillis); message queries wait up to 3 times as long per broker. */
  timeoutMs?: number | undefined;
  signal?: AbortSignal | undefined;
}

export interface ViewMessageOptions extends QueryOptions {
  /** The topic, needed to find a message by its msgId (UNIQ_KEY) rather than its offsetMsgId. */
  topic?: string | undefined;
}

export type { QueryResult };

export interface MQAdmin {
  /** The first offset of `mq` whose message was stored at or after `timestamp` (ms). */
  searchOffset(mq: MessageQueue, timestamp: number | bigint, options?: QueryOptions): Promise<bigint>;
  /** The offset the next message of `mq` will get. */
  maxOffset(mq: MessageQueue, options?: QueryOptions): Promise<bigint>;
  /** The oldest offset of `mq` still stored. */
  minOffset(mq: MessageQueue, options?: QueryOptions): Promise<bigint>;
  /** Store time (ms) of the oldest message of `mq` still stored. */
  earliestMsgStoreTime(mq: MessageQueue, options?: QueryOptions): Promise<bigint>;
  /**
   * A message by id: an offsetMsgId is read from the broker it names; a msgId (UNIQ_KEY) needs
   * `options.topic` and is found through the brokers' index. Rejects with NO_MESSAGE when none.
   */
  viewMessage(msgId: string, options?: ViewMessageOptions): Promise<MessageExt>;
  /** Messages of `topic` with `key` among their KEYS, stored between `begin` and `end` (ms). */
  queryMessage(
    topic: string,
    key: string,
    maxNum: number,
    begin: number | bigint,
    end: number | bigint,
    options?: QueryOptions,
  ): Promise<QueryResult>;
}

/**
 * The MQAdmin half of every public client object: the six lookups, passed to the object's
 * namespaced lookups (`queries`).
 */
export abstract class MQAdminFacade implements MQAdmin {
  protected abstract get queries(): MQAdmin;

  searchOffset(mq: MessageQueue, timestamp: number | bigint, options?: QueryOptions): Promise<bigint> {
    return this.queries.searchOffset(mq, timestamp, options);
  }

  maxOffset(mq: MessageQueue, options?: QueryOptions): Promise<bigint> {
    return this.queries.maxOffset(mq, options);
  }

  minOffset(mq: MessageQueue, options?: QueryOptions): Promise<bigint> {
    return this.queries.minOffset(mq, options);
  }

  earliestMsgStoreTime(mq: MessageQueue, options?: QueryOptions): Promise<bigint> {
    return this.queries.earliestMsgStoreTime(mq, options);
  }

  viewMessage(msgId: string, options?: ViewMessageOptions): Promise<MessageExt> {
    return this.queries.viewMessage(msgId, options);
  }

  queryMessage(
    topic: string,
    key: string,
    maxNum: number,
    begin: number | bigint,
    end: number | bigint,
    options?: QueryOptions,
  ): Promise<QueryResult> {
    return this.queries.queryMessage(topic, key, maxNum, begin, end, options);
  }
}

/** A Java long given as a bigint or a safe-integer number (offsets, timestamps); else a ValidationError naming it. */
export function long(name: string, value: unknown): bigint {
  if (typeof value === 'bigint') return value;
  if (typeof value === 'number' && Number.isSafeInteger(value)) return BigInt(value);
  throw new ValidationError(`${name} must be an integer (a number or a bigint), got ${String(value)}`, -1);
}

/** MQAdmin over a client instance's MQAdminImpl, translating topics to and from the namespace. */
export class NamespacedAdmin implements MQAdmin {
  private readonly admin: () => MQAdminImpl;
  private readonly config: ClientConfig;

  /** `admin` gives the running instance's MQAdminImpl, or throws when the client is not running. */
  constructor(config: ClientConfig, admin: () => MQAdminImpl) {
    this.config = config;
    this.admin = admin;
  }

  searchOffset(mq: MessageQueue, timestamp: number | bigint, options?: QueryOptions): Promise<bigint> {
    return this.run(() =>
      this.admin().searchOffset(this.wire(mq), long('timestamp', timestamp), this.call(options)),
    );
  }

  maxOffset(mq: MessageQueue, options?: QueryOptions): Promise<bigint> {
    return this.run(() => this.admin().maxOffset(this.wire(mq), this.call(options)));
  }

  minOffset(mq: MessageQueue, options?: QueryOptions): Promise<bigint> {
    return this.run(() => this.admin().minOffset(this.wire(mq), this.call(options)));
  }

  earliestMsgStoreTime(mq: MessageQueue, options?: QueryOptions): Promise<bigint> {
    return this.run(() => this.admin().earliestMsgStoreTime(this.wire(mq), this.call(options)));
  }

  viewMessage(msgId: string, options: ViewMessageOptions = {}): Promise<MessageExt> {
    return this.run(async () => {
      if (typeof msgId !== 'string' || msgId.length === 0)
        throw new ValidationError('msgId must be a non-empty string', -1);
      if (options.topic !== undefined) checkTopicArg('topic', options.topic);
      const admin = this.admin();
      const call = this.call(options);
      if (options.topic !== undefined) {
        const found = await admin.queryMessageByUniqKey(
          withNamespaceOf(this.config, options.topic),
          msgId,
          call,
        );
        if (found !== undefined) return this.user(found);
      }
      try {
        return this.user(await admin.viewMessage(msgId, call));
      } catch (error) {
        if (
          options.topic !== undefined &&
          error instanceof MQClientError &&
          error.responseCode === ResponseCode.NO_MESSAGE
        ) {
          throw new MQClientError(`no message with id ${msgId}`, ResponseCode.NO_MESSAGE, {
            topic: options.topic,
          });
        }
        throw error;
      }
    });
  }

  queryMessage(
    topic: string,
    key: string,
    maxNum: number,
    begin: number | bigint,
    end: number | bigint,
    options?: QueryOptions,
  ): Promise<QueryResult> {
    return this.run(async () => {
      if (typeof key !== 'string' || key.length === 0)
        throw new ValidationError('key must be a non-empty string', -1);
      checkTopicArg('topic', topic);
      if (!Number.isInteger(maxNum) || maxNum <= 0)
        throw new ValidationError(`maxNum must be an integer > 0, got ${maxNum}`, -1);
      const result = await this.admin().queryMessage(
        withNamespaceOf(this.config, topic),
        key,
        maxNum,
        long('begin', begin),
        long('end', end),
        this.call(options, 3),
      );
      return {
        indexLastUpdateTimestamp: result.indexLastUpdateTimestamp,
        messageList: result.messageList.map((m) => this.user(m)),
      };
    });
  }

  private run<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return fn();
    } catch (error) {
      return Promise.reject(error);
    }
  }

  private call(options: QueryOptions | undefined, factor = 1): CallOptions {
    const timeoutMs = options?.timeoutMs ?? DEFAULT_ADMIN_TIMEOUT_MS * factor;
    if (!Number.isFinite(timeoutMs) || timeoutMs <= 0)
      throw new ValidationError(`timeoutMs must be a number > 0, got ${timeoutMs}`, -1);
    return { timeoutMs, signal: options?.signal };
  }

  private wire(mq: MessageQueue): MessageQueue {
    if (!(mq instanceof MessageQueue)) throw new ValidationError('mq must be a MessageQueue', -1);
    const topic = withNamespaceOf(this.config, checkTopicArg('mq.topic', mq.topic));
    return new MessageQueue(topic, mq.brokerName, mq.queueId);
  }

  private user(msg: MessageExt): MessageExt {
    msg.topic = withoutNamespaceOf(this.config, msg.topic);
    return msg;
  }
}
