/**
 * HeartbeatData (`common/.../protocol/heartbeat/`): the HEART_BEAT body. A client lists every
 * producer and consumer group it runs, each consumer with its subscriptions:
 * `{"clientID":..,"consumerDataSet":[{ConsumerData}],"producerDataSet":[{"groupName":..}]}`.
 * The sets are Java HashSets (written in the order given here). 5.x clients add
 * `heartbeatFingerprint` (non-zero when the client runs heartbeat V2, `com.rocketmq.heartbeat.v2`)
 * and `withoutSub` (true in a V2 heartbeat that leaves out every subscriptionDataSet because the
 * broker already has them under that fingerprint).
 */
import { type FjEmittableRecord, javaSet, stringifyFastjson } from '../fastjson/index.js';
import { BodyReader } from './body-reader.js';
import { readSubscriptionData, type SubscriptionData, subscriptionDataValue } from './subscription-data.js';

/** ConsumeType: pull (ACTIVELY) or push (PASSIVELY) consumer. */
export const ConsumeType = {
  CONSUME_ACTIVELY: 'CONSUME_ACTIVELY',
  CONSUME_PASSIVELY: 'CONSUME_PASSIVELY',
} as const;
export type ConsumeType = (typeof ConsumeType)[keyof typeof ConsumeType];

export const MessageModel = {
  BROADCASTING: 'BROADCASTING',
  CLUSTERING: 'CLUSTERING',
} as const;
export type MessageModel = (typeof MessageModel)[keyof typeof MessageModel];

export const ConsumeFromWhere = {
  CONSUME_FROM_LAST_OFFSET: 'CONSUME_FROM_LAST_OFFSET',
  CONSUME_FROM_LAST_OFFSET_AND_FROM_MIN_WHEN_BOOT_FIRST:
    'CONSUME_FROM_LAST_OFFSET_AND_FROM_MIN_WHEN_BOOT_FIRST',
  CONSUME_FROM_MIN_OFFSET: 'CONSUME_FROM_MIN_OFFSET',
  CONSUME_FROM_MAX_OFFSET: 'CONSUME_FROM_MAX_OFFSET',
  CONSUME_FROM_FIRST_OFFSET: 'CONSUME_FROM_FIRST_OFFSET',
  CONSUME_FROM_TIMESTAMP: 'CONSUME_FROM_TIMESTAMP',
} as const;
export type ConsumeFromWhere = (typeof ConsumeFromWhere)[keyof typeof ConsumeFromWhere];

export interface ConsumerData {
  groupName: string;
  /** undefined where Java holds null: absent, or a name this version does not know. */
  consumeType: ConsumeType | undefined;
  messageModel: MessageModel | undefined;
  consumeFromWhere: ConsumeFromWhere | undefined;
  subscriptionDataSet: SubscriptionData[];
  unitMode: boolean;
}

export interface ProducerData {
  groupName: string;
}

export interface HeartbeatData {
  clientID: string;
  producerDataSet: ProducerData[];
  consumerDataSet: ConsumerData[];
  /** 5.x: hash of the heartbeat without clientID and subVersions; 0 (absent) from older clients. */
  heartbeatFingerprint?: number;
  /** 5.x: the consumers' subscriptions are left out (heartbeat V2, fingerprint unchanged). */
  withoutSub?: boolean;
}

/**
 * fastjson's EnumDeserializer gives null for a name the enum does not have (Feature.ErrorOnEnumNotMatch
 * is off), so an unknown value reads as undefined instead of failing the whole body.
 */
export function readEnum<T extends string>(
  r: BodyReader | undefined,
  values: { readonly [k: string]: T },
): T | undefined {
  if (r === undefined) return undefined;
  const name = r.string();
  return Object.hasOwn(values, name) ? values[name] : undefined;
}

export function readConsumerData(r: BodyReader): ConsumerData {
  return {
    groupName: r.field('groupName').string(),
    consumeType: readEnum(r.optional('consumeType'), ConsumeType),
    messageModel: readEnum(r.optional('messageModel'), MessageModel),
    consumeFromWhere: readEnum(r.optional('consumeFromWhere'), ConsumeFromWhere),
    subscriptionDataSet: r.optional('subscriptionDataSet')?.array().map(readSubscriptionData) ?? [],
    unitMode: r.optional('unitMode')?.boolean() ?? false,
  };
}

export function consumerDataValue(c: ConsumerData): FjEmittableRecord {
  return {
    consumeFromWhere: c.consumeFromWhere,
    consumeType: c.consumeType,
    groupName: c.groupName,
    messageModel: c.messageModel,
    subscriptionDataSet: javaSet(c.subscriptionDataSet.map(subscriptionDataValue)),
    unitMode: c.unitMode,
  };
}

export function encodeHeartbeatData(h: HeartbeatData): Buffer {
  const value = {
    clientID: h.clientID,
    consumerDataSet: javaSet(h.consumerDataSet.map(consumerDataValue)),
    // 5.x fields only when set, so a 4.x-style heartbeat stays byte-identical to 4.9.8's.
    ...(h.heartbeatFingerprint ? { heartbeatFingerprint: h.heartbeatFingerprint } : {}),
    producerDataSet: javaSet(h.producerDataSet.map((p) => ({ groupName: p.groupName }))),
    ...(h.withoutSub === true ? { withoutSub: true } : {}),
  };
  return Buffer.from(stringifyFastjson(value), 'utf8');
}

/**
 * Throws RemotingCommandError for an empty or malformed body. Groups without a name are refused
 * (Java would register them under a null key and fail on it later).
 */
export function decodeHeartbeatData(body: Buffer | undefined): HeartbeatData {
  const r = BodyReader.parse('HeartbeatData', body);
  return {
    clientID: r.field('clientID').string(),
    producerDataSet:
      r
        .optional('producerDataSet')
        ?.array()
        .map((p) => ({ groupName: p.field('groupName').string() })) ?? [],
    consumerDataSet: r.optional('consumerDataSet')?.array().map(readConsumerData) ?? [],
    ...optionalField('heartbeatFingerprint', r.optional('heartbeatFingerprint')?.int()),
    ...optionalField('withoutSub', r.optional('withoutSub')?.boolean()),
  };
}

/** `{ key: value }` when the body had the key, `{}` otherwise: 4.x bodies decode as before. */
function optionalField<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}
