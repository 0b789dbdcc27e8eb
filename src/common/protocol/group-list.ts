/**
 * GroupList (QUERY_TOPIC_CONSUME_BY_WHO body, `common/.../protocol/body/GroupList.java`):
 * `{"groupList":["g1","g2"]}`, a Java HashSet of group names.
 */
import { javaSet, stringifyFastjson } from '../fastjson/index.js';
import { BodyReader } from './body-reader.js';

/** Writes the groups in the order given (Java's HashSet order via `javaHashMapOrder` for Java's bytes). */
export function encodeGroupList(groups: readonly string[]): Buffer {
  return Buffer.from(stringifyFastjson({ groupList: javaSet(groups) }), 'utf8');
}

export function decodeGroupList(body: Buffer | undefined): string[] {
  const r = BodyReader.parse('GroupList', body);
  return (
    r
      .optional('groupList')
      ?.array()
      .map((g) => g.string()) ?? []
  );
}
