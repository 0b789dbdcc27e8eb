/**
 * DataVersion (`common/.../DataVersion.java`): the version stamp of a broker's topic configs that the
 * name server compares on every registration. JSON `{"counter":N,"timestamp":ms}`; 5.x adds
 * `stateVersion`, which readers ignore.
 */
import type { FjEmittableRecord } from '../fastjson/index.js';
import { stringifyFastjson } from '../fastjson/index.js';
import { BodyReader } from './body-reader.js';

export interface DataVersion {
  timestamp: bigint;
  counter: bigint;
}

/**
 * Values Java's field initialisers give a DataVersion whose JSON lacks a field: the counter starts at
 * 0 and the timestamp is "now", which a pure codec cannot read, so the caller passes it.
 */
export interface DataVersionDefaults {
  readonly timestamp: bigint;
}

/** DataVersion.equals: same timestamp and same counter value. */
export function dataVersionEquals(a: DataVersion, b: DataVersion): boolean {
  return a.timestamp === b.timestamp && a.counter === b.counter;
}

/** The bean as fastjson writes it (fields sorted: counter, timestamp). */
export function dataVersionValue(v: DataVersion): FjEmittableRecord {
  return { counter: v.counter, timestamp: v.timestamp };
}

export function readDataVersion(r: BodyReader, defaults: DataVersionDefaults): DataVersion {
  return {
    timestamp: r.optional('timestamp')?.long() ?? defaults.timestamp,
    counter: r.optional('counter')?.long() ?? 0n,
  };
}

export function encodeDataVersion(v: DataVersion): Buffer {
  return Buffer.from(stringifyFastjson(dataVersionValue(v)), 'utf8');
}

/** Throws RemotingCommandError for an empty or malformed body. */
export function decodeDataVersion(body: Buffer | undefined, defaults: DataVersionDefaults): DataVersion {
  return readDataVersion(BodyReader.parse('DataVersion', body), defaults);
}
