/**
 * The body of REGISTER_BROKER (`common/.../protocol/body/RegisterBrokerBody.java`) and the
 * TopicConfigSerializeWrapper inside it (also the shape of a broker's topics.json).
 *
 * Uncompressed (the default, `compressedRegister=false`): fastjson
 * `{"filterServerList":[..],"topicConfigSerializeWrapper":{"dataVersion":{..},"topicConfigTable":{..}}}`.
 * Compressed: a zlib stream (Deflater BEST_COMPRESSION) of
 * `int32 len + DataVersion JSON | int32 topicCount | topicCount x (int32 len + TopicConfig text form)
 * | int32 len + JSON array of filter servers`, all integers big-endian. The text form drops topicSysFlag
 * and order, so a compressed registration reports every topic as non-unit and unordered.
 */
import * as zlib from 'node:zlib';
import { RemotingCommandError } from '../errors.js';
import { FjMap, parseFastjson, stringifyFastjson } from '../fastjson/index.js';
import { BodyReader } from './body-reader.js';
import {
  type DataVersion,
  type DataVersionDefaults,
  dataVersionValue,
  decodeDataVersion,
  readDataVersion,
} from './data-version.js';
import {
  decodeTopicConfigText,
  encodeTopicConfigText,
  readTopicConfig,
  type TopicConfig,
  topicConfigValue,
} from './topic-config.js';

export interface TopicConfigSerializeWrapper {
  /** topic name -> config, in the order the sender's map iterated. */
  topicConfigTable: Map<string, TopicConfig>;
  dataVersion: DataVersion;
}

export interface RegisterBrokerBody {
  topicConfigSerializeWrapper: TopicConfigSerializeWrapper;
  filterServerList: string[];
}

export interface DecodeRegisterBrokerBodyOptions extends DataVersionDefaults {
  /** Largest inflated size accepted for a compressed body (default 64 MiB). */
  readonly maxInflatedSize?: number;
}

export const DEFAULT_MAX_INFLATED_REGISTER_BODY = 64 * 1024 * 1024;

const WHAT = 'RegisterBrokerBody';

function wrapperValue(w: TopicConfigSerializeWrapper) {
  return {
    dataVersion: dataVersionValue(w.dataVersion),
    topicConfigTable: new FjMap([...w.topicConfigTable].map(([k, c]) => [k, topicConfigValue(c)] as const)),
  };
}

function readWrapper(r: BodyReader, defaults: DataVersionDefaults): TopicConfigSerializeWrapper {
  const topicConfigTable = new Map<string, TopicConfig>();
  for (const [name, config] of r.optional('topicConfigTable')?.entries() ?? []) {
    topicConfigTable.set(name, readTopicConfig(config));
  }
  const version = r.optional('dataVersion');
  return {
    topicConfigTable,
    dataVersion:
      version === undefined
        ? { timestamp: defaults.timestamp, counter: 0n }
        : readDataVersion(version, defaults),
  };
}

/** `wrapper.encode()` / topics.json (`pretty` as TopicConfigManager.encode(true) writes it). */
export function encodeTopicConfigSerializeWrapper(
  wrapper: TopicConfigSerializeWrapper,
  options: { readonly pretty?: boolean } = {},
): Buffer {
  return Buffer.from(stringifyFastjson(wrapperValue(wrapper), { pretty: options.pretty ?? false }), 'utf8');
}

export function decodeTopicConfigSerializeWrapper(
  body: Buffer | undefined,
  defaults: DataVersionDefaults,
): TopicConfigSerializeWrapper {
  return readWrapper(BodyReader.parse('TopicConfigSerializeWrapper', body), defaults);
}

/** RegisterBrokerBody.encode(compress). The compressed bytes need not equal Java's, only inflate the same. */
export function encodeRegisterBrokerBody(body: RegisterBrokerBody, compressed = false): Buffer {
  if (!compressed) {
    const value = {
      filterServerList: body.filterServerList,
      topicConfigSerializeWrapper: wrapperValue(body.topicConfigSerializeWrapper),
    };
    return Buffer.from(stringifyFastjson(value), 'utf8');
  }
  const parts: Buffer[] = [];
  const withLength = (bytes: Buffer): void => {
    const len = Buffer.allocUnsafe(4);
    len.writeInt32BE(bytes.length);
    parts.push(len, bytes);
  };
  const wrapper = body.topicConfigSerializeWrapper;
  withLength(Buffer.from(stringifyFastjson(dataVersionValue(wrapper.dataVersion)), 'utf8'));
  const count = Buffer.allocUnsafe(4);
  count.writeInt32BE(wrapper.topicConfigTable.size);
  parts.push(count);
  for (const config of wrapper.topicConfigTable.values()) {
    withLength(Buffer.from(encodeTopicConfigText(config), 'utf8'));
  }
  withLength(Buffer.from(stringifyFastjson(body.filterServerList), 'utf8'));
  return zlib.deflateSync(Buffer.concat(parts), { level: zlib.constants.Z_BEST_COMPRESSION });
}

/**
 * RegisterBrokerBody.decode(data, compressed). Throws RemotingCommandError on anything Java's decode
 * would throw on; like Java, a filter server list that is not a JSON array of strings reads as empty.
 */
export function decodeRegisterBrokerBody(
  body: Buffer | undefined,
  compressed: boolean,
  options: DecodeRegisterBrokerBodyOptions,
): RegisterBrokerBody {
  if (!compressed) {
    const r = BodyReader.parse(WHAT, body);
    const wrapper = r.optional('topicConfigSerializeWrapper');
    return {
      topicConfigSerializeWrapper:
        wrapper === undefined
          ? { topicConfigTable: new Map(), dataVersion: { timestamp: options.timestamp, counter: 0n } }
          : readWrapper(wrapper, options),
      filterServerList:
        r
          .optional('filterServerList')
          ?.array()
          .map((s) => s.string()) ?? [],
    };
  }
  if (body === undefined || body.length === 0) throw new RemotingCommandError(WHAT, 'the body is empty');
  const data = inflate(body, options.maxInflatedSize ?? DEFAULT_MAX_INFLATED_REGISTER_BODY);
  const reader = new SectionReader(data);
  const dataVersion = decodeDataVersion(reader.section('dataVersion'), options);
  const topicConfigTable = new Map<string, TopicConfig>();
  // A negative count reads no topics, as Java's for loop does.
  const topicCount = reader.int32('topic count');
  for (let i = 0; i < topicCount; i++) {
    const config = decodeTopicConfigText(reader.section(`topic config ${i}`).toString('utf8'));
    topicConfigTable.set(config.topicName, config);
  }
  return {
    topicConfigSerializeWrapper: { topicConfigTable, dataVersion },
    filterServerList: filterServers(reader.section('filter server list')),
  };
}

function inflate(body: Buffer, max: number): Buffer {
  try {
    return zlib.inflateSync(body, { maxOutputLength: Math.max(1, max) });
  } catch (e) {
    const tooLarge = (e as { code?: unknown }).code === 'ERR_BUFFER_TOO_LARGE';
    const why = tooLarge ? `inflates beyond ${max} bytes` : `corrupt zlib data (${(e as Error).message})`;
    throw new RemotingCommandError(WHAT, why, { cause: e });
  }
}

function filterServers(json: Buffer): string[] {
  try {
    const v = parseFastjson(json, { what: 'filter server list' });
    if (Array.isArray(v) && v.every((s) => typeof s === 'string')) return v as string[];
  } catch {
    // Java logs the parse failure and keeps an empty list.
  }
  return [];
}

/** Length-prefixed sections of the inflated compressed body; every length is checked first. */
class SectionReader {
  private pos = 0;

  constructor(private readonly data: Buffer) {}

  int32(what: string): number {
    if (this.pos + 4 > this.data.length) {
      throw new RemotingCommandError(WHAT, `${what}: end of compressed data reached at ${this.pos}`);
    }
    const v = this.data.readInt32BE(this.pos);
    this.pos += 4;
    return v;
  }

  section(what: string): Buffer {
    const len = this.int32(`${what} length`);
    if (len < 0 || this.pos + len > this.data.length) {
      throw new RemotingCommandError(
        WHAT,
        `${what}: length ${len} at ${this.pos - 4} exceeds the ${this.data.length - this.pos} bytes left`,
      );
    }
    const out = this.data.subarray(this.pos, this.pos + len);
    this.pos += len;
    return out;
  }
}
