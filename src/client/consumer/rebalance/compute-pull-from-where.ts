/**
 * Where a queue new to a consumer starts (upstream computePullFromWhereWithException, the same for
 * push and lite pull consumers): the group's stored offset; for a group without one, what
 * consumeFromWhere says — the queue's end (LAST_OFFSET and its deprecated variants), its start
 * (FIRST_OFFSET), or the first message stored at consumeTimestamp (TIMESTAMP). A retry topic starts
 * at 0 under LAST_OFFSET and at its end under TIMESTAMP, as upstream has it.
 */
import { MixAll } from '../../../common/constants.js';
import type { Logger } from '../../../common/logger.js';
import type { MessageQueue } from '../../../common/message/message-queue.js';
import { ConsumeFromWhere } from '../../../common/protocol/heartbeat-data.js';
import { errorText } from '../../errors.js';
import type { MQAdminImpl } from '../../instance/mq-admin-impl.js';
import type { CallOptions } from '../../instance/mq-client-api.js';
import { type OffsetStore, ReadOffsetType } from '../offset/offset-store.js';

export interface PullFromWhereContext {
  readonly consumeFromWhere: ConsumeFromWhere;
  /** ms since the epoch. */
  readonly consumeTimestamp: number;
  readonly offsetStore: OffsetStore;
  readonly admin: MQAdminImpl;
  readonly logger: Logger;
  callOptions(): CallOptions;
  /**
   * How the stored offset is read [READ_FROM_STORE, as RebalancePushImpl]. RebalanceLitePullImpl reads
   * MEMORY_FIRST_THEN_STORE, so an offset committed in memory (commit without persist) is where a
   * queue assigned again starts.
   */
  readonly readOffsetType?: ReadOffsetType | undefined;
}

/** The start offset, or -1 when the store failed (the queue is tried again at the next rebalance). */
export async function computePullFromWhere(ctx: PullFromWhereContext, mq: MessageQueue): Promise<bigint> {
  const lastOffset = await ctx.offsetStore.readOffset(
    mq,
    ctx.readOffsetType ?? ReadOffsetType.READ_FROM_STORE,
  );
  if (lastOffset >= 0n) return lastOffset;
  if (lastOffset !== -1n) return -1n;
  const retryTopic = mq.topic.startsWith(MixAll.RETRY_GROUP_TOPIC_PREFIX);
  try {
    switch (ctx.consumeFromWhere) {
      case ConsumeFromWhere.CONSUME_FROM_FIRST_OFFSET:
        return 0n;
      case ConsumeFromWhere.CONSUME_FROM_TIMESTAMP:
        if (retryTopic) return await ctx.admin.maxOffset(mq, ctx.callOptions());
        return await ctx.admin.searchOffset(mq, BigInt(ctx.consumeTimestamp), ctx.callOptions());
      default:
        if (retryTopic) return 0n;
        return await ctx.admin.maxOffset(mq, ctx.callOptions());
    }
  } catch (error) {
    ctx.logger.warn('compute consume offset failed', { mq: mq.toString(), error: errorText(error) }, error);
    throw error;
  }
}
