/**
 * Our consumers in the shapes scripts/bench-consumer.ts measures, each the counterpart of a case of the
 * Java side (interop ConsumerBench): a push consumer and a lite pull consumer reading a backlog, a
 * group of two push consumers of which one joins and then leaves, and the memory child (a node
 * process of its own, so that its RSS is the consumer's and nothing else's).
 *
 * Every consumer is made as a user would make it: upstream's defaults, a fresh group, and
 * CONSUME_FROM_FIRST_OFFSET where a backlog is read.
 */
import { createInterface } from 'node:readline';
import {
  AllocateMessageQueueAveragely,
  ConsumeConcurrentlyStatus,
  ConsumeOrderlyStatus,
  createLitePullConsumer,
  createPushConsumer,
  type LitePullConsumer,
  type PushConsumer,
} from '../src/client/index.js';
import type { MessageExt } from '../src/common/message/message.js';
import { MessageQueue } from '../src/common/message/message-queue.js';

/** A case that stops early says why: nothing consumed for stallMs, or deadlineMs passed. */
export interface Guard {
  stallMs: number;
  deadlineMs: number;
}

export interface RunFigures {
  consumed: number;
  /** From just before start() to the message that reached the count (or to the failure). */
  elapsedNs: number;
  /** CPU time of this process (all threads) over the same span. */
  cpuNs: number;
  failure: string | null;
}

const POLL_MS = 5;

const now = (): bigint => process.hrtime.bigint();
const cpuNs = (since: NodeJS.CpuUsage): number => {
  const u = process.cpuUsage(since);
  return (u.user + u.system) * 1000;
};

/**
 * Calls `fail` with "stalled" when `progress` has not moved for guard.stallMs, or with "deadline" once
 * guard.deadlineMs has passed; returns the function that stops watching.
 */
function watch(progress: () => number, guard: Guard, fail: (reason: string) => void): () => void {
  const started = Date.now();
  let last = progress();
  let lastChange = started;
  const timer = setInterval(() => {
    const t = Date.now();
    const p = progress();
    if (p !== last) {
      last = p;
      lastChange = t;
    } else if (t - lastChange > guard.stallMs) {
      clearInterval(timer);
      fail('stalled');
      return;
    }
    if (t - started > guard.deadlineMs) {
      clearInterval(timer);
      fail('deadline');
    }
  }, 100);
  return () => clearInterval(timer);
}

/** Resolves once `check` holds, or with false after `timeoutMs`. */
async function waitFor(check: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
  return true;
}

/** Our push consumer reads `messages` from the backlog of `topic` with an empty concurrent listener. */
export async function ourPush(
  namesrvAddr: string,
  topic: string,
  group: string,
  messages: number,
  guard: Guard,
): Promise<RunFigures> {
  const consumer = createPushConsumer({
    namesrvAddr,
    consumerGroup: group,
    consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
  });
  consumer.subscribe(topic, '*');
  let consumed = 0;
  let doneAt = 0n;
  let settle: (failure: string | null) => void = () => {};
  const done = new Promise<string | null>((r) => {
    settle = r;
  });
  consumer.registerMessageListener({
    type: 'concurrently',
    async consumeMessage(msgs) {
      consumed += msgs.length;
      if (consumed >= messages && doneAt === 0n) {
        doneAt = now();
        settle(null);
      }
      return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
    },
  });
  const cpuBefore = process.cpuUsage();
  const started = now();
  const unwatch = watch(() => consumed, guard, settle);
  try {
    await consumer.start();
    const failure = await done;
    const cpu = cpuNs(cpuBefore);
    return {
      consumed,
      elapsedNs: Number((failure === null ? doneAt : now()) - started),
      cpuNs: cpu,
      failure,
    };
  } finally {
    unwatch();
    await consumer.shutdown();
  }
}

/** Our lite pull consumer reads `messages` from the backlog of `topic` in a `for await` loop. */
export async function ourLite(
  namesrvAddr: string,
  topic: string,
  group: string,
  messages: number,
  guard: Guard,
): Promise<RunFigures> {
  const consumer = createLitePullConsumer({
    namesrvAddr,
    consumerGroup: group,
    consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
  });
  consumer.subscribe(topic, '*');
  let consumed = 0;
  let failure: string | null = null;
  const cpuBefore = process.cpuUsage();
  const started = now();
  // Shutting down ends the loop, which otherwise waits for messages that never come.
  const unwatch = watch(
    () => consumed,
    guard,
    (reason) => {
      failure = reason;
      void consumer.shutdown();
    },
  );
  try {
    await consumer.start();
    for await (const _msg of consumer) {
      if (++consumed >= messages) break;
    }
    const end = now();
    return { consumed, elapsedNs: Number(end - started), cpuNs: cpuNs(cpuBefore), failure };
  } finally {
    unwatch();
    await consumer.shutdown();
  }
}

export type ListenerType = 'concurrently' | 'orderly';

export interface MoveFigures {
  /** The queues that moved: B's share once it joined, given back to A when it left. */
  moved: number[];
  /** Per moved queue, ms from just before B.start() to B's first delivery from it (-1: none). */
  joinMs: number[];
  joinFailure: string | null;
  /** How long B.shutdown() took. */
  shutdownMs: number;
  /** Per moved queue, ms from B.shutdown() returning to A's first delivery from it (-1: none). */
  leaveMs: number[];
  leaveFailure: string | null;
}

/** A member of the move case: when it first delivered from each queue since it was armed. */
class Member {
  readonly consumer: PushConsumer;
  readonly firstSince = new Map<number, bigint>();
  since = 0n;

  constructor(namesrvAddr: string, topic: string, group: string, listener: ListenerType, workMs: number) {
    this.consumer = createPushConsumer({ namesrvAddr, consumerGroup: group });
    this.consumer.subscribe(topic, '*');
    const work = (): Promise<void> | undefined =>
      workMs > 0 ? new Promise((r) => setTimeout(r, workMs)) : undefined;
    const seen = (msgs: MessageExt[]): void => {
      const t = now();
      if (t < this.since) return;
      for (const m of msgs) if (!this.firstSince.has(m.queueId)) this.firstSince.set(m.queueId, t);
    };
    this.consumer.registerMessageListener(
      listener === 'orderly'
        ? {
            type: 'orderly',
            async consumeMessage(msgs) {
              seen(msgs);
              await work();
              return ConsumeOrderlyStatus.SUCCESS;
            },
          }
        : {
            type: 'concurrently',
            async consumeMessage(msgs) {
              seen(msgs);
              await work();
              return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
            },
          },
    );
  }

  arm(at: bigint): void {
    this.firstSince.clear();
    this.since = at;
  }

  deliveredFromAll(queueIds: readonly number[]): boolean {
    return queueIds.every((q) => this.firstSince.has(q));
  }

  latenciesMs(queueIds: readonly number[]): number[] {
    return queueIds.map((q) => {
      const t = this.firstSince.get(q);
      return t === undefined ? -1 : Number(t - this.since) / 1e6;
    });
  }
}

/**
 * Two members of a fresh group on `topic` (which someone else keeps sending to): A alone until it has
 * delivered from every queue, then B joins, then after settleMs B leaves; see MoveFigures. Listeners
 * take workMs per call (a timer, as a listener waiting on I/O would; 0: empty).
 */
export async function ourMove(
  namesrvAddr: string,
  topic: string,
  group: string,
  listener: ListenerType,
  settleMs: number,
  deadlineMs: number,
  workMs: number,
): Promise<MoveFigures> {
  const a = new Member(namesrvAddr, topic, group, listener, workMs);
  let b: Member | undefined;
  try {
    a.arm(now());
    await a.consumer.start();
    const mqAll = [...(await a.consumer.fetchSubscribeMessageQueues(topic))].sort(MessageQueue.compare);
    const all = mqAll.map((mq) => mq.queueId);
    if (!(await waitFor(() => a.deliveredFromAll(all), deadlineMs)))
      throw new Error(
        `member A alone delivered from queues ${[...a.firstSince.keys()].join(',')} of ${all.join(',')} within ${deadlineMs} ms`,
      );

    const joining = new Member(namesrvAddr, topic, group, listener, workMs);
    b = joining;
    joining.arm(now());
    await joining.consumer.start();
    const cidA = a.consumer.clientId ?? '';
    const cidB = joining.consumer.clientId ?? '';
    const moved = new AllocateMessageQueueAveragely()
      .allocate(group, cidB, mqAll, [cidA, cidB].sort())
      .map((mq) => mq.queueId);
    const joined = await waitFor(() => joining.deliveredFromAll(moved), deadlineMs);
    const figures: MoveFigures = {
      moved,
      joinMs: joining.latenciesMs(moved),
      joinFailure: joined ? null : 'deadline',
      shutdownMs: -1,
      leaveMs: [],
      leaveFailure: null,
    };
    if (!joined) return figures;

    await new Promise((r) => setTimeout(r, settleMs));
    const shutdownStarted = now();
    b = undefined;
    await joining.consumer.shutdown();
    const left = now();
    figures.shutdownMs = Number(left - shutdownStarted) / 1e6;
    a.arm(left);
    const taken = await waitFor(() => a.deliveredFromAll(moved), deadlineMs);
    figures.leaveMs = a.latenciesMs(moved);
    figures.leaveFailure = taken ? null : 'deadline';
    return figures;
  } finally {
    await b?.consumer.shutdown();
    await a.consumer.shutdown();
  }
}

// ---------------------------------------------------------------------------------------------
// the memory child: `node --expose-gc bench-consumer.js --memory-child push|lite <namesrv> <topic> <group>`

export type MemoryKind = 'push' | 'lite';

export interface MemoryFigures {
  rssBytes: number;
  heapBytes: number;
  /** Buffers (message bodies among them) live outside V8's heap. */
  arrayBuffersBytes: number;
  externalBytes: number;
}

function memoryFigures(): MemoryFigures {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) throw new Error('the memory child needs node --expose-gc');
  // Twice: what the first collection finalised goes in the second.
  gc();
  gc();
  const m = process.memoryUsage();
  return {
    rssBytes: m.rss,
    heapBytes: m.heapUsed,
    arrayBuffersBytes: m.arrayBuffers,
    externalBytes: m.external,
  };
}

function print(value: Record<string, unknown>): void {
  process.stdout.write(`${JSON.stringify(value)}\n`);
}

/**
 * Commands on stdin, one a line, one JSON line printed for each: `start` (memory after a full GC, then
 * the consumer: push with a listener that does not return until `stop`, or lite never polled, so that
 * the cache fills to the flow-control thresholds; prints the client id), `measure` (memory after a full
 * GC), `stop` (shuts the consumer down, releases the listeners). Exits at end of input.
 */
export async function memoryChild(kind: MemoryKind, namesrvAddr: string, topic: string, group: string) {
  let push: PushConsumer | undefined;
  let lite: LitePullConsumer | undefined;
  const blocked: (() => void)[] = [];
  print({ ready: true });
  for await (const line of createInterface({ input: process.stdin })) {
    try {
      switch (line.trim()) {
        case 'start': {
          const before = memoryFigures();
          const options = {
            namesrvAddr,
            consumerGroup: group,
            consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
          } as const;
          if (kind === 'push') {
            push = createPushConsumer(options);
            push.subscribe(topic, '*');
            push.registerMessageListener({
              type: 'concurrently',
              consumeMessage: () =>
                new Promise((resolve) =>
                  blocked.push(() => resolve(ConsumeConcurrentlyStatus.CONSUME_SUCCESS)),
                ),
            });
            await push.start();
          } else {
            lite = createLitePullConsumer(options);
            lite.subscribe(topic, '*');
            await lite.start();
          }
          print({ clientId: push?.clientId ?? lite?.clientId, ...before });
          break;
        }
        case 'measure':
          print({ ...memoryFigures() });
          break;
        case 'stop':
          await push?.shutdown();
          await lite?.shutdown();
          for (const release of blocked.splice(0)) release();
          print({ stopped: true });
          break;
        case '':
          break;
        default:
          throw new Error(`unknown command ${line}`);
      }
    } catch (error) {
      print({ error: error instanceof Error ? `${error.name}: ${error.message}` : String(error) });
    }
  }
  await push?.shutdown();
  await lite?.shutdown();
}
