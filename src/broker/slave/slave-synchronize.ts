/**
 * SlaveSynchronize (`broker/.../slave/SlaveSynchronize.java`): a slave copies its master's metadata,
 * first slaveSyncFirstDelay after start, then every slaveSyncPeriod, in upstream's order: topics
 * (replaced whole when the master's DataVersion differs), consumer offsets (the master's put over
 * the slave's), delay offsets (the master's text written to delayOffset.json) and subscription groups
 * (as topics). Each is written to its file as upstream persists it. The master is the one the name
 * server named on the last registration; nothing is asked while there is none, or when it is this
 * broker itself. A failed step is logged with upstream's "Sync... Exception" line and the next step
 * still runs.
 */
import type { Clock, TimerHandle } from '../../common/clock.js';
import type { Logger } from '../../common/logger.js';
import { writeFileAtomic } from '../../common/platform/atomic-file.js';
import { dataVersionEquals } from '../../common/protocol/data-version.js';
import type { RemotingClient } from '../../remoting/transport/index.js';
import { delayOffsetStorePath } from '../../store/schedule/delay-offset-table.js';
import type { BrokerRole } from '../broker-config.js';
import type { ConsumerOffsetManager } from '../offset/consumer-offset-manager.js';
import type { SubscriptionGroupManager } from '../subscription/subscription-group-manager.js';
import type { TopicConfigManager } from '../topic/topic-config-manager.js';
import { MasterOuterAPI, SLAVE_SYNC_REQUEST_TIMEOUT_MILLIS } from './master-outer-api.js';

/** Upstream's handleSlaveSynchronize schedule: first after 3 s, then every 10 s. */
export const SLAVE_SYNC_FIRST_DELAY_MILLIS = 3000;
export const SLAVE_SYNC_PERIOD_MILLIS = 10_000;

/** What the slave broker lends the synchronizer (the BrokerController has all of it). */
export interface SlaveSyncHost {
  /** This broker's own address: a master address equal to it is never asked. */
  readonly brokerAddr: string;
  readonly topicConfigManager: TopicConfigManager;
  readonly consumerOffsetManager: ConsumerOffsetManager;
  readonly subscriptionGroupManager: SubscriptionGroupManager;
  /** delayOffset.json lives under `<storePathRootDir>/config`. */
  readonly config: { readonly storePathRootDir: string };
}

export interface SlaveSynchronizeOptions {
  host: SlaveSyncHost;
  /** The master's address as the last registration reported it (upstream's setMasterAddr). */
  masterAddr: () => string | undefined;
  remotingClient: RemotingClient;
  clock: Clock;
  logger: Logger;
  firstDelayMillis?: number;
  periodMillis?: number;
  requestTimeoutMillis?: number;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export class SlaveSynchronize {
  private readonly host: SlaveSyncHost;
  private readonly masterAddrOf: () => string | undefined;
  private readonly api: MasterOuterAPI;
  private readonly clock: Clock;
  private readonly logger: Logger;
  private readonly firstDelayMillis: number;
  private readonly periodMillis: number;
  private timer: TimerHandle | undefined;
  private running = false;
  private inFlight = false;
  private round: Promise<void> = Promise.resolve();

  constructor(options: SlaveSynchronizeOptions) {
    this.host = options.host;
    this.masterAddrOf = options.masterAddr;
    this.api = new MasterOuterAPI(
      options.remotingClient,
      options.requestTimeoutMillis ?? SLAVE_SYNC_REQUEST_TIMEOUT_MILLIS,
    );
    this.clock = options.clock;
    this.logger = options.logger;
    this.firstDelayMillis = options.firstDelayMillis ?? SLAVE_SYNC_FIRST_DELAY_MILLIS;
    this.periodMillis = options.periodMillis ?? SLAVE_SYNC_PERIOD_MILLIS;
  }

  /** The master to copy from, when there is one other than this broker. */
  get masterAddr(): string | undefined {
    const addr = this.masterAddrOf();
    return addr === undefined || addr === this.host.brokerAddr ? undefined : addr;
  }

  /** upstream handleSlaveSynchronize: a SLAVE starts the schedule, any other role stops it. */
  handleSlaveSynchronize(role: BrokerRole): void {
    this.timer?.cancel();
    this.timer = undefined;
    this.running = role === 'SLAVE';
    if (this.running) this.timer = this.clock.setTimeout(this.tick, this.firstDelayMillis);
  }

  /** Stops the schedule and waits for a round under way (its files written). */
  async shutdown(): Promise<void> {
    this.running = false;
    this.timer?.cancel();
    this.timer = undefined;
    await this.round;
  }

  /** Resolves once the round under way, if any, has ended. */
  whenIdle(): Promise<void> {
    return this.round;
  }

  private readonly tick = (): void => {
    this.timer = undefined;
    if (!this.running) return;
    this.timer = this.clock.setTimeout(this.tick, this.periodMillis);
    void this.syncAll();
  };

  /**
   * One round of the four steps (a round asked for while one runs joins it). Never rejects: each
   * step's failure is logged.
   */
  syncAll(): Promise<void> {
    if (this.inFlight) return this.round;
    this.inFlight = true;
    this.round = (async () => {
      try {
        await this.syncTopicConfig();
        await this.syncConsumerOffset();
        await this.syncDelayOffset();
        await this.syncSubscriptionGroupConfig();
      } finally {
        this.inFlight = false;
      }
    })();
    return this.round;
  }

  private async syncTopicConfig(): Promise<void> {
    const masterAddr = this.masterAddr;
    if (masterAddr === undefined) return;
    try {
      const topics = this.host.topicConfigManager;
      const wrapper = await this.api.getAllTopicConfig(masterAddr, { timestamp: BigInt(this.clock.now()) });
      if (dataVersionEquals(topics.dataVersion, wrapper.dataVersion)) return;
      await topics.replaceWithMasterTable(wrapper);
      this.logger.info('Update slave topic config from master', {
        masterAddr,
        topics: wrapper.topicConfigTable.size,
      });
    } catch (error) {
      this.logger.error('SyncTopicConfig Exception', { masterAddr, error: describe(error) });
    }
  }

  private async syncConsumerOffset(): Promise<void> {
    const masterAddr = this.masterAddr;
    if (masterAddr === undefined) return;
    try {
      const table = await this.api.getAllConsumerOffset(masterAddr);
      await this.host.consumerOffsetManager.putAllFromMaster(table);
      this.logger.debug('Update slave consumer offset from master', { masterAddr, keys: table.size });
    } catch (error) {
      this.logger.error('SyncConsumerOffset Exception', { masterAddr, error: describe(error) });
    }
  }

  private async syncDelayOffset(): Promise<void> {
    const masterAddr = this.masterAddr;
    if (masterAddr === undefined) return;
    try {
      const delayOffset = await this.api.getAllDelayOffset(masterAddr);
      const fileName = delayOffsetStorePath(this.host.config.storePathRootDir);
      try {
        await writeFileAtomic(fileName, delayOffset);
      } catch (error) {
        this.logger.error('Persist file Exception', { file: fileName, error: describe(error) });
      }
      this.logger.debug('Update slave delay offset from master', { masterAddr });
    } catch (error) {
      this.logger.error('SyncDelayOffset Exception', { masterAddr, error: describe(error) });
    }
  }

  private async syncSubscriptionGroupConfig(): Promise<void> {
    const masterAddr = this.masterAddr;
    if (masterAddr === undefined) return;
    try {
      const groups = this.host.subscriptionGroupManager;
      const wrapper = await this.api.getAllSubscriptionGroupConfig(masterAddr, {
        timestamp: BigInt(this.clock.now()),
      });
      if (dataVersionEquals(groups.dataVersion, wrapper.dataVersion)) return;
      await groups.replaceWithMasterTable(wrapper);
      this.logger.info('Update slave Subscription Group from master', {
        masterAddr,
        groups: wrapper.subscriptionGroupTable.size,
      });
    } catch (error) {
      this.logger.error('SyncSubscriptionGroup Exception', { masterAddr, error: describe(error) });
    }
  }
}
