/**
 * The timer scenario of bench:compare (issue 27): N timer messages (1,000,000; `--timer-messages`)
 * due over 60 s (`--timer-spread`), sent by the official 5.5.0 client (interop/client5 TimerProbe:
 * setDeliverTimeMs and setDelayTimeSec, async, due times anywhere within a second) and received by
 * its push consumer, against our broker (`rmq start`) and the official 5.5.0 broker, each fresh.
 * Lateness is receive time minus the time asked for (timerPrecisionMs 1000 alone makes it up to 1 s:
 * a slot is given out when it has passed); slot lateness is receive time minus the slot's end, the
 * brokers' own delay. Split at the broker's re-put: dequeue lateness is TIMER_DEQUEUE_MS minus the
 * time asked for (setDeliverTimeMs messages, whose time is exact), consumer lag is receive time minus
 * TIMER_DEQUEUE_MS. `--timer-precision-ms` (1000) sets timerPrecisionMs on both brokers.
 * Broker CPU: utime + stime over the probe's run.
 */
import { moduleClasspath, runJava } from '../test/interop/harness.js';
import { BrokerAdmin } from './bench-admin.js';
import { ProcSampler, startBenchBroker } from './bench-compare-brokers.js';
import type { BrokerKind } from './bench-support.js';

const PROBE = 'org.rocketmqts.interop.client5.TimerProbe';
const TOPIC = 'BenchTimer';
/** Headroom for the JVM, routes, rebalance, the last slot and the shutdown. */
const SLACK_MS = 120_000;

export interface TimerRow {
  broker: BrokerKind;
  summary?: Record<string, number>;
  cpuS?: number;
  peakRssMiB?: number;
  error?: string;
}

/** The time before the first message is due: enough for the sends to stay ahead of the due times. */
function leadMs(count: number): number {
  return 10_000 + Math.ceil(count / 20);
}

export async function runTimerScenario(
  kind: BrokerKind,
  count: number,
  spreadMs: number,
  queues: number,
  precisionMs: number,
  log: (text: string) => void,
): Promise<TimerRow> {
  log(`timer (${count} messages due over ${spreadMs / 1000} s, timerPrecisionMs ${precisionMs}) on ${kind}`);
  let broker: Awaited<ReturnType<typeof startBenchBroker>>;
  try {
    broker = await startBenchBroker(kind, 'ASYNC_FLUSH', 5, { timerPrecisionMs: precisionMs });
  } catch (error) {
    return { broker: kind, error: error instanceof Error ? error.message : String(error) };
  }
  const sampler = new ProcSampler(broker.pid);
  const admin = new BrokerAdmin(broker.namesrvAddr, broker.brokerAddr);
  try {
    await admin.createTopic(TOPIC, queues);
    const lead = leadMs(count);
    const timeout = lead + spreadMs + SLACK_MS;
    const from = Date.now();
    const r = await runJava(
      PROBE,
      [
        'run',
        broker.namesrvAddr,
        TOPIC,
        'bench_timer_cg',
        String(count),
        String(lead),
        String(spreadMs),
        String(timeout),
        `--precision-ms=${precisionMs}`,
      ],
      {
        timeoutMs: timeout + 60_000,
        classpath: moduleClasspath('client5'),
        jvmArgs: ['-server', '-Xms1g', '-Xmx1g', '-Drocketmq.log.level=WARN'],
      },
    );
    const to = Date.now();
    sampler.sample();
    const line = r.stdout.split('\n').find((l) => l.startsWith('{"summary"'));
    if (line === undefined) throw new Error(`TimerProbe printed no summary: ${r.stderr.slice(-2000)}`);
    const summary = (JSON.parse(line) as { summary: Record<string, number> }).summary;
    const cpuS = sampler.cpuSecondsBetween(from, to);
    const peakRssMiB = sampler.peakRssMiB(from, to).rss;
    log(`  ${kind}: ${line} broker CPU ${cpuS.toFixed(1)} s, peak RSS ${peakRssMiB.toFixed(0)} MiB`);
    return { broker: kind, summary, cpuS, peakRssMiB };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    log(`  ${kind}: FAILED ${message}`);
    return { broker: kind, error: message };
  } finally {
    sampler.stop();
    await admin.close();
    await broker.close();
  }
}

const cell = (v: number | undefined, unit = ''): string => (v === undefined || v < 0 ? '–' : `${v}${unit}`);

/** The scenario's markdown table, one row per broker. */
export function timerTable(
  rows: readonly TimerRow[],
  count: number,
  spreadMs: number,
  precisionMs: number,
): string {
  const head = [
    `Timer messages: ${count.toLocaleString('en-US')} due over ${spreadMs / 1000} s (official 5.5.0 client, setDeliverTimeMs / setDelayTimeSec; timerPrecisionMs ${precisionMs})`,
    '',
    '| broker | received | missing | duplicates | early | due before sent | lateness p50 / p99 / max | slot lateness p50 / p99 / max | dequeue lateness p50 / p99 / max | consumer lag p50 / p99 / max | broker CPU | peak RSS |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
  ];
  const body = rows.map((r) => {
    const s = r.summary;
    if (s === undefined) return `| ${r.broker} | failed: ${r.error ?? '?'} | | | | | | | | | | |`;
    return (
      `| ${r.broker === 'official' ? 'official 5.5.0' : 'ours'} | ${s.received} | ${s.missing} | ${s.duplicates} | ${s.early} | ${s.pastAtSend} | ` +
      `${cell(s.latenessP50)} / ${cell(s.latenessP99)} / ${cell(s.latenessMax)} ms | ` +
      `${cell(s.slotLatenessP50)} / ${cell(s.slotLatenessP99)} / ${cell(s.slotLatenessMax)} ms | ` +
      `${cell(s.dequeueLatenessP50)} / ${cell(s.dequeueLatenessP99)} / ${cell(s.dequeueLatenessMax)} ms | ` +
      `${cell(s.consumerLagP50)} / ${cell(s.consumerLagP99)} / ${cell(s.consumerLagMax)} ms | ` +
      `${r.cpuS?.toFixed(1) ?? '–'} s | ${r.peakRssMiB?.toFixed(0) ?? '–'} MiB |`
    );
  });
  return [...head, ...body].join('\n');
}
