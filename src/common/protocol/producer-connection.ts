/**
 * ProducerConnection (GET_PRODUCER_CONNECTION_LIST body, `common/.../protocol/body/ProducerConnection.java`):
 * `{"connectionSet":[{"clientAddr":..,"clientId":..,"language":..,"version":..}]}`.
 */
import { javaSet, stringifyFastjson } from '../fastjson/index.js';
import { BodyReader } from './body-reader.js';
import { type ClientConnection, clientConnectionValue, readClientConnection } from './consumer-connection.js';

export interface ProducerConnection {
  /** A Java HashSet, written in the order given. */
  connectionSet: ClientConnection[];
}

export function encodeProducerConnection(p: ProducerConnection): Buffer {
  return Buffer.from(
    stringifyFastjson({ connectionSet: javaSet(p.connectionSet.map(clientConnectionValue)) }),
    'utf8',
  );
}

export function decodeProducerConnection(body: Buffer | undefined): ProducerConnection {
  const r = BodyReader.parse('ProducerConnection', body);
  return { connectionSet: r.optional('connectionSet')?.array().map(readClientConnection) ?? [] };
}
