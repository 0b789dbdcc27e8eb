/**
 * mqadmin's commands that pull messages with a pull consumer of their own: queryMsgByOffset,
 * printMsg, consumeMessage. The consumer is upstream's TOOLS_CONSUMER (or consumeMessage's -g); it
 * never commits an offset, so running them moves no group's progress.
 */
import { createPullConsumer, type PullConsumer, type PullResult, PullStatus } from '../../client/index.js';
import { MixAll } from '../../common/constants.js';
import { createLogger } from '../../common/logger.js';
import type { HostAddress } from '../../common/message/host.js';
import type { MessageExt } from '../../common/message/message.js';
import { MessageQueue } from '../../common/message/message-queue.js';
import { javaPropertiesOrder } from '../../common/message/properties.js';
import type { AdminCommand, CommandContext } from './command.js';
import { javaMap, parseMqadminDate, toJson } from './format.js';
import { printMsg as printMessageDetail } from './message-commands.js';
import { type AdminOption, AdminUsageError } from './options.js';
import { compareQueues } from './topic-commands.js';

/** Messages asked per pull by printMsg (upstream's literal 32). */
export const PRINT_MSG_PULL_BATCH = 32;
/** consumeMessage's -c default (upstream ConsumeMessageCommand.messageCount). */
export const CONSUME_MESSAGE_DEFAULT_COUNT = 128;
/** The line printMsg ends each queue with. */
const QUEUE_SEPARATOR = `${'-'.repeat(56)}\n`;
/** Java's Integer.MAX_VALUE: upstream casts consumeMessage's batch size to an int. */
const JAVA_INT_MAX = 0x7fffffff;

/**
 * Upstream's timestampFormat of printMsg and consumeMessage: milliseconds, else
 * `yyyy-MM-dd#HH:mm:ss:SSS` in local time.
 */
export function timestampFormat(value: string, flag: string): number {
  if (/^[+-]?\d+$/.test(value)) return Number(value);
  const ms = parseMqadminDate(value);
  if (ms === undefined)
    throw new AdminUsageError(
      `-${flag}: expected currentTimeMillis or yyyy-MM-dd#HH:mm:ss:SSS, got ${value}`,
    );
  return ms;
}

/** printMsg's and consumeMessage's begin and end options, read by timestampFormat. */
function timestampOption(short: string, long: string, what: 'Begin' | 'End'): AdminOption {
  return { short, long, arg: true, desc: `${what} timestamp[currentTimeMillis|yyyy-MM-dd#HH:mm:ss:SSS]` };
}

/** `new String(body, charsetName)`: a charset Java and the WHATWG decoder both know; else a usage error. */
export function charsetDecoder(charsetName: string): (body: Buffer) => string {
  let decoder: InstanceType<typeof TextDecoder>;
  try {
    // Java keeps a UTF-8 byte order mark in the string; so does ignoreBOM.
    decoder = new TextDecoder(charsetName, { ignoreBOM: true });
  } catch {
    throw new AdminUsageError(`-c: unsupported charset ${charsetName}`);
  }
  return (body) => decoder.decode(body);
}

/** InetSocketAddress.toString of an address without a host name. */
const inetString = (h: HostAddress): string => `/${h.address}:${h.port}`;

/** Arrays.toString(byte[]): signed bytes. */
export function javaBytes(body: Uint8Array): string {
  return `[${Array.from(body, (b) => (b > 127 ? b - 256 : b)).join(', ')}]`;
}

/** MessageExt.toString (with Message.toString inside), which printMsg and consumeMessage print. */
export function messageExtString(msg: MessageExt): string {
  const message =
    `Message{topic='${msg.topic}', flag=${msg.flag}, properties=${javaMap(javaPropertiesOrder(msg.properties))}, ` +
    `body=${javaBytes(msg.body)}, transactionId='${msg.transactionId ?? 'null'}'}`;
  return (
    `MessageExt [brokerName=${msg.brokerName ?? 'null'}, queueId=${msg.queueId}, storeSize=${msg.storeSize}, ` +
    `queueOffset=${msg.queueOffset}, sysFlag=${msg.sysFlag}, bornTimestamp=${msg.bornTimestamp}, ` +
    `bornHost=${inetString(msg.bornHost)}, storeTimestamp=${msg.storeTimestamp}, storeHost=${inetString(msg.storeHost)}, ` +
    `msgId=${msg.offsetMsgId}, commitLogOffset=${msg.commitLogOffset}, bodyCRC=${msg.bodyCRC}, ` +
    `reconsumeTimes=${msg.reconsumeTimes}, preparedTransactionOffset=${msg.preparedTransactionOffset}, ` +
    `toString()=${message}]`
  );
}

/** `MSGID: <msgId> <MessageExt> BODY: <body>`, one line per message. */
export function printMessageLine(msg: MessageExt, body: string | undefined): string {
  return `MSGID: ${msg.msgId} ${messageExtString(msg)} BODY: ${body ?? 'NOT PRINT BODY'}\n`;
}

/** The --json form of one pulled message: MessageExt's fields, the body as text when printed. */
function pulledFacts(msg: MessageExt, body: string | undefined) {
  return {
    msgId: msg.msgId,
    offsetMsgId: msg.offsetMsgId,
    topic: msg.topic,
    brokerName: msg.brokerName,
    queueId: msg.queueId,
    queueOffset: msg.queueOffset,
    commitLogOffset: msg.commitLogOffset,
    storeSize: msg.storeSize,
    sysFlag: msg.sysFlag,
    flag: msg.flag,
    bornTimestamp: msg.bornTimestamp,
    bornHost: `${msg.bornHost.address}:${msg.bornHost.port}`,
    storeTimestamp: msg.storeTimestamp,
    storeHost: `${msg.storeHost.address}:${msg.storeHost.port}`,
    bodyCRC: msg.bodyCRC,
    reconsumeTimes: msg.reconsumeTimes,
    preparedTransactionOffset: msg.preparedTransactionOffset,
    transactionId: msg.transactionId,
    properties: msg.properties,
    body,
  };
}

/** One queue as --json reports it: the range read, the messages, and how the reading ended. */
interface QueueReport {
  topic: string;
  brokerName: string;
  queueId: number;
  minOffset: bigint;
  maxOffset: bigint;
  messages: ReturnType<typeof pulledFacts>[];
  status?: PullStatus;
  nextOffset?: bigint;
}

function queueReport(mq: MessageQueue, minOffset: bigint, maxOffset: bigint): QueueReport {
  return {
    topic: mq.topic,
    brokerName: mq.brokerName,
    queueId: mq.queueId,
    minOffset,
    maxOffset,
    messages: [],
  };
}

/**
 * The consumer's own log: errors only (RMQ_LOG_LEVEL still rules when set). Its rebalancing of the
 * topic pulled (upstream's subscriptionAutomatically) warns while the broker learns of the group.
 */
function consumerLogger() {
  return process.env.RMQ_LOG_LEVEL === undefined
    ? createLogger('client', { level: 'error' })
    : createLogger('client');
}

/**
 * Runs `fn` with a started pull consumer of `group`, shut down afterwards. The consumer keeps a
 * failed route lookup to its log; when `fn` fails, the admin's lookup of `topic` says why (a dead
 * name server, an unknown topic) if it fails too.
 */
async function withPullConsumer<T>(
  ctx: CommandContext,
  group: string,
  topic: string,
  fn: (consumer: PullConsumer) => Promise<T>,
): Promise<T> {
  const consumer = createPullConsumer({
    ...ctx.clientOptions(),
    consumerGroup: group,
    logger: consumerLogger(),
  });
  await consumer.start();
  try {
    return await fn(consumer);
  } catch (error) {
    await (await ctx.admin()).examineTopicRouteInfo(topic);
    throw error;
  } finally {
    await consumer.shutdown();
  }
}

/** Prints unless --json, where the reports are printed at the end instead. */
function textOut(ctx: CommandContext): (text: string) => void {
  return (text) => {
    if (!ctx.json) ctx.io.out(text);
  };
}

/**
 * Records one pull of printMsg's or consumeMessage's reading of `mq` (pulled from `offset`) and
 * prints what it found; `body` is a message's body as printed. Returns whether to pull again:
 * upstream's loop ends on any status but FOUND and NO_MATCHED_MSG.
 */
function recordPull(
  out: (text: string) => void,
  mq: MessageQueue,
  report: QueueReport,
  offset: bigint,
  r: PullResult,
  body: (msg: MessageExt) => string | undefined,
): boolean {
  report.status = r.pullStatus;
  report.nextOffset = r.nextBeginOffset;
  if (r.pullStatus === PullStatus.FOUND) {
    for (const msg of r.msgFoundList) {
      const text = body(msg);
      report.messages.push(pulledFacts(msg, text));
      out(printMessageLine(msg, text));
    }
  } else if (r.pullStatus === PullStatus.NO_MATCHED_MSG) {
    out(`${mq} no matched msg. status=${r.pullStatus}, offset=${r.nextBeginOffset}\n`);
  } else {
    out(`${mq} print msg finished. status=${r.pullStatus}, offset=${r.nextBeginOffset}\n`);
    return false;
  }
  // A broker that answers without moving on would keep the loop going forever.
  return r.nextBeginOffset > offset;
}

/** The topic's readable queues in a stable order (upstream walks a HashSet). */
async function topicQueues(consumer: PullConsumer, topic: string): Promise<MessageQueue[]> {
  return (await consumer.fetchSubscribeMessageQueues(topic)).sort(compareQueues);
}

export const queryMsgByOffset: AdminCommand = {
  name: 'queryMsgByOffset',
  desc: 'Query Message by offset',
  read: true,
  options: [
    { short: 't', long: 'topic', arg: true, required: true, desc: 'topic name' },
    { short: 'b', long: 'brokerName', arg: true, required: true, desc: 'Broker Name' },
    { short: 'i', long: 'queueId', arg: true, required: true, desc: 'Queue Id' },
    { short: 'o', long: 'offset', arg: true, required: true, desc: 'Queue Offset' },
  ],
  async run(ctx) {
    const { opts, io, json } = ctx;
    const mq = new MessageQueue(
      opts.required('topic'),
      opts.required('brokerName'),
      opts.integer('queueId', 0, 0, JAVA_INT_MAX),
    );
    const offset = opts.integer('offset', 0, 0);
    const result = await withPullConsumer(ctx, MixAll.TOOLS_CONSUMER_GROUP, mq.topic, (c) =>
      c.pull(mq, '*', offset, 1),
    );
    const msg = result.pullStatus === PullStatus.FOUND ? result.msgFoundList[0] : undefined;
    if (msg !== undefined) {
      printMessageDetail(ctx, msg, true);
      return;
    }
    // As upstream, nothing on stdout (null with --json); the reason goes to stderr.
    if (json) io.out('null\n');
    io.err(`no message at offset ${offset} of ${mq}: ${result.pullStatus}\n`);
  },
};

export const printMsg: AdminCommand = {
  name: 'printMsg',
  desc: 'Print Message Detail',
  read: true,
  options: [
    { short: 't', long: 'topic', arg: true, required: true, desc: 'topic name' },
    { short: 'c', long: 'charsetName', arg: true, desc: 'CharsetName(eg: UTF-8,GBK)' },
    { short: 's', long: 'subExpression', arg: true, desc: 'Subscribe Expression(eg: TagA || TagB)' },
    timestampOption('b', 'beginTimestamp', 'Begin'),
    timestampOption('e', 'endTimestamp', 'End'),
    { short: 'd', long: 'printBody', arg: true, desc: 'print body' },
  ],
  async run(ctx) {
    const { opts, io, json } = ctx;
    const topic = opts.required('topic');
    const decode = charsetDecoder(opts.text('charsetName') ?? 'UTF-8');
    const expression = opts.text('subExpression') ?? '*';
    const printBody = opts.bool('printBody', true);
    const begin = opts.text('beginTimestamp');
    const end = opts.text('endTimestamp');
    const beginMs = begin === undefined ? undefined : timestampFormat(begin, 'b');
    const endMs = end === undefined ? undefined : timestampFormat(end, 'e');
    const out = textOut(ctx);
    const body = (msg: MessageExt) => (printBody ? decode(msg.body) : undefined);
    const reports: QueueReport[] = [];
    await withPullConsumer(ctx, MixAll.TOOLS_CONSUMER_GROUP, topic, async (c) => {
      for (const mq of await topicQueues(c, topic)) {
        const minOffset = beginMs === undefined ? await c.minOffset(mq) : await c.searchOffset(mq, beginMs);
        const maxOffset = endMs === undefined ? await c.maxOffset(mq) : await c.searchOffset(mq, endMs);
        const report = queueReport(mq, minOffset, maxOffset);
        reports.push(report);
        out(`minOffset=${minOffset}, maxOffset=${maxOffset}, ${mq}\n`);
        for (let offset = minOffset; offset < maxOffset; ) {
          const r = await c.pull(mq, expression, offset, PRINT_MSG_PULL_BATCH);
          const again = recordPull(out, mq, report, offset, r, body);
          offset = r.nextBeginOffset;
          if (!again) break;
        }
        out(QUEUE_SEPARATOR);
      }
    });
    if (json) io.out(toJson(reports));
  },
};

/** Upstream's ConsumeType of consumeMessage: the whole topic, one queue, one queue from an offset. */
export type ConsumeMessageMode = 'DEFAULT' | 'BYQUEUE' | 'BYOFFSET';

export interface ConsumeMessagePlan {
  readonly mode: ConsumeMessageMode;
  readonly topic: string;
  readonly brokerName: string | undefined;
  readonly queueId: number;
  readonly offset: bigint;
  /** 0 when not given (upstream's "not set"). */
  readonly beginMs: number;
  readonly endMs: number;
  readonly messageCount: bigint;
}

/** consumeMessage's checks, in upstream's order and with its messages; a usage error when one fails. */
export function planConsumeMessage(opts: CommandContext['opts'], now: number): ConsumeMessagePlan {
  const topic = opts.required('topic');
  let messageCount = BigInt(CONSUME_MESSAGE_DEFAULT_COUNT);
  if (opts.has('MessageNumber')) {
    messageCount = BigInt(opts.integer('MessageNumber', CONSUME_MESSAGE_DEFAULT_COUNT));
    if (messageCount <= 0n) throw new AdminUsageError('Please input a positive messageNumber!');
  }
  const brokerName = opts.text('brokerName');
  let mode: ConsumeMessageMode = 'DEFAULT';
  let queueId = 0;
  if (opts.has('queueId')) {
    if (!opts.has('brokerName')) throw new AdminUsageError('Please set the brokerName before queueId!');
    queueId = opts.integer('queueId', 0, 0, JAVA_INT_MAX);
    mode = 'BYQUEUE';
  }
  let offset = 0n;
  if (opts.has('offset')) {
    if (mode !== 'BYQUEUE') throw new AdminUsageError('Please set queueId before offset!');
    offset = BigInt(opts.integer('offset', 0));
    mode = 'BYOFFSET';
  }
  let beginMs = 0;
  const begin = opts.text('beginTimestamp');
  if (begin !== undefined) {
    beginMs = timestampFormat(begin, 's');
    if (beginMs > now) throw new AdminUsageError('Please set the beginTimestamp before now!');
  }
  let endMs = 0;
  const end = opts.text('endTimestamp');
  if (end !== undefined) {
    endMs = timestampFormat(end, 'e');
    if (endMs > now) throw new AdminUsageError('Please set the endTimestamp before now!');
    if (beginMs > endMs) {
      throw new AdminUsageError(
        'Please make sure that the beginTimestamp is less than or equal to the endTimestamp',
      );
    }
  }
  return { mode, topic, brokerName, queueId, offset, beginMs, endMs, messageCount };
}

/** Prints (or collects) consumeMessage's reading of one queue, offsets `minOffset` to `maxOffset` inclusive. */
async function pullMessageByQueue(
  ctx: CommandContext,
  c: PullConsumer,
  mq: MessageQueue,
  report: QueueReport,
): Promise<void> {
  const out = textOut(ctx);
  const decode = charsetDecoder('UTF-8');
  for (let offset = report.minOffset; offset <= report.maxOffset; ) {
    const batch = report.maxOffset - offset + 1n;
    const r = await c.pull(mq, '*', offset, Number(batch > BigInt(JAVA_INT_MAX) ? JAVA_INT_MAX : batch));
    if (r.pullStatus === PullStatus.FOUND) out('Consume ok\n');
    const again = recordPull(out, mq, report, offset, r, (msg) => decode(msg.body));
    offset = r.nextBeginOffset;
    if (!again) break;
  }
}

/** The offsets of `mq` to read: its min and max, or where the timestamps fall when given. */
async function queueRange(c: PullConsumer, mq: MessageQueue, plan: ConsumeMessagePlan) {
  const minOffset = plan.beginMs > 0 ? await c.searchOffset(mq, plan.beginMs) : await c.minOffset(mq);
  const maxOffset = plan.endMs > 0 ? await c.searchOffset(mq, plan.endMs) : await c.maxOffset(mq);
  return { minOffset, maxOffset };
}

export const consumeMessage: AdminCommand = {
  name: 'consumeMessage',
  desc: 'Consume message',
  read: true,
  options: [
    { short: 't', long: 'topic', arg: true, required: true, desc: 'Topic name' },
    { short: 'b', long: 'brokerName', arg: true, desc: 'Broker name' },
    { short: 'i', long: 'queueId', arg: true, desc: 'Queue Id' },
    { short: 'o', long: 'offset', arg: true, desc: 'Queue offset' },
    { short: 'g', long: 'consumerGroup', arg: true, desc: 'Consumer group name' },
    timestampOption('s', 'beginTimestamp', 'Begin'),
    timestampOption('e', 'endTimestamp', 'End'),
    { short: 'c', long: 'MessageNumber', arg: true, desc: 'Number of message to be consumed' },
  ],
  async run(ctx) {
    const { opts, io, json } = ctx;
    const plan = planConsumeMessage(opts, Date.now());
    const out = textOut(ctx);
    const reports: QueueReport[] = [];
    const group = opts.text('consumerGroup') ?? MixAll.TOOLS_CONSUMER_GROUP;
    await withPullConsumer(ctx, group, plan.topic, async (c) => {
      if (plan.mode === 'DEFAULT') {
        // -b without -i changes nothing, as upstream: the whole topic is read.
        let countLeft = plan.messageCount;
        for (const mq of await topicQueues(c, plan.topic)) {
          if (countLeft === 0n) return;
          let { minOffset, maxOffset } = await queueRange(c, mq, plan);
          // Upstream's arithmetic, kept so the same command reads the same messages: a queue read to
          // its end costs one more than it holds.
          if (maxOffset - minOffset > countLeft) {
            out(`The older ${countLeft} message of the ${mq.queueId} queue will be provided\n`);
            maxOffset = minOffset + countLeft - 1n;
            countLeft = 0n;
          } else {
            countLeft = countLeft - (maxOffset - minOffset) - 1n;
          }
          const report = queueReport(mq, minOffset, maxOffset);
          reports.push(report);
          await pullMessageByQueue(ctx, c, mq, report);
        }
        return;
      }
      const mq = new MessageQueue(plan.topic, plan.brokerName as string, plan.queueId);
      let { minOffset, maxOffset } = await queueRange(c, mq, plan);
      if (plan.offset > maxOffset) {
        out(`${mq} no matched msg, offset=${plan.offset}\n`);
        reports.push(queueReport(mq, plan.offset, maxOffset));
        return;
      }
      if (plan.offset > minOffset) minOffset = plan.offset;
      if (maxOffset - minOffset > plan.messageCount) {
        // "oldler" is upstream's spelling.
        out(`The oldler ${plan.messageCount} message will be provided\n`);
        maxOffset = minOffset + plan.messageCount - 1n;
      }
      const report = queueReport(mq, minOffset, maxOffset);
      reports.push(report);
      await pullMessageByQueue(ctx, c, mq, report);
    });
    if (json) io.out(toJson(reports));
  },
};
