/** mqadmin's message lookups: queryMsgByKey, queryMsgById, queryMsgByUniqueKey. */
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { HostAddress } from '../../common/message/host.js';
import type { MessageExt } from '../../common/message/message.js';
import type { AdminCommand, CommandContext } from './command.js';
import { javaMap, left, right, timeMillisToHumanString2, toJson } from './format.js';
import { writeFileInside } from './safe-file.js';

/** Upstream's QueryResult size of queryMsgByKey. */
export const QUERY_MSG_BY_KEY_MAX_NUM = 64;
/** Long.MAX_VALUE: the end of the time range queryMsgByKey searches. */
const JAVA_LONG_MAX = 0x7fffffffffffffffn;
/** Where upstream writes each message's body (/tmp/rocketmq/msgbodys/<msgId>). */
export const MSG_BODY_DIR = join(tmpdir(), 'rocketmq', 'msgbodys');

const hostString = (h: HostAddress): string => `${h.address}:${h.port}`;

/** The facts printMsg shows, for --json. */
function messageFacts(msg: MessageExt, bodyPath: string | undefined) {
  return {
    msgId: msg.msgId,
    offsetMsgId: msg.offsetMsgId,
    topic: msg.topic,
    tags: msg.properties.get('TAGS'),
    keys: msg.properties.get('KEYS'),
    queueId: msg.queueId,
    queueOffset: msg.queueOffset,
    commitLogOffset: msg.commitLogOffset,
    reconsumeTimes: msg.reconsumeTimes,
    bornTimestamp: msg.bornTimestamp,
    storeTimestamp: msg.storeTimestamp,
    bornHost: hostString(msg.bornHost),
    storeHost: hostString(msg.storeHost),
    sysFlag: msg.sysFlag,
    properties: msg.properties,
    bodyPath,
  };
}

/** Upstream's printMsg without the consume track (see docs/operations-admin.md). */
export function printMsg(ctx: CommandContext, msg: MessageExt, withOffsetId: boolean): void {
  // msgId is the producer's UNIQ_KEY: a peer's value, so it is made a safe name inside the dir.
  const bodyPath = writeFileInside(MSG_BODY_DIR, msg.msgId, msg.body);
  if (ctx.json) {
    ctx.io.out(toJson(messageFacts(msg, bodyPath)));
    return;
  }
  const line = (k: string, v: unknown): void => ctx.io.out(`${left(k, 20)} ${String(v)}\n`);
  // queryMsgByUniqueKey's layout starts at the topic.
  if (withOffsetId) line('OffsetID:', msg.offsetMsgId);
  line('Topic:', msg.topic);
  line('Tags:', `[${msg.properties.get('TAGS') ?? 'null'}]`);
  line('Keys:', `[${msg.properties.get('KEYS') ?? 'null'}]`);
  line('Queue ID:', msg.queueId);
  line('Queue Offset:', msg.queueOffset);
  line('CommitLog Offset:', msg.commitLogOffset);
  line('Reconsume Times:', msg.reconsumeTimes);
  line('Born Timestamp:', timeMillisToHumanString2(msg.bornTimestamp));
  line('Store Timestamp:', timeMillisToHumanString2(msg.storeTimestamp));
  line('Born Host:', hostString(msg.bornHost));
  line('Store Host:', hostString(msg.storeHost));
  line('System Flag:', msg.sysFlag);
  line('Properties:', javaMap(msg.properties));
  line('Message Body Path:', bodyPath);
}

export const queryMsgByKey: AdminCommand = {
  name: 'queryMsgByKey',
  desc: 'Query Message by Key',
  read: true,
  options: [
    { short: 't', long: 'topic', arg: true, required: true, desc: 'topic name' },
    { short: 'k', long: 'msgKey', arg: true, required: true, desc: 'Message Key' },
  ],
  async run({ opts, io, json, admin }) {
    const result = await (await admin()).queryMessage(
      opts.required('topic'),
      opts.required('msgKey'),
      QUERY_MSG_BY_KEY_MAX_NUM,
      0n,
      JAVA_LONG_MAX,
    );
    if (json) {
      io.out(
        toJson(
          result.messageList.map((m) => ({ msgId: m.msgId, queueId: m.queueId, queueOffset: m.queueOffset })),
        ),
      );
      return;
    }
    io.out(`${left('#Message ID', 50)} ${right('#QID', 4)} ${right('#Offset', 40)}\n`);
    for (const m of result.messageList)
      io.out(`${left(m.msgId, 50)} ${right(m.queueId, 4)} ${right(m.queueOffset, 40)}\n`);
  },
};

export const queryMsgById: AdminCommand = {
  name: 'queryMsgById',
  desc: 'Query Message by Id',
  read: true,
  options: [{ short: 'i', long: 'msgId', arg: true, required: true, desc: 'Message Id' }],
  async run(ctx) {
    const a = await ctx.admin();
    for (const id of ctx.opts
      .required('msgId')
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s !== '')) {
      printMsg(ctx, await a.viewMessage(id), true);
    }
  },
};

export const queryMsgByUniqueKey: AdminCommand = {
  name: 'queryMsgByUniqueKey',
  desc: 'Query Message by Unique key',
  read: true,
  options: [
    { short: 'i', long: 'msgId', arg: true, required: true, desc: 'Message Id' },
    { short: 't', long: 'topic', arg: true, required: true, desc: 'The topic of msg' },
  ],
  async run(ctx) {
    const a = await ctx.admin();
    printMsg(
      ctx,
      await a.queryMessageByUniqKey(ctx.opts.required('topic'), ctx.opts.required('msgId')),
      false,
    );
  },
};
