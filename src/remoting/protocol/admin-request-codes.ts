/**
 * The requests that need an `admin: true` account when plain ACL is on, on the broker and on the name
 * server alike. Upstream 4.9.8 (Permission.ADMIN_CODE) lists only topic and group create/delete and
 * UPDATE_BROKER_CONFIG, so any signed account could rewrite the ACL itself; 5.3 added the static
 * topic and ACL codes. We go further, on one rule: every request that changes broker or name-server
 * state outside a client's own produce/consume path, or reads the ACL configuration, is an admin
 * request. Reads of routes, stats and topic configs stay open to any valid account, as upstream.
 */
import { RequestCode } from './request-code.js';

export const ADMIN_REQUEST_CODES: ReadonlySet<number> = new Set<number>([
  // Topics and subscription groups (4.9.8's five, 5.x's list and static forms).
  RequestCode.UPDATE_AND_CREATE_TOPIC,
  RequestCode.UPDATE_AND_CREATE_TOPIC_LIST,
  RequestCode.UPDATE_AND_CREATE_STATIC_TOPIC,
  RequestCode.DELETE_TOPIC_IN_BROKER,
  RequestCode.UPDATE_AND_CREATE_SUBSCRIPTIONGROUP,
  RequestCode.UPDATE_AND_CREATE_SUBSCRIPTIONGROUP_LIST,
  RequestCode.DELETE_SUBSCRIPTIONGROUP,
  RequestCode.UPDATE_AND_GET_GROUP_FORBIDDEN,
  // Broker configuration (its key allowlist applies on top, whatever the account).
  RequestCode.UPDATE_BROKER_CONFIG,
  // The ACL itself: writes, and the read that reveals the files' versions (upstream 5.3 adds 50-52).
  RequestCode.UPDATE_AND_CREATE_ACL_CONFIG,
  RequestCode.DELETE_ACL_CONFIG,
  RequestCode.GET_BROKER_CLUSTER_ACL_INFO,
  RequestCode.UPDATE_GLOBAL_WHITE_ADDRS_CONFIG,
  RequestCode.GET_BROKER_CLUSTER_ACL_CONFIG,
  RequestCode.AUTH_CREATE_USER,
  RequestCode.AUTH_UPDATE_USER,
  RequestCode.AUTH_DELETE_USER,
  RequestCode.AUTH_GET_USER,
  RequestCode.AUTH_LIST_USER,
  RequestCode.AUTH_CREATE_ACL,
  RequestCode.AUTH_UPDATE_ACL,
  RequestCode.AUTH_DELETE_ACL,
  RequestCode.AUTH_GET_ACL,
  RequestCode.AUTH_LIST_ACL,
  // A group's request mode (PULL / POP) on a topic, which every member then follows.
  RequestCode.SET_MESSAGE_REQUEST_MODE,
  // Offsets moved for a whole group.
  RequestCode.INVOKE_BROKER_TO_RESET_OFFSET,
  RequestCode.RESET_CONSUMER_OFFSET_IN_BROKER,
  RequestCode.CLONE_GROUP_OFFSET,
  // Store maintenance.
  RequestCode.TRIGGER_DELETE_FILES,
  RequestCode.CLEAN_EXPIRED_CONSUMEQUEUE,
  RequestCode.CLEAN_UNUSED_TOPIC,
  RequestCode.DELETE_EXPIRED_COMMITLOG,
  RequestCode.RESUME_CHECK_HALF_MESSAGE,
  RequestCode.RESET_MASTER_FLUSH_OFFSET,
  RequestCode.CLEAN_BROKER_DATA,
  RequestCode.UPDATE_COLD_DATA_FLOW_CTR_CONFIG,
  RequestCode.REMOVE_COLD_DATA_FLOW_CTR_CONFIG,
  RequestCode.SET_COMMITLOG_READ_MODE,
  RequestCode.UPDATE_CONTROLLER_CONFIG,
  // Name server: the broker table, permissions, KV config, topics, its own config.
  RequestCode.REGISTER_BROKER,
  RequestCode.UNREGISTER_BROKER,
  RequestCode.WIPE_WRITE_PERM_OF_BROKER,
  RequestCode.ADD_WRITE_PERM_OF_BROKER,
  RequestCode.PUT_KV_CONFIG,
  RequestCode.DELETE_KV_CONFIG,
  RequestCode.DELETE_TOPIC_IN_NAMESRV,
  RequestCode.REGISTER_TOPIC_IN_NAMESRV,
  RequestCode.UPDATE_NAMESRV_CONFIG,
  RequestCode.REGISTER_FILTER_SERVER,
]);

/** Permission.needAdminPerm with our table. */
export function needAdminPerm(code: number): boolean {
  return ADMIN_REQUEST_CODES.has(code);
}
