/**
 * RemotingCommand: one request or response of the remoting protocol, independent of how its header
 * is serialized. Plain data so that codecs, processors and tests can build one with a literal.
 */

export const SerializeType = { JSON: 0, ROCKETMQ: 1 } as const;
export type SerializeType = (typeof SerializeType)[keyof typeof SerializeType];

/** Flag bit 0: set on responses. */
export const RPC_TYPE_RESPONSE = 0x1;
/** Flag bit 1: set on oneway requests, which never get a normal response. */
export const RPC_ONEWAY = 0x2;

/** MQVersion ordinal we speak as (V4_9_8); brokers gate features on it (spec §1.8). */
export const DEFAULT_REMOTING_VERSION = 409;

export interface RemotingCommand {
  code: number;
  /** LanguageCode name (`JAVA`, `GO`, ...); an unknown binary byte is kept as its decimal text. */
  language: string;
  version: number;
  opaque: number;
  flag: number;
  remark?: string | undefined;
  extFields?: Record<string, string> | undefined;
  /**
   * Keys of `extFields` that upstream's FastCodesHeader classes (SendMessageRequestHeaderV2,
   * SendMessageResponseHeader, Pull request/response headers) write first, in this order, in a ROCKETMQ
   * frame; the other keys follow in HashMap order. Only affects byte layout, never meaning.
   */
  fastEncodedKeys?: readonly string[] | undefined;
  /** Absent and empty bodies cannot be told apart on the wire: both decode as undefined. */
  body?: Buffer | undefined;
  serializeType: SerializeType;
}

export function isResponse(cmd: RemotingCommand): boolean {
  return (cmd.flag & RPC_TYPE_RESPONSE) !== 0;
}

export function isOneway(cmd: RemotingCommand): boolean {
  return (cmd.flag & RPC_ONEWAY) !== 0;
}

export interface CreateRequestOptions {
  extFields?: Record<string, string> | undefined;
  body?: Buffer | undefined;
  remark?: string | undefined;
  oneway?: boolean;
  serializeType?: SerializeType;
  version?: number;
  language?: string;
}

/** A request with opaque 0; the client assigns the real opaque when it sends. */
export function createRequest(code: number, options: CreateRequestOptions = {}): RemotingCommand {
  const cmd: RemotingCommand = {
    code,
    language: options.language ?? 'JAVA',
    version: options.version ?? DEFAULT_REMOTING_VERSION,
    opaque: 0,
    flag: options.oneway ? RPC_ONEWAY : 0,
    serializeType: options.serializeType ?? SerializeType.JSON,
  };
  return withOptionalParts(cmd, options);
}

/** Sets only the optional parts that are present, so commands compare equal to decoded ones. */
function withOptionalParts(
  cmd: RemotingCommand,
  parts: {
    remark?: string | undefined;
    extFields?: Record<string, string> | undefined;
    body?: Buffer | undefined;
  },
): RemotingCommand {
  if (parts.remark !== undefined) cmd.remark = parts.remark;
  if (parts.extFields !== undefined) cmd.extFields = parts.extFields;
  if (parts.body !== undefined && parts.body.length > 0) cmd.body = parts.body;
  return cmd;
}

export interface CreateResponseOptions {
  remark?: string | undefined;
  extFields?: Record<string, string> | undefined;
  body?: Buffer | undefined;
  version?: number;
  /** Upstream answers some errors in its default (JSON) serialization; see spec §1.7. */
  serializeType?: SerializeType;
}

/** A response to `request`: same opaque and, unless told otherwise, the request's serialization. */
export function createResponse(
  request: RemotingCommand,
  code: number,
  options: CreateResponseOptions = {},
): RemotingCommand {
  const cmd: RemotingCommand = {
    code,
    language: 'JAVA',
    version: options.version ?? DEFAULT_REMOTING_VERSION,
    opaque: request.opaque,
    flag: RPC_TYPE_RESPONSE,
    serializeType: options.serializeType ?? request.serializeType,
  };
  return withOptionalParts(cmd, options);
}
