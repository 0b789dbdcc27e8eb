/**
 * What ACL and TLS cost a producer (issue 15, "Figures for the note"): our producer against our broker
 * (`rmq start` in a child process) and against the official 4.9.x broker, each with ACL off and on,
 * each over plain TCP and over TLS, in one run. Prints TPS, latency and CPU per send (client and
 * broker) per case and each case / the same broker's plain case, so the two brokers' costs compare.
 *
 * Per broker kind, the one with ACL off and the one with ACL on run side by side, each in its default
 * TLS mode (permissive with the self-signed test certificate, ours and upstream's: TLS and plain
 * clients share its port). Cases take turns over --rounds rounds, and the order changes every round,
 * so drift on a shared machine spreads over all of them. Each case: a warm-up (dropped), then
 * --seconds measured with --in-flight sends outstanding, 1 KiB bodies unless --size says otherwise.
 *
 *   node <build>/scripts/bench-security.js [--seconds 5] [--warmup-seconds 2] [--rounds 2]
 *     [--in-flight 64] [--size 1024] [--brokers ours,official]
 *
 * The official broker needs Java and the interop build (`node scripts/interop-prepare.mjs`).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createHistogram } from 'node:perf_hooks';
import { createProducer, type Producer } from '../src/client/index.js';
import { createLogger } from '../src/common/logger.js';
import { Message } from '../src/common/message/message.js';
import {
  BROKER_KINDS,
  type Broker,
  type BrokerKind,
  choices,
  integer,
  positive,
  processCpuNs,
  startOfficial,
  startOurs,
  tempDir,
} from './bench-support.js';

const MEASURE_MS = positive('seconds', '5') * 1000;
const WARMUP_MS = positive('warmup-seconds', '2') * 1000;
const ROUNDS = integer('rounds', '2');
const IN_FLIGHT = integer('in-flight', '64');
const SIZE = integer('size', '1024');
const BROKERS = choices('brokers', 'ours,official', BROKER_KINDS);
const TOPIC = 'BenchSecurity';
const HIGHEST_NS = 60e9;
/** The first send of a new topic warns that no route exists yet; the figures are the output. */
const QUIET = createLogger('bench-security', { level: 'error' });
const ACCOUNT = { accessKey: 'benchadmin', secretKey: 'benchsecret01' };

interface Case {
  readonly name: string;
  readonly acl: boolean;
  readonly tls: boolean;
}

const CASES: readonly Case[] = [
  { name: 'plain', acl: false, tls: false },
  { name: 'TLS', acl: false, tls: true },
  { name: 'ACL', acl: true, tls: false },
  { name: 'ACL+TLS', acl: true, tls: true },
];

interface Figures {
  sends: number;
  errors: number;
  elapsedNs: number;
  p50Ns: number;
  p99Ns: number;
  clientCpuNs: number;
  brokerCpuNs: number;
}

/** An admin account without topic or group rules: allowed everything, but every request is checked. */
const PLAIN_ACL_YML = `accounts:\n  - accessKey: ${ACCOUNT.accessKey}\n    secretKey: ${ACCOUNT.secretKey}\n    admin: true\n`;

/** Our `rmq start` or the official pair, with ACL on or off. */
function startBroker(kind: BrokerKind, acl: boolean): Promise<Broker> {
  if (kind === 'official') {
    return acl
      ? startOfficial({ config: { aclEnable: true }, homeFiles: { 'conf/plain_acl.yml': PLAIN_ACL_YML } })
      : startOfficial();
  }
  if (!acl) return startOurs({ dirPrefix: 'rmq-bench-security-' });
  const home = tempDir('rmq-bench-security-home-');
  mkdirSync(join(home, 'conf'));
  writeFileSync(join(home, 'conf', 'plain_acl.yml'), PLAIN_ACL_YML);
  const conf = join(home, 'broker.conf');
  writeFileSync(conf, `aclEnable=true\nrocketmqHome=${home}\n`);
  return startOurs({ dirPrefix: 'rmq-bench-security-acl-', startArgs: ['-c', conf] });
}

async function sendFor(producer: Producer, body: Buffer, durationMs: number, figures?: Figures) {
  const histogram = createHistogram({ lowest: 1, highest: HIGHEST_NS, figures: 3 });
  const end = performance.now() + durationMs;
  let sends = 0;
  let errors = 0;
  let firstError: string | undefined;
  const loop = async (): Promise<void> => {
    while (performance.now() < end && errors < 1000) {
      const t0 = process.hrtime.bigint();
      try {
        await producer.send(new Message(TOPIC, body));
        histogram.record(Math.min(HIGHEST_NS, Math.max(1, Number(process.hrtime.bigint() - t0))));
        sends++;
      } catch (error) {
        errors++;
        firstError ??= error instanceof Error ? error.message : String(error);
      }
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, loop));
  if (firstError !== undefined) console.error(`  first error: ${firstError}`);
  if (figures !== undefined) {
    figures.sends = sends;
    figures.errors = errors;
    figures.p50Ns = histogram.count === 0 ? 0 : histogram.percentile(50);
    figures.p99Ns = histogram.count === 0 ? 0 : histogram.percentile(99);
  }
}

async function runCase(c: Case, broker: Broker): Promise<Figures> {
  const producer = createProducer({
    namesrvAddr: broker.namesrvAddr,
    producerGroup: `bench_security_${c.name.replace(/\W/g, '_')}`,
    instanceName: `bench-security-${c.name}-${Date.now()}`,
    ...(c.acl ? { credentials: ACCOUNT } : {}),
    ...(c.tls ? { tls: { rejectUnauthorized: false } } : {}),
    logger: QUIET,
  });
  await producer.start();
  try {
    const body = Buffer.alloc(SIZE, 0x61);
    await sendFor(producer, body, WARMUP_MS);
    const figures: Figures = {
      sends: 0,
      errors: 0,
      elapsedNs: 0,
      p50Ns: 0,
      p99Ns: 0,
      clientCpuNs: 0,
      brokerCpuNs: 0,
    };
    const cpu = process.cpuUsage();
    const brokerCpu = processCpuNs(broker.brokerPid);
    const t0 = process.hrtime.bigint();
    await sendFor(producer, body, MEASURE_MS, figures);
    figures.elapsedNs = Number(process.hrtime.bigint() - t0);
    const used = process.cpuUsage(cpu);
    figures.clientCpuNs = (used.user + used.system) * 1000;
    figures.brokerCpuNs = processCpuNs(broker.brokerPid) - brokerCpu;
    return figures;
  } finally {
    await producer.shutdown();
  }
}

const tps = (f: Figures): number => (f.sends * 1e9) / Math.max(1, f.elapsedNs);
const perSendUs = (ns: number, f: Figures): number => ns / 1000 / Math.max(1, f.sends);

function summary(title: string, results: ReadonlyMap<string, Figures[]>): string[] {
  const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
  const rows = CASES.map((c) => {
    const runs = results.get(c.name) ?? [];
    return {
      name: c.name,
      tps: mean(runs.map(tps)),
      p50: mean(runs.map((f) => f.p50Ns)) / 1e6,
      p99: mean(runs.map((f) => f.p99Ns)) / 1e6,
      client: mean(runs.map((f) => perSendUs(f.clientCpuNs, f))),
      broker: mean(runs.map((f) => perSendUs(f.brokerCpuNs, f))),
      errors: runs.reduce((a, f) => a + f.errors, 0),
    };
  });
  const base = rows[0]?.tps ?? 1;
  const lines = [
    title,
    `case      TPS       / plain  p50 ms  p99 ms  client CPU us/send  broker CPU us/send  errors`,
  ];
  for (const r of rows) {
    lines.push(
      `${r.name.padEnd(9)} ${r.tps.toFixed(0).padStart(8)}  ${(r.tps / base).toFixed(2).padStart(6)}x ` +
        `${r.p50.toFixed(3).padStart(7)} ${r.p99.toFixed(3).padStart(7)} ${r.client.toFixed(1).padStart(19)} ` +
        `${r.broker.toFixed(1).padStart(19)} ${String(r.errors).padStart(7)}`,
    );
  }
  return lines;
}

/** Every case against one kind of broker (its ACL-off and ACL-on instances side by side). */
async function benchKind(kind: BrokerKind): Promise<string[]> {
  const plainBroker = await startBroker(kind, false);
  let aclBroker: Broker | undefined;
  try {
    aclBroker = await startBroker(kind, true);
    const results = new Map<string, Figures[]>();
    for (let round = 0; round < ROUNDS; round++) {
      // Rotate the order each round so a drifting machine does not always favour the same case.
      const order = CASES.map((_, i) => CASES[(i + round) % CASES.length] as Case);
      if (round % 2 === 1) order.reverse();
      for (const c of order) {
        const f = await runCase(c, c.acl ? aclBroker : plainBroker);
        console.log(
          `${plainBroker.name} round ${round + 1} ${c.name.padEnd(8)} ${tps(f).toFixed(0).padStart(7)} sends/s  ` +
            `p99 ${(f.p99Ns / 1e6).toFixed(3)} ms  errors ${f.errors}`,
        );
        const list = results.get(c.name) ?? [];
        list.push(f);
        results.set(c.name, list);
      }
    }
    return summary(`${plainBroker.name}:`, results);
  } finally {
    await plainBroker.close();
    await aclBroker?.close();
  }
}

async function main(): Promise<void> {
  console.log(
    `bench-security: ${ROUNDS} rounds, ${MEASURE_MS / 1000} s measured (+${WARMUP_MS / 1000} s warm-up) per case, ` +
      `${IN_FLIGHT} in flight, ${SIZE} B bodies, our producer`,
  );
  const tables: string[] = [];
  for (const kind of BROKERS) tables.push(...(await benchKind(kind)), '');
  console.log('');
  for (const line of tables) console.log(line);
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
