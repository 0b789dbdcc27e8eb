/**
 * interop/client5's PopProbe (the official 5.5.0 remoting client doing POP) and the two brokers it
 * runs against: the official 5.5.0 name server + broker (interop/server5) and ours (in this process).
 * pop.test.ts compares them; bench-compare-pop.ts times them.
 */
import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { RequestCode } from '../../src/remoting/protocol/request-code.js';
import { ResponseCode } from '../../src/remoting/protocol/response-code.js';
import { moduleClasspath, runJava, simpleRequest, startBroker, startNamesrv } from './harness.js';
import { startLoopbackPair } from './loopback-pair.js';

export const POP_PROBE = 'org.rocketmqts.interop.client5.PopProbe';

export type PopBrokerKind = 'official' | 'ours';

export interface PopPeer {
  readonly kind: PopBrokerKind;
  readonly namesrvAddr: string;
  readonly brokerAddr: string;
  readonly brokerName: string;
  /** a temp dir of this peer for the probes' client logs */
  readonly dir: string;
  close(): Promise<void>;
}

/** The official 5.5.0 name server and broker (upstream defaults: timer wheel on, 8 revive queues). */
async function startOfficial(): Promise<PopPeer> {
  const ns = await startNamesrv({ upstream: 5 });
  try {
    const broker = await startBroker({ upstream: 5, namesrvAddr: ns.addr, brokerName: 'broker-official' });
    return {
      kind: 'official',
      namesrvAddr: ns.addr,
      brokerAddr: broker.addr,
      brokerName: broker.brokerName,
      dir: broker.homeDir,
      close: async () => {
        await broker.close();
        await ns.close();
      },
    };
  } catch (err) {
    await ns.close();
    throw err;
  }
}

async function startOurs(): Promise<PopPeer> {
  const pair = await startLoopbackPair('pop');
  return {
    kind: 'ours',
    namesrvAddr: pair.namesrvAddr,
    brokerAddr: pair.brokerAddr,
    brokerName: 'broker-ts',
    dir: pair.dir,
    close: () => pair.close(),
  };
}

export function startPopPeer(kind: PopBrokerKind): Promise<PopPeer> {
  return kind === 'official' ? startOfficial() : startOurs();
}

export type PopCodeName =
  | 'POP_MESSAGE'
  | 'ACK_MESSAGE'
  | 'BATCH_ACK_MESSAGE'
  | 'CHANGE_MESSAGE_INVISIBLETIME'
  | 'NOTIFICATION'
  | 'QUERY_ASSIGNMENT'
  | 'SET_MESSAGE_REQUEST_MODE';

/**
 * The request codes a broker answers with REQUEST_CODE_NOT_SUPPORTED: each is sent once without a
 * header; a broker that serves it answers something else (a header error, or a result).
 */
export async function unsupportedCodes(
  brokerAddr: string,
  names: readonly PopCodeName[],
): Promise<PopCodeName[]> {
  const missing: PopCodeName[] = [];
  for (const name of names) {
    const reply = await simpleRequest(brokerAddr, RequestCode[name], 10_000);
    if (reply.header.code === ResponseCode.REQUEST_CODE_NOT_SUPPORTED) missing.push(name);
  }
  return missing;
}

export interface PopProbeRun {
  readonly lines: readonly Record<string, unknown>[];
  readonly exitCode: number | null;
  readonly timedOut: boolean;
  readonly stderr: string;
}

/** Runs PopProbe once (one JVM) with the client's log under the peer's dir; parses its JSON lines. */
export async function runPopProbe(
  peer: PopPeer,
  args: readonly string[],
  timeoutMs: number,
): Promise<PopProbeRun> {
  const logRoot = mkdtempSync(join(peer.dir, `pop-log-${args[0]}-`));
  const r = await runJava(POP_PROBE, args, {
    timeoutMs,
    classpath: moduleClasspath('client5'),
    jvmArgs: [
      `-Drocketmq.log.root=${logRoot}`,
      '-Drocketmq.log.level=WARN',
      // QUERY_ASSIGNMENT again every second (default 20 s), so a member that starts late is assigned soon
      '-Drocketmq.client.rebalance.waitInterval=1000',
    ],
  });
  const lines = r.stdout
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  return { lines, exitCode: r.exitCode, timedOut: r.timedOut, stderr: r.stderr };
}

/** One `{"case":...}` line of `PopProbe raw`. */
export interface RawCase {
  readonly case: string;
  readonly code?: number;
  readonly remark?: string | null;
  readonly header?: Record<string, string>;
  readonly msgs?: readonly ProbeMsg[];
  readonly status?: string;
  readonly extraInfo?: string | null;
  readonly value?: unknown;
  readonly error?: string;
}

export interface ProbeMsg {
  readonly topic: string;
  readonly queue: number;
  readonly offset: number;
  readonly reconsumeTimes: number;
  readonly keys: string | null;
  readonly idx: string | null;
  readonly popCk: string | null;
  readonly properties: Record<string, string>;
  readonly receivedAt?: number;
  readonly answer?: string;
}

/** The cases of a raw run by name, in order (a name repeats for the revive polls). */
export function rawCases(run: PopProbeRun): Map<string, RawCase[]> {
  const byName = new Map<string, RawCase[]>();
  for (const l of run.lines) {
    if (typeof l.case !== 'string') continue;
    const list = byName.get(l.case) ?? [];
    list.push(l as unknown as RawCase);
    byName.set(l.case, list);
  }
  return byName;
}

/**
 * The receipt handle of upstream's ExtraInfoUtil: startOffset popTime invisibleTime reviveQid
 * topicType(0 normal, 1 retry) brokerName queueId offset.
 */
export const HANDLE = /^(\d+) (\d+) (\d+) (\d+) ([01]) (\S+) (\d+) (\d+)$/;
