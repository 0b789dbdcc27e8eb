/**
 * Consumer offsets as the broker keeps them (consumerOffset.json, GET_ALL_CONSUMER_OFFSET body,
 * ConsumerOffsetSerializeWrapper): `{"offsetTable":{"<topic>@<group>":{0:118,1:57}}}`. The inner
 * keys are Java Integers and fastjson writes them bare, so the text is not standard JSON; the values
 * are the next offsets to consume (Java longs).
 */
import { FjMap, stringifyFastjson } from '../fastjson/index.js';
import { BodyReader } from './body-reader.js';

/** `topic@group` -> queueId -> offset, each map in the order to write. */
export type ConsumerOffsetTable = Map<string, Map<number, bigint>>;

export function encodeConsumerOffsetTable(
  table: ConsumerOffsetTable,
  options: { readonly pretty?: boolean } = {},
): string {
  const value = {
    offsetTable: new FjMap(
      [...table].map(([key, offsets]) => [key, new FjMap<number, bigint>([...offsets])] as const),
    ),
  };
  return stringifyFastjson(value, { pretty: options.pretty ?? false });
}

/** Throws RemotingCommandError for malformed text or a queue id that is not an int. */
export function decodeConsumerOffsetTable(
  text: string | Buffer,
  what = 'ConsumerOffsetSerializeWrapper',
): ConsumerOffsetTable {
  const bytes = typeof text === 'string' ? Buffer.from(text, 'utf8') : text;
  const r = BodyReader.parse(what, bytes);
  const table: ConsumerOffsetTable = new Map();
  for (const [key, offsets] of r.optional('offsetTable')?.entries() ?? []) {
    const queues = new Map<number, bigint>();
    for (const [queueId, offset] of offsets.entries()) {
      const id = Number(queueId);
      if (!Number.isInteger(id) || id < -2147483648 || id > 2147483647 || String(id) !== queueId) {
        offsets.fail(`queue id ${JSON.stringify(queueId)} is not an int`);
      }
      queues.set(id, offset.long());
    }
    table.set(key, queues);
  }
  return table;
}
