/**
 * BrokerConfig keys of server-side rebalance (QUERY_ASSIGNMENT / SET_MESSAGE_REQUEST_MODE), with
 * upstream 5.x's defaults.
 */
import { BOOL, type ConfigKeySpec, INT, ownedBy } from './broker-config-keys.js';

export interface BrokerAssignmentConfig {
  /**
   * QUERY_ASSIGNMENT allocates the queues among the group's members [true]; false hands every member
   * every queue of the topic.
   */
  serverLoadBalancerEnable: boolean;
  /** Mode of a topic and group no SET_MESSAGE_REQUEST_MODE named [PULL]; retry topics are always PULL. */
  defaultMessageRequestMode: 'PULL' | 'POP';
  /** popShareQueueNum of a group in POP mode by default [-1: every member pops every queue]. */
  defaultPopShareQueueNum: number;
  /** ms after which a topic's route QUERY_ASSIGNMENT uses is asked of the name servers again [30000]. */
  loadBalancePollNameServerInterval: number;
}

const b = ownedBy('BrokerConfig');

export const ASSIGNMENT_CONFIG_KEYS: { readonly [K in keyof BrokerAssignmentConfig]: ConfigKeySpec } = {
  serverLoadBalancerEnable: b(BOOL),
  defaultMessageRequestMode: b({ type: 'enum', values: ['PULL', 'POP'] }),
  defaultPopShareQueueNum: b(INT),
  loadBalancePollNameServerInterval: b(INT),
};

export const DEFAULT_ASSIGNMENT_CONFIG: Readonly<BrokerAssignmentConfig> = Object.freeze({
  serverLoadBalancerEnable: true,
  defaultMessageRequestMode: 'PULL',
  defaultPopShareQueueNum: -1,
  loadBalancePollNameServerInterval: 30_000,
});
