/**
 * GetConsumerListByGroupResponseBody (GET_CONSUMER_LIST_BY_GROUP body,
 * `common/.../protocol/header/GetConsumerListByGroupResponseBody.java`): `{"consumerIdList":["ip@inst",..]}`,
 * the client ids a consumer rebalances over.
 */
import { stringifyFastjson } from '../fastjson/index.js';
import { BodyReader } from './body-reader.js';

export function encodeConsumerIdList(consumerIdList: readonly string[]): Buffer {
  return Buffer.from(stringifyFastjson({ consumerIdList }), 'utf8');
}

export function decodeConsumerIdList(body: Buffer | undefined): string[] {
  const r = BodyReader.parse('GetConsumerListByGroupResponseBody', body);
  return (
    r
      .optional('consumerIdList')
      ?.array()
      .map((id) => id.string()) ?? []
  );
}
