/**
 * What one `rmq admin topicList` costs a script against what the official `mqadmin topicList` costs
 * (JVM start included), each a fresh process, against our broker and against the official 4.9.x
 * broker holding the same topics. Also checks both list the same topics. Prints figures; it is not
 * a test. Needs Java and the interop build (`node scripts/interop-prepare.mjs`).
 *
 *   node build/scripts/bench-admin-cli.js [--topics 1000] [--runs 5] [--brokers ours,official]
 */
import { spawn } from 'node:child_process';
import { createAdmin } from '../src/admin/index.js';
import { mqadmin } from '../test/interop/harness.js';
import { type Broker, choices, integer, rmqCommand, startOfficial, startOurs } from './bench-support.js';

const TOPICS = integer('topics', '1000');
const RUNS = integer('runs', '5');
const KINDS = choices('brokers', 'ours,official', ['ours', 'official'] as const);

interface Timed {
  ms: number;
  topics: Set<string>;
}

function topicsOf(stdout: string): Set<string> {
  return new Set(
    stdout
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l !== ''),
  );
}

function runOurs(namesrvAddr: string): Promise<Timed> {
  const started = performance.now();
  const child = spawn(process.execPath, [...rmqCommand(), 'admin', 'topicList', '-n', namesrvAddr], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => {
    out += d;
  });
  child.stderr.setEncoding('utf8').on('data', (d: string) => {
    err += d;
  });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => {
      const ms = performance.now() - started;
      if (code !== 0) reject(new Error(`rmq admin topicList exited ${code}: ${err.slice(-2000)}`));
      else resolve({ ms, topics: topicsOf(out) });
    });
  });
}

async function runOfficial(namesrvAddr: string): Promise<Timed> {
  const started = performance.now();
  const r = await mqadmin(namesrvAddr, ['topicList'], 120_000);
  const ms = performance.now() - started;
  if (r.exitCode !== 0) throw new Error(`mqadmin topicList exited ${r.exitCode}: ${r.stderr.slice(-2000)}`);
  return { ms, topics: topicsOf(r.stdout) };
}

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 === 1 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
}

async function createTopics(broker: Broker): Promise<void> {
  const admin = createAdmin({ namesrvAddr: broker.namesrvAddr });
  await admin.start();
  try {
    for (let i = 0; i < TOPICS; i += 1) {
      await admin.createAndUpdateTopicConfig(broker.brokerAddr, {
        topicName: `BenchAdmin-${i}`,
        readQueueNums: 4,
        writeQueueNums: 4,
      });
    }
  } finally {
    await admin.shutdown();
  }
}

async function measure(broker: Broker): Promise<void> {
  await createTopics(broker);
  const ours: number[] = [];
  const official: number[] = [];
  let seenOurs: Set<string> | undefined;
  let seenOfficial: Set<string> | undefined;
  // Alternating, so a noisy neighbour hurts both alike.
  for (let i = 0; i < RUNS; i += 1) {
    const a = await runOurs(broker.namesrvAddr);
    ours.push(a.ms);
    seenOurs = a.topics;
    const b = await runOfficial(broker.namesrvAddr);
    official.push(b.ms);
    seenOfficial = b.topics;
  }
  const same =
    seenOurs !== undefined &&
    seenOfficial !== undefined &&
    seenOurs.size === seenOfficial.size &&
    [...seenOurs].every((t) => seenOfficial?.has(t));
  const o = median(ours);
  const m = median(official);
  console.log(
    `${broker.name.padEnd(16)} rmq admin ${o.toFixed(0).padStart(5)} ms   mqadmin ${m.toFixed(0).padStart(5)} ms   ` +
      `ratio ${(m / o).toFixed(1)}x   topics listed ${seenOurs?.size ?? 0}${same ? ' (same set)' : ' (SETS DIFFER)'}`,
  );
  if (!same) process.exitCode = 1;
}

console.log(
  `topicList, a fresh process per call, median of ${RUNS} runs, ${TOPICS} topics created first (${rmqCommand().join(' ').includes('main.js') && !rmqCommand().join(' ').includes('/bundle/') ? 'unbundled tsc build' : 'bundled CLI'})`,
);
for (const kind of KINDS) {
  const broker = kind === 'ours' ? await startOurs({ dirPrefix: 'rmq-bench-admin-' }) : await startOfficial();
  try {
    await measure(broker);
  } finally {
    await broker.close();
  }
}
