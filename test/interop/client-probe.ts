/**
 * The official Java producer and pull consumer (interop ClientProbe), for interop tests that need
 * real client traffic: each call runs one JVM and returns the JSON lines it printed.
 */
import { runJava } from './harness.js';

export interface ProbeSendResult {
  status: string;
  msgId: string;
  offsetMsgId: string;
  brokerName: string;
  queueId: number;
  queueOffset: string;
}

export interface ProbeMessage {
  topic: string;
  queueId: number;
  queueOffset: string;
  commitLogOffset: string;
  msgId: string;
  offsetMsgId: string | null;
  tags: string | null;
  keys: string | null;
  bodyHex: string;
  reconsumeTimes: number;
  properties: Record<string, string>;
}

export interface ProduceOptions {
  mode?: 'sync' | 'async' | 'oneway' | 'batch';
  group?: string;
  tags?: readonly string[];
  bodySize?: number;
  timeoutMs?: number;
}

function jsonLines(stdout: string): unknown[] {
  return stdout
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as unknown);
}

async function runProbe(args: string[], timeoutMs: number): Promise<unknown[]> {
  const r = await runJava('org.rocketmqts.interop.ClientProbe', args, { timeoutMs });
  if (r.exitCode !== 0) {
    throw new Error(
      `ClientProbe ${args[0]} exit ${String(r.exitCode)}${r.timedOut ? ' (timed out)' : ''}\n${r.stderr.slice(-4000)}`,
    );
  }
  return jsonLines(r.stdout);
}

/** Sends `count` messages with the official DefaultMQProducer (message i: body `body-i`, keys, idx=i). */
export async function officialProduce(
  namesrv: string,
  topic: string,
  count: number,
  options: ProduceOptions = {},
): Promise<ProbeSendResult[]> {
  const args = ['produce', namesrv, topic, String(count), '--mode', options.mode ?? 'sync'];
  if (options.group !== undefined) args.push('--group', options.group);
  if (options.tags !== undefined) args.push('--tags', options.tags.join(','));
  if (options.bodySize !== undefined) args.push('--body-size', String(options.bodySize));
  return (await runProbe(args, options.timeoutMs ?? 90_000)) as ProbeSendResult[];
}

/** Reads every message of the topic with the official DefaultMQPullConsumer; `commit` stores offsets. */
export async function officialPullAll(
  namesrv: string,
  topic: string,
  group: string,
  options: { commit?: boolean; timeoutMs?: number } = {},
): Promise<ProbeMessage[]> {
  const args = ['pull', namesrv, topic, group];
  if (options.commit) args.push('--commit');
  const lines = await runProbe(args, options.timeoutMs ?? 90_000);
  const summary = lines.at(-1) as { done?: boolean } | undefined;
  if (summary?.done !== true) throw new Error('ClientProbe pull printed no summary');
  return lines.slice(0, -1) as ProbeMessage[];
}
