/**
 * Topic, group and message rules of upstream 4.9.8 (client `Validators`, common `TopicValidator`,
 * `MessageBatch.generateFromList`). Messages match upstream's text so users see the same errors.
 * Client-side checks carry response code -1 (MQClientException's default when no code is given);
 * checks upstream reports with a code carry that code.
 */

import { ValidationError } from './errors.js';
import { javaIsBlank } from './message/java-lang.js';
import type { Message } from './message/message.js';
import { DEFAULT_MAX_MESSAGE_SIZE } from './message/message-const.js';

const CLIENT_ERROR = -1;
const SYSTEM_ERROR = 1;
const MESSAGE_ILLEGAL = 13;
const NO_PERMISSION = 16;

/** Longest group name (`Validators.CHARACTER_MAX_LENGTH`), in UTF-16 units. */
export const CHARACTER_MAX_LENGTH = 255;
/** Longest topic name, in UTF-16 units (the stored V1 topic length is a signed byte). */
export const TOPIC_MAX_LENGTH = 127;
export const VALID_TOPIC_PATTERN = '^[%|a-zA-Z0-9_-]+$';

export const TopicValidator = {
  AUTO_CREATE_TOPIC_KEY_TOPIC: 'TBW102',
  RMQ_SYS_SCHEDULE_TOPIC: 'SCHEDULE_TOPIC_XXXX',
  RMQ_SYS_BENCHMARK_TOPIC: 'BenchmarkTest',
  RMQ_SYS_TRANS_HALF_TOPIC: 'RMQ_SYS_TRANS_HALF_TOPIC',
  RMQ_SYS_TRACE_TOPIC: 'RMQ_SYS_TRACE_TOPIC',
  RMQ_SYS_TRANS_OP_HALF_TOPIC: 'RMQ_SYS_TRANS_OP_HALF_TOPIC',
  RMQ_SYS_TRANS_CHECK_MAX_TIME_TOPIC: 'TRANS_CHECK_MAX_TIME_TOPIC',
  RMQ_SYS_SELF_TEST_TOPIC: 'SELF_TEST_TOPIC',
  RMQ_SYS_OFFSET_MOVED_EVENT: 'OFFSET_MOVED_EVENT',
  SYSTEM_TOPIC_PREFIX: 'rmq_sys_',
} as const;

/**
 * The fixed system topics. The Java broker adds more at start-up (cluster name, broker name, the
 * `<cluster>_REPLY_TOPIC`...) to a global set; here the caller passes those as `extraSystemTopics`.
 */
export const SYSTEM_TOPICS: ReadonlySet<string> = new Set([
  TopicValidator.AUTO_CREATE_TOPIC_KEY_TOPIC,
  TopicValidator.RMQ_SYS_SCHEDULE_TOPIC,
  TopicValidator.RMQ_SYS_BENCHMARK_TOPIC,
  TopicValidator.RMQ_SYS_TRANS_HALF_TOPIC,
  TopicValidator.RMQ_SYS_TRACE_TOPIC,
  TopicValidator.RMQ_SYS_TRANS_OP_HALF_TOPIC,
  TopicValidator.RMQ_SYS_TRANS_CHECK_MAX_TIME_TOPIC,
  TopicValidator.RMQ_SYS_SELF_TEST_TOPIC,
  TopicValidator.RMQ_SYS_OFFSET_MOVED_EVENT,
]);

/** Topics clients may not send to (`NOT_ALLOWED_SEND_TOPIC_SET`); TBW102, BenchmarkTest and the trace topic are allowed. */
export const NOT_ALLOWED_SEND_TOPICS: ReadonlySet<string> = new Set([
  TopicValidator.RMQ_SYS_SCHEDULE_TOPIC,
  TopicValidator.RMQ_SYS_TRANS_HALF_TOPIC,
  TopicValidator.RMQ_SYS_TRANS_OP_HALF_TOPIC,
  TopicValidator.RMQ_SYS_TRANS_CHECK_MAX_TIME_TOPIC,
  TopicValidator.RMQ_SYS_SELF_TEST_TOPIC,
  TopicValidator.RMQ_SYS_OFFSET_MOVED_EVENT,
]);

const RETRY_GROUP_TOPIC_PREFIX = '%RETRY%';

/** True if any UTF-16 unit is outside `[%|a-zA-Z0-9_-]`. An empty string is not illegal here. */
export function isTopicOrGroupIllegal(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    const ok =
      (c >= 0x30 && c <= 0x39) ||
      (c >= 0x41 && c <= 0x5a) ||
      (c >= 0x61 && c <= 0x7a) ||
      c === 0x25 /* % */ ||
      c === 0x7c /* | */ ||
      c === 0x5f /* _ */ ||
      c === 0x2d; /* - */
    if (!ok) return true;
  }
  return false;
}

/** Client `Validators.checkTopic`: blank, then length, then characters. */
export function checkTopic(topic: string | undefined): asserts topic is string {
  if (topic === undefined || javaIsBlank(topic)) {
    throw new ValidationError('The specified topic is blank', CLIENT_ERROR);
  }
  if (topic.length > TOPIC_MAX_LENGTH) {
    throw new ValidationError(
      `The specified topic is longer than topic max length ${TOPIC_MAX_LENGTH}.`,
      CLIENT_ERROR,
    );
  }
  if (isTopicOrGroupIllegal(topic)) {
    throw new ValidationError(
      `The specified topic[${topic}] contains illegal characters, allowing only ${VALID_TOPIC_PATTERN}`,
      CLIENT_ERROR,
    );
  }
}

/**
 * Broker `TopicValidator.validateTopic`: blank, then characters, then length, each SYSTEM_ERROR with
 * the remark the Java broker sends.
 */
export function validateTopic(topic: string | undefined): asserts topic is string {
  if (topic === undefined || javaIsBlank(topic)) {
    throw new ValidationError('The specified topic is blank.', SYSTEM_ERROR);
  }
  if (isTopicOrGroupIllegal(topic)) {
    throw new ValidationError(
      `The specified topic contains illegal characters, allowing only ${VALID_TOPIC_PATTERN}`,
      SYSTEM_ERROR,
    );
  }
  if (topic.length > TOPIC_MAX_LENGTH) {
    throw new ValidationError('The specified topic is longer than topic max length.', SYSTEM_ERROR);
  }
}

/** Client `Validators.checkGroup`. */
export function checkGroup(group: string | undefined): asserts group is string {
  if (group === undefined || javaIsBlank(group)) {
    throw new ValidationError('the specified group is blank', CLIENT_ERROR);
  }
  if (group.length > CHARACTER_MAX_LENGTH) {
    throw new ValidationError('the specified group is longer than group max length 255.', CLIENT_ERROR);
  }
  if (isTopicOrGroupIllegal(group)) {
    throw new ValidationError(
      `the specified group[${group}] contains illegal characters, allowing only ${VALID_TOPIC_PATTERN}`,
      CLIENT_ERROR,
    );
  }
}

/** Runs a shared check (whose text names a topic or group, as upstream's does) under the argument's name. */
function checkedAs(name: string, check: () => void): void {
  try {
    check();
  } catch (error) {
    if (error instanceof ValidationError)
      throw new ValidationError(`${name}: ${error.message}`, error.responseCode);
    throw error;
  }
}

/**
 * A topic argument under the producer's rules (`checkTopic`), `name` leading the text. Not a string
 * reads as blank, so plain JavaScript callers get the same error.
 */
export function checkTopicArg(name: string, value: unknown): string {
  checkedAs(name, () => checkTopic(typeof value === 'string' ? value : undefined));
  return value as string;
}

/** A group argument under the producer's rules (`checkGroup`), `name` leading the text. */
export function checkGroupArg(name: string, value: unknown): string {
  checkedAs(name, () => checkGroup(typeof value === 'string' ? value : undefined));
  return value as string;
}

/** `TopicValidator.isSystemTopic`: a fixed system topic, one of `extraSystemTopics`, or `rmq_sys_*`. */
export function isSystemTopic(topic: string, extraSystemTopics?: ReadonlySet<string>): boolean {
  return (
    SYSTEM_TOPICS.has(topic) ||
    extraSystemTopics?.has(topic) === true ||
    topic.startsWith(TopicValidator.SYSTEM_TOPIC_PREFIX)
  );
}

/** Client `Validators.isSystemTopic` (throwing form). Broker form: pass `SYSTEM_ERROR` semantics via `broker`. */
export function checkNotSystemTopic(
  topic: string,
  extraSystemTopics?: ReadonlySet<string>,
  broker = false,
): void {
  if (isSystemTopic(topic, extraSystemTopics)) {
    throw new ValidationError(
      `The topic[${topic}] is conflict with system topic.`,
      broker ? SYSTEM_ERROR : CLIENT_ERROR,
    );
  }
}

export function isNotAllowedSendTopic(topic: string): boolean {
  return NOT_ALLOWED_SEND_TOPICS.has(topic);
}

/** `isNotAllowedSendTopic` (throwing form); the broker answers NO_PERMISSION, the client uses -1. */
export function checkNotAllowedSendTopic(topic: string, broker = false): void {
  if (isNotAllowedSendTopic(topic)) {
    throw new ValidationError(
      `Sending message to topic[${topic}] is forbidden.`,
      broker ? NO_PERMISSION : CLIENT_ERROR,
    );
  }
}

/** Client `Validators.checkMessage`: topic rules, forbidden topics, then the body (MESSAGE_ILLEGAL). */
export function checkMessage(
  msg: Message | undefined | null,
  maxMessageSize: number = DEFAULT_MAX_MESSAGE_SIZE,
): void {
  if (msg === undefined || msg === null) {
    throw new ValidationError('the message is null', MESSAGE_ILLEGAL);
  }
  checkTopic(msg.topic);
  checkNotAllowedSendTopic(msg.topic);
  const body: Buffer | undefined | null = msg.body;
  if (body === undefined || body === null) {
    throw new ValidationError('the message body is null', MESSAGE_ILLEGAL);
  }
  if (body.length === 0) {
    throw new ValidationError('the message body length is zero', MESSAGE_ILLEGAL);
  }
  if (body.length > maxMessageSize) {
    throw new ValidationError(
      `the message body size over max value, MAX: ${maxMessageSize}`,
      MESSAGE_ILLEGAL,
    );
  }
}

/**
 * `MessageBatch.generateFromList` rules: no delay level, no retry topic, one topic and one
 * waitStoreMsgOK for all. (The producer then runs checkMessage on each and gives each a UNIQ_KEY.)
 */
export function checkBatch(messages: readonly Message[]): void {
  const first = messages[0];
  if (first === undefined) throw new ValidationError('the message batch is empty', CLIENT_ERROR);
  for (const m of messages) {
    if (m.delayTimeLevel > 0) {
      throw new ValidationError('TimeDelayLevel is not supported for batching', CLIENT_ERROR);
    }
    if (m.topic.startsWith(RETRY_GROUP_TOPIC_PREFIX)) {
      throw new ValidationError('Retry Group is not supported for batching', CLIENT_ERROR);
    }
    if (m !== first) {
      if (m.topic !== first.topic) {
        throw new ValidationError('The topic of the messages in one batch should be the same', CLIENT_ERROR);
      }
      if (m.waitStoreMsgOK !== first.waitStoreMsgOK) {
        throw new ValidationError(
          'The waitStoreMsgOK of the messages in one batch should the same',
          CLIENT_ERROR,
        );
      }
    }
  }
}
