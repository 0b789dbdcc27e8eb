/**
 * A broadcasting consumer's offset file (upstream OffsetSerializeWrapper, the `offsets.json` of
 * LocalFileOffsetStore): `{"offsetTable":{{"brokerName":"b","queueId":0,"topic":"t"}:118}}`. Each key
 * is the queue's own object written bare, each value the next offset to consume (a Java long, an
 * AtomicLong in the bean). The client writes it pretty (tab-indented), as
 * `MixAll.string2File(wrapper.toJson(true))`, and reads either form.
 */
import { stringifyFastjson } from '../fastjson/index.js';
import type { MessageQueue } from '../message/message-queue.js';
import { BodyReader } from './body-reader.js';
import {
  javaMessageQueueMapOrder,
  type MessageQueueEntries,
  messageQueueMapValue,
  readMessageQueueMap,
} from './message-queue-map.js';

/**
 * The file's text. Entries are written in the order Java iterates the map they were put into in the
 * given order (a queue given twice keeps its first place and last offset). Java's table is a
 * ConcurrentHashMap, whose order is HashMap's as long as it holds fewer than 12 queues with no two in
 * one bucket; past that the order may differ from Java's, which no reader depends on.
 */
export function encodeOffsetSerializeWrapper(
  entries: MessageQueueEntries<bigint>,
  options: { readonly pretty?: boolean } = {},
): string {
  const ordered = javaMessageQueueMapOrder(entries);
  return stringifyFastjson(
    { offsetTable: messageQueueMapValue(ordered, (offset) => offset) },
    { pretty: options.pretty ?? false },
  );
}

/**
 * The queues and offsets of the text, in file order; a queue written twice keeps its first place and
 * its last offset, as Java's map would. A missing or null `offsetTable` is an empty table. Throws
 * RemotingCommandError (naming `what` and the field) for text that is not such a file.
 */
export function decodeOffsetSerializeWrapper(
  text: string | Buffer,
  what = 'OffsetSerializeWrapper',
): Array<[MessageQueue, bigint]> {
  const bytes = typeof text === 'string' ? Buffer.from(text, 'utf8') : text;
  const r = BodyReader.parse(what, bytes);
  const read = readMessageQueueMap(r.optional('offsetTable'), (v) => v.long());
  const byKey = new Map<string, [MessageQueue, bigint]>();
  for (const [mq, offset] of read) {
    const seen = byKey.get(mq.key);
    if (seen === undefined) byKey.set(mq.key, [mq, offset]);
    else seen[1] = offset;
  }
  return [...byKey.values()];
}
