/** Loads the golden fixtures written by the official Java code (`npm run fixtures`); never edited by hand. */
import { readFileSync } from 'node:fs';

export const GOLDEN_DIR = new URL('../../test/fixtures/golden/', import.meta.url);

export function goldenFile(relative: string): Buffer {
  return readFileSync(new URL(relative, GOLDEN_DIR));
}

export interface GoldenHeaderField {
  javaType: string;
  required: boolean;
  value: string | null;
}

export interface GoldenCommand {
  name: string;
  file: string;
  serializeType: 'JSON' | 'ROCKETMQ';
  headerClass?: string;
  code: number;
  flag: number;
  opaque: number;
  language: string;
  version: number;
  remark: string | null;
  extFields: Record<string, string | null> | null;
  bodyHex: string | null;
  headerFields?: Record<string, GoldenHeaderField>;
}

export interface GoldenManifest {
  upstreamVersion: string;
  commands: GoldenCommand[];
  messages: unknown;
  messageIds: unknown;
  hashes: unknown;
  properties: unknown;
  bodies: unknown;
}

let manifest: GoldenManifest | undefined;

export function goldenManifest(): GoldenManifest {
  manifest ??= JSON.parse(goldenFile('manifest.json').toString('utf8')) as GoldenManifest;
  return manifest;
}
