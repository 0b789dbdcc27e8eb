/**
 * The plain_acl.yml format. Parsed as YAML 1.1, as SnakeYAML does upstream, then read with
 * fastjson's leniency (a number where a string is expected becomes its text). A syntax error becomes
 * an AclException whose message keeps the parser's reason and position but never the source text
 * around it, which could hold a secret key.
 */
import { parse, stringify } from 'yaml';
import { AclException, AclFrame } from './acl-exception.js';
import type { PlainAccessConfig } from './plain-access-config.js';

/** AclConstants: the top-level and account keys. */
export const CONFIG_GLOBAL_WHITE_ADDRS = 'globalWhiteRemoteAddresses';
export const CONFIG_ACCOUNTS = 'accounts';
export const CONFIG_DATA_VERSION = 'dataVersion';

export interface AclFileDataVersion {
  counter: number;
  timestamp: number;
}

export interface PlainAclFileData {
  globalWhiteRemoteAddresses: string[];
  accounts: PlainAccessConfig[];
  dataVersion: AclFileDataVersion | undefined;
}

const YAML_OPTIONS = { version: '1.1' as const };

function firstLine(message: string): string {
  const cut = message.indexOf('\n');
  const line = cut < 0 ? message : message.slice(0, cut);
  return line.endsWith(':') ? line.slice(0, -1) : line;
}

function bad(path: string, what: string): never {
  throw new AclException(`${path}: ${what}`, AclFrame.yaml);
}

function asText(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint')
    return String(value);
  if (value instanceof Date) return value.toISOString();
  return undefined;
}

function textField(path: string, where: string, value: unknown): string | undefined {
  const text = asText(value);
  if (text === undefined && value !== undefined && value !== null) bad(path, `${where} must be a scalar`);
  return text;
}

function listField(path: string, where: string, value: unknown): string[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value)) bad(path, `${where} must be a list`);
  return value.map((v, i) => {
    const text = asText(v);
    if (text === undefined) bad(path, `${where}[${i}] must be a scalar`);
    return text;
  });
}

function booleanField(path: string, where: string, value: unknown): boolean | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'boolean') return value;
  if (typeof value === 'string') return value.toLowerCase() === 'true';
  bad(path, `${where} must be true or false`);
}

function readAccount(path: string, index: number, value: unknown): PlainAccessConfig {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    bad(path, `accounts[${index}] must be a mapping`);
  }
  const a = value as Record<string, unknown>;
  const where = (key: string) => `accounts[${index}].${key}`;
  return {
    accessKey: textField(path, where('accessKey'), a.accessKey),
    secretKey: textField(path, where('secretKey'), a.secretKey),
    whiteRemoteAddress: textField(path, where('whiteRemoteAddress'), a.whiteRemoteAddress),
    admin: booleanField(path, where('admin'), a.admin),
    defaultTopicPerm: textField(path, where('defaultTopicPerm'), a.defaultTopicPerm),
    defaultGroupPerm: textField(path, where('defaultGroupPerm'), a.defaultGroupPerm),
    topicPerms: listField(path, where('topicPerms'), a.topicPerms),
    groupPerms: listField(path, where('groupPerms'), a.groupPerms),
  };
}

function readDataVersion(value: unknown): AclFileDataVersion | undefined {
  if (!Array.isArray(value) || value.length === 0) return undefined;
  const first = value[0] as Record<string, unknown> | null;
  if (typeof first !== 'object' || first === null) return undefined;
  const counter = Number(first.counter ?? 0);
  const timestamp = Number(first.timestamp ?? 0);
  return {
    counter: Number.isFinite(counter) ? counter : 0,
    timestamp: Number.isFinite(timestamp) ? timestamp : 0,
  };
}

/** The YAML document as plain data; undefined for an empty document ("No data"). */
export function parseAclYaml(text: string, path: string): Record<string, unknown> | undefined {
  let data: unknown;
  try {
    data = parse(text, YAML_OPTIONS);
  } catch (error) {
    bad(path, firstLine(error instanceof Error ? error.message : String(error)));
  }
  if (data === undefined || data === null) return undefined;
  if (typeof data !== 'object' || Array.isArray(data)) bad(path, 'the document must be a mapping');
  const map = data as Record<string, unknown>;
  return Object.keys(map).length === 0 ? undefined : map;
}

/** The ACL content of a parsed document. */
export function readAclData(map: Record<string, unknown>, path: string): PlainAclFileData {
  const whites = listField(path, CONFIG_GLOBAL_WHITE_ADDRS, map[CONFIG_GLOBAL_WHITE_ADDRS]) ?? [];
  const accountsValue = map[CONFIG_ACCOUNTS];
  if (accountsValue !== undefined && accountsValue !== null && !Array.isArray(accountsValue)) {
    bad(path, 'accounts must be a list');
  }
  const accounts = ((accountsValue as unknown[] | null | undefined) ?? []).map((a, i) =>
    readAccount(path, i, a),
  );
  return {
    globalWhiteRemoteAddresses: whites,
    accounts,
    dataVersion: readDataVersion(map[CONFIG_DATA_VERSION]),
  };
}

/** The document as YAML 1.1 block text (SnakeYAML's dumpAsMap style). */
export function stringifyAclYaml(map: Record<string, unknown>): string {
  return stringify(map, YAML_OPTIONS);
}
