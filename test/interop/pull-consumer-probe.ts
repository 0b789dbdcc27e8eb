/**
 * The official 4.9.8 lite pull and pull consumers (interop PullConsumerProbe) for the pull consumer
 * interop suite: a lite pull member of a group that the test drives over stdin (commit, quit), and
 * one-shot runs that seek a queue or read topics with DefaultMQPullConsumer.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { ProbeMessage } from './client-probe.js';
import { javaSetup, runJava } from './harness.js';

const PROBE = 'org.rocketmqts.interop.PullConsumerProbe';
/** The harness's flags for tool JVMs (small heap, quick start). */
const TOOL_JVM = ['-Xms32m', '-Xmx256m', '-XX:+UseSerialGC', '-XX:TieredStopAtLevel=1'];

/** A message as the probe prints it: ClientProbe's fields plus these. */
export interface JavaMessage extends ProbeMessage {
  readonly brokerName: string | null;
  readonly storeTimestamp: string;
  readonly bornTimestamp: string;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null;
}

function parseLines(stdout: string): Record<string, unknown>[] {
  return stdout
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as unknown)
    .filter(isObject);
}

/** JVM flags that keep the Java client's home and logs in the test's own directory. */
function homeFlags(dir: string): string[] {
  const logs = join(dir, 'java-client-logs');
  mkdirSync(logs, { recursive: true });
  return [`-Duser.home=${dir}`, `-Drocketmq.client.logRoot=${logs}`, '-Drocketmq.client.logLevel=WARN'];
}

async function runProbe(dir: string, args: readonly string[], timeoutMs: number) {
  const r = await runJava(PROBE, args, { timeoutMs, jvmArgs: homeFlags(dir) });
  const lines = parseLines(r.stdout);
  if (r.exitCode !== 0) {
    const why = r.timedOut ? ' (timed out)' : '';
    throw new Error(
      `PullConsumerProbe ${args[0]} exit ${String(r.exitCode)}${why}\n${r.stdout.slice(-2000)}\n${r.stderr.slice(-3000)}`,
    );
  }
  return lines;
}

// ---------------------------------------------------------------------------------------------
// lite-group: a running member the test drives

export interface LiteGroupProbe {
  readonly clientId: string;
  /** The queue ids it holds as last reported (undefined before the first report). */
  held(): readonly number[] | undefined;
  /** Every message polled so far, in order. */
  messages(): readonly JavaMessage[];
  /** commitSync, then each held queue's offset written to the broker; resolves with what it committed. */
  commit(timeoutMs?: number): Promise<ReadonlyMap<number, bigint>>;
  /** Ends the input: the consumer shuts down and the JVM exits. */
  quit(timeoutMs?: number): Promise<void>;
  stderrTail(): string;
}

export interface LiteGroupOptions {
  readonly namesrvAddr: string;
  readonly topic: string;
  readonly group: string;
  /** The first part of its client id. */
  readonly clientIP: string;
  /** Home and log directory of the JVM. */
  readonly dir: string;
  /** The probe's own deadline [120 s]. */
  readonly timeoutMs?: number;
}

const live = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of live) child.kill('SIGKILL');
});

export async function startLiteGroupProbe(opts: LiteGroupOptions): Promise<LiteGroupProbe> {
  const setup = javaSetup();
  const args = [
    ...setup.javaOpts,
    ...TOOL_JVM,
    ...homeFlags(opts.dir),
    '-cp',
    setup.classpath,
    PROBE,
    'lite-group',
    opts.namesrvAddr,
    opts.topic,
    opts.group,
    opts.clientIP,
    String(opts.timeoutMs ?? 120_000),
  ];
  // If this process dies, the probe's stdin closes and it quits by itself (its own deadline too).
  const child = spawn('java', args, { stdio: ['pipe', 'pipe', 'pipe'] });
  // A command written after the probe exited fails with EPIPE; the waiting call reports the exit.
  child.stdin?.on('error', () => {});
  live.add(child);
  child.once('exit', () => live.delete(child));
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => {
    stderr = (stderr + d.toString()).slice(-8000);
  });
  const lines: Record<string, unknown>[] = [];
  const listeners = new Set<() => void>();
  let exited = false;
  if (child.stdout !== null) {
    createInterface({ input: child.stdout }).on('line', (line) => {
      let parsed: unknown;
      try {
        parsed = JSON.parse(line);
      } catch {
        return;
      }
      if (isObject(parsed)) lines.push(parsed);
      for (const l of listeners) l();
    });
  }
  child.once('exit', () => {
    exited = true;
    for (const l of listeners) l();
  });
  const waitFor = <T>(pick: () => T | undefined, what: string, timeoutMs: number) =>
    new Promise<T>((resolve, reject) => {
      const finish = (settle: () => void) => {
        clearTimeout(timer);
        listeners.delete(check);
        settle();
      };
      const check = () => {
        let value: T | undefined;
        try {
          value = pick();
        } catch (error) {
          finish(() => reject(error));
          return;
        }
        if (value !== undefined) finish(() => resolve(value));
        else if (exited)
          finish(() => reject(new Error(`PullConsumerProbe exited before ${what}\n${stderr}`)));
      };
      const timer = setTimeout(
        () => finish(() => reject(new Error(`PullConsumerProbe: no ${what} in ${timeoutMs} ms\n${stderr}`))),
        timeoutMs,
      );
      listeners.add(check);
      check();
    });
  const kill = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const gone = once(child, 'exit');
    child.kill('SIGKILL');
    await gone;
  };
  let clientId: string;
  try {
    clientId = await waitFor(
      () => {
        const error = lines.find((l) => 'error' in l);
        if (error !== undefined) throw new Error(`PullConsumerProbe failed: ${JSON.stringify(error)}`);
        const line = lines.find((l) => typeof l.clientId === 'string');
        return line === undefined ? undefined : String(line.clientId);
      },
      'clientId line',
      60_000,
    );
  } catch (error) {
    await kill();
    throw error;
  }
  let commits = 0;
  return {
    clientId,
    held() {
      const reports = lines.filter((l) => Array.isArray(l.held));
      const last = reports[reports.length - 1];
      return last === undefined ? undefined : (last.held as number[]);
    },
    messages() {
      return lines.filter((l) => isObject(l.msg)).map((l) => l.msg as JavaMessage);
    },
    async commit(timeoutMs = 30_000) {
      const seen = commits++;
      child.stdin?.write('commit\n');
      const line = await waitFor(
        () => lines.filter((l) => isObject(l.committed))[seen],
        'committed line',
        timeoutMs,
      );
      return new Map(
        Object.entries(line.committed as Record<string, string>).map(([q, o]) => [Number(q), BigInt(o)]),
      );
    },
    async quit(timeoutMs = 30_000) {
      child.stdin?.end();
      try {
        await waitFor(() => (exited ? true : undefined), 'exit', timeoutMs);
      } finally {
        await kill();
      }
    },
    stderrTail: () => stderr,
  };
}

// ---------------------------------------------------------------------------------------------
// lite-seek and pull: one run each

/** One seek of the official lite pull consumer and the first message poll returned after it. */
export interface JavaSeek {
  readonly op: string;
  /** The offset sought (offsetForTimestamp's answer for `ts:` ops); null for begin and end. */
  readonly offset: string | null;
  readonly first: JavaMessage | null;
}

/**
 * The official DefaultLitePullConsumer assigned `queue` performs `ops` in order (`ts:<ms>`,
 * `offset:<n>`, `begin`, `end`); see PullConsumerProbe.
 */
export async function officialLiteSeek(
  dir: string,
  namesrvAddr: string,
  queue: { topic: string; brokerName: string; queueId: number },
  group: string,
  ops: readonly string[],
): Promise<JavaSeek[]> {
  const args = [
    'lite-seek',
    namesrvAddr,
    queue.topic,
    queue.brokerName,
    String(queue.queueId),
    group,
    ...ops,
  ];
  const lines = await runProbe(dir, args, 90_000);
  return lines.filter((l) => typeof l.op === 'string') as unknown as JavaSeek[];
}

export interface JavaQueueRead {
  readonly topic: string;
  readonly queueId: number;
  readonly min: bigint;
  readonly max: bigint;
  /** The group's offset on the broker (fetchConsumeOffset from the store); -1 when none. */
  readonly committed: bigint;
  /** What the official pull consumer read: from `committed` (fromCommitted) or `min`, up to `max`. */
  readonly messages: JavaMessage[];
}

/** The official DefaultMQPullConsumer of `group` reads every queue of `topics`. */
export async function officialPullRead(
  dir: string,
  namesrvAddr: string,
  group: string,
  topics: readonly string[],
  options: { fromCommitted?: boolean } = {},
): Promise<JavaQueueRead[]> {
  const args = [
    'pull',
    namesrvAddr,
    group,
    ...(options.fromCommitted === true ? ['--from-committed'] : []),
    ...topics,
  ];
  const lines = await runProbe(dir, args, 90_000);
  if (lines.at(-1)?.done !== true) throw new Error('PullConsumerProbe pull printed no summary');
  const reads: JavaQueueRead[] = [];
  for (const line of lines) {
    if (isObject(line.queue)) {
      const q = line.queue as Record<string, string | number>;
      reads.push({
        topic: String(q.topic),
        queueId: Number(q.queueId),
        min: BigInt(q.min as string),
        max: BigInt(q.max as string),
        committed: BigInt(q.committed as string),
        messages: [],
      });
    } else if (isObject(line.msg)) {
      const current = reads.at(-1);
      if (current === undefined) throw new Error('PullConsumerProbe printed a message before its queue');
      current.messages.push(line.msg as unknown as JavaMessage);
    }
  }
  return reads;
}
