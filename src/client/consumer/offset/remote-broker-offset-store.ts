/**
 * RemoteBrokerOffsetStore: a clustering group's offsets, kept in memory and committed to the broker
 * that holds each queue (QUERY_CONSUMER_OFFSET, UPDATE_CONSUMER_OFFSET).
 *
 * Unlike upstream, persist and persistAll commit two-way and resolve when every broker answered:
 * upstream's oneway frame may still sit unsent when the process exits right after shutdown, losing
 * the last offsets, and a queue dropped in a rebalance should carry its offset to the broker before
 * the next owner reads it. The cost is one small answer per held queue every persist interval.
 * updateConsumeOffsetToBroker keeps the caller's choice.
 */
import { MixAll } from '../../../common/constants.js';
import type { Logger } from '../../../common/logger.js';
import type { MessageQueue } from '../../../common/message/message-queue.js';
import type { RemotingCommand } from '../../../remoting/protocol/command.js';
import { ResponseCode } from '../../../remoting/protocol/response-code.js';
import { errorText, MQBrokerError, MQClientError } from '../../errors.js';
import type { CallOptions } from '../../instance/mq-client-api.js';
import {
  buildQueryConsumerOffsetRequest,
  buildUpdateConsumerOffsetRequest,
  parseQueryConsumerOffsetResponse,
  parseUpdateConsumerOffsetResponse,
} from '../../instance/requests/consumer-offset.js';
import { type OffsetStore, ReadOffsetType } from './offset-store.js';
import { heldQueueKeys, OffsetTable } from './offset-table.js';

/** Upstream's fixed timeout of the offset calls (RemoteBrokerOffsetStore: 1000 * 5). */
export const CONSUMER_OFFSET_CALL_TIMEOUT_MS = 5_000;

const MASTER_ID = 0;

/** What the store needs of the client instance (MQClientInstance has all of it). */
export interface RemoteOffsetStoreHost {
  readonly clientId: string;
  readonly logger: Logger;
  readonly config: { readonly vipChannelEnabled: boolean };
  readonly api: {
    invoke(addr: string, request: RemotingCommand, options: CallOptions): Promise<RemotingCommand>;
  };
  readonly remoting: { invokeOneway(addr: string, request: RemotingCommand): Promise<void> };
  findBrokerAddressInSubscribe(
    brokerName: string,
    brokerId: number,
    onlyThisBroker: boolean,
  ): { readonly brokerAddr: string } | undefined;
  updateTopicRouteInfoFromNameServer(topic: string): Promise<boolean>;
}

export interface RemoteBrokerOffsetStoreOptions {
  /** Timeout of each QUERY/UPDATE_CONSUMER_OFFSET call [5000 ms]. */
  readonly timeoutMs?: number;
}

export class RemoteBrokerOffsetStore implements OffsetStore {
  private readonly host: RemoteOffsetStoreHost;
  private readonly groupName: string;
  private readonly timeoutMs: number;
  private readonly logger: Logger;
  private readonly offsetTable = new OffsetTable();

  constructor(host: RemoteOffsetStoreHost, groupName: string, options: RemoteBrokerOffsetStoreOptions = {}) {
    this.host = host;
    this.groupName = groupName;
    this.timeoutMs = options.timeoutMs ?? CONSUMER_OFFSET_CALL_TIMEOUT_MS;
    this.logger = host.logger.child('offset-store');
  }

  async load(): Promise<void> {}

  updateOffset(mq: MessageQueue, offset: bigint, increaseOnly: boolean): void {
    this.offsetTable.update(mq, offset, increaseOnly);
  }

  updateAndFreezeOffset(mq: MessageQueue, offset: bigint): void {
    this.offsetTable.updateAndFreeze(mq, offset);
  }

  readOffsetInMemory(mq: MessageQueue): bigint {
    return this.offsetTable.get(mq) ?? -1n;
  }

  /**
   * From the store: the broker's offset, also kept in memory; -1 when the broker has none
   * (QUERY_NOT_FOUND), -2 with a warn line on any other failure. Upstream 4.9.8 read every broker
   * error code as "none"; 5.x reads only QUERY_NOT_FOUND so, and so do we: a busy or refusing
   * broker must not make a group with an offset start over from consumeFromWhere.
   */
  async readOffset(mq: MessageQueue, type: ReadOffsetType): Promise<bigint> {
    if (type !== ReadOffsetType.READ_FROM_STORE) {
      const inMemory = this.offsetTable.get(mq);
      if (inMemory !== undefined) return inMemory;
      if (type === ReadOffsetType.READ_FROM_MEMORY) return -1n;
    }
    try {
      const brokerOffset = await this.fetchConsumeOffsetFromBroker(mq);
      this.offsetTable.update(mq, brokerOffset, false);
      return brokerOffset;
    } catch (error) {
      if (error instanceof MQBrokerError && error.responseCode === ResponseCode.QUERY_NOT_FOUND) return -1n;
      this.logger.warn(
        'fetchConsumeOffsetFromBroker failed',
        {
          group: this.groupName,
          mq: mq.toString(),
          error: errorText(error),
        },
        error,
      );
      return -2n;
    }
  }

  /**
   * Commits the offset of every held queue (in parallel) and forgets the queues no longer held.
   * Resolves when every broker answered; a failure is logged per queue.
   */
  async persistAll(mqs: ReadonlySet<string> | readonly MessageQueue[]): Promise<void> {
    const held = heldQueueKeys(mqs);
    if (held.size === 0) return;
    const commits: Promise<void>[] = [];
    for (const [mq, offset] of this.offsetTable.entries()) {
      if (held.has(mq.key)) {
        commits.push(this.commit(mq, offset, 'persistAll'));
      } else {
        // Removed before the commits are awaited, so a queue assigned again meanwhile keeps its entry.
        this.offsetTable.remove(mq);
        this.logger.info('remove unused mq', { group: this.groupName, mq: mq.toString() });
      }
    }
    await Promise.all(commits);
  }

  async persist(mq: MessageQueue): Promise<void> {
    const offset = this.offsetTable.get(mq);
    if (offset !== undefined) await this.commit(mq, offset, 'persist');
  }

  removeOffset(mq: MessageQueue): void {
    this.offsetTable.remove(mq);
    this.logger.info('remove unnecessary messageQueue offset', {
      group: this.groupName,
      mq: mq.toString(),
      offsetTableSize: this.offsetTable.size,
    });
  }

  cloneOffsetTable(topic: string | undefined): Array<[MessageQueue, bigint]> {
    return this.offsetTable.clone(topic);
  }

  /**
   * UPDATE_CONSUMER_OFFSET to the master of the queue's broker (any member of it when the route
   * names no master, as upstream). Throws MQClientError when the broker is unknown even after a
   * route update, MQBrokerError for a failure answer, or the transport's error.
   */
  async updateConsumeOffsetToBroker(mq: MessageQueue, offset: bigint, oneway: boolean): Promise<void> {
    const addr = await this.brokerAddrOf(mq);
    const request = buildUpdateConsumerOffsetRequest(this.groupName, mq, offset);
    if (oneway) {
      await this.host.remoting.invokeOneway(addr, request);
      return;
    }
    const response = await this.host.api.invoke(addr, request, { timeoutMs: this.timeoutMs });
    parseUpdateConsumerOffsetResponse(response, { brokerAddr: addr, topic: mq.topic, group: this.groupName });
  }

  private async commit(mq: MessageQueue, offset: bigint, what: string): Promise<void> {
    try {
      await this.updateConsumeOffsetToBroker(mq, offset, false);
      this.logger.debug(`[${what}] updateConsumeOffsetToBroker`, {
        group: this.groupName,
        clientId: this.host.clientId,
        mq: mq.toString(),
        offset,
      });
    } catch (error) {
      this.logger.error(
        'updateConsumeOffsetToBroker failed',
        {
          group: this.groupName,
          mq: mq.toString(),
          offset,
          error: errorText(error),
        },
        error,
      );
    }
  }

  private async fetchConsumeOffsetFromBroker(mq: MessageQueue): Promise<bigint> {
    const addr = await this.brokerAddrOf(mq);
    const response = await this.host.api.invoke(addr, buildQueryConsumerOffsetRequest(this.groupName, mq), {
      timeoutMs: this.timeoutMs,
    });
    return parseQueryConsumerOffsetResponse(response, {
      brokerAddr: addr,
      topic: mq.topic,
      group: this.groupName,
    });
  }

  /** The master of the queue's broker, else (after a route update) any member; on the VIP port if enabled. */
  private async brokerAddrOf(mq: MessageQueue): Promise<string> {
    let found = this.host.findBrokerAddressInSubscribe(mq.brokerName, MASTER_ID, true);
    if (found === undefined) {
      await this.host.updateTopicRouteInfoFromNameServer(mq.topic);
      found = this.host.findBrokerAddressInSubscribe(mq.brokerName, MASTER_ID, false);
    }
    if (found === undefined) {
      throw new MQClientError(`The broker[${mq.brokerName}] not exist`, undefined, {
        topic: mq.topic,
        group: this.groupName,
      });
    }
    return MixAll.brokerVIPChannel(this.host.config.vipChannelEnabled, found.brokerAddr);
  }
}
