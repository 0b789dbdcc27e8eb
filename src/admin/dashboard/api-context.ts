/** What every API route of the dashboard works with: the admin client and the dashboard's settings. */
import type { ClusterInfo } from '../../common/protocol/route.js';
import type { MQAdminExt } from '../mq-admin-ext.js';
import type { ResolvedDashboardOptions } from './dashboard-options.js';

export interface ApiContext {
  readonly admin: MQAdminExt;
  readonly settings: ResolvedDashboardOptions;
}

export interface BrokerAddress {
  cluster: string;
  brokerName: string;
  brokerId: number;
  addr: string;
}

/** Every broker of the cluster info, masters first within each broker name. */
export function brokersOf(info: ClusterInfo): BrokerAddress[] {
  const out: BrokerAddress[] = [];
  for (const data of info.brokerAddrTable.values()) {
    const ids = [...data.brokerAddrs.keys()].sort((a, b) => a - b);
    for (const id of ids) {
      const addr = data.brokerAddrs.get(id);
      if (addr !== undefined)
        out.push({ cluster: data.cluster, brokerName: data.brokerName, brokerId: id, addr });
    }
  }
  return out.sort((a, b) => a.brokerName.localeCompare(b.brokerName) || a.brokerId - b.brokerId);
}

/** The master of each broker (id 0), optionally of one cluster only. */
export function mastersOf(info: ClusterInfo, clusterName?: string): BrokerAddress[] {
  return brokersOf(info).filter(
    (b) => b.brokerId === 0 && (clusterName === undefined || b.cluster === clusterName),
  );
}
