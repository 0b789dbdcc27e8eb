/**
 * Our consumers next to the official 4.9.8 Java consumers, against the same broker and the same
 * backlog, in one run (issue 11 and issue 12, "Figures for the note"). Prints figures and ours / Java
 * ratios; it is not a test.
 *
 * Brokers: ours (`rmq start`, name server + broker in a separate process, a temp data dir, free ports)
 * by default; `--brokers ours,official` then also runs everything against the official 4.9.x name
 * server and broker (test/interop/harness.ts). Against each, a topic of --queues queues is created and
 * filled with --messages bodies of --size bytes (our producer, batches of --fill-batch, --fill-in-flight
 * batches outstanding); the Java side is interop ConsumerBench, one JVM per broker (a fresh one for the
 * memory case). Every consumer, ours and Java, has the client's defaults (concurrency / consume threads
 * 20, pullBatchSize 32 push and 10 lite, consumeMessageBatchMaxSize 1, thresholds 1000 per queue ...)
 * and a fresh group; backlog readers use CONSUME_FROM_FIRST_OFFSET. Cases (--cases, in this order):
 *
 * - push: a push consumer with an empty concurrent listener reads the whole backlog: ours
 *   (createPushConsumer, in this process) and the official DefaultMQPushConsumer, taking turns (who
 *   goes first alternates over --repeat runs). TPS = messages / (just before start() .. the listener
 *   call that reached the count); CPU per message = the consumer's process (all threads) over the same
 *   span; the broker's CPU per message over it too (from /proc, 10 ms ticks).
 * - memory: a push consumer whose listener never returns until released, so every held queue's cache
 *   fills to the flow-control thresholds; ours (in a node child of its own, `--expose-gc`) and Java (a
 *   fresh JVM). The cached count comes from the member's GET_CONSUMER_RUNNING_INFO (asked through the
 *   broker, as mqadmin consumerStatus does), polled until it holds still; memory is measured after a
 *   full GC before start() and once the cache is full: RSS, heap, and (ours) Buffers outside the heap,
 *   printed per 1,000 cached messages. Then the same for our lite pull consumer never polled (issue 12:
 *   "memory while paused with a full buffer"), with the bound its thresholds allow.
 * - move: a group of two push consumers on a topic of its own, which our producer keeps sending to at
 *   --move-rate messages/s (round robin over the queues). A starts alone and reads every queue; B joins
 *   (join latency per queue B is allocated, by AllocateMessageQueueAveragely over both client ids:
 *   just before B.start() .. B's first delivery from it); after --settle-seconds B leaves (leave
 *   latency per such queue: B.shutdown() returning .. A's first delivery from it). Max and median over
 *   the moved queues of --move-repeat runs; concurrent and orderly listeners (--move-listeners), each
 *   empty and taking --move-work-ms per call (a timer / Thread.sleep, as a listener waiting on I/O: it
 *   keeps messages cached, which is what upstream's orderly hand-over waits for); both members ours,
 *   then both Java (who goes first alternates). Defaults on both sides: rebalance every 20 s, and at
 *   once on the broker's NOTIFY_CONSUMER_IDS_CHANGED (sent when a member registers or unregisters);
 *   orderly: a queue is locked on the broker before it is consumed; upstream's old owner delays its
 *   unlock by 20 s while it still caches messages of the queue, and a refused new owner tries again at
 *   its next rebalance; ours unlocks once the running batch is done and tries again after
 *   lockRetryInterval (1 s).
 * - lite: a lite pull consumer reads the whole backlog: ours (createLitePullConsumer, subscribe,
 *   auto-commit, `for await (const msg of consumer)`) and the official DefaultLitePullConsumer
 *   (subscribe, auto-commit, poll() in a loop); TPS and CPU as for push.
 *
 *   node <build>/scripts/bench-consumer.js [--messages 1000000] [--size 1024] [--queues 8]
 *     [--brokers ours[,official]] [--cases push,memory,move,lite] [--repeat 1]
 *     [--move-rate 200] [--move-listeners concurrently,orderly] [--move-work-ms 0,30] [--move-repeat 2]
 *     [--settle-seconds 3] [--fill-batch 64] [--fill-in-flight 8] [--stall-seconds 30]
 *     [--deadline-seconds 60+messages/2000] [--move-deadline-seconds 60] [--memory-deadline-seconds 90]
 *     [--cpu-prof] [--cpu-prof-dir D]
 *
 * --repeat runs push and lite that many times (who goes first alternates; the summary takes medians).
 *
 * A case stops with an error line when nothing was consumed for --stall-seconds, or after its deadline
 * (--deadline-seconds for a backlog read, --move-deadline-seconds per move phase,
 * --memory-deadline-seconds for a cache to fill); the next case runs. --cpu-prof profiles our push and
 * lite runs (V8's sampling profiler in this process; the figures then include its overhead) and prints
 * each run's top self-time functions. Everything listens and connects on 127.0.0.1; children and temp
 * dirs are removed at the end, on an error and on SIGINT. Needs Java and the interop build
 * (`node scripts/interop-prepare.mjs`).
 */
import { mkdirSync, mkdtempSync, statSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  createProducer,
  DEFAULT_CLIENT_CONFIG,
  DEFAULT_LITE_PULL_CONSUMER_OPTIONS,
  DEFAULT_PUSH_CONSUMER_OPTIONS,
  type Producer,
} from '../src/client/index.js';
import { Message } from '../src/common/message/message.js';
import { BrokerAdmin, type CacheFigures } from './bench-admin.js';
import {
  type MemoryFigures,
  type MemoryKind,
  type MoveFigures,
  memoryChild,
  ourLite,
  ourMove,
  ourPush,
  type RunFigures,
} from './bench-consumer-ours.js';
import {
  arg,
  BROKER_KINDS,
  type Broker,
  choices,
  flag,
  integer,
  javaVersion,
  LineChild,
  loadText,
  positive,
  processCpuNs,
  spawnTracked,
  startJavaHelper,
  startOfficial,
  startOurs,
} from './bench-support.js';
import { InProcessProfiler, summarizeProfile } from './cpu-profile.js';

const CASES = ['push', 'memory', 'move', 'lite'] as const;
const LISTENERS = ['concurrently', 'orderly'] as const;
type Listener = (typeof LISTENERS)[number];

const TOPIC = 'BenchConsumer';

// ---------------------------------------------------------------------------------------------
// figures

interface Run {
  broker: string;
  kind: 'push' | 'lite';
  run: number;
  ours: RunFigures & { brokerCpuNs: number };
  java: RunFigures & { brokerCpuNs: number };
}

const tps = (f: RunFigures): number => (f.consumed * 1e9) / Math.max(1, f.elapsedNs);
const perMsgUs = (ns: number, f: RunFigures): string =>
  ns < 0 ? '?' : (ns / 1000 / Math.max(1, f.consumed)).toFixed(1);
const mib = (bytes: number): string => (bytes / 1048576).toFixed(1);

function isRunFigures(v: Record<string, unknown>): v is Record<string, unknown> & RunFigures {
  return ['consumed', 'elapsedNs', 'cpuNs'].every((k) => typeof v[k] === 'number');
}

function runText(f: RunFigures & { brokerCpuNs: number }): string {
  const problem = f.failure === null ? '' : ` ${f.failure.toUpperCase()}`;
  return (
    `${tps(f).toFixed(0)} msg/s (${f.consumed} in ${(f.elapsedNs / 1e9).toFixed(2)} s${problem}), ` +
    `${perMsgUs(f.cpuNs, f)} us CPU/msg, broker ${perMsgUs(f.brokerCpuNs, f)} us CPU/msg`
  );
}

function median(values: readonly number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length === 0
    ? Number.NaN
    : s.length % 2 === 1
      ? (s[mid] as number)
      : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
}

function listenerText(listener: Listener, workMs: number): string {
  return workMs === 0 ? `${listener} (empty)` : `${listener} (${workMs} ms)`;
}

function latencyText(values: readonly number[], failure: string | null): string {
  if (values.length === 0) return '-';
  const missing = values.filter((v) => v < 0).length;
  const got = values.filter((v) => v >= 0);
  const head =
    got.length === 0 ? 'none' : `max ${Math.max(...got).toFixed(0)} ms, median ${median(got).toFixed(0)} ms`;
  return `${head}${failure === null ? '' : `, ${missing} queue(s) never (${failure})`}`;
}

// ---------------------------------------------------------------------------------------------
// the backlog and the steady sender

async function fill(producer: Producer, topic: string, messages: number, size: number) {
  const body = Buffer.alloc(size, 0x61);
  let next = 0;
  let retries = 0;
  const started = performance.now();
  const worker = async (): Promise<void> => {
    while (next < messages) {
      const n = Math.min(FILL_BATCH, messages - next);
      next += n;
      const batch = Array.from({ length: n }, () => new Message(topic, body));
      for (let attempt = 1; ; attempt++) {
        try {
          await producer.send(batch);
          break;
        } catch (error) {
          retries++;
          if (attempt >= 5) throw error;
        }
      }
    }
  };
  await Promise.all(Array.from({ length: FILL_IN_FLIGHT }, worker));
  const ms = performance.now() - started;
  // The consume queues are built after the commit log is written; wait until they hold everything.
  const queues = await producer.fetchPublishMessageQueues(topic);
  const deadline = Date.now() + 60_000;
  let counts: bigint[] = [];
  for (;;) {
    counts = await Promise.all(queues.map((mq) => producer.maxOffset(mq)));
    if (counts.reduce((a, b) => a + b, 0n) >= BigInt(messages)) break;
    if (Date.now() > deadline)
      throw new Error(`backlog: the queues hold ${counts.join(', ')} messages, not ${messages} in all`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return { ms, retries, counts };
}

/** Our producer sending `rate` messages/s to `topic` until stop(); returns what was sent and failed. */
function steadySender(producer: Producer, topic: string, rate: number, size: number) {
  const body = Buffer.alloc(size, 0x62);
  const started = performance.now();
  const pending = new Set<Promise<void>>();
  let sent = 0;
  let failed = 0;
  const timer = setInterval(() => {
    const due = Math.floor(((performance.now() - started) * rate) / 1000);
    while (sent < due) {
      sent++;
      const p: Promise<void> = producer
        .send(new Message(topic, body))
        .then(
          () => {},
          () => {
            failed++;
          },
        )
        .finally(() => pending.delete(p));
      pending.add(p);
    }
  }, 10);
  return {
    async stop(): Promise<{ sent: number; failed: number }> {
      clearInterval(timer);
      await Promise.allSettled([...pending]);
      return { sent, failed };
    },
  };
}

// ---------------------------------------------------------------------------------------------
// options

const MESSAGES = integer('messages', '1000000');
const SIZE = integer('size', '1024');
const QUEUES = integer('queues', '8', 2);
const BROKERS = choices('brokers', 'ours', BROKER_KINDS);
const CASE_LIST = choices('cases', CASES.join(','), CASES);
const REPEAT = integer('repeat', '1');
const MOVE_RATE = integer('move-rate', '200');
const MOVE_LISTENERS = choices('move-listeners', LISTENERS.join(','), LISTENERS);
const SETTLE_MS = positive('settle-seconds', '3') * 1000;
const MOVE_REPEAT = integer('move-repeat', '2');
const MOVE_WORK_MS = arg('move-work-ms', '0,30')
  .split(',')
  .map((v) => {
    const n = Number(v);
    if (!Number.isInteger(n) || n < 0) throw new Error('--move-work-ms takes integers >= 0');
    return n;
  });
const FILL_BATCH = integer('fill-batch', String(Math.max(1, Math.min(64, Math.floor((64 * 1024) / SIZE)))));
const FILL_IN_FLIGHT = integer('fill-in-flight', '8');
const STALL_MS = positive('stall-seconds', '30') * 1000;
const DEADLINE_MS = positive('deadline-seconds', String(60 + Math.ceil(MESSAGES / 2000))) * 1000;
const MOVE_DEADLINE_MS = positive('move-deadline-seconds', '60') * 1000;
const MEMORY_DEADLINE_MS = positive('memory-deadline-seconds', '90') * 1000;
const CPU_PROF = flag('cpu-prof');
const GUARD = { stallMs: STALL_MS, deadlineMs: DEADLINE_MS };
/** A Java case's answer comes after its own deadline; this much more covers start and shutdown. */
const JAVA_SLACK_MS = 120_000;
/** The cache counts as full once its count held still for this many polls in a row. */
const MEMORY_STABLE_POLLS = 6;
const MEMORY_POLL_MS = 500;

let profiler: InProcessProfiler | undefined;
let profDir: string | undefined;
const profileSummaries: string[] = [];

function profileDir(): string {
  if (profDir === undefined) {
    const given = arg('cpu-prof-dir', '');
    // Kept after the run, for reading (not one of the temp dirs removed at exit).
    profDir = given === '' ? mkdtempSync(join(tmpdir(), 'rmq-bench-consumer-prof-')) : resolve(given);
    mkdirSync(profDir, { recursive: true });
  }
  return profDir;
}

// ---------------------------------------------------------------------------------------------
// the cases

interface Context {
  broker: Broker;
  admin: BrokerAdmin;
  producer: Producer;
  java: LineChild | undefined;
  runs: Run[];
  moves: {
    broker: string;
    listener: Listener;
    workMs: number;
    side: 'ours' | 'java';
    figures: MoveFigures;
  }[];
  memory: string[];
}

async function timedJava(
  ctx: Context,
  line: string,
  timeoutMs: number,
): Promise<RunFigures & { brokerCpuNs: number }> {
  if (ctx.java === undefined) throw new Error('no Java helper');
  const cpu0 = processCpuNs(ctx.broker.brokerPid);
  const r = await ctx.java.call(line, timeoutMs);
  const brokerCpuNs = cpu0 < 0 ? -1 : processCpuNs(ctx.broker.brokerPid) - cpu0;
  if (!isRunFigures(r)) throw new Error(`ConsumerBench printed ${JSON.stringify(r)}`);
  return {
    consumed: r.consumed,
    elapsedNs: r.elapsedNs,
    cpuNs: r.cpuNs,
    failure: typeof r.failure === 'string' ? r.failure : null,
    brokerCpuNs,
  };
}

async function timedOurs(
  ctx: Context,
  label: string,
  run: () => Promise<RunFigures>,
): Promise<RunFigures & { brokerCpuNs: number }> {
  if (CPU_PROF) {
    profiler ??= new InProcessProfiler();
    await profiler.start();
  }
  const cpu0 = processCpuNs(ctx.broker.brokerPid);
  const figures = await run();
  const brokerCpuNs = cpu0 < 0 ? -1 : processCpuNs(ctx.broker.brokerPid) - cpu0;
  if (profiler !== undefined) {
    const file = join(profileDir(), `${label.replace(/\W+/g, '-')}.cpuprofile`);
    const profile = await profiler.stop(file);
    profileSummaries.push(`${label} (${file}):`, ...summarizeProfile(profile).map((l) => `  ${l}`));
  }
  return { ...figures, brokerCpuNs };
}

async function backlogCase(ctx: Context, kind: 'push' | 'lite'): Promise<void> {
  for (let run = 1; run <= REPEAT; run++) {
    const label = `${ctx.broker.name}, ${kind}, run ${run}`;
    const ours = () =>
      timedOurs(ctx, `our ${kind} consumer, ${label}`, () =>
        (kind === 'push' ? ourPush : ourLite)(
          ctx.broker.namesrvAddr,
          TOPIC,
          `bench_${kind}_ts_${run}`,
          MESSAGES,
          GUARD,
        ),
      );
    const java = () =>
      timedJava(
        ctx,
        `${kind} ${TOPIC} bench_${kind}_java_${run} ${MESSAGES} ${STALL_MS} ${DEADLINE_MS}`,
        DEADLINE_MS + JAVA_SLACK_MS,
      );
    let o: RunFigures & { brokerCpuNs: number };
    let j: RunFigures & { brokerCpuNs: number };
    if (run % 2 === 1) {
      o = await ours();
      j = await java();
    } else {
      j = await java();
      o = await ours();
    }
    ctx.runs.push({ broker: ctx.broker.name, kind, run, ours: o, java: j });
    const clean = o.failure === null && j.failure === null;
    console.log(
      `${label}: ours ${runText(o)} | java ${runText(j)} | ours/java ${clean ? (tps(o) / tps(j)).toFixed(2) : '-'}`,
    );
    if (!clean)
      failed(
        label,
        `${[o.failure === null ? '' : `ours ${o.failure}`, j.failure === null ? '' : `java ${j.failure}`].filter(Boolean).join(', ')} ` +
          `(--stall-seconds ${STALL_MS / 1000}, --deadline-seconds ${DEADLINE_MS / 1000})`,
      );
  }
}

/** Polls the member's cache until its count holds still; rejects after the memory deadline. */
async function fullCache(ctx: Context, group: string, clientId: string): Promise<CacheFigures> {
  const deadline = Date.now() + MEMORY_DEADLINE_MS;
  let last: CacheFigures | undefined;
  let still = 0;
  for (;;) {
    const c = await ctx.admin.cache(group, clientId, TOPIC);
    still =
      last !== undefined && c.cachedMsgCount === last.cachedMsgCount && c.queues === QUEUES ? still + 1 : 0;
    last = c;
    if (still >= MEMORY_STABLE_POLLS && c.cachedMsgCount > 0) return c;
    if (Date.now() > deadline)
      throw new Error(
        `the cache of ${clientId} did not fill within ${MEMORY_DEADLINE_MS} ms (last: ${JSON.stringify(c)})`,
      );
    await new Promise((r) => setTimeout(r, MEMORY_POLL_MS));
  }
}

function memoryChildProcess(kind: MemoryKind, namesrvAddr: string, group: string): Promise<LineChild> {
  const script = fileURLToPath(import.meta.url);
  const child = spawnTracked(
    process.execPath,
    [
      '--expose-gc',
      script,
      '--memory-child',
      kind,
      '--namesrv',
      namesrvAddr,
      '--topic',
      TOPIC,
      '--group',
      group,
    ],
    'pipe',
  );
  const helper = new LineChild(`memory child (${kind})`, child, undefined);
  return helper.next(30_000).then(
    () => helper,
    async (error: unknown) => {
      await helper.close(1000);
      throw error;
    },
  );
}

function num(r: Record<string, unknown>, key: string): number {
  const v = r[key];
  if (typeof v !== 'number') throw new Error(`expected a number ${key} in ${JSON.stringify(r)}`);
  return v;
}

async function memoryOne(ctx: Context, who: 'ours push' | 'java push' | 'ours lite'): Promise<void> {
  const group = `bench_memory_${who.replace(' ', '_')}`;
  const helper =
    who === 'java push'
      ? await startJavaHelper('ConsumerBench', [ctx.broker.namesrvAddr])
      : await memoryChildProcess(who === 'ours push' ? 'push' : 'lite', ctx.broker.namesrvAddr, group);
  try {
    const started = await helper.call(
      who === 'java push' ? `memory-start ${TOPIC} ${group}` : 'start',
      60_000,
    );
    const clientId = started.clientId;
    if (typeof clientId !== 'string') throw new Error(`no client id in ${JSON.stringify(started)}`);
    const cache = await fullCache(ctx, group, clientId);
    const full = await helper.call(who === 'java push' ? 'memory-measure' : 'measure', 60_000);
    await helper.call(who === 'java push' ? 'memory-stop' : 'stop', 60_000);
    const per1000 = (key: keyof MemoryFigures): string => {
      const delta = num(full, key) - num(started, key);
      return `${((delta / 1024) * (1000 / cache.cachedMsgCount)).toFixed(0)} KiB`;
    };
    const delta = (key: keyof MemoryFigures): string => `${mib(num(full, key) - num(started, key))} MiB`;
    const batch =
      who === 'ours lite'
        ? DEFAULT_LITE_PULL_CONSUMER_OPTIONS.pullBatchSize
        : DEFAULT_PUSH_CONSUMER_OPTIONS.pullBatchSize;
    const perQueue = DEFAULT_PUSH_CONSUMER_OPTIONS.pullThresholdForQueue + batch;
    const bound =
      who === 'ours lite'
        ? `bound: per queue ${perQueue} (pullThresholdForQueue ${DEFAULT_LITE_PULL_CONSUMER_OPTIONS.pullThresholdForQueue} + pullBatchSize ${batch}), ` +
          `all ${Math.min(QUEUES * perQueue, DEFAULT_LITE_PULL_CONSUMER_OPTIONS.pullThresholdForAll + (QUEUES + 1) * batch)} ` +
          `(pullThresholdForAll ${DEFAULT_LITE_PULL_CONSUMER_OPTIONS.pullThresholdForAll} + a pull per queue in flight)`
        : `bound: per queue ${perQueue} (pullThresholdForQueue ${DEFAULT_PUSH_CONSUMER_OPTIONS.pullThresholdForQueue} + pullBatchSize ${batch}), all ${QUEUES * perQueue}`;
    const within = cache.maxQueueMsgCount <= perQueue ? 'within' : 'OVER';
    const sizes =
      who === 'java push'
        ? `RSS ${delta('rssBytes')}, heap ${delta('heapBytes')}; per 1,000 cached: RSS ${per1000('rssBytes')}, heap ${per1000('heapBytes')}`
        : `RSS ${delta('rssBytes')}, heap ${delta('heapBytes')}, Buffers ${delta('arrayBuffersBytes')}; per 1,000 cached: ` +
          `RSS ${per1000('rssBytes')}, heap ${per1000('heapBytes')}, Buffers ${per1000('arrayBuffersBytes')}`;
    const line =
      `${ctx.broker.name}, memory, ${who}: ${cache.cachedMsgCount} cached in ${cache.queues} queues ` +
      `(at most ${cache.maxQueueMsgCount} in one, ${mib(cache.cachedMsgCount * SIZE)} MiB of bodies; ${within} the ${bound}); ${sizes}`;
    ctx.memory.push(line);
    console.log(line);
  } finally {
    await helper.close();
  }
}

async function memoryCase(ctx: Context): Promise<void> {
  for (const who of ['ours push', 'java push', 'ours lite'] as const) {
    try {
      await memoryOne(ctx, who);
    } catch (error) {
      failed(`${ctx.broker.name}, memory, ${who}`, error);
    }
  }
}

/** ConsumerBench's move answer (microseconds, -1 for never) as MoveFigures. */
function javaMoveFigures(r: Record<string, unknown>): MoveFigures {
  const ms = (key: string): number[] => {
    const v = r[key];
    if (v === undefined) return [];
    if (!Array.isArray(v) || v.some((x) => typeof x !== 'number'))
      throw new Error(`ConsumerBench printed ${JSON.stringify(r)}`);
    return (v as number[]).map((us) => (us < 0 ? -1 : us / 1000));
  };
  const moved = r.moved;
  if (!Array.isArray(moved) || moved.some((x) => typeof x !== 'number'))
    throw new Error(`ConsumerBench printed ${JSON.stringify(r)}`);
  return {
    moved: moved as number[],
    joinMs: ms('joinUs'),
    joinFailure: typeof r.joinFailure === 'string' ? r.joinFailure : null,
    shutdownMs: typeof r.shutdownUs === 'number' ? r.shutdownUs / 1000 : -1,
    leaveMs: ms('leaveUs'),
    leaveFailure: typeof r.leaveFailure === 'string' ? r.leaveFailure : null,
  };
}

async function moveCase(ctx: Context): Promise<void> {
  let turn = 0;
  for (const workMs of MOVE_WORK_MS) {
    for (let run = 1; run <= MOVE_REPEAT; run++) {
      for (const listener of MOVE_LISTENERS) {
        const sides: ('ours' | 'java')[] = turn++ % 2 === 0 ? ['ours', 'java'] : ['java', 'ours'];
        for (const side of sides) await moveOne(ctx, listener, workMs, side, run);
      }
    }
  }
}

async function moveOne(
  ctx: Context,
  listener: Listener,
  workMs: number,
  side: 'ours' | 'java',
  run: number,
): Promise<void> {
  const label = `${ctx.broker.name}, move, ${listenerText(listener, workMs)}, ${side}, run ${run}`;
  try {
    const topic = `BenchMove_${side}_${listener}_${workMs}_${run}`;
    const group = `bench_move_${side}_${listener}_${workMs}_${run}`;
    await ctx.admin.createTopic(topic, QUEUES);
    const sender = steadySender(ctx.producer, topic, MOVE_RATE, SIZE);
    let figures: MoveFigures;
    let sent: { sent: number; failed: number };
    try {
      if (side === 'ours') {
        figures = await ourMove(
          ctx.broker.namesrvAddr,
          topic,
          group,
          listener,
          SETTLE_MS,
          MOVE_DEADLINE_MS,
          workMs,
        );
      } else {
        if (ctx.java === undefined) throw new Error('no Java helper');
        const r = await ctx.java.call(
          `move ${topic} ${group} ${listener} ${SETTLE_MS} ${MOVE_DEADLINE_MS} ${workMs}`,
          3 * MOVE_DEADLINE_MS + SETTLE_MS + JAVA_SLACK_MS,
        );
        figures = javaMoveFigures(r);
      }
    } finally {
      sent = await sender.stop();
    }
    ctx.moves.push({ broker: ctx.broker.name, listener, workMs, side, figures });
    const each = (v: number[]): string => v.map((x) => x.toFixed(0)).join(', ');
    console.log(
      `${label}: queues ${figures.moved.join(',')} moved; join ${latencyText(figures.joinMs, figures.joinFailure)} ` +
        `(${each(figures.joinMs)}); leave ${latencyText(figures.leaveMs, figures.leaveFailure)} (${each(figures.leaveMs)}), ` +
        `B.shutdown() took ${figures.shutdownMs.toFixed(0)} ms; ${sent.sent} sent${sent.failed > 0 ? `, ${sent.failed} sends FAILED` : ''}`,
    );
  } catch (error) {
    failed(label, error);
  }
}

let errors = 0;

function failed(label: string, error: unknown): void {
  errors++;
  console.log(
    `${label}: ERROR ${error instanceof Error ? error.message.split('\n').slice(0, 4).join(' | ') : String(error)}`,
  );
}

// ---------------------------------------------------------------------------------------------
// the run

async function benchBroker(ctx: Omit<Context, 'producer' | 'java' | 'admin'>): Promise<void> {
  const { broker } = ctx;
  const admin = new BrokerAdmin(broker.namesrvAddr, broker.brokerAddr);
  const producer = createProducer({ namesrvAddr: broker.namesrvAddr, producerGroup: 'bench_consumer_fill' });
  let java: LineChild | undefined;
  try {
    await producer.start();
    if (CASE_LIST.some((c) => c !== 'move')) {
      await admin.createTopic(TOPIC, QUEUES);
      const f = await fill(producer, TOPIC, MESSAGES, SIZE);
      console.log(
        `${broker.name}: backlog of ${MESSAGES} x ${SIZE} B in ${TOPIC}, ${QUEUES} queues (${f.counts.join(' ')}), ` +
          `filled in ${(f.ms / 1000).toFixed(1)} s (${((MESSAGES * 1000) / f.ms).toFixed(0)} msg/s, batches of ${FILL_BATCH}, ${FILL_IN_FLIGHT} in flight${f.retries > 0 ? `, ${f.retries} retried` : ''})`,
      );
    }
    if (CASE_LIST.some((c) => c !== 'memory'))
      java = await startJavaHelper('ConsumerBench', [broker.namesrvAddr]);
    const full: Context = { ...ctx, admin, producer, java };
    for (const c of CASE_LIST) {
      try {
        if (c === 'push' || c === 'lite') await backlogCase(full, c);
        else if (c === 'memory') await memoryCase(full);
        else await moveCase(full);
      } catch (error) {
        failed(`${broker.name}, ${c}`, error);
      }
    }
  } finally {
    await java?.close();
    await producer.shutdown();
    await admin.close();
  }
}

function summary(runs: readonly Run[], moves: Context['moves']): string[] {
  const rows: string[][] = [['broker', 'figure', 'ours', 'java', 'ours/java']];
  const brokers = [...new Set([...runs.map((r) => r.broker), ...moves.map((m) => m.broker)])];
  for (const broker of brokers) {
    for (const kind of ['push', 'lite'] as const) {
      const rs = runs.filter((r) => r.broker === broker && r.kind === kind);
      if (rs.length === 0) continue;
      const o = median(rs.map((r) => tps(r.ours)));
      const j = median(rs.map((r) => tps(r.java)));
      const oc = median(rs.map((r) => r.ours.cpuNs / 1000 / Math.max(1, r.ours.consumed)));
      const jc = median(rs.map((r) => r.java.cpuNs / 1000 / Math.max(1, r.java.consumed)));
      const clean = rs.every((r) => r.ours.failure === null && r.java.failure === null);
      const n = rs.length > 1 ? ` (median of ${rs.length})` : '';
      const ratio = (a: number, b: number): string => (clean ? (a / b).toFixed(2) : 'INCOMPLETE');
      rows.push([broker, `${kind} TPS${n}`, o.toFixed(0), j.toFixed(0), ratio(o, j)]);
      rows.push([broker, `${kind} CPU us/msg${n}`, oc.toFixed(1), jc.toFixed(1), ratio(oc, jc)]);
    }
    for (const [listener, workMs] of LISTENERS.flatMap((l) => MOVE_WORK_MS.map((w) => [l, w] as const))) {
      for (const phase of ['join', 'leave'] as const) {
        // Every moved queue of every run, pooled; a queue never taken within the deadline spoils the max.
        const pooled = (side: 'ours' | 'java'): number[] =>
          moves
            .filter(
              (m) => m.broker === broker && m.listener === listener && m.workMs === workMs && m.side === side,
            )
            .flatMap((m) => (phase === 'join' ? m.figures.joinMs : m.figures.leaveMs));
        const o = pooled('ours');
        const j = pooled('java');
        if (o.length === 0 && j.length === 0) continue;
        const text = (v: number[]): string =>
          v.length === 0
            ? '-'
            : v.some((x) => x < 0)
              ? 'NEVER'
              : `${Math.max(...v).toFixed(0)} / ${median(v).toFixed(0)}`;
        const ratio =
          o.length === 0 || j.length === 0 || [...o, ...j].some((x) => x < 0)
            ? '-'
            : (Math.max(...o) / Math.max(...j)).toFixed(2);
        rows.push([
          broker,
          `move ${listenerText(listener, workMs)}, ${phase}, max / median ms`,
          text(o),
          text(j),
          ratio,
        ]);
      }
    }
  }
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length))) ?? [];
  return rows.map((r) =>
    r.map((c, i) => (i < 2 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join('  '),
  );
}

async function main(): Promise<void> {
  const p = DEFAULT_PUSH_CONSUMER_OPTIONS;
  const l = DEFAULT_LITE_PULL_CONSUMER_OPTIONS;
  console.log(
    `consumer bench: node ${process.version}, ${javaVersion()}, ${cpus().length} cores, ${loadText()}; ` +
      `${MESSAGES} messages x ${SIZE} B, ${QUEUES} queues, cases ${CASE_LIST.join(', ')}, brokers ${BROKERS.join(', ')}, ` +
      `${REPEAT} run(s)${CPU_PROF ? ', our consumers profiled' : ''}`,
  );
  console.log(
    `defaults, ours and java: push consumeConcurrency/consumeThreadMin+Max ${p.consumeConcurrency}, pullBatchSize ${p.pullBatchSize}, ` +
      `consumeMessageBatchMaxSize ${p.consumeMessageBatchMaxSize}, pullThresholdForQueue ${p.pullThresholdForQueue}; ` +
      `lite pullBatchSize ${l.pullBatchSize}, pullThresholdForAll ${l.pullThresholdForAll}, pullThresholdForQueue ${l.pullThresholdForQueue}, ` +
      `autoCommit ${l.autoCommit}; rebalance every ${DEFAULT_CLIENT_CONFIG.rebalanceWaitInterval / 1000} s and on NOTIFY_CONSUMER_IDS_CHANGED; ` +
      `orderly lock renewal ${p.lockInterval / 1000} s, upstream unlock delay 20 s, ours lockRetryInterval ${p.lockRetryInterval / 1000} s`,
  );
  if (CASE_LIST.includes('move'))
    console.log(
      `move: ${MOVE_RATE} msg/s over ${QUEUES} queues; listeners empty or taking ${MOVE_WORK_MS.filter((w) => w > 0).join(', ') || '-'} ms a call; ` +
        `A alone, B joins, ${SETTLE_MS / 1000} s, B leaves; ${MOVE_REPEAT} run(s) each; latency per moved queue ` +
        `(join: from just before B.start(); leave: from B.shutdown() returning) to its first delivery on the new owner`,
    );
  const runs: Run[] = [];
  const moves: Context['moves'] = [];
  const memory: string[] = [];
  for (const which of BROKERS) {
    const started = performance.now();
    let broker: Broker;
    try {
      broker =
        which === 'ours' ? await startOurs({ dirPrefix: 'rmq-bench-consumer-' }) : await startOfficial();
    } catch (error) {
      failed(`${which} broker`, error);
      continue;
    }
    console.log(
      `${broker.name}: name server ${broker.namesrvAddr}, broker ${broker.brokerAddr}, up in ${(performance.now() - started).toFixed(0)} ms`,
    );
    try {
      await benchBroker({ broker, runs, moves, memory });
    } catch (error) {
      failed(broker.name, error);
    } finally {
      await broker.close();
    }
  }
  console.log('');
  console.log(`ours / java, same broker, same backlog, one run (${loadText()} now):`);
  for (const line of summary(runs, moves)) console.log(line);
  for (const line of memory) console.log(line);
  if (memory.length > 0)
    console.log(
      "memory: ours heap + Buffers is the counterpart of Java's heap (bodies are byte[] there); a JVM's RSS " +
        'grows mostly with heap regions and JIT code touched for the first time, so its RSS figure says little',
    );
  console.log(
    'targets: push and lite TPS ours/java >= 1.0 (issues 11, 12); orderly move well under upstream ~20 s (issue 11); ' +
      'lite memory while paused within its thresholds (issue 12)',
  );
  if (profileSummaries.length > 0) {
    console.log('');
    for (const line of profileSummaries) console.log(line);
  }
  profiler?.close();
  if (profDir !== undefined && statSync(profDir).isDirectory()) console.log(`profiles in ${profDir}`);
  if (errors > 0) {
    console.log(`${errors} case(s) failed`);
    process.exitCode = 1;
  }
}

const memoryKind = arg('memory-child', '');
if (memoryKind === 'push' || memoryKind === 'lite') {
  await memoryChild(memoryKind, arg('namesrv', ''), arg('topic', ''), arg('group', ''));
} else {
  await main();
}
