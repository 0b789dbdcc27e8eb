/**
 * The name server's request table (upstream: the switch of DefaultRequestProcessor) and the processor
 * that dispatches through it. Only the codes listed here are registered with the RemotingServer, so an
 * unknown code gets REQUEST_CODE_NOT_SUPPORTED from the transport at once. Upstream's name server
 * instead routes every code to DefaultRequestProcessor, whose switch returns null for an unknown one:
 * no answer at all, and the caller waits out its timeout. Answering is what every Java peer already
 * handles (a broker answers unknown codes this way), so nothing depends on the silence.
 */
import type { RemotingCommand } from '../../remoting/protocol/command.js';
import { RequestCode } from '../../remoting/protocol/request-code.js';
import type { ProcessorContext, RemotingServer, RequestProcessor } from '../../remoting/transport/index.js';
import { addWritePermOfBroker } from './add-write-perm-of-broker.js';
import { deleteKVConfig } from './delete-kv-config.js';
import { deleteTopicInNamesrv } from './delete-topic-in-namesrv.js';
import { getAllTopicListFromNameserver } from './get-all-topic-list-from-nameserver.js';
import { getBrokerClusterInfo } from './get-broker-cluster-info.js';
import { getHasUnitSubTopicList } from './get-has-unit-sub-topic-list.js';
import { getHasUnitSubUnUnitTopicList } from './get-has-unit-sub-ununit-topic-list.js';
import { getKVConfig } from './get-kv-config.js';
import { getKVListByNamespace } from './get-kvlist-by-namespace.js';
import { getNamesrvConfig } from './get-namesrv-config.js';
import { getRouteInfoByTopic } from './get-routeinfo-by-topic.js';
import { getSystemTopicListFromNs } from './get-system-topic-list-from-ns.js';
import { getTopicsByCluster } from './get-topics-by-cluster.js';
import { getUnitTopicList } from './get-unit-topic-list.js';
import type { NamesrvContext, NamesrvRequestHandler } from './namesrv-context.js';
import { putKVConfig } from './put-kv-config.js';
import { queryDataVersion } from './query-data-version.js';
import { registerBroker } from './register-broker.js';
import { unregisterBroker } from './unregister-broker.js';
import { updateNamesrvConfig } from './update-namesrv-config.js';
import { wipeWritePermOfBroker } from './wipe-write-perm-of-broker.js';

export const NAMESRV_REQUEST_HANDLERS: ReadonlyMap<number, NamesrvRequestHandler> = new Map([
  [RequestCode.PUT_KV_CONFIG, putKVConfig],
  [RequestCode.GET_KV_CONFIG, getKVConfig],
  [RequestCode.DELETE_KV_CONFIG, deleteKVConfig],
  [RequestCode.QUERY_DATA_VERSION, queryDataVersion],
  [RequestCode.REGISTER_BROKER, registerBroker],
  [RequestCode.UNREGISTER_BROKER, unregisterBroker],
  [RequestCode.GET_ROUTEINFO_BY_TOPIC, getRouteInfoByTopic],
  [RequestCode.GET_BROKER_CLUSTER_INFO, getBrokerClusterInfo],
  [RequestCode.WIPE_WRITE_PERM_OF_BROKER, wipeWritePermOfBroker],
  [RequestCode.ADD_WRITE_PERM_OF_BROKER, addWritePermOfBroker],
  [RequestCode.GET_ALL_TOPIC_LIST_FROM_NAMESERVER, getAllTopicListFromNameserver],
  [RequestCode.DELETE_TOPIC_IN_NAMESRV, deleteTopicInNamesrv],
  [RequestCode.GET_KVLIST_BY_NAMESPACE, getKVListByNamespace],
  [RequestCode.GET_TOPICS_BY_CLUSTER, getTopicsByCluster],
  [RequestCode.GET_SYSTEM_TOPIC_LIST_FROM_NS, getSystemTopicListFromNs],
  [RequestCode.GET_UNIT_TOPIC_LIST, getUnitTopicList],
  [RequestCode.GET_HAS_UNIT_SUB_TOPIC_LIST, getHasUnitSubTopicList],
  [RequestCode.GET_HAS_UNIT_SUB_UNUNIT_TOPIC_LIST, getHasUnitSubUnUnitTopicList],
  [RequestCode.UPDATE_NAMESRV_CONFIG, updateNamesrvConfig],
  [RequestCode.GET_NAMESRV_CONFIG, getNamesrvConfig],
]);

/** Upstream's DefaultRequestProcessor: never rejects, hands each request to its code's handler. */
export class DefaultRequestProcessor implements RequestProcessor {
  constructor(
    private readonly ns: NamesrvContext,
    private readonly handlers: ReadonlyMap<number, NamesrvRequestHandler> = NAMESRV_REQUEST_HANDLERS,
  ) {}

  processRequest(
    ctx: ProcessorContext,
    request: RemotingCommand,
  ): RemotingCommand | Promise<RemotingCommand> | undefined {
    return this.handlers.get(request.code)?.(this.ns, ctx, request);
  }

  rejectRequest(): boolean {
    return false;
  }
}

/** Registers one DefaultRequestProcessor for every code of the table. */
export function registerNamesrvProcessors(
  server: RemotingServer,
  ns: NamesrvContext,
  handlers: ReadonlyMap<number, NamesrvRequestHandler> = NAMESRV_REQUEST_HANDLERS,
): DefaultRequestProcessor {
  const processor = new DefaultRequestProcessor(ns, handlers);
  for (const code of handlers.keys()) server.registerProcessor(code, processor);
  return processor;
}
