/**
 * Constants and flag helpers shared by every role, named as upstream names them (4.9.8):
 * `common/.../constant/PermName.java`, `common/.../sysflag/TopicSysFlag.java`,
 * `common/.../sysflag/PullSysFlag.java`, `common/.../MixAll.java`, `common/.../topic/TopicValidator.java`
 * (names only; validation lives with the topic model) and `common/.../MQVersion.java`.
 */

import { ValidationError } from './errors.js';

/** Topic and queue permission bits (TopicConfig.perm, QueueData.perm). */
export const PermName = {
  PERM_PRIORITY: 0x8,
  PERM_READ: 0x4,
  PERM_WRITE: 0x2,
  PERM_INHERIT: 0x1,

  /** `R`, `W`, `X` (inherit) or `-` in that order, e.g. 6 -> `RW-`. */
  perm2String(perm: number): string {
    return (
      (PermName.isReadable(perm) ? 'R' : '-') +
      (PermName.isWriteable(perm) ? 'W' : '-') +
      (PermName.isInherited(perm) ? 'X' : '-')
    );
  },
  isReadable(perm: number): boolean {
    return (perm & PermName.PERM_READ) === PermName.PERM_READ;
  },
  isWriteable(perm: number): boolean {
    return (perm & PermName.PERM_WRITE) === PermName.PERM_WRITE;
  },
  isInherited(perm: number): boolean {
    return (perm & PermName.PERM_INHERIT) === PermName.PERM_INHERIT;
  },
  /** Upstream's range of a topic's or broker's perm: 0..7 (PERM_PRIORITY is no topic bit). */
  isValid(perm: number): boolean {
    return Number.isInteger(perm) && perm >= 0 && perm < PermName.PERM_PRIORITY;
  },
  /** upstream Validators.checkTopicConfig's remark for a perm isValid refuses. */
  invalidTopicPermRemark(perm: number): string {
    return `topicPermission value: ${perm} is invalid.`;
  },
} as const;

/** TopicConfig.topicSysFlag bits (unit topics). */
export const TopicSysFlag = {
  FLAG_UNIT: 0x1,
  FLAG_UNIT_SUB: 0x2,

  buildSysFlag(unit: boolean, hasUnitSub: boolean): number {
    return (unit ? TopicSysFlag.FLAG_UNIT : 0) | (hasUnitSub ? TopicSysFlag.FLAG_UNIT_SUB : 0);
  },
  setUnitFlag(sysFlag: number): number {
    return sysFlag | TopicSysFlag.FLAG_UNIT;
  },
  clearUnitFlag(sysFlag: number): number {
    return sysFlag & ~TopicSysFlag.FLAG_UNIT;
  },
  hasUnitFlag(sysFlag: number): boolean {
    return (sysFlag & TopicSysFlag.FLAG_UNIT) === TopicSysFlag.FLAG_UNIT;
  },
  setUnitSubFlag(sysFlag: number): number {
    return sysFlag | TopicSysFlag.FLAG_UNIT_SUB;
  },
  clearUnitSubFlag(sysFlag: number): number {
    return sysFlag & ~TopicSysFlag.FLAG_UNIT_SUB;
  },
  hasUnitSubFlag(sysFlag: number): boolean {
    return (sysFlag & TopicSysFlag.FLAG_UNIT_SUB) === TopicSysFlag.FLAG_UNIT_SUB;
  },
} as const;

/** PullMessageRequestHeader.sysFlag bits (spec §7.5). */
export const PullSysFlag = {
  FLAG_COMMIT_OFFSET: 0x1,
  FLAG_SUSPEND: 0x2,
  FLAG_SUBSCRIPTION: 0x4,
  FLAG_CLASS_FILTER: 0x8,
  FLAG_LITE_PULL_MESSAGE: 0x10,

  buildSysFlag(
    commitOffset: boolean,
    suspend: boolean,
    subscription: boolean,
    classFilter: boolean,
    litePull = false,
  ): number {
    return (
      (commitOffset ? PullSysFlag.FLAG_COMMIT_OFFSET : 0) |
      (suspend ? PullSysFlag.FLAG_SUSPEND : 0) |
      (subscription ? PullSysFlag.FLAG_SUBSCRIPTION : 0) |
      (classFilter ? PullSysFlag.FLAG_CLASS_FILTER : 0) |
      (litePull ? PullSysFlag.FLAG_LITE_PULL_MESSAGE : 0)
    );
  },
  clearCommitOffsetFlag(sysFlag: number): number {
    return sysFlag & ~PullSysFlag.FLAG_COMMIT_OFFSET;
  },
  hasCommitOffsetFlag(sysFlag: number): boolean {
    return (sysFlag & PullSysFlag.FLAG_COMMIT_OFFSET) !== 0;
  },
  hasSuspendFlag(sysFlag: number): boolean {
    return (sysFlag & PullSysFlag.FLAG_SUSPEND) !== 0;
  },
  hasSubscriptionFlag(sysFlag: number): boolean {
    return (sysFlag & PullSysFlag.FLAG_SUBSCRIPTION) !== 0;
  },
  hasClassFilterFlag(sysFlag: number): boolean {
    return (sysFlag & PullSysFlag.FLAG_CLASS_FILTER) !== 0;
  },
  hasLitePullFlag(sysFlag: number): boolean {
    return (sysFlag & PullSysFlag.FLAG_LITE_PULL_MESSAGE) !== 0;
  },
} as const;

/** The topic Java producers ask for when a topic has no route yet (auto-create template). */
export const DEFAULT_TOPIC = 'TBW102';

/** System topic names (TopicValidator). */
export const TopicName = {
  AUTO_CREATE_TOPIC_KEY_TOPIC: DEFAULT_TOPIC,
  RMQ_SYS_SCHEDULE_TOPIC: 'SCHEDULE_TOPIC_XXXX',
  RMQ_SYS_BENCHMARK_TOPIC: 'BenchmarkTest',
  RMQ_SYS_TRANS_HALF_TOPIC: 'RMQ_SYS_TRANS_HALF_TOPIC',
  RMQ_SYS_TRACE_TOPIC: 'RMQ_SYS_TRACE_TOPIC',
  RMQ_SYS_TRANS_OP_HALF_TOPIC: 'RMQ_SYS_TRANS_OP_HALF_TOPIC',
  RMQ_SYS_TRANS_CHECK_MAX_TIME_TOPIC: 'TRANS_CHECK_MAX_TIME_TOPIC',
  RMQ_SYS_SELF_TEST_TOPIC: 'SELF_TEST_TOPIC',
  RMQ_SYS_OFFSET_MOVED_EVENT: 'OFFSET_MOVED_EVENT',
  SYSTEM_TOPIC_PREFIX: 'rmq_sys_',
} as const;

/** MixAll: well-known group names, prefixes and the helpers built on them. */
export const MixAll = {
  DEFAULT_PRODUCER_GROUP: 'DEFAULT_PRODUCER',
  DEFAULT_CONSUMER_GROUP: 'DEFAULT_CONSUMER',
  TOOLS_CONSUMER_GROUP: 'TOOLS_CONSUMER',
  SCHEDULE_CONSUMER_GROUP: 'SCHEDULE_CONSUMER',
  FILTERSRV_CONSUMER_GROUP: 'FILTERSRV_CONSUMER',
  MONITOR_CONSUMER_GROUP: '__MONITOR_CONSUMER',
  CLIENT_INNER_PRODUCER_GROUP: 'CLIENT_INNER_PRODUCER',
  SELF_TEST_PRODUCER_GROUP: 'SELF_TEST_P_GROUP',
  SELF_TEST_CONSUMER_GROUP: 'SELF_TEST_C_GROUP',
  ONS_HTTP_PROXY_GROUP: 'CID_ONS-HTTP-PROXY',
  CID_ONSAPI_PERMISSION_GROUP: 'CID_ONSAPI_PERMISSION',
  CID_ONSAPI_OWNER_GROUP: 'CID_ONSAPI_OWNER',
  CID_ONSAPI_PULL_GROUP: 'CID_ONSAPI_PULL',
  CID_RMQ_SYS_PREFIX: 'CID_RMQ_SYS_',
  CID_SYS_RMQ_TRANS: 'CID_RMQ_SYS_TRANS',
  /** brokerId of a master. */
  MASTER_ID: 0n,
  RETRY_GROUP_TOPIC_PREFIX: '%RETRY%',
  DLQ_GROUP_TOPIC_PREFIX: '%DLQ%',
  REPLY_TOPIC_POSTFIX: 'REPLY_TOPIC',
  /** Extra extFields key of QUERY_MESSAGE: look the key up as a UNIQ_KEY. */
  UNIQUE_MSG_QUERY_FLAG: '_UNIQUE_KEY_QUERY',
  DEFAULT_TRACE_REGION_ID: 'DefaultRegion',
  CONSUME_CONTEXT_TYPE: 'ConsumeContextType',
  REPLY_MESSAGE_FLAG: 'reply',
  LMQ_PREFIX: '%LMQ%',
  MULTI_DISPATCH_QUEUE_SPLITTER: ',',
  REQ_T: 'ReqT',

  getRetryTopic(consumerGroup: string): string {
    return MixAll.RETRY_GROUP_TOPIC_PREFIX + consumerGroup;
  },
  getDLQTopic(consumerGroup: string): string {
    return MixAll.DLQ_GROUP_TOPIC_PREFIX + consumerGroup;
  },
  getReplyTopic(clusterName: string): string {
    return `${clusterName}_${MixAll.REPLY_TOPIC_POSTFIX}`;
  },
  isSysConsumerGroup(consumerGroup: string): boolean {
    return consumerGroup.startsWith(MixAll.CID_RMQ_SYS_PREFIX);
  },
  isLmq(name: string | undefined): boolean {
    return name?.startsWith(MixAll.LMQ_PREFIX) === true;
  },
  /** The VIP channel of a broker listens on its port - 2. */
  brokerVIPChannel(isChange: boolean, brokerAddr: string): string {
    if (!isChange) return brokerAddr;
    const split = brokerAddr.lastIndexOf(':');
    const port = brokerAddr.slice(split + 1);
    if (split < 0 || !/^[0-9]{1,5}$/.test(port)) {
      throw new ValidationError(`broker address has no port: ${JSON.stringify(brokerAddr)}`);
    }
    return `${brokerAddr.slice(0, split)}:${Number(port) - 2}`;
  },
} as const;

/**
 * MQVersion.Version: the `version` field of every command is an ordinal of this enum. The enum
 * (identical in 4.9.8 and 5.x develop) is regular after its first 16 entries: each release
 * `Vx_y_z` is preceded by `Vx_y_z_SNAPSHOT`; 3.0.x runs to 3.0.15, 3.3 to 3.9 have no x.y.0.
 */
const VERSION_NAMES: readonly string[] = (() => {
  const names = [
    'V3_0_0_SNAPSHOT',
    'V3_0_0_ALPHA1',
    'V3_0_0_BETA1',
    'V3_0_0_BETA2',
    'V3_0_0_BETA3',
    'V3_0_0_BETA4',
    'V3_0_0_BETA5',
  ];
  for (let beta = 6; beta <= 9; beta++) names.push(`V3_0_0_BETA${beta}_SNAPSHOT`, `V3_0_0_BETA${beta}`);
  names.push('V3_0_0_FINAL');
  const release = (x: number, y: number, z: number): void => {
    names.push(`V${x}_${y}_${z}_SNAPSHOT`, `V${x}_${y}_${z}`);
  };
  for (let z = 1; z <= 15; z++) release(3, 0, z);
  for (let y = 1; y <= 9; y++) for (let z = y < 3 ? 0 : 1; z <= 9; z++) release(3, y, z);
  for (let x = 4; x <= 5; x++) for (let y = 0; y <= 9; y++) for (let z = 0; z <= 9; z++) release(x, y, z);
  names.push('HIGHER_VERSION');
  return names;
})();

const VERSION_ORDINALS: ReadonlyMap<string, number> = new Map(VERSION_NAMES.map((name, i) => [name, i]));

/** The ordinals protocol decisions depend on (spec §1.8, trap 11). */
export const MQVersion = {
  V3_0_7_SNAPSHOT: 28,
  V3_0_11: 37,
  V3_1_8_SNAPSHOT: 62,
  V3_4_9: 121,
  V4_0_0: 213,
  V4_1_0_SNAPSHOT: 232,
  V4_3_0: 273,
  V4_5_0: 313,
  V4_7_0: 353,
  V4_8_0: 373,
  V4_9_0: 393,
  V4_9_3: 399,
  V4_9_4: 401,
  V4_9_5: 403,
  V4_9_7: 407,
  V4_9_8: 409,
  V5_0_0: 413,
  V5_3_1: 475,
  V5_3_3: 479,
  HIGHER_VERSION: 612,
} as const;

/** What every command we create carries in `version`: we speak 4.9.8. */
export const CURRENT_VERSION = MQVersion.V4_9_8;

/**
 * `MQVersion.getVersionDesc`: the enum name of an ordinal; ordinals past the end name the last
 * entry (HIGHER_VERSION) as Java does. Negative or fractional ordinals give undefined.
 */
export function mqVersionName(ordinal: number): string | undefined {
  if (!Number.isInteger(ordinal) || ordinal < 0) return undefined;
  return VERSION_NAMES[Math.min(ordinal, VERSION_NAMES.length - 1)];
}

/** Ordinal of an MQVersion.Version name, or undefined. */
export function mqVersionOrdinal(name: string): number | undefined {
  return VERSION_ORDINALS.get(name);
}
