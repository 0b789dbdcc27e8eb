/**
 * ConsumerConnection (GET_CONSUMER_CONNECTION_LIST body, `common/.../protocol/body/ConsumerConnection.java`)
 * and the Connection bean it shares with ProducerConnection: who is online in a group, with which
 * client version, and what the group subscribes to.
 * `{"connectionSet":[{Connection}],"consumeFromWhere":..,"consumeType":..,"messageModel":..,
 * "subscriptionTable":{"<topic>":{SubscriptionData}}}`.
 */
import { FjMap, javaSet, stringifyFastjson } from '../fastjson/index.js';
import { BodyReader } from './body-reader.js';
import { ConsumeFromWhere, ConsumeType, MessageModel, readEnum } from './heartbeat-data.js';
import { readSubscriptionData, type SubscriptionData, subscriptionDataValue } from './subscription-data.js';

/** `common/.../protocol/body/Connection.java`. */
export interface ClientConnection {
  clientId: string;
  /** `ip:port` of the client's socket as the broker sees it. */
  clientAddr: string;
  /** LanguageCode name (as the client's requests carry it). */
  language: string;
  /** MQVersion ordinal of the client. */
  version: number;
}

export interface ConsumerConnection {
  /** A Java HashSet, written in the order given. */
  connectionSet: ClientConnection[];
  /** topic -> subscription, in the order to write. */
  subscriptionTable: Map<string, SubscriptionData>;
  consumeType: ConsumeType | undefined;
  messageModel: MessageModel | undefined;
  consumeFromWhere: ConsumeFromWhere | undefined;
}

export function clientConnectionValue(c: ClientConnection) {
  return { clientAddr: c.clientAddr, clientId: c.clientId, language: c.language, version: c.version };
}

export function readClientConnection(r: BodyReader): ClientConnection {
  return {
    clientId: r.optional('clientId')?.string() ?? '',
    clientAddr: r.optional('clientAddr')?.string() ?? '',
    language: r.optional('language')?.string() ?? '',
    version: r.optional('version')?.int() ?? 0,
  };
}

export function encodeConsumerConnection(c: ConsumerConnection): Buffer {
  const value = {
    connectionSet: javaSet(c.connectionSet.map(clientConnectionValue)),
    consumeFromWhere: c.consumeFromWhere,
    consumeType: c.consumeType,
    messageModel: c.messageModel,
    subscriptionTable: new FjMap(
      [...c.subscriptionTable].map(([topic, s]) => [topic, subscriptionDataValue(s)] as const),
    ),
  };
  return Buffer.from(stringifyFastjson(value), 'utf8');
}

export function decodeConsumerConnection(body: Buffer | undefined): ConsumerConnection {
  const r = BodyReader.parse('ConsumerConnection', body);
  const subscriptionTable = new Map<string, SubscriptionData>();
  for (const [topic, s] of r.optional('subscriptionTable')?.entries() ?? []) {
    subscriptionTable.set(topic, readSubscriptionData(s));
  }
  return {
    connectionSet: r.optional('connectionSet')?.array().map(readClientConnection) ?? [],
    subscriptionTable,
    consumeType: readEnum(r.optional('consumeType'), ConsumeType),
    messageModel: readEnum(r.optional('messageModel'), MessageModel),
    consumeFromWhere: readEnum(r.optional('consumeFromWhere'), ConsumeFromWhere),
  };
}
