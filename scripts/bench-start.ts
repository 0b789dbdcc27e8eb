/**
 * `rmq start` as a user runs it, with the official client's traffic, against the official name
 * server and broker in the same run: process start to listening, idle RSS, RSS under load, and the
 * send and consume rates the official 4.9.8 producer and push consumers (interop TrafficProbe: sync,
 * async, oneway and batch sends, two push consumers on "TagA || TagB") reach through each. Prints
 * figures; it is not a test. Needs Java and the interop build (`node scripts/interop-prepare.mjs`).
 *
 *   node build/scripts/bench-start.js [--count N] [--no-official]
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runJava, startBroker, startNamesrv } from '../test/interop/harness.js';

const countAt = process.argv.indexOf('--count');
const COUNT = countAt >= 0 ? Number(process.argv[countAt + 1]) : 10_000;
if (!Number.isInteger(COUNT) || COUNT < 4) throw new Error('--count takes an integer >= 4');
const OFFICIAL = !process.argv.includes('--no-official');
const bin = fileURLToPath(new URL('../../bin/rmq.js', import.meta.url));

function rssKiB(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(m?.[1] ?? 0);
}

/** Samples the RSS of `pids` every 100 ms while `work` runs; resolves with its result and the peak sum. */
async function sampled<T>(pids: number[], work: Promise<T>): Promise<{ result: T; peakKiB: number }> {
  let peak = 0;
  const sample = () => {
    let sum = 0;
    for (const pid of pids) {
      try {
        sum += rssKiB(pid);
      } catch {
        // The process ended.
      }
    }
    peak = Math.max(peak, sum);
  };
  const timer = setInterval(sample, 100);
  try {
    return { result: await work, peakKiB: peak };
  } finally {
    clearInterval(timer);
  }
}

interface Traffic {
  sendMs: number;
  consumeMs: number;
  expected: number;
  missing: number;
  duplicated: number;
  corrupted: number;
}

async function traffic(namesrvAddr: string, topic: string): Promise<Traffic> {
  const r = await runJava(
    'org.rocketmqts.interop.TrafficProbe',
    [namesrvAddr, topic, `${topic}_cg`, String(COUNT), '300000'],
    { timeoutMs: 360_000 },
  );
  const line = r.stdout.split('\n').find((l) => l.startsWith('{'));
  if (line === undefined)
    throw new Error(`TrafficProbe printed nothing (exit ${r.exitCode})\n${r.stderr.slice(-3000)}`);
  return JSON.parse(line) as Traffic;
}

function rates(t: Traffic): string {
  const send = (COUNT * 1000) / t.sendMs;
  const consume = (t.expected * 1000) / t.consumeMs;
  const problems = t.missing + t.duplicated + t.corrupted;
  return `send ${send.toFixed(0)} msg/s, consume ${consume.toFixed(0)} msg/s${problems > 0 ? ` (${problems} PROBLEMS)` : ''}`;
}

async function ours(): Promise<{ traffic: Traffic; line: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'rmq-bench-start-'));
  const started = performance.now();
  const child: ChildProcess = spawn(
    process.execPath,
    [
      bin,
      'start',
      '-d',
      dir,
      '--namesrv-port',
      '0',
      '--broker-port',
      '0',
      '--host',
      '127.0.0.1',
      '--broker-ip',
      '127.0.0.1',
      // rmq start serves the dashboard and /metrics on 8080 by default: any free port here.
      '--dashboard-port',
      '0',
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  try {
    const namesrvAddr = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout?.on('data', (d: Buffer) => {
        out += d.toString();
        const m = /name server\s+(\S+)/.exec(out);
        if (m?.[1] !== undefined && out.includes('broker ')) resolve(m[1]);
      });
      child.once('exit', (code) => reject(new Error(`rmq start exited ${code}`)));
    });
    const startupMs = performance.now() - started;
    const pid = child.pid ?? 0;
    await new Promise((r) => setTimeout(r, 2000));
    const idle = rssKiB(pid);
    const { result, peakKiB } = await sampled([pid], traffic(namesrvAddr, 'BenchTopic'));
    const stopStart = performance.now();
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await exited;
    const stopMs = performance.now() - stopStart;
    return {
      traffic: result,
      line:
        `rocketmq-ts (rmq start, one process): spawn to listening ${startupMs.toFixed(0)} ms, RSS idle ${(idle / 1024).toFixed(0)} MiB, ` +
        `peak under load ${(peakKiB / 1024).toFixed(0)} MiB, graceful stop ${stopMs.toFixed(0)} ms; ${rates(result)}`,
    };
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
}

async function official(): Promise<{ traffic: Traffic; line: string }> {
  const started = performance.now();
  const ns = await startNamesrv();
  const broker = await startBroker({ namesrvAddr: ns.addr, config: { autoCreateTopicEnable: true } });
  const startupMs = performance.now() - started;
  try {
    await new Promise((r) => setTimeout(r, 2000));
    const pids = [ns.pid, broker.pid];
    const idle = pids.reduce((s, p) => s + rssKiB(p), 0);
    const { result, peakKiB } = await sampled(pids, traffic(ns.addr, 'BenchTopic'));
    return {
      traffic: result,
      line:
        `official 4.9.x (name server + broker JVMs): start to registered ${startupMs.toFixed(0)} ms, RSS idle ${(idle / 1024).toFixed(0)} MiB, ` +
        `peak under load ${(peakKiB / 1024).toFixed(0)} MiB; ${rates(result)}`,
    };
  } finally {
    await broker.close();
    await ns.close();
  }
}

const a = await ours();
console.log(a.line);
if (OFFICIAL) {
  const b = await official();
  console.log(b.line);
  const ratio = (x: number, y: number) => (x / y).toFixed(2);
  console.log(
    `ratio ours/official: send ${ratio(b.traffic.sendMs, a.traffic.sendMs)}, consume ${ratio(b.traffic.consumeMs, a.traffic.consumeMs)} (same run, same probe, ${COUNT} messages)`,
  );
}
