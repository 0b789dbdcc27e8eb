/**
 * The official 4.9.8 push consumer (interop PushConsumerProbe) kept running next to a test: it
 * subscribes one topic from the first offset and reports every delivery, so a test can send with our
 * producer and then wait for exactly the msgIds it was given.
 */
import { createHash } from 'node:crypto';
import { startJavaProgram } from './harness.js';

/** One delivery as the official client handed it to its listener. */
export interface ReceivedMessage {
  readonly topic: string;
  readonly tags: string | null;
  readonly keys: string | null;
  readonly properties: Readonly<Record<string, string>>;
  readonly bodyLength: number;
  readonly bodySha256: string;
  /** Only for bodies of at most 1 KiB. */
  readonly bodyHex?: string;
  /** UNIQ_KEY when the message has one (MessageClientExt.getMsgId). */
  readonly msgId: string;
  readonly offsetMsgId: string | null;
  readonly brokerName: string | null;
  readonly queueId: number;
  readonly queueOffset: number;
  readonly commitLogOffset: number;
  readonly reconsumeTimes: number;
  readonly bornTimestamp: number;
  readonly storeTimestamp: number;
  /** The consumer JVM's wall clock when the listener got it. */
  readonly receivedAt: number;
  readonly sysFlag: number;
}

export interface PushConsumerOptions {
  readonly namesrvAddr: string;
  readonly topic: string;
  readonly group: string;
  /** Tag expression, or SQL92 with `sql` (default `*`). */
  readonly expression?: string;
  readonly sql?: boolean;
  /** Ready once it holds this many queues of the topic (default 1). */
  readonly queues?: number;
  /** The probe's own deadline, ready wait included (default 240 s). */
  readonly timeoutMs?: number;
}

export interface PushConsumerProbe {
  readonly clientId: string;
  /** Queues of the topic held when it became ready. */
  readonly queues: number;
  /** Every delivery so far, in arrival order. */
  deliveries(): readonly ReceivedMessage[];
  /**
   * Resolves with every delivery of each id (in arrival order) once each id arrived at least once;
   * rejects at the deadline naming the ids still missing.
   */
  waitForMsgIds(ids: Iterable<string>, timeoutMs: number): Promise<Map<string, ReceivedMessage[]>>;
  /** Stops the JVM (SIGTERM, its shutdown hook prints a summary). */
  close(): Promise<void>;
  stderrTail(): string;
}

const POLL_MS = 50;

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null;
}

export async function startPushConsumerProbe(opts: PushConsumerOptions): Promise<PushConsumerProbe> {
  const args = [
    opts.namesrvAddr,
    opts.topic,
    opts.group,
    opts.expression ?? '*',
    '0',
    String(opts.timeoutMs ?? 240_000),
    '--queues',
    String(opts.queues ?? 1),
  ];
  if (opts.sql === true) args.push('--sql');
  const program = startJavaProgram('org.rocketmqts.interop.PushConsumerProbe', args);
  const received: ReceivedMessage[] = [];
  let parsed = 0;
  let ended: string | undefined;
  const parseNew = (): void => {
    for (; parsed < program.lines.length; parsed++) {
      const line = program.lines[parsed] as string;
      if (!line.startsWith('{')) continue;
      const value = JSON.parse(line) as unknown;
      if (!isObject(value)) continue;
      if (isObject(value.msg)) received.push(value.msg as unknown as ReceivedMessage);
      else if (value.done === true || value.error !== undefined) ended = line;
    }
  };
  let ready: { clientId: string; queues: number };
  try {
    const line = await program.waitForLine(/^\{"(ready|error)"/, (opts.timeoutMs ?? 240_000) + 5_000);
    const value = JSON.parse(line) as { ready?: true; clientId: string; queues: number; error?: string };
    if (value.ready !== true)
      throw new Error(`PushConsumerProbe failed to start: ${line}\n${program.stderrTail()}`);
    ready = value;
  } catch (error) {
    await program.close(0);
    throw error;
  }
  return {
    clientId: ready.clientId,
    queues: ready.queues,
    deliveries() {
      parseNew();
      return received;
    },
    async waitForMsgIds(ids, timeoutMs) {
      const wanted = new Set(ids);
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        parseNew();
        const found = new Map<string, ReceivedMessage[]>();
        for (const m of received) {
          if (wanted.has(m.msgId)) found.set(m.msgId, [...(found.get(m.msgId) ?? []), m]);
        }
        if (found.size === wanted.size) return found;
        if (ended !== undefined || Date.now() >= deadline) {
          const missing = [...wanted].filter((id) => !found.has(id));
          throw new Error(
            `PushConsumerProbe: ${missing.length} of ${wanted.size} msgIds not delivered in ${timeoutMs} ms ` +
              `(${received.length} deliveries in all${ended === undefined ? '' : `; probe ended: ${ended}`}), ` +
              `e.g. ${missing.slice(0, 5).join(', ')}\n${program.stderrTail().slice(-3000)}`,
          );
        }
        await new Promise((r) => setTimeout(r, POLL_MS));
      }
    },
    close: () => program.close(5_000),
    stderrTail: () => program.stderrTail(),
  };
}

/** What PushConsumerProbe reports of a body, for comparison with what was sent. */
export function bodyDigest(body: Buffer): { bodyLength: number; bodySha256: string } {
  return { bodyLength: body.length, bodySha256: createHash('sha256').update(body).digest('hex') };
}
