/**
 * PullAPIWrapper: one pull of a queue from the broker member the last answer suggested (master or
 * slave), and its answer made ready for the consumer: records decoded, the tag re-checked (the
 * broker filters on the tag's hash, which can collide), MIN_OFFSET/MAX_OFFSET and the broker name
 * set on each message.
 */
import { MQVersion, PullSysFlag } from '../../../common/constants.js';
import type { Logger } from '../../../common/logger.js';
import type { MessageExt } from '../../../common/message/message.js';
import { MessageConst } from '../../../common/message/message-const.js';
import type { MessageQueue } from '../../../common/message/message-queue.js';
import { decodeMessage, readStoredRecordHeader } from '../../../common/message/stored-format.js';
import { ExpressionType, type SubscriptionData } from '../../../common/protocol/subscription-data.js';
import { isTagMatched } from '../../../filter/filter-api.js';
import { ClientErrorCode, errorText, MQClientError } from '../../errors.js';
import type { CallOptions, MQClientAPI } from '../../instance/mq-client-api.js';
import type { FindBrokerResult } from '../../instance/mq-client-instance.js';
import {
  buildPopMessageRequest,
  PopStatus,
  parsePopMessageResponse,
} from '../../instance/requests/pop-message.js';
import {
  buildPullMessageRequest,
  parsePullMessageResponse,
  type RawPullResult,
} from '../../instance/requests/pull-message.js';
import { applyPopResult } from '../pop/pop-result.js';
import { type PullResult, PullStatus } from './pull-result.js';

const MASTER_ID = 0;
/** Upstream popAsync: a long-polling pop waits this much longer than its pollTime, ms. */
const POP_TIMEOUT_EXTRA_MS = 10_000;

export interface PopArgs {
  readonly mq: MessageQueue;
  readonly invisibleTime: number;
  readonly maxNums: number;
  readonly pollTime: number;
  readonly initMode: number;
  readonly expressionType: string;
  readonly expression: string;
  readonly signal?: AbortSignal | undefined;
}

export interface PopResult {
  readonly popStatus: PopStatus;
  readonly restNum: bigint;
  msgFoundList: MessageExt[];
}

/** What a pull needs of the client instance. */
export interface PullHost {
  readonly api: MQClientAPI;
  findBrokerAddressInSubscribe(
    brokerName: string,
    brokerId: number,
    onlyThisBroker: boolean,
  ): FindBrokerResult | undefined;
  updateTopicRouteInfoFromNameServer(topic: string): Promise<boolean>;
}

export interface PullArgs {
  readonly mq: MessageQueue;
  /** The expression sent with the pull (undefined: the broker uses the group's heartbeat subscription). */
  readonly subExpression: string | undefined;
  readonly expressionType: string;
  readonly subVersion: bigint;
  readonly offset: bigint;
  readonly maxNums: number;
  readonly sysFlag: number;
  readonly commitOffset: bigint;
  readonly brokerSuspendMaxTimeMillis: number;
  readonly timeoutMillis: number;
  readonly signal?: AbortSignal | undefined;
  /** LITE_PULL_MESSAGE instead of PULL_MESSAGE (the 5.x lite pull consumer's code). */
  readonly litePull?: boolean;
}

export class PullAPIWrapper {
  private readonly host: PullHost;
  private readonly consumerGroup: string;
  private readonly logger: Logger;
  /** Which broker member (by id) each queue is pulled from next, as the broker suggested. */
  private readonly pullFromWhichNodeTable = new Map<string, number>();

  constructor(host: PullHost, consumerGroup: string, logger: Logger) {
    this.host = host;
    this.consumerGroup = consumerGroup;
    this.logger = logger;
  }

  /** `pullKernelImpl`: sends the pull; resolves with the raw answer and the broker asked. */
  async pullKernelImpl(args: PullArgs): Promise<RawPullResult & { brokerAddr: string }> {
    const { mq } = args;
    const brokerId = this.pullFromWhichNodeTable.get(mq.key) ?? MASTER_ID;
    let found = this.host.findBrokerAddressInSubscribe(mq.brokerName, brokerId, false);
    if (found === undefined) {
      await this.host.updateTopicRouteInfoFromNameServer(mq.topic);
      found = this.host.findBrokerAddressInSubscribe(mq.brokerName, brokerId, false);
    }
    if (found === undefined) {
      throw new MQClientError(
        `The broker[${mq.brokerName}] not exist`,
        ClientErrorCode.BROKER_NOT_EXIST_EXCEPTION,
        {
          topic: mq.topic,
          group: this.consumerGroup,
          retriable: true,
        },
      );
    }
    if (
      args.expressionType !== ExpressionType.TAG &&
      found.brokerVersion !== 0 &&
      found.brokerVersion < MQVersion.V4_1_0_SNAPSHOT
    ) {
      throw new MQClientError(
        `The broker[${mq.brokerName}, ${found.brokerVersion}] does not upgrade to support for filter message by ${args.expressionType}`,
        undefined,
        { topic: mq.topic, group: this.consumerGroup },
      );
    }
    // A slave cannot store offsets, so the commit offset is only sent to masters.
    const sysFlag = found.slave ? PullSysFlag.clearCommitOffsetFlag(args.sysFlag) : args.sysFlag;
    const request = buildPullMessageRequest(
      {
        consumerGroup: this.consumerGroup,
        topic: mq.topic,
        queueId: mq.queueId,
        queueOffset: args.offset,
        maxMsgNums: args.maxNums,
        sysFlag,
        commitOffset: args.commitOffset,
        suspendTimeoutMillis: BigInt(args.brokerSuspendMaxTimeMillis),
        subscription: args.subExpression,
        subVersion: args.subVersion,
        expressionType: args.expressionType,
        bname: mq.brokerName,
      },
      args.litePull === true,
    );
    const options: CallOptions = { timeoutMs: args.timeoutMillis, signal: args.signal };
    const response = await this.host.api.invoke(found.brokerAddr, request, options);
    const raw = parsePullMessageResponse(response, {
      brokerAddr: found.brokerAddr,
      topic: mq.topic,
      group: this.consumerGroup,
    });
    return { ...raw, brokerAddr: found.brokerAddr };
  }

  /**
   * `popAsync` (upstream PullAPIWrapper.popAsync + MQClientAPIImpl.processPopResponse): pops `mq`
   * from its master, long-polled for `pollTime` ms (the call waits 10 s more), and gives each message
   * found its receipt handle. Tags are re-checked as for pulls, by the caller (processPopResult).
   */
  async popKernelImpl(args: PopArgs): Promise<PopResult> {
    const { mq } = args;
    let found = this.host.findBrokerAddressInSubscribe(mq.brokerName, MASTER_ID, true);
    if (found === undefined) {
      await this.host.updateTopicRouteInfoFromNameServer(mq.topic);
      found = this.host.findBrokerAddressInSubscribe(mq.brokerName, MASTER_ID, true);
    }
    if (found === undefined) {
      throw new MQClientError(
        `The broker[${mq.brokerName}] not exist`,
        ClientErrorCode.BROKER_NOT_EXIST_EXCEPTION,
        {
          topic: mq.topic,
          group: this.consumerGroup,
          retriable: true,
        },
      );
    }
    const request = buildPopMessageRequest({
      consumerGroup: this.consumerGroup,
      topic: mq.topic,
      queueId: mq.queueId,
      maxMsgNums: args.maxNums,
      invisibleTime: BigInt(args.invisibleTime),
      pollTime: BigInt(args.pollTime),
      bornTime: BigInt(Date.now()),
      initMode: args.initMode,
      expType: args.expressionType,
      exp: args.expression,
      order: false,
      bname: mq.brokerName,
    });
    const options: CallOptions = { timeoutMs: args.pollTime + POP_TIMEOUT_EXTRA_MS, signal: args.signal };
    const response = await this.host.api.invoke(found.brokerAddr, request, options);
    const raw = parsePopMessageResponse(response, {
      brokerAddr: found.brokerAddr,
      topic: mq.topic,
      group: this.consumerGroup,
    });
    const msgs =
      raw.popStatus === PopStatus.FOUND && raw.messageBinary !== undefined
        ? this.decode(mq, raw.messageBinary)
        : [];
    if (msgs.length > 0) applyPopResult(raw, msgs, mq.brokerName, mq.topic, false);
    return { popStatus: raw.popStatus, restNum: raw.restNum, msgFoundList: msgs };
  }

  /**
   * `processPullResult`: remembers the suggested broker member, decodes the messages of a FOUND
   * answer and keeps those whose tag the subscription names (when it names tags).
   */
  processPullResult(mq: MessageQueue, raw: RawPullResult, subscription: SubscriptionData): PullResult {
    this.pullFromWhichNodeTable.set(mq.key, Number(raw.suggestWhichBrokerId));
    let msgFoundList: MessageExt[] = [];
    if (raw.pullStatus === PullStatus.FOUND && raw.messageBinary !== undefined) {
      const decoded = this.decode(mq, raw.messageBinary);
      msgFoundList =
        subscription.tagsSet.length === 0
          ? decoded
          : decoded.filter((m) => isTagMatched(subscription, m.tags));
      const min = raw.minOffset.toString();
      const max = raw.maxOffset.toString();
      for (const msg of msgFoundList) {
        if (msg.properties.get(MessageConst.PROPERTY_TRANSACTION_PREPARED)?.toLowerCase() === 'true') {
          msg.transactionId = msg.properties.get(MessageConst.PROPERTY_UNIQ_CLIENT_MESSAGE_ID_KEYIDX);
        }
        msg.properties.set(MessageConst.PROPERTY_MIN_OFFSET, min);
        msg.properties.set(MessageConst.PROPERTY_MAX_OFFSET, max);
        msg.brokerName = mq.brokerName;
      }
    }
    return {
      pullStatus: raw.pullStatus,
      nextBeginOffset: raw.nextBeginOffset,
      minOffset: raw.minOffset,
      maxOffset: raw.maxOffset,
      msgFoundList,
    };
  }

  /**
   * The records back to back. A record that cannot be decoded is skipped with an error line naming
   * the queue and its offset; the records after it are kept when its length can still be trusted,
   * else the rest of the answer is given up (upstream stops at the first bad record). Either way the
   * queue's next offset comes from the answer, so the consumer moves past them.
   */
  decode(mq: MessageQueue, binary: Buffer): MessageExt[] {
    const out: MessageExt[] = [];
    let pos = 0;
    while (pos < binary.length) {
      try {
        const msg = decodeMessage(binary, pos);
        out.push(msg);
        pos += msg.storeSize;
      } catch (error) {
        let size = 0;
        let offset: bigint | undefined;
        try {
          const h = readStoredRecordHeader(binary, pos);
          size = h.totalSize;
          if (h.kind === 'message') offset = h.queueOffset;
        } catch {
          size = 0;
        }
        this.logger.error(
          'message cannot be decoded, skipped',
          {
            group: this.consumerGroup,
            topic: mq.topic,
            brokerName: mq.brokerName,
            queueId: mq.queueId,
            queueOffset: offset,
            error: errorText(error),
          },
          error,
        );
        if (size <= 0 || pos + size > binary.length) break;
        pos += size;
      }
    }
    return out;
  }
}
