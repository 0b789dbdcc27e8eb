/**
 * mqadmin's consumerStatus: the running info of a group's consumers (GET_CONSUMER_RUNNING_INFO,
 * relayed by the broker to each client). With -i one client's info in ConsumerRunningInfo's
 * formatString layout; without, every member's, each written to `<now>/<clientId>` under the
 * current directory as upstream does (the client id made a safe file name, see safe-file.ts), then upstream's analysis of the group.
 */
import { basename, join } from 'node:path';
import type { ConsumerRunningInfo, MQAdminExt } from '../../admin/mq-admin-ext.js';
import type { MessageQueue } from '../../common/message/message-queue.js';
import { ConsumerRunningInfoProp } from '../../common/protocol/consumer-running-info.js';
import { ConsumeType } from '../../common/protocol/heartbeat-data.js';
import type { ProcessQueueInfo } from '../../common/protocol/process-queue-info.js';
import type { AdminCommand } from './command.js';
import { fixed, left, right, toJson } from './format.js';
import { versionDesc } from './group-commands.js';
import { writeFileInside } from './safe-file.js';

/** A push group whose first member started longer ago than this has its subscriptions compared. */
export const SUBSCRIPTION_CHECK_AFTER_START_MS = 2 * 60 * 1000;
/** A concurrently consuming queue holding messages with no consumption for this long is reported. */
export const CONSUME_BLOCKED_AFTER_MS = 60 * 1000;

const two = (n: number): string => String(n).padStart(2, '0');

/** UtilAll.timeMillisToHumanString: yyyyMMddHHmmssSSS in local time. */
export function timeMillisToHumanString(ms: bigint | number): string {
  const d = new Date(Number(ms));
  return (
    `${String(d.getFullYear()).padStart(4, '0')}${two(d.getMonth() + 1)}${two(d.getDate())}` +
    `${two(d.getHours())}${two(d.getMinutes())}${two(d.getSeconds())}${String(d.getMilliseconds()).padStart(3, '0')}`
  );
}

/** ProcessQueueInfo.toString. */
export function processQueueInfoString(pq: ProcessQueueInfo): string {
  return (
    `ProcessQueueInfo [commitOffset=${pq.commitOffset}, cachedMsgMinOffset=${pq.cachedMsgMinOffset}, ` +
    `cachedMsgMaxOffset=${pq.cachedMsgMaxOffset}, cachedMsgCount=${pq.cachedMsgCount}, ` +
    `cachedMsgSizeInMiB=${pq.cachedMsgSizeInMiB}, transactionMsgMinOffset=${pq.transactionMsgMinOffset}, ` +
    `transactionMsgMaxOffset=${pq.transactionMsgMaxOffset}, transactionMsgCount=${pq.transactionMsgCount}, ` +
    `locked=${pq.locked}, tryUnlockTimes=${pq.tryUnlockTimes}, ` +
    `lastLockTimestamp=${timeMillisToHumanString(pq.lastLockTimestamp)}, droped=${pq.droped}, ` +
    `lastPullTimestamp=${timeMillisToHumanString(pq.lastPullTimestamp)}, ` +
    `lastConsumeTimestamp=${timeMillisToHumanString(pq.lastConsumeTimestamp)}]`
  );
}

/** ConsumerRunningInfo.formatString: properties, subscriptions, offsets, queue details, RT and TPS. */
export function consumerRunningInfoString(info: ConsumerRunningInfo): string {
  let s = '#Consumer Properties#\n';
  for (const [k, v] of info.properties) s += `${left(k, 40)}: ${v}\n`;
  s += '\n\n#Consumer Subscription#\n';
  info.subscriptionSet.forEach((sd, i) => {
    s += `${String(i + 1).padStart(3, '0')} Topic: ${left(sd.topic, 40)} ClassFilter: ${left(sd.classFilterMode, 8)} SubExpression: ${sd.subString}\n`;
  });
  s += '\n\n#Consumer Offset#\n';
  s += `${left('#Topic', 64)}  ${left('#Broker Name', 32)}  ${left('#QID', 4)}  ${left('#Consumer Offset', 20)}\n`;
  // The rows' topic column is 32 wide under a 64-wide header: upstream's layout.
  for (const [mq, pq] of info.mqTable) {
    s += `${left(mq.topic, 32)}  ${left(mq.brokerName, 32)}  ${left(mq.queueId, 4)}  ${left(pq.commitOffset, 20)}\n`;
  }
  s += '\n\n#Consumer MQ Detail#\n';
  s += `${left('#Topic', 64)}  ${left('#Broker Name', 32)}  ${left('#QID', 4)}  ${left('#ProcessQueueInfo', 20)}\n`;
  for (const [mq, pq] of info.mqTable) {
    s += `${left(mq.topic, 64)}  ${left(mq.brokerName, 32)}  ${left(mq.queueId, 4)}  ${processQueueInfoString(pq)}\n`;
  }
  s += '\n\n#Consumer RT&TPS#\n';
  s +=
    `${left('#Topic', 64)}  ${right('#Pull RT', 14)} ${right('#Pull TPS', 14)} ${right('#Consume RT', 14)} ` +
    `${right('#ConsumeOK TPS', 14)} ${right('#ConsumeFailed TPS', 18)} ${right('#ConsumeFailedMsgsInHour', 25)}\n`;
  for (const [topic, st] of info.statusTable) {
    s +=
      `${left(topic, 32)}  ${right(fixed(st.pullRT, 2), 14)} ${right(fixed(st.pullTPS, 2), 14)} ` +
      `${right(fixed(st.consumeRT, 2), 14)} ${right(fixed(st.consumeOKTPS, 2), 14)} ` +
      `${right(fixed(st.consumeFailedTPS, 2), 18)} ${right(st.consumeFailedMsgs, 25)}\n`;
  }
  if (info.jstack !== undefined) s += `\n\n#Consumer jstack#\n${info.jstack}`;
  return s;
}

const isPush = (info: ConsumerRunningInfo): boolean =>
  info.properties.get(ConsumerRunningInfoProp.PROP_CONSUME_TYPE) === ConsumeType.CONSUME_PASSIVELY;

/**
 * ConsumerRunningInfo.analyzeSubscription over the members sorted by client id: false when a push
 * group running for a while has members with different subscriptions (or none). A group younger
 * than SUBSCRIPTION_CHECK_AFTER_START_MS (by its first member) always passes, as upstream.
 */
export function analyzeSubscription(
  criTable: ReadonlyArray<readonly [string, ConsumerRunningInfo]>,
  now: number,
): boolean {
  const first = criTable[0]?.[1];
  if (first === undefined) return true;
  const started = Number(first.properties.get(ConsumerRunningInfoProp.PROP_CONSUMER_START_TIMESTAMP));
  const startForAWhile = Number.isFinite(started) && now - started > SUBSCRIPTION_CHECK_AFTER_START_MS;
  if (!isPush(first) || !startForAWhile) return true;
  // TreeSet equality: the same `topic@subString` entries.
  const key = (info: ConsumerRunningInfo): string =>
    info.subscriptionSet.map((sd) => `${sd.topic}@${sd.subString}`).join('\n');
  const expected = key(first);
  if (criTable.some(([, info]) => key(info) !== expected)) return false;
  return first.subscriptionSet.length > 0;
}

/** ConsumerRunningInfo.analyzeProcessQueue: one line per queue that looks stuck. */
export function analyzeProcessQueue(clientId: string, info: ConsumerRunningInfo, now: number): string {
  if (!isPush(info)) return '';
  const orderly = info.properties.get(ConsumerRunningInfoProp.PROP_CONSUME_ORDERLY)?.toLowerCase() === 'true';
  let s = '';
  for (const [mq, pq] of info.mqTable) {
    if (orderly) {
      if (!pq.locked) {
        s += `${clientId} ${mq} can't lock for a while, ${now - Number(pq.lastLockTimestamp)}ms\n`;
      } else if (pq.droped && pq.tryUnlockTimes > 0n) {
        s += `${clientId} ${mq} unlock ${pq.tryUnlockTimes} times, still failed\n`;
      }
    } else {
      const diff = now - Number(pq.lastConsumeTimestamp);
      if (diff > CONSUME_BLOCKED_AFTER_MS && pq.cachedMsgCount > 0) {
        s += `${clientId} ${mq} can't consume for a while, maybe blocked, ${diff}ms\n`;
      }
    }
  }
  return s;
}

/** The --json form of a running info: Java's bean fields, the queue table as rows. */
function runningInfoFacts(info: ConsumerRunningInfo) {
  return {
    properties: info.properties,
    subscriptionSet: info.subscriptionSet,
    mqTable: info.mqTable.map(([mq, pq]: [MessageQueue, ProcessQueueInfo]) => ({
      topic: mq.topic,
      brokerName: mq.brokerName,
      queueId: mq.queueId,
      ...pq,
    })),
    statusTable: info.statusTable,
    jstack: info.jstack,
  };
}

async function runningInfos(
  a: MQAdminExt,
  group: string,
  clientIds: readonly string[],
  jstack: boolean,
  onError: (clientId: string, error: unknown) => void,
): Promise<Array<[string, ConsumerRunningInfo]>> {
  const out: Array<[string, ConsumerRunningInfo]> = [];
  for (const clientId of clientIds) {
    try {
      out.push([clientId, await a.getConsumerRunningInfo(group, clientId, jstack)]);
    } catch (error) {
      onError(clientId, error);
    }
  }
  return out;
}

export const consumerStatus: AdminCommand = {
  name: 'consumerStatus',
  desc: "Query consumer's internal data structure",
  read: true,
  options: [
    { short: 'g', long: 'consumerGroup', arg: true, required: true, desc: 'consumer group name' },
    { short: 'i', long: 'clientId', arg: true, desc: "The consumer's client id" },
    { short: 'b', long: 'brokerAddr', arg: true, desc: 'broker address' },
    { short: 's', long: 'jstack', arg: false, desc: 'Run jstack command in the consumer progress' },
  ],
  async run({ opts, io, json, admin, setExitCode }) {
    const a = await admin();
    const group = opts.required('consumerGroup');
    const jstack = opts.has('jstack');
    // As upstream, the group must be online even when -i names the client.
    const cc = await a.examineConsumerConnectionInfo(group, opts.text('brokerAddr'));
    const clientId = opts.text('clientId');
    if (clientId !== undefined) {
      const info = await a.getConsumerRunningInfo(group, clientId, jstack);
      io.out(json ? toJson(runningInfoFacts(info)) : consumerRunningInfoString(info));
      return;
    }
    const now = Date.now();
    const versions = new Map(cc.connectionSet.map((c) => [c.clientId, c.version]));
    const ids = [...versions.keys()].sort();
    const criTable = await runningInfos(a, group, ids, jstack, (id, error) => {
      // As upstream, one member failing does not stop the others; the exit code says so.
      io.err(`rmq admin consumerStatus: ${id}: ${error instanceof Error ? error.message : String(error)}\n`);
      setExitCode(1);
    });
    const clients = criTable.map(([id, info], i) => {
      // The client id is the consumer's own choice: a safe name inside <cwd>/<now>/.
      const path = writeFileInside(join(process.cwd(), String(now)), id, consumerRunningInfoString(info));
      const file = `${now}/${basename(path)}`;
      return { index: i + 1, clientId: id, version: versionDesc(versions.get(id) ?? 0), file, info };
    });
    const subscriptionSame = criTable.length === 0 ? undefined : analyzeSubscription(criTable, now);
    const rebalanceOK = subscriptionSame;
    const warnings = subscriptionSame
      ? criTable.map(([id, info]) => analyzeProcessQueue(id, info, now)).filter((w) => w !== '')
      : [];
    if (json) {
      io.out(
        toJson({
          clients: clients.map(({ info, ...c }) => ({ ...c, runningInfo: runningInfoFacts(info) })),
          subscriptionSame,
          rebalanceOK,
          warnings: warnings.flatMap((w) => w.trimEnd().split('\n')),
        }),
      );
      return;
    }
    io.out(
      `${left('#Index', 10)} ${left('#ClientId', 40)} ${left('#Version', 20)} #ConsumerRunningInfoFile\n`,
    );
    for (const c of clients) {
      io.out(`${left(c.index, 10)} ${left(c.clientId, 40)} ${left(c.version, 20)} ${c.file}\n`);
    }
    if (subscriptionSame === undefined) return;
    if (!subscriptionSame) {
      io.out('\n\nWARN: Different subscription in the same group of consumer!!!');
      return;
    }
    io.out('\n\nSame subscription in the same group of consumer');
    io.out(`\n\nRebalance ${rebalanceOK ? 'OK' : 'Failed'}\n`);
    for (const w of warnings) io.out(w);
  },
};
