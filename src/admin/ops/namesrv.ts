/** The admin's name server calls: KV config, settings, write permission of a broker. */

import type { CallOptions } from '../../client/instance/mq-client-api.js';
import { ValidationError } from '../../common/errors.js';
import { ResponseCode } from '../../remoting/protocol/response-code.js';
import { type AdminContext, nonEmpty, propertiesEntries } from '../admin-context.js';
import type { PropertiesInput } from '../mq-admin-ext.js';
import {
  buildAddWritePermOfBrokerRequest,
  parseAddWritePermOfBrokerResponse,
} from '../requests/add-write-perm-of-broker.js';
import { buildDeleteKVConfigRequest, parseDeleteKVConfigResponse } from '../requests/delete-kv-config.js';
import { buildGetKVConfigRequest, parseGetKVConfigResponse } from '../requests/get-kv-config.js';
import {
  buildGetKVListByNamespaceRequest,
  parseGetKVListByNamespaceResponse,
} from '../requests/get-kvlist-by-namespace.js';
import {
  buildGetNamesrvConfigRequest,
  parseGetNamesrvConfigResponse,
} from '../requests/get-namesrv-config.js';
import { buildPutKVConfigRequest, parsePutKVConfigResponse } from '../requests/put-kv-config.js';
import {
  buildUpdateNamesrvConfigRequest,
  parseUpdateNamesrvConfigResponse,
} from '../requests/update-namesrv-config.js';
import {
  buildWipeWritePermOfBrokerRequest,
  parseWipeWritePermOfBrokerResponse,
} from '../requests/wipe-write-perm-of-broker.js';

export function createAndUpdateKvConfig(
  ctx: AdminContext,
  call: CallOptions,
  namespace: string,
  key: string,
  value: string,
): Promise<void> {
  if (typeof value !== 'string') throw new ValidationError('value must be a string', -1);
  return ctx.onEveryNamesrv(
    buildPutKVConfigRequest(nonEmpty('namespace', namespace), nonEmpty('key', key), value),
    parsePutKVConfigResponse,
    call,
  );
}

export function deleteKvConfig(
  ctx: AdminContext,
  call: CallOptions,
  namespace: string,
  key: string,
): Promise<void> {
  return ctx.onEveryNamesrv(
    buildDeleteKVConfigRequest(nonEmpty('namespace', namespace), nonEmpty('key', key)),
    parseDeleteKVConfigResponse,
    call,
  );
}

/** Undefined when the name server has no such value (its QUERY_NOT_FOUND). */
export async function getKVConfig(
  ctx: AdminContext,
  call: CallOptions,
  namespace: string,
  key: string,
): Promise<string | undefined> {
  const request = buildGetKVConfigRequest(nonEmpty('namespace', namespace), nonEmpty('key', key));
  const { response, address } = await ctx.invokeNamesrv(request, call);
  if (response.code === ResponseCode.QUERY_NOT_FOUND) return undefined;
  return parseGetKVConfigResponse(response, { brokerAddr: address });
}

export function getKVListByNamespace(
  ctx: AdminContext,
  call: CallOptions,
  namespace: string,
): Promise<Map<string, string>> {
  return ctx.onNamesrv(
    buildGetKVListByNamespaceRequest(nonEmpty('namespace', namespace)),
    parseGetKVListByNamespaceResponse,
    call,
  );
}

export async function getNameServerConfig(
  ctx: AdminContext,
  call: CallOptions,
  namesrvAddrs: Iterable<string> | undefined,
): Promise<Map<string, Map<string, string>>> {
  const addrs = namesrvAddrs === undefined ? ctx.namesrvAddrs() : [...namesrvAddrs];
  const configs = await Promise.all(
    addrs.map((addr) =>
      ctx.onPeer(addr, buildGetNamesrvConfigRequest(), parseGetNamesrvConfigResponse, call),
    ),
  );
  return new Map(addrs.map((addr, i) => [addr, configs[i] as Map<string, string>]));
}

export async function updateNameServerConfig(
  ctx: AdminContext,
  call: CallOptions,
  properties: PropertiesInput,
  namesrvAddrs: Iterable<string> | undefined,
): Promise<void> {
  const request = buildUpdateNamesrvConfigRequest(propertiesEntries(properties));
  if (request === undefined) return;
  const addrs = namesrvAddrs === undefined ? ctx.namesrvAddrs() : [...namesrvAddrs];
  await Promise.all(addrs.map((addr) => ctx.onPeer(addr, request, parseUpdateNamesrvConfigResponse, call)));
}

export function wipeWritePermOfBroker(
  ctx: AdminContext,
  call: CallOptions,
  namesrvAddr: string,
  brokerName: string,
): Promise<number> {
  return ctx.onPeer(
    namesrvAddr,
    buildWipeWritePermOfBrokerRequest(nonEmpty('brokerName', brokerName)),
    parseWipeWritePermOfBrokerResponse,
    call,
  );
}

export function addWritePermOfBroker(
  ctx: AdminContext,
  call: CallOptions,
  namesrvAddr: string,
  brokerName: string,
): Promise<number> {
  return ctx.onPeer(
    namesrvAddr,
    buildAddWritePermOfBrokerRequest(nonEmpty('brokerName', brokerName)),
    parseAddWritePermOfBrokerResponse,
    call,
  );
}
