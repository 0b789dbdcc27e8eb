/**
 * bench-compare's POP scenario (issue 27): the official 5.5.0 Java push consumer in POP mode
 * (interop/client5 PopProbe: members with setClientRebalance(false) after SET_MESSAGE_REQUEST_MODE POP,
 * popShareQueueNum 0) against the official 5.5.0 broker and against ours, one after the other, each
 * fresh on an empty store. Two runs per broker, each with its own topic and group:
 * - backlog: BENCH_POP_COUNT messages stored first, then the members pop + ack them all; throughput =
 *   messages / (last delivery - first delivery), broker CPU over that window;
 * - live: the members wait in long polling while the same count is sent (8 senders); end-to-end
 *   latency = consumed - born (same machine clock), p50 / p99 / max.
 * A broker that answers REQUEST_CODE_NOT_SUPPORTED to a POP code gets 'n/a (reason)' rows, not a failure.
 *
 *   BENCH_POP_COUNT (default 20000, quick 5000), BENCH_POP_MEMBERS (default 2) for bigger runs.
 */
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { javaSetup, moduleClasspath, startBroker, startNamesrv } from '../test/interop/harness.js';
import { POP_PROBE, type PopCodeName, unsupportedCodes } from '../test/interop/pop-probe.js';
import {
  OFFICIAL_BROKER_JVM,
  ProcSampler,
  startBenchBroker,
  storeSettings,
} from './bench-compare-brokers.js';
import {
  type BrokerKind,
  JAVA_BENCH_JVM,
  loadText,
  removeOnExit,
  spawnTracked,
  stopped,
  tempDir,
} from './bench-support.js';

/** The name of the scenario in `--scenarios`. */
export const POP_SCENARIO = 'pop';

const POP_CODES: readonly PopCodeName[] = [
  'QUERY_ASSIGNMENT',
  'SET_MESSAGE_REQUEST_MODE',
  'POP_MESSAGE',
  'ACK_MESSAGE',
  'CHANGE_MESSAGE_INVISIBLETIME',
];
/** Consume threads per member: the push consumer's default (20). */
const CONSUME_THREADS = 20;
const SENDERS = 8;
/**
 * The probe's deadline beyond the run's own length: JVM start, assignment, and one default invisible
 * time (60 s), so a message whose pop answer was lost comes back (counted late, not missing).
 */
const RUN_SLACK_MS = 75_000;
/** How long past its own deadline the probe may take to print its summary and exit. */
const EXIT_SLACK_MS = 45_000;
/** The slowest rate a run's deadline allows for, messages/s. */
const MIN_RATE = 500;

interface PopRow {
  readonly broker: BrokerKind;
  readonly run: 'backlog' | 'live';
  readonly na?: string;
  readonly messages?: number;
  readonly tps?: number;
  readonly p50Ms?: number;
  readonly p99Ms?: number;
  readonly maxMs?: number;
  readonly cpuPer100k?: number;
  readonly redelivered?: number;
  /** sent but never delivered within the run's deadline */
  readonly missing?: number;
}

interface PopBroker {
  readonly namesrvAddr: string;
  readonly brokerAddr: string;
  readonly pid: number;
  close(): Promise<void>;
}

function log(text: string): void {
  process.stderr.write(`${new Date().toISOString().slice(11, 19)} ${text}\n`);
}

async function startPopBroker(kind: BrokerKind): Promise<PopBroker> {
  if (kind === 'ours') return startBenchBroker('ours', 'ASYNC_FLUSH');
  const ns = await startNamesrv({ upstream: 5 });
  removeOnExit(ns.homeDir);
  try {
    const broker = await startBroker({
      upstream: 5,
      namesrvAddr: ns.addr,
      jvmArgs: OFFICIAL_BROKER_JVM,
      config: storeSettings('ASYNC_FLUSH'),
    });
    removeOnExit(broker.homeDir);
    return {
      namesrvAddr: ns.addr,
      brokerAddr: broker.addr,
      pid: broker.pid,
      close: async () => {
        await broker.close();
        await ns.close();
      },
    };
  } catch (error) {
    await ns.close();
    throw error;
  }
}

/** One PopProbe push run (full JIT, exits when our stdin closes); resolves with its summary. */
async function probe(args: readonly string[], timeoutMs: number): Promise<Record<string, unknown>> {
  const home = tempDir('rmq-bench-pop-');
  const child = spawnTracked(
    'java',
    [
      ...javaSetup().javaOpts,
      ...JAVA_BENCH_JVM,
      `-Duser.home=${home}`,
      `-Drocketmq.log.root=${join(home, 'logs')}`,
      '-Drocketmq.log.level=WARN',
      '-Drocketmq.client.rebalance.waitInterval=1000',
      '-cp',
      moduleClasspath('client5'),
      POP_PROBE,
      ...args,
      '--exit-on-stdin-close',
    ],
    'pipe',
  );
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (d: string) => {
    stderr = (stderr + d).slice(-4000);
  });
  let summary: Record<string, unknown> | undefined;
  let error: string | undefined;
  if (child.stdout !== null) {
    createInterface({ input: child.stdout }).on('line', (line) => {
      if (!line.startsWith('{')) return;
      const o = JSON.parse(line) as Record<string, unknown>;
      if (o.done !== undefined) summary = o.done as Record<string, unknown>;
      if (o.error !== undefined) error = `${String(o.error)}: ${String(o.message)}`;
    });
  }
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  await new Promise<void>((resolvePromise) => child.once('exit', () => resolvePromise()));
  clearTimeout(timer);
  child.stdin?.end();
  await stopped(child, 1000);
  if (summary === undefined) throw new Error(`PopProbe: ${error ?? 'no summary'}\n${stderr}`);
  return summary;
}

function num(o: Record<string, unknown>, k: string): number {
  const v = o[k];
  return typeof v === 'number' ? v : Number.NaN;
}

async function runBroker(kind: BrokerKind, count: number, members: number): Promise<PopRow[]> {
  log(`pop on ${kind} [${loadText()}]`);
  let broker: PopBroker;
  try {
    broker = await startPopBroker(kind);
  } catch (error) {
    const message = error instanceof Error ? error.message.split('\n')[0] : String(error);
    return [
      { broker: kind, run: 'backlog', na: `broker start failed: ${message}` },
      { broker: kind, run: 'live', na: `broker start failed: ${message}` },
    ];
  }
  const rows: PopRow[] = [];
  const sampler = new ProcSampler(broker.pid);
  try {
    const lacks = await unsupportedCodes(broker.brokerAddr, POP_CODES);
    if (lacks.length > 0) {
      const na = `the broker answers REQUEST_CODE_NOT_SUPPORTED to ${lacks.join(', ')}`;
      log(`  n/a: ${na}`);
      return [
        { broker: kind, run: 'backlog', na },
        { broker: kind, run: 'live', na },
      ];
    }
    for (const run of ['backlog', 'live'] as const) {
      const timeoutMs = (count / MIN_RATE) * 1000 + RUN_SLACK_MS;
      try {
        const s = await probe(
          [
            ...['push', broker.namesrvAddr, broker.brokerAddr, `BenchPop_${run}`, `bench_pop_${run}`],
            ...[String(members), String(count), String(timeoutMs)],
            ...['--queues', '8', '--quiet', '--quiet-ms', '1000', '--senders', String(SENDERS)],
            ...['--threads', String(CONSUME_THREADS), ...(run === 'backlog' ? ['--backlog'] : [])],
          ],
          timeoutMs + EXIT_SLACK_MS,
        );
        sampler.sample();
        const first = num(s, 'firstDelivery');
        const last = num(s, 'lastDelivery');
        const messages = num(s, 'succeeded');
        const cpu = sampler.cpuSecondsBetween(first, last);
        const row: PopRow = {
          broker: kind,
          run,
          messages,
          tps: messages / Math.max(0.001, (last - first) / 1000),
          p50Ms: num(s, 'latencyP50'),
          p99Ms: num(s, 'latencyP99'),
          maxMs: num(s, 'latencyMax'),
          cpuPer100k: messages > 0 ? (cpu / messages) * 100_000 : Number.NaN,
          redelivered: num(s, 'redelivered'),
          missing: num(s, 'missing') + num(s, 'sendFailures'),
        };
        log(
          `  ${run}: ${messages} in ${last - first} ms, ${row.tps?.toFixed(0)}/s, p99 ${row.p99Ms} ms` +
            (s.settled === true ? '' : `, NOT settled: ${String(row.missing)} missing`),
        );
        rows.push(row);
      } catch (error) {
        const message = error instanceof Error ? error.message.split('\n')[0] : String(error);
        log(`  ${run}: FAILED ${message}`);
        rows.push({ broker: kind, run, na: `failed: ${message}` });
      }
    }
  } finally {
    sampler.stop();
    await broker.close();
  }
  return rows;
}

function fmt(v: number | undefined, digits = 0): string {
  return v === undefined || !Number.isFinite(v) ? '–' : v.toFixed(digits);
}

function popTable(rows: readonly PopRow[]): string {
  const out = [
    '| POP run | broker | messages | pop + ack TPS | born → consumed p50 / p99 / max ms | broker CPU s / 100k msgs | redelivered | missing |',
    '|---|---|---|---|---|---|---|---|',
  ];
  for (const run of ['backlog', 'live'] as const) {
    for (const r of rows.filter((x) => x.run === run)) {
      const label = run === 'backlog' ? 'backlog drained' : 'live (sent while consuming)';
      if (r.na !== undefined) {
        out.push(`| ${label} | ${r.broker} | n/a (${r.na.replaceAll('|', '/')}) | | | | | |`);
        continue;
      }
      out.push(
        `| ${label} | ${r.broker} | ${fmt(r.messages)} | ${fmt(r.tps)} | ${fmt(r.p50Ms)} / ${fmt(r.p99Ms)} / ${fmt(r.maxMs)} | ${fmt(r.cpuPer100k, 2)} | ${fmt(r.redelivered)} | ${fmt(r.missing)} |`,
      );
    }
    const official = rows.find((x) => x.run === run && x.broker === 'official');
    const ours = rows.find((x) => x.run === run && x.broker === 'ours');
    if (official?.tps !== undefined && ours?.tps !== undefined && official.tps > 0)
      out.push(`| ${run}: ours / official | | | **${(ours.tps / official.tps).toFixed(2)}** | | | | |`);
  }
  return out.join('\n');
}

/**
 * Runs the POP scenario on each broker kind (official first) and returns its markdown section for
 * bench-compare's report.
 */
export async function popSection(options: {
  readonly quick: boolean;
  readonly kinds: readonly BrokerKind[];
}): Promise<string> {
  const count = Number(process.env.BENCH_POP_COUNT ?? (options.quick ? 5000 : 20_000));
  const members = Number(process.env.BENCH_POP_MEMBERS ?? 2);
  if (!(count >= 1) || !(members >= 1))
    throw new Error('BENCH_POP_COUNT and BENCH_POP_MEMBERS take numbers >= 1');
  const rows: PopRow[] = [];
  const order = (['official', 'ours'] as const).filter((k) => options.kinds.includes(k));
  for (const kind of order) rows.push(...(await runBroker(kind, count, members)));
  return [
    '',
    `### POP (official 5.5.0 push consumer, ${members} members in POP mode, queueId -1)`,
    '',
    `- official 5.5.0 broker (interop/server5, JVM ${OFFICIAL_BROKER_JVM.join(' ')}) and ours (\`rmq start\`), each fresh; topic with 8 queues, popShareQueueNum 0, ${CONSUME_THREADS} consume threads per member, default popBatchNums and invisible time`,
    `- backlog: ${count} messages stored first, then popped and acked; TPS = messages / (last - first delivery). live: ${count} messages sent by ${SENDERS} threads while the members long-poll; latency born → consumed on one clock`,
    `- size: BENCH_POP_COUNT=${count}, BENCH_POP_MEMBERS=${members}`,
    '',
    popTable(rows),
    '',
  ].join('\n');
}
