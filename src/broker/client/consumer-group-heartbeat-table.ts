/**
 * Upstream 5.x ClientManageProcessor.consumerGroupHeartbeatTable: the heartbeat fingerprint each
 * consumer group last sent (0 after a 4.x-style heartbeat), kept in memory per broker. A 5.x client
 * running heartbeat V2 leaves its subscriptions out while the broker answers IS_SUB_CHANGE=false;
 * this table decides that answer.
 */
export class ConsumerGroupHeartbeatTable {
  private readonly table = new Map<string, number>();
  /** group -> connections whose next V2 heartbeat is asked for the full one (see markStale). */
  private readonly stale = new Map<string, WeakSet<object>>();

  /**
   * Records a heartbeat's fingerprint for the group. Returns whether the group's subscriptions may
   * have changed for a V2 heartbeat: the group last sent another fingerprint (upstream), or a pull on
   * this connection found the broker's subscription stale. A first fingerprint is no change.
   */
  update(group: string, fingerprint: number, connection: object): boolean {
    const last = this.table.get(group);
    this.table.set(group, fingerprint);
    const stale = this.stale.get(group)?.delete(connection) ?? false;
    return stale || (last !== undefined && last !== fingerprint);
  }

  /**
   * Not upstream. The 5.x client bumps a subscription's subVersion on every rebalance and sends a
   * full heartbeat for it, but skips that heartbeat when its heartbeat lock is busy (tryLock in
   * sendHeartbeatToAllBrokerWithLockV2); its later V2 heartbeats leave the subscriptions out, since
   * the fingerprint ignores subVersion, so the broker never learns the new version and answers every
   * pull SUBSCRIPTION_NOT_LATEST (the official 5.x broker too). A pull that finds the broker's copy
   * older or missing (SUBSCRIPTION_NOT_LATEST, FILTER_DATA_NOT_LATEST, SUBSCRIPTION_NOT_EXIST) marks
   * its connection: that client's next V2 heartbeat is answered IS_SUB_CHANGE=true and it sends the
   * full one. Per connection, because another member's heartbeat would not carry the new version.
   * Groups without a V2 fingerprint are left alone.
   */
  markStale(group: string, connection: object): void {
    const last = this.table.get(group);
    if (last === undefined || last === 0) return;
    let connections = this.stale.get(group);
    if (connections === undefined) {
      connections = new WeakSet();
      this.stale.set(group, connections);
    }
    connections.add(connection);
  }
}

const tables = new WeakMap<object, ConsumerGroupHeartbeatTable>();

/** The table of one broker (keyed by its context object; created on first use). */
export function consumerGroupHeartbeatTable(broker: object): ConsumerGroupHeartbeatTable {
  let table = tables.get(broker);
  if (table === undefined) {
    table = new ConsumerGroupHeartbeatTable();
    tables.set(broker, table);
  }
  return table;
}
