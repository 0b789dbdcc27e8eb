/**
 * Response codes of the remoting protocol.
 *
 * `ResponseCode4x` is `remoting/.../protocol/RemotingSysResponseCode.java` (0..4) plus
 * `common/.../protocol/ResponseCode.java` at rocketmq-all-4.9.8. `ResponseCode5x` holds the codes
 * the 5.x line (develop) added that a client may meet when it talks to a 5.x server.
 *
 * 5.x reuses 209, 210 and 211 for POLLING_FULL, POLLING_TIMEOUT and BROKER_NOT_EXIST (the pop
 * protocol), where 4.9.8 has the ACL admin failures. Those three live apart in
 * `ResponseCode5xReused` so that a code still names exactly one constant in `ResponseCode`; the
 * 4.9.8 meaning wins, since this project speaks the 4.x protocol.
 */

export const ResponseCode4x = {
  SUCCESS: 0,
  SYSTEM_ERROR: 1,
  SYSTEM_BUSY: 2,
  REQUEST_CODE_NOT_SUPPORTED: 3,
  TRANSACTION_FAILED: 4,
  FLUSH_DISK_TIMEOUT: 10,
  SLAVE_NOT_AVAILABLE: 11,
  FLUSH_SLAVE_TIMEOUT: 12,
  MESSAGE_ILLEGAL: 13,
  SERVICE_NOT_AVAILABLE: 14,
  VERSION_NOT_SUPPORTED: 15,
  NO_PERMISSION: 16,
  TOPIC_NOT_EXIST: 17,
  TOPIC_EXIST_ALREADY: 18,
  PULL_NOT_FOUND: 19,
  PULL_RETRY_IMMEDIATELY: 20,
  PULL_OFFSET_MOVED: 21,
  QUERY_NOT_FOUND: 22,
  SUBSCRIPTION_PARSE_FAILED: 23,
  SUBSCRIPTION_NOT_EXIST: 24,
  SUBSCRIPTION_NOT_LATEST: 25,
  SUBSCRIPTION_GROUP_NOT_EXIST: 26,
  FILTER_DATA_NOT_EXIST: 27,
  FILTER_DATA_NOT_LATEST: 28,
  TRANSACTION_SHOULD_COMMIT: 200,
  TRANSACTION_SHOULD_ROLLBACK: 201,
  TRANSACTION_STATE_UNKNOW: 202,
  TRANSACTION_STATE_GROUP_WRONG: 203,
  NO_BUYER_ID: 204,
  NOT_IN_CURRENT_UNIT: 205,
  CONSUMER_NOT_ONLINE: 206,
  CONSUME_MSG_TIMEOUT: 207,
  NO_MESSAGE: 208,
  UPDATE_AND_CREATE_ACL_CONFIG_FAILED: 209,
  DELETE_ACL_CONFIG_FAILED: 210,
  UPDATE_GLOBAL_WHITE_ADDRS_CONFIG_FAILED: 211,
  FLOW_CONTROL: 215,
} as const;

/** 5.x only, with values 4.9.8 leaves unused. */
export const ResponseCode5x = {
  INVALID_PARAMETER: 29,
  BROKER_DISPATCH_NOT_COMPLETE: 212,
  BROADCAST_CONSUMPTION: 213,
  NOT_LEADER_FOR_QUEUE: 501,
  ILLEGAL_OPERATION: 604,
  RPC_UNKNOWN: -1000,
  RPC_ADDR_IS_NULL: -1002,
  RPC_SEND_TO_CHANNEL_FAILED: -1004,
  RPC_TIME_OUT: -1006,
  GO_AWAY: 1500,
  CONTROLLER_FENCED_MASTER_EPOCH: 2000,
  CONTROLLER_FENCED_SYNC_STATE_SET_EPOCH: 2001,
  CONTROLLER_INVALID_MASTER: 2002,
  CONTROLLER_INVALID_REPLICAS: 2003,
  CONTROLLER_MASTER_NOT_AVAILABLE: 2004,
  CONTROLLER_INVALID_REQUEST: 2005,
  CONTROLLER_BROKER_NOT_ALIVE: 2006,
  CONTROLLER_NOT_LEADER: 2007,
  CONTROLLER_BROKER_METADATA_NOT_EXIST: 2008,
  CONTROLLER_INVALID_CLEAN_BROKER_METADATA: 2009,
  CONTROLLER_BROKER_NEED_TO_BE_REGISTERED: 2010,
  CONTROLLER_MASTER_STILL_EXIST: 2011,
  CONTROLLER_ELECT_MASTER_FAILED: 2012,
  CONTROLLER_ALTER_SYNC_STATE_SET_FAILED: 2013,
  CONTROLLER_BROKER_ID_INVALID: 2014,
  CONTROLLER_JRAFT_INTERNAL_ERROR: 2015,
  CONTROLLER_BROKER_LIVE_INFO_NOT_EXISTS: 2016,
  USER_NOT_EXIST: 3001,
  POLICY_NOT_EXIST: 3002,
} as const;

/** 5.x names for values 4.9.8 already uses with another meaning (see the file comment). */
export const ResponseCode5xReused = {
  POLLING_FULL: 209,
  POLLING_TIMEOUT: 210,
  BROKER_NOT_EXIST: 211,
} as const;

/** Every response code this project can name, one name per value. */
export const ResponseCode = { ...ResponseCode4x, ...ResponseCode5x } as const;

export type ResponseCodeName = keyof typeof ResponseCode;
export type ResponseCodeValue = (typeof ResponseCode)[ResponseCodeName];

const NAME_BY_CODE = new Map<number, ResponseCodeName>();
for (const name of Object.keys(ResponseCode) as ResponseCodeName[])
  NAME_BY_CODE.set(ResponseCode[name], name);

const CODES_5X: ReadonlySet<number> = new Set<number>(Object.values(ResponseCode5x));

/** Upstream name of a response code (the 4.9.8 name where 5.x reused a value), or undefined. */
export function responseCodeName(code: number): ResponseCodeName | undefined {
  return NAME_BY_CODE.get(code);
}

/** True for codes only a 5.x peer sends. */
export function isResponseCode5x(code: number): boolean {
  return CODES_5X.has(code);
}
