/**
 * SetMessageRequestModeRequestBody (`remoting/.../protocol/body/SetMessageRequestModeRequestBody.java`):
 * the SET_MESSAGE_REQUEST_MODE (401) body, also the value the broker keeps per topic and group in
 * `messageRequestMode.json` (MessageRequestModeManager, whose file GET_ALL_MESSAGE_REQUEST_MODE (402)
 * returns). fastjson bean layout, fields sorted:
 * `{"consumerGroup":..,"mode":"POP","popShareQueueNum":0,"topic":..}`; the manager:
 * `{"messageRequestModeMap":{<topic>:{<group>:{body}}}}` (ConcurrentHashMaps).
 */
import { type FjEmittableRecord, FjMap, stringifyFastjson } from '../fastjson/index.js';
import { BodyReader } from './body-reader.js';
import { MessageRequestMode, parseMessageRequestMode } from './message-request-mode.js';

export interface SetMessageRequestModeRequestBody {
  topic: string;
  consumerGroup: string;
  /**
   * undefined where Java holds null: a mode name the enum does not know (fastjson's EnumDeserializer
   * gives null); an absent field is the Java default PULL.
   */
  mode: MessageRequestMode | undefined;
  /**
   * A POP member also pops the queues the next N members (in the sorted client id list) are given;
   * <= 0, or >= members - 1, gives every member every queue.
   */
  popShareQueueNum: number;
}

export function setMessageRequestModeRequestBodyValue(
  b: SetMessageRequestModeRequestBody,
): FjEmittableRecord {
  return {
    consumerGroup: b.consumerGroup,
    mode: b.mode,
    popShareQueueNum: b.popShareQueueNum,
    topic: b.topic,
  };
}

/**
 * Topic and group are required: upstream would fail on a null topic (NullPointerException) and keep
 * a null group as a map key it cannot store (ConcurrentHashMap refuses null keys).
 */
export function readSetMessageRequestModeRequestBody(r: BodyReader): SetMessageRequestModeRequestBody {
  const mode = r.optional('mode');
  return {
    topic: r.field('topic').string(),
    consumerGroup: r.field('consumerGroup').string(),
    mode: mode === undefined ? MessageRequestMode.PULL : parseMessageRequestMode(mode.string()),
    popShareQueueNum: r.optional('popShareQueueNum')?.int() ?? 0,
  };
}

export function encodeSetMessageRequestModeRequestBody(b: SetMessageRequestModeRequestBody): Buffer {
  return Buffer.from(stringifyFastjson(setMessageRequestModeRequestBodyValue(b)), 'utf8');
}

export function decodeSetMessageRequestModeRequestBody(
  body: Buffer | undefined,
): SetMessageRequestModeRequestBody {
  return readSetMessageRequestModeRequestBody(BodyReader.parse('SetMessageRequestModeRequestBody', body));
}

/** topic -> group -> mode body, each map in the order to write. */
export type MessageRequestModeTable = Map<string, Map<string, SetMessageRequestModeRequestBody>>;

/**
 * MessageRequestModeManager / MessageRequestModeSerializeWrapper as fastjson writes them (the file is
 * pretty-printed, the GET_ALL_MESSAGE_REQUEST_MODE body compact).
 */
export function encodeMessageRequestModeTable(
  table: MessageRequestModeTable,
  options: { readonly pretty?: boolean } = {},
): string {
  const value = {
    messageRequestModeMap: new FjMap(
      [...table].map(
        ([topic, groups]) =>
          [
            topic,
            new FjMap(
              [...groups].map(([group, b]) => [group, setMessageRequestModeRequestBodyValue(b)] as const),
            ),
          ] as const,
      ),
    ),
  };
  return stringifyFastjson(value, { pretty: options.pretty ?? false });
}

/** `what` names the source in errors (a file path or the body's name). */
export function decodeMessageRequestModeTable(
  text: string | Buffer,
  what = 'MessageRequestModeSerializeWrapper',
): MessageRequestModeTable {
  const bytes = typeof text === 'string' ? Buffer.from(text, 'utf8') : text;
  const r = BodyReader.parse(what, bytes);
  const table: MessageRequestModeTable = new Map();
  for (const [topic, groups] of r.optional('messageRequestModeMap')?.entries() ?? []) {
    const byGroup = new Map<string, SetMessageRequestModeRequestBody>();
    for (const [group, body] of groups.entries())
      byGroup.set(group, readSetMessageRequestModeRequestBody(body));
    table.set(topic, byGroup);
  }
  return table;
}
