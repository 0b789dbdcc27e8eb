/**
 * Official 4.9.8 push consumers of one group in one JVM (interop ConsumerGroupProbe), for tests that
 * put them next to ours: what each member received and which queues it holds, as the probe reports.
 */
import { startJavaProgram } from './harness.js';

export type JavaGroupMode = 'concurrently' | 'orderly' | 'broadcasting';

/** One delivery to a Java member's listener. */
export interface JavaDelivery {
  readonly member: number;
  readonly msgId: string;
  readonly topic: string;
  readonly queueId: number;
  readonly queueOffset: number;
  readonly reconsumeTimes: number;
  readonly keys: string | null;
  /** The `key` and `seq` user properties, when the message has them. */
  readonly key: string | null;
  readonly seq: string | null;
  readonly receivedAt: number;
}

export interface JavaGroupOptions {
  readonly namesrvAddr: string;
  readonly topic: string;
  readonly group: string;
  readonly mode: JavaGroupMode;
  readonly members: number;
  /** Member i is `<prefix>-i`. */
  readonly instancePrefix: string;
  /** Member i's client IP (the first part of its client id). */
  readonly clientIPs?: readonly string[];
  /** The probe's own deadline (default 180 s). */
  readonly timeoutMs?: number;
}

export interface JavaGroup {
  /** By member index, once started. */
  readonly clientIds: readonly string[];
  /** The queue ids of the topic member i holds as last reported (undefined before the first report). */
  held(member: number): readonly number[] | undefined;
  deliveries(): readonly JavaDelivery[];
  /** SIGTERM: every member shuts down (offsets persisted, orderly queues unlocked). */
  close(): Promise<void>;
  stderrTail(): string;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null;
}

export async function startJavaGroup(opts: JavaGroupOptions): Promise<JavaGroup> {
  const timeoutMs = opts.timeoutMs ?? 180_000;
  const args = [
    opts.namesrvAddr,
    opts.topic,
    opts.group,
    opts.mode,
    String(opts.members),
    String(timeoutMs),
    '--instance-prefix',
    opts.instancePrefix,
  ];
  if (opts.clientIPs !== undefined) args.push('--client-ips', opts.clientIPs.join(','));
  const program = startJavaProgram('org.rocketmqts.interop.ConsumerGroupProbe', args);
  const clientIds: string[] = [];
  const held = new Map<number, number[]>();
  const received: JavaDelivery[] = [];
  let parsed = 0;
  const parseNew = (): void => {
    for (; parsed < program.lines.length; parsed++) {
      const line = program.lines[parsed] as string;
      if (!line.startsWith('{')) continue;
      const value = JSON.parse(line) as unknown;
      if (!isObject(value) || typeof value.member !== 'number') continue;
      if (isObject(value.msg))
        received.push({ ...(value.msg as object), member: value.member } as JavaDelivery);
      else if (Array.isArray(value.held)) held.set(value.member, value.held as number[]);
      else if (typeof value.clientId === 'string') clientIds[value.member] = value.clientId;
    }
  };
  try {
    await program.waitForCount(/^\{"member":\d+,"clientId"/, opts.members, 60_000);
  } catch (error) {
    await program.close(0);
    throw error;
  }
  parseNew();
  return {
    clientIds,
    held(member) {
      parseNew();
      return held.get(member);
    },
    deliveries() {
      parseNew();
      return received;
    },
    close: () => program.close(10_000),
    stderrTail: () => program.stderrTail(),
  };
}
