/**
 * Auto-created topics at scale (issue 26, point 8): one connection sends to `--topics` new topic
 * names (16 in flight, each topic auto-created from TBW102), while an unrelated producer on its own
 * connection sends one message at a time to one existing topic. Printed per broker: topics created
 * and refused, the flood's duration, the broker process's RSS (start, peak, end) and the unrelated
 * sends' latency (p50, p99, max). Brokers, in one run:
 * - `ours`: `rmq start` with its defaults, so autoCreateTopicMaxCount (5000) stops the flood;
 * - `ours-unlimited`: the same with the limit raised past `--topics`, like with like;
 * - `official`: the official 4.9.x name server and broker (needs scripts/interop-prepare.mjs).
 * Ours' RSS includes its name server (same process); the official broker's does not.
 *
 * npm run bench:topics -- [--topics 10000] [--kinds ours,ours-unlimited,official]
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createLogger } from '../src/common/logger.js';
import type { RemotingCommand } from '../src/remoting/protocol/command.js';
import { RemotingClient } from '../src/remoting/transport/index.js';
import { sendToTopic } from './attack/raw-requests.js';
import {
  type Broker,
  choices,
  integer,
  removeTempDir,
  rssMiB,
  startOfficial,
  startOurs,
  tempDir,
} from './bench-support.js';

const TOPICS = integer('topics', '10000');
const KINDS = choices('kinds', 'ours,ours-unlimited,official', [
  'ours',
  'ours-unlimited',
  'official',
] as const);
const IN_FLIGHT = 16;
const TIMEOUT_MS = 30_000;
const quiet = createLogger('bench-topics', { level: 'silent' });

type Kind = (typeof KINDS)[number];

interface Row {
  kind: Kind;
  created: number;
  refused: number;
  failed: number;
  seconds: number;
  rss: { start: number; peak: number; end: number };
  steady: { count: number; p50: number; p99: number; max: number; errors: number };
}

function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] as number;
}

async function start(kind: Kind, confDir: string): Promise<Broker> {
  if (kind === 'official') return startOfficial();
  if (kind === 'ours') return startOurs({ dirPrefix: 'rmq-bench-topics-' });
  const conf = join(confDir, 'unlimited.conf');
  writeFileSync(conf, `autoCreateTopicMaxCount=${TOPICS + 1000}\n`);
  return startOurs({ dirPrefix: 'rmq-bench-topics-', startArgs: ['-c', conf] });
}

async function measure(kind: Kind, confDir: string): Promise<Row> {
  const broker = await start(kind, confDir);
  const flood = new RemotingClient({}, { logger: quiet });
  const steadyClient = new RemotingClient({}, { logger: quiet });
  const invoke = (c: RemotingClient, cmd: RemotingCommand) =>
    c.invoke(broker.brokerAddr, cmd, { timeoutMs: TIMEOUT_MS });
  try {
    const steadyTopic = `BenchSteady_${Date.now().toString(36)}`;
    // Created (and routed) before the flood: the unrelated producer's topic exists.
    const first = await invoke(steadyClient, sendToTopic(steadyTopic));
    if (first.code !== 0) throw new Error(`${kind}: the steady topic: code ${first.code} ${first.remark}`);
    const rss = { start: rssMiB(broker.brokerPid), peak: 0, end: 0 };
    rss.peak = rss.start;
    const sampler = setInterval(() => {
      rss.peak = Math.max(rss.peak, rssMiB(broker.brokerPid));
    }, 100);
    let flooding = true;
    const latencies: number[] = [];
    let steadyErrors = 0;
    const steady = (async () => {
      while (flooding) {
        const t0 = process.hrtime.bigint();
        const r = await invoke(steadyClient, sendToTopic(steadyTopic)).catch(() => undefined);
        if (r?.code === 0) latencies.push(Number(process.hrtime.bigint() - t0) / 1e6);
        else steadyErrors++;
      }
    })();
    const began = Date.now();
    let created = 0;
    let refused = 0;
    let failed = 0;
    let next = 0;
    const run = Date.now().toString(36);
    const worker = async (): Promise<void> => {
      for (let i = next++; i < TOPICS; i = next++) {
        const r = await invoke(flood, sendToTopic(`BenchTopic_${run}_${i}`)).catch(() => undefined);
        if (r?.code === 0) created++;
        else if (r?.code === 17) refused++;
        else failed++;
      }
    };
    await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
    const seconds = (Date.now() - began) / 1000;
    flooding = false;
    await steady;
    clearInterval(sampler);
    rss.end = rssMiB(broker.brokerPid);
    rss.peak = Math.max(rss.peak, rss.end);
    latencies.sort((a, b) => a - b);
    return {
      kind,
      created,
      refused,
      failed,
      seconds,
      rss,
      steady: {
        count: latencies.length,
        p50: percentile(latencies, 50),
        p99: percentile(latencies, 99),
        max: latencies.at(-1) ?? Number.NaN,
        errors: steadyErrors,
      },
    };
  } finally {
    await flood.close();
    await steadyClient.close();
    await broker.close();
  }
}

const confDir = tempDir('rmq-bench-topics-conf-');
const rows: Row[] = [];
try {
  for (const kind of KINDS) {
    console.error(`bench:topics: ${kind}, ${TOPICS} new topics...`);
    rows.push(await measure(kind, confDir));
  }
} finally {
  removeTempDir(confDir);
}
const f = (n: number, d = 1) => (Number.isNaN(n) ? '-' : n.toFixed(d));
console.log(
  `${TOPICS} sends to new topics (${IN_FLIGHT} in flight), one unrelated producer sending meanwhile`,
);
console.log(
  '| broker | created | refused (limit) | failed | flood s | RSS start / peak / end MiB | unrelated sends | p50 ms | p99 ms | max ms |',
);
console.log('| --- | ---: | ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: |');
for (const r of rows) {
  console.log(
    `| ${r.kind} | ${r.created} | ${r.refused} | ${r.failed} | ${f(r.seconds)} | ${f(r.rss.start, 0)} / ${f(r.rss.peak, 0)} / ${f(r.rss.end, 0)} | ${r.steady.count}${r.steady.errors > 0 ? ` (${r.steady.errors} failed)` : ''} | ${f(r.steady.p50, 2)} | ${f(r.steady.p99, 2)} | ${f(r.steady.max, 1)} |`,
  );
}
process.exit(0);
