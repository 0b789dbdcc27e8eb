/**
 * Figures of the broker's consumption services, all against an in-process broker over a temp store,
 * talked to over real TCP with a RemotingClient. Prints figures; it is not a test.
 *
 * 1. Delay-level accuracy: delayed messages (DELAY=1, level 1 = 1 s) sent with SEND_MESSAGE at a
 *    steady rate, read back by long-polling PULL_MESSAGE loops. Lateness = arrival - (store time in
 *    SCHEDULE_TOPIC_XXXX + 1 s), split into the scheduler's part (re-stored - due) and the pull's part
 *    (arrival - re-stored). A control stream of plain messages sent at the same time shows what the
 *    pull path alone costs (arrival - store time).
 * 2. SQL92 filter cost: a 3-clause expression over messages with 10 properties, evaluated by the
 *    compiled expression on decoded properties, and by the pull path's ExpressionMessageFilter on the
 *    stored records (which decodes the properties of every record).
 * 3. Retry throughput: CONSUMER_SEND_MSG_BACK of a batch of stored messages, concurrently, against
 *    plain SEND_MESSAGE of the same messages at the same concurrency; then how fast the
 *    ScheduleMessageService re-delivers a backlog of due retry messages (the broker is stopped until
 *    they are all due and started again), against the store's own put rate in the same process.
 *
 *   node <build>/scripts/bench-consume.js [--rate 1000] [--seconds 5] [--messages 20000]
 *     [--concurrency 64] [--filter-seconds 2] [--dir D]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrokerConfigOverrides, systemEnvironment } from '../src/broker/broker-config.js';
import { type BrokerController, createBroker } from '../src/broker/broker-controller.js';
import { PullSysFlag } from '../src/common/constants.js';
import { createLogger } from '../src/common/logger.js';
import { decodeOffsetMsgId } from '../src/common/message/message-id.js';
import { messageProperties2String } from '../src/common/message/properties.js';
import { decodeMessages } from '../src/common/message/stored-format.js';
import { tagsString2tagsCode } from '../src/common/message/tag-hash.js';
import { createSubscriptionGroupConfig } from '../src/common/protocol/subscription-group-config.js';
import { createTopicConfig } from '../src/common/protocol/topic-config.js';
import { build, ExpressionMessageFilter, parseSql92, readRecordProperties } from '../src/filter/index.js';
import { createRequest, type RemotingCommand } from '../src/remoting/protocol/command.js';
import { decodeHeader, encodeHeader } from '../src/remoting/protocol/header-schema.js';
import { ConsumerSendMsgBackRequestHeader } from '../src/remoting/protocol/headers/consumer-send-msg-back-request-header.js';
import {
  PullMessageRequestHeader,
  PullMessageResponseHeader,
  SendMessageRequestHeader,
  SendMessageResponseHeader,
} from '../src/remoting/protocol/headers/index.js';
import { RequestCode } from '../src/remoting/protocol/request-code.js';
import { ResponseCode } from '../src/remoting/protocol/response-code.js';
import { RemotingClient } from '../src/remoting/transport/index.js';
import type { MessageFilter } from '../src/store/message-store.js';
import type { MessageExtBrokerInner } from '../src/store/stored-record-writer.js';

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  const v = i >= 0 ? Number(process.argv[i + 1]) : fallback;
  return Number.isFinite(v) && v > 0 ? v : fallback;
}
function textArg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? (process.argv[i + 1] ?? fallback) : fallback;
}

const RATE = arg('rate', 1000);
const SECONDS = arg('seconds', 5);
const MESSAGES = Math.floor(arg('messages', 20_000));
const CONCURRENCY = Math.floor(arg('concurrency', 64));
const FILTER_SECONDS = arg('filter-seconds', 2);
const BASE_DIR = textArg('dir', tmpdir());

/** Level 1 is upstream's 1 s; level 2 holds the retry backlog long enough to stop the broker first. */
const DELAY_LEVELS = '1s 8s';
const LEVEL_1_MS = 1000;
const BACKLOG_LEVEL = 2;
const BACKLOG_DELAY_MS = 8000;
const BODY = Buffer.alloc(256, 0x62);
const logger = createLogger('bench', { level: 'error' });

const now = (): number => performance.timeOrigin + performance.now();
const fmt = (n: number, digits = 0): string =>
  n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });

function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i] as number;
}

function summary(values: number[]): string {
  const s = [...values].sort((a, b) => a - b);
  return `p50 ${fmt(percentile(s, 50), 1).padStart(7)} ms  p99 ${fmt(percentile(s, 99), 1).padStart(7)} ms  max ${fmt(s[s.length - 1] ?? Number.NaN, 1).padStart(7)} ms  (n = ${fmt(s.length)})`;
}

function line(name: string, value: string): void {
  console.log(`  ${name.padEnd(52)} ${value}`);
}

async function startBroker(root: string): Promise<BrokerController> {
  const config: BrokerConfigOverrides = {
    storePathRootDir: root,
    listenPort: 0,
    listenHost: '127.0.0.1',
    brokerIP1: '127.0.0.1',
    brokerName: 'bench-broker',
    namesrvAddr: undefined,
    messageDelayLevel: DELAY_LEVELS,
    enablePropertyFilter: true,
  };
  const broker = createBroker({ config, env: { ...systemEnvironment(), namesrvAddr: undefined }, logger });
  await broker.start();
  return broker;
}

function createTopic(broker: BrokerController, topic: string, queues: number): void {
  broker.topicConfigManager.updateTopicConfig(
    createTopicConfig(topic, { readQueueNums: queues, writeQueueNums: queues }),
  );
}

function sendRequest(topic: string, queueId: number, properties: Map<string, string>): RemotingCommand {
  return createRequest(RequestCode.SEND_MESSAGE, {
    extFields: encodeHeader(SendMessageRequestHeader, {
      producerGroup: 'bench-producer',
      topic,
      defaultTopic: 'TBW102',
      defaultTopicQueueNums: 4,
      queueId,
      sysFlag: 0,
      bornTimestamp: BigInt(Date.now()),
      flag: 0,
      properties: messageProperties2String(properties),
      reconsumeTimes: 0,
      unitMode: false,
      batch: false,
    }),
    body: BODY,
  });
}

/** Sends and returns the message's commit-log offset. */
async function send(
  client: RemotingClient,
  addr: string,
  topic: string,
  queueId: number,
  properties: Map<string, string>,
): Promise<bigint> {
  const r = await client.invoke(addr, sendRequest(topic, queueId, properties), { timeoutMs: 30_000 });
  if (r.code !== ResponseCode.SUCCESS) throw new Error(`send failed: ${r.code} ${r.remark}`);
  return decodeOffsetMsgId(decodeHeader(SendMessageResponseHeader, r.extFields).msgId).offset;
}

/** Runs op(0..n-1) with `concurrency` in flight; resolves with the elapsed ms. */
async function concurrently(
  n: number,
  concurrency: number,
  op: (i: number) => Promise<void>,
): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: Math.min(n, concurrency) }, async () => {
      while (next < n) await op(next++);
    }),
  );
  return performance.now() - started;
}

/** Every record of a queue, read in-process. */
async function readQueue(broker: BrokerController, topic: string, queueId: number): Promise<Buffer[]> {
  const all: MessageFilter = { isMatchedByConsumeQueue: () => true, isMatchedByCommitLog: () => true };
  const out: Buffer[] = [];
  let offset = 0n;
  for (;;) {
    const got = await broker.messageStore.getMessage('bench-reader', topic, queueId, offset, 32, all);
    if (got.messages.length === 0) return out;
    out.push(...got.messages);
    offset = got.nextBeginOffset;
  }
}

interface Arrival {
  at: number;
  storeTimestamp: number;
  properties: Map<string, string>;
}

/** Long-polling PULL_MESSAGE loops over every queue of `topic`, recording each message's arrival. */
class Consumer {
  readonly arrivals: Arrival[] = [];
  private stopped = false;
  private readonly loops: Promise<void>[] = [];

  constructor(
    private readonly client: RemotingClient,
    private readonly addr: string,
    private readonly group: string,
    private readonly topic: string,
    queues: number,
  ) {
    for (let q = 0; q < queues; q++) {
      this.loops.push(
        this.loop(q).catch((error: unknown) => {
          console.error(`consumer of ${topic}/${q} stopped: ${String(error)}`);
        }),
      );
    }
  }

  private async loop(queueId: number): Promise<void> {
    let offset = 0n;
    const sysFlag = PullSysFlag.buildSysFlag(false, true, true, false);
    while (!this.stopped) {
      let r: RemotingCommand;
      try {
        r = await this.client.invoke(
          this.addr,
          createRequest(RequestCode.PULL_MESSAGE, {
            extFields: encodeHeader(PullMessageRequestHeader, {
              consumerGroup: this.group,
              topic: this.topic,
              queueId,
              queueOffset: offset,
              maxMsgNums: 32,
              sysFlag,
              commitOffset: 0n,
              suspendTimeoutMillis: 15_000n,
              subscription: '*',
              subVersion: 0n,
              expressionType: 'TAG',
            }),
          }),
          { timeoutMs: 30_000 },
        );
      } catch {
        return; // the client was closed
      }
      const at = now();
      if (r.code === ResponseCode.SUCCESS) {
        for (const m of decodeMessages(r.body ?? Buffer.alloc(0))) {
          this.arrivals.push({ at, storeTimestamp: Number(m.storeTimestamp), properties: m.properties });
        }
      } else if (
        r.code !== ResponseCode.PULL_NOT_FOUND &&
        r.code !== ResponseCode.PULL_RETRY_IMMEDIATELY &&
        r.code !== ResponseCode.PULL_OFFSET_MOVED
      ) {
        throw new Error(`pull failed: ${r.code} ${r.remark}`);
      }
      offset = decodeHeader(PullMessageResponseHeader, r.extFields).nextBeginOffset;
    }
  }

  async until(count: number, timeoutMs: number): Promise<boolean> {
    const deadline = performance.now() + timeoutMs;
    while (this.arrivals.length < count && performance.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return this.arrivals.length >= count;
  }

  stop(): void {
    this.stopped = true;
  }
}

// ---- 1. delay-level accuracy ---------------------------------------------------------------------

async function delayAccuracy(broker: BrokerController, client: RemotingClient): Promise<void> {
  const addr = broker.brokerAddr;
  const QUEUES = 4;
  createTopic(broker, 'BenchDelay', QUEUES);
  createTopic(broker, 'BenchPlain', QUEUES);
  const delayed = new Consumer(client, addr, 'bench-delay-consumer', 'BenchDelay', QUEUES);
  const plain = new Consumer(client, addr, 'bench-plain-consumer', 'BenchPlain', QUEUES);
  const total = Math.round(RATE * SECONDS);
  // Plain control messages at a tenth of the rate, interleaved.
  let sent = 0;
  let plainSent = 0;
  const inFlight: Promise<bigint>[] = [];
  const started = now();
  await new Promise<void>((resolve) => {
    const tick = (): void => {
      const due = Math.min(total, Math.floor(((now() - started) * RATE) / 1000));
      for (; sent < due; sent++) {
        const props = new Map([
          ['DELAY', '1'],
          ['UNIQ_KEY', `D${sent}`],
          ['sendTime', String(Date.now())],
        ]);
        inFlight.push(send(client, addr, 'BenchDelay', sent % QUEUES, props));
        if (sent % 10 === 0) {
          const p = new Map([['UNIQ_KEY', `P${plainSent}`]]);
          inFlight.push(send(client, addr, 'BenchPlain', plainSent % QUEUES, p));
          plainSent++;
        }
      }
      if (sent >= total) resolve();
      else setTimeout(tick, 2);
    };
    tick();
  });
  await Promise.all(inFlight);
  const sendSeconds = (now() - started) / 1000;
  const complete = await delayed.until(total, LEVEL_1_MS + 15_000);
  await plain.until(plainSent, 5_000);
  delayed.stop();
  plain.stop();

  // When each delayed message was stored in SCHEDULE_TOPIC_XXXX (level 1 = queue 0).
  const scheduledAt = new Map<string, number>();
  for (const m of decodeMessages(Buffer.concat(await readQueue(broker, 'SCHEDULE_TOPIC_XXXX', 0)))) {
    const key = m.properties.get('UNIQ_KEY');
    if (key?.startsWith('D') === true) scheduledAt.set(key, Number(m.storeTimestamp));
  }
  const lateness: number[] = [];
  const schedulerPart: number[] = [];
  const pullPart: number[] = [];
  const sinceSend: number[] = [];
  for (const a of delayed.arrivals) {
    const stored = scheduledAt.get(a.properties.get('UNIQ_KEY') ?? '');
    if (stored === undefined) continue;
    const due = stored + LEVEL_1_MS;
    lateness.push(a.at - due);
    schedulerPart.push(a.storeTimestamp - due);
    pullPart.push(a.at - a.storeTimestamp);
    sinceSend.push(a.at - (Number(a.properties.get('sendTime')) + LEVEL_1_MS));
  }
  const plainLatency = plain.arrivals.map((a) => a.at - a.storeTimestamp);

  console.log(`\n1. Delay-level accuracy (level 1 = 1 s, messageDelayLevel "${DELAY_LEVELS}")`);
  line(
    'sent',
    `${fmt(total)} delayed + ${fmt(plainSent)} plain in ${fmt(sendSeconds, 2)} s = ${fmt(total / sendSeconds)} delayed msgs/s over ${QUEUES} queues`,
  );
  line('received', `${fmt(delayed.arrivals.length)} of ${fmt(total)}${complete ? '' : ' (TIMED OUT)'}`);
  line('lateness: arrival - (schedule store time + 1 s)', summary(lateness));
  line('  scheduler: re-stored - due', summary(schedulerPart));
  line('  pull: arrival - re-stored', summary(pullPart));
  line('arrival - (send time + 1 s)', summary(sinceSend));
  line('control, plain messages: arrival - store time', summary(plainLatency));
  const late = [...lateness].sort((a, b) => a - b);
  const base = [...plainLatency].sort((a, b) => a - b);
  line(
    'ratio lateness / plain pull latency',
    `p50 ${fmt(percentile(late, 50) / percentile(base, 50), 2)}x  p99 ${fmt(percentile(late, 99) / percentile(base, 99), 2)}x`,
  );
}

// ---- 2. SQL92 filter cost ------------------------------------------------------------------------

const EXPRESSION = "a > 5 AND b = 'x' OR c IS NULL";

async function filterCost(broker: BrokerController, client: RemotingClient): Promise<void> {
  const addr = broker.brokerAddr;
  createTopic(broker, 'BenchFilter', 1);
  const COUNT = 1000;
  const offsets: bigint[] = [];
  await concurrently(COUNT, CONCURRENCY, async (i) => {
    // 10 properties: a..j; c is missing from a third (IS NULL), b alternates.
    const props = new Map<string, string>([
      ['a', String(i % 10)],
      ['b', i % 2 === 0 ? 'x' : 'y'],
      ['c', `c${i}`],
      ['d', `d-${i}`],
      ['e', String(i * 7)],
      ['f', 'ffffffff'],
      ['g', 'true'],
      ['h', `order-${i % 97}`],
      ['i', '3.25'],
      ['j', 'jjjjjjjjjjjjjjjj'],
    ]);
    if (i % 3 === 0) props.delete('c');
    offsets[i] = await send(client, addr, 'BenchFilter', 0, props);
  });
  const records = offsets.map((o) => {
    const r = broker.messageStore.selectOneMessageByOffset(o);
    if (r === undefined) throw new Error(`no record at ${o}`);
    return r;
  });
  const propertyCount = readRecordProperties(records[0] as Buffer)?.size ?? 0;
  const decoded = records.map((r) => readRecordProperties(r) ?? new Map<string, string>());
  const expression = parseSql92(EXPRESSION);
  const filter = new ExpressionMessageFilter(build('BenchFilter', EXPRESSION, 'SQL92', { subVersion: 1n }), {
    compiledExpression: expression,
  });

  const measure = (op: (i: number) => boolean): { rate: number; matched: number } => {
    for (let i = 0; i < 20_000; i++) op(i % COUNT); // warm-up
    let evaluations = 0;
    let matched = 0;
    const started = performance.now();
    const deadline = started + FILTER_SECONDS * 1000;
    while (performance.now() < deadline) {
      for (let i = 0; i < COUNT; i++) if (op(i)) matched++;
      evaluations += COUNT;
    }
    return { rate: evaluations / ((performance.now() - started) / 1000), matched: matched / evaluations };
  };
  const compiled = measure((i) => expression.matches(decoded[i]));
  const pullPath = measure((i) => filter.isMatchedByCommitLog(records[i]));
  const decodeOnly = measure((i) => readRecordProperties(records[i] as Buffer) !== undefined);

  console.log(`\n2. SQL92 filter cost: ${EXPRESSION}  (${propertyCount} properties per message)`);
  line(
    'compiled expression, decoded properties',
    `${fmt(compiled.rate).padStart(12)} evaluations/s  (${fmt(compiled.matched * 100, 1)}% match)`,
  );
  line(
    'pull path: ExpressionMessageFilter.isMatchedByCommitLog',
    `${fmt(pullPath.rate).padStart(12)} evaluations/s  (${fmt(pullPath.matched * 100, 1)}% match)`,
  );
  line('  of which: property decoding alone', `${fmt(decodeOnly.rate).padStart(12)} records/s`);
  line('ratio pull path / compiled', `${fmt(pullPath.rate / compiled.rate, 3)}x`);
}

// ---- 3. retry throughput -------------------------------------------------------------------------

const RETRY_GROUP = 'bench-retry';

function sendBackRequest(offset: bigint, group: string, delayLevel: number): RemotingCommand {
  return createRequest(RequestCode.CONSUMER_SEND_MSG_BACK, {
    extFields: encodeHeader(ConsumerSendMsgBackRequestHeader, {
      group,
      offset,
      delayLevel,
      originMsgId: 'bench',
      originTopic: 'BenchRetrySource',
      unitMode: false,
      maxReconsumeTimes: 16,
    }),
  });
}

async function sendBack(client: RemotingClient, addr: string, offset: bigint, group: string, level: number) {
  const r = await client.invoke(addr, sendBackRequest(offset, group, level), { timeoutMs: 30_000 });
  if (r.code !== ResponseCode.SUCCESS) throw new Error(`send back failed: ${r.code} ${r.remark}`);
}

async function retryThroughput(root: string, first: BrokerController, client: RemotingClient): Promise<void> {
  const addr = first.brokerAddr;
  createTopic(first, 'BenchRetrySource', 4);
  for (const group of [RETRY_GROUP, 'bench-warm']) {
    first.subscriptionGroupManager.updateSubscriptionGroupConfig(
      createSubscriptionGroupConfig(group, { retryQueueNums: 4 }),
    );
  }
  const props = (i: number) =>
    new Map([
      ['TAGS', 'TagA'],
      ['KEYS', `key-${i}`],
      ['UNIQ_KEY', `R${i}`],
    ]);
  // Warm-up of both paths (the warm-up copies are due at level 1, long before the measured backlog).
  const warm: bigint[] = [];
  await concurrently(2000, CONCURRENCY, async (i) => {
    warm[i] = await send(client, addr, 'BenchRetrySource', i % 4, props(i));
  });
  await concurrently(warm.length, CONCURRENCY, (i) =>
    sendBack(client, addr, warm[i] as bigint, 'bench-warm', 1),
  );

  // Sends and send-backs alternate in rounds, so a change in the machine's load hits both alike.
  const ROUNDS = 4;
  const chunk = Math.ceil(MESSAGES / ROUNDS);
  let sendMs = 0;
  let backMs = 0;
  for (let from = 0; from < MESSAGES; from += chunk) {
    const n = Math.min(chunk, MESSAGES - from);
    const offsets: bigint[] = [];
    sendMs += await concurrently(n, CONCURRENCY, async (i) => {
      offsets[i] = await send(client, addr, 'BenchRetrySource', (from + i) % 4, props(from + i));
    });
    backMs += await concurrently(n, CONCURRENCY, (i) =>
      sendBack(client, addr, offsets[i] as bigint, RETRY_GROUP, BACKLOG_LEVEL),
    );
  }
  const sendRate = MESSAGES / (sendMs / 1000);
  const backRate = MESSAGES / (backMs / 1000);
  // Stop before the first copy is due, wait until the last one is, start again: one due backlog.
  const retryTopic = `%RETRY%${RETRY_GROUP}`;
  const deliveredEarly = [0, 1, 2, 3].reduce(
    (n, q) => n + Number(first.messageStore.getMaxOffsetInQueue(retryTopic, q)),
    0,
  );
  await client.close();
  await first.shutdown();
  const lastDue = Date.now() + BACKLOG_DELAY_MS;
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, lastDue - Date.now()) + 200));

  const second = await startBroker(root);
  const startedAt = Date.now();
  const expected = MESSAGES - deliveredEarly;
  const deadline = performance.now() + 120_000;
  const delivered = () =>
    [0, 1, 2, 3].reduce((n, q) => n + Number(second.messageStore.getMaxOffsetInQueue(retryTopic, q)), 0);
  while (delivered() < MESSAGES && performance.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  const stamps: number[] = [];
  for (let q = 0; q < 4; q++) {
    for (const m of decodeMessages(Buffer.concat(await readQueue(second, retryTopic, q)))) {
      if (m.storeTimestamp >= BigInt(startedAt)) stamps.push(Number(m.storeTimestamp));
    }
  }
  stamps.sort((a, b) => a - b);
  const span = (stamps[stamps.length - 1] ?? 0) - (stamps[0] ?? 0);
  const redeliverRate = stamps.length / (Math.max(1, span) / 1000);

  // The store's own rate in this process: the same messages put directly, 32 at a time (the
  // scheduler's batch), into a scratch topic.
  createTopic(second, 'BenchStoreRate', 4);
  const inner = (i: number): MessageExtBrokerInner => ({
    topic: 'BenchStoreRate',
    queueId: i % 4,
    flag: 0,
    body: BODY,
    propertiesString: messageProperties2String(props(i)),
    tagsCode: tagsString2tagsCode('TagA'),
    sysFlag: 0,
    bornTimestamp: BigInt(Date.now()),
    bornHost: { address: '127.0.0.1', port: 50000 },
    storeHost: { address: '127.0.0.1', port: 10911 },
    reconsumeTimes: 0,
    preparedTransactionOffset: 0n,
  });
  const putMs = await concurrently(MESSAGES, 32, async (i) => {
    const r = await second.messageStore.putMessage(inner(i));
    if (r.putMessageStatus !== 'PUT_OK') throw new Error(`put failed: ${r.putMessageStatus}`);
  });
  const putRate = MESSAGES / (putMs / 1000);
  await second.shutdown();

  console.log(
    `\n3. Retry throughput (${fmt(MESSAGES)} messages of ${BODY.length} B, ${CONCURRENCY} in flight)`,
  );
  line('plain SEND_MESSAGE', `${fmt(sendRate).padStart(9)} msgs/s`);
  line('CONSUMER_SEND_MSG_BACK (to SCHEDULE_TOPIC level 2)', `${fmt(backRate).padStart(9)} msgs/s`);
  line('ratio send-back / plain send', `${fmt(backRate / sendRate, 2)}x`);
  line(
    'ScheduleMessageService, due backlog re-delivered',
    `${fmt(redeliverRate).padStart(9)} msgs/s  (${fmt(stamps.length)} of ${fmt(expected)} in ${fmt(span)} ms; first ${fmt((stamps[0] ?? startedAt) - startedAt)} ms after start)`,
  );
  line('store putMessage in-process, 32 in flight', `${fmt(putRate).padStart(9)} msgs/s`);
  line('ratio re-delivery / store put', `${fmt(redeliverRate / putRate, 2)}x`);
  line('ratio re-delivery / plain send', `${fmt(redeliverRate / sendRate, 2)}x`);
  if (deliveredEarly > 0) line('note', `${deliveredEarly} copies were due before the broker stopped`);
}

async function main(): Promise<void> {
  const root = mkdtempSync(join(BASE_DIR, 'rmq-bench-consume-'));
  console.log(`bench-consume: node ${process.version}, store ${root}`);
  try {
    const broker = await startBroker(root);
    const client = new RemotingClient({}, { logger });
    await delayAccuracy(broker, client);
    await filterCost(broker, client);
    await retryThroughput(root, broker, client);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

await main();
