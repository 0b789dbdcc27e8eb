/**
 * What the client benches (bench-client, bench-consumer) share: command-line options, the child
 * processes and temp dirs they start (killed and removed when the bench ends, however it ends),
 * helper processes that speak one JSON object per line (the interop JVMs, a node child), and the two
 * brokers they measure against: ours (`rmq start` in a child process) and the official 4.9.x one
 * (test/interop/harness.ts).
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { javaSetup, startBroker, startNamesrv } from '../test/interop/harness.js';

// ---------------------------------------------------------------------------------------------
// command-line options: `--name value` and bare `--flag`

export function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? (process.argv[i + 1] ?? fallback) : fallback;
}

export function flag(name: string): boolean {
  return process.argv.includes(`--${name}`);
}

export function positive(name: string, fallback: string): number {
  const v = Number(arg(name, fallback));
  if (!Number.isFinite(v) || v <= 0) throw new Error(`--${name} takes a number > 0`);
  return v;
}

export function integer(name: string, fallback: string, min = 1): number {
  const v = Number(arg(name, fallback));
  if (!Number.isInteger(v) || v < min) throw new Error(`--${name} takes an integer >= ${min}`);
  return v;
}

export function integers(name: string, fallback: string): number[] {
  const list = arg(name, fallback).split(',').map(Number);
  if (list.some((v) => !Number.isInteger(v) || v < 1)) throw new Error(`--${name} takes integers >= 1`);
  return list;
}

/** A comma-separated subset of `allowed`, in the order given. */
export function choices<T extends string>(name: string, fallback: string, allowed: readonly T[]): T[] {
  const list = arg(name, fallback).split(',');
  for (const v of list)
    if (!(allowed as readonly string[]).includes(v))
      throw new Error(`--${name}: ${allowed.join(', ')}; not ${v}`);
  return list as T[];
}

export const BROKER_KINDS = ['ours', 'official'] as const;
export type BrokerKind = (typeof BROKER_KINDS)[number];

export function loadText(): string {
  return `load ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`;
}

export function javaVersion(): string {
  const r = spawnSync('java', ['-version'], { encoding: 'utf8' });
  return (r.stderr ?? '').split('\n')[0]?.trim() ?? 'java ?';
}

// ---------------------------------------------------------------------------------------------
// children and temp dirs: gone when this process ends, also on an error or a signal

const children = new Set<ChildProcess>();
const tempDirs = new Set<string>();

process.on('exit', () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  for (const d of tempDirs) rmSync(d, { recursive: true, force: true, maxRetries: 3 });
});
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.on(signal, () => {
    process.stderr.write(`\n${signal}: stopping children, removing temp dirs\n`);
    // The exit hook above does the work; the harness's own hook ends the official servers.
    process.exit(128 + (signal === 'SIGINT' ? 2 : signal === 'SIGTERM' ? 15 : 1));
  });
}

export function spawnTracked(cmd: string, args: string[], stdin: 'pipe' | 'ignore'): ChildProcess {
  const child = spawn(cmd, args, { stdio: [stdin, 'pipe', 'pipe'] });
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}

/** Resolves once `child` has exited; SIGKILL after `graceMs`. */
export function stopped(child: ChildProcess, graceMs: number): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((done) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    child.once('exit', () => {
      clearTimeout(timer);
      done();
    });
  });
}

/** A new temp dir, removed by removeTempDir or when this process exits. */
export function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  tempDirs.add(dir);
  return dir;
}

/** Also for dirs made by others (the harness's server homes), so that an interrupted run leaves none. */
export function removeOnExit(dir: string): void {
  tempDirs.add(dir);
}

export function removeTempDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
  tempDirs.delete(dir);
}

let clockTicks: number | undefined;

/** CPU time (user + system, all threads) of a process so far, from /proc; -1 when unknown. */
export function processCpuNs(pid: number | undefined): number {
  if (pid === undefined) return -1;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name, which may hold spaces; utime and stime are fields 14 and 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]);
    clockTicks ??= Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100;
    return Number.isFinite(ticks) ? (ticks * 1e9) / clockTicks : -1;
  } catch {
    return -1;
  }
}

// ---------------------------------------------------------------------------------------------
// helper processes speaking one JSON object per line

/**
 * A child that prints one JSON object per stdout line (other lines are ignored) and may read commands
 * from stdin, one per line. An `{"error":..}` line fails the call waiting for it.
 */
export class LineChild {
  private readonly lines: string[] = [];
  private wake: (() => void) | undefined;
  private stderr = '';
  private exited = false;

  constructor(
    readonly name: string,
    private readonly child: ChildProcess,
    private readonly home: string | undefined,
  ) {
    if (child.stdout !== null) {
      createInterface({ input: child.stdout }).on('line', (line) => {
        if (!line.startsWith('{')) return;
        this.lines.push(line);
        this.wake?.();
      });
    }
    child.stderr?.setEncoding('utf8').on('data', (d: string) => {
      this.stderr = (this.stderr + d).slice(-4000);
    });
    child.once('exit', () => {
      this.exited = true;
      this.wake?.();
    });
    child.once('error', (e) => {
      this.stderr += `cannot run ${name}: ${e.message}`;
      this.exited = true;
      this.wake?.();
    });
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  /** The next JSON line, parsed; rejects when the child exits first, after `timeoutMs`, or on an error line. */
  async next(timeoutMs: number): Promise<Record<string, unknown>> {
    const deadline = Date.now() + timeoutMs;
    while (this.lines.length === 0) {
      if (this.exited) throw new Error(`${this.name} exited (${this.child.exitCode})\n${this.stderr}`);
      if (Date.now() > deadline)
        throw new Error(`${this.name}: no answer in ${timeoutMs} ms\n${this.stderr}`);
      await new Promise<void>((r) => {
        const t = setTimeout(r, Math.max(1, deadline - Date.now()));
        this.wake = () => {
          clearTimeout(t);
          r();
        };
      });
      this.wake = undefined;
    }
    const parsed: unknown = JSON.parse(this.lines.shift() as string);
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
      throw new Error(`${this.name} printed ${JSON.stringify(parsed)}`);
    if ('error' in parsed) throw new Error(`${this.name} failed: ${JSON.stringify(parsed)}\n${this.stderr}`);
    return parsed as Record<string, unknown>;
  }

  send(line: string): void {
    this.child.stdin?.write(`${line}\n`);
  }

  /** Sends `line` and waits for the answer. */
  async call(line: string, timeoutMs: number): Promise<Record<string, unknown>> {
    this.send(line);
    return this.next(timeoutMs);
  }

  /** Ends its input (the helpers exit at end of input), then waits; SIGKILL after `graceMs`. */
  async close(graceMs = 15_000): Promise<void> {
    this.child.stdin?.end();
    await stopped(this.child, graceMs);
    if (this.home !== undefined) removeTempDir(this.home);
  }
}

/**
 * The JVM of an interop bench helper: full JIT (the interop tests' TieredStopAtLevel=1 is for start-up
 * time, a bench measures a rate) and a fixed heap, so that its growth is not timed.
 */
export const JAVA_BENCH_JVM = ['-server', '-Xms512m', '-Xmx512m'];

/** Starts `org.rocketmqts.interop.<mainClass>` and waits for its first line (`{"ready":true}`). */
export async function startJavaHelper(mainClass: string, args: string[]): Promise<LineChild> {
  const setup = javaSetup();
  const home = tempDir(`rmq-bench-${mainClass.toLowerCase()}-`);
  const child = spawnTracked(
    'java',
    [
      ...setup.javaOpts,
      ...JAVA_BENCH_JVM,
      `-Duser.home=${home}`,
      `-Drocketmq.client.logRoot=${join(home, 'logs')}`,
      '-cp',
      setup.classpath,
      `org.rocketmqts.interop.${mainClass}`,
      ...args,
    ],
    'pipe',
  );
  const helper = new LineChild(mainClass, child, home);
  try {
    await helper.next(60_000);
  } catch (error) {
    await helper.close();
    throw error;
  }
  return helper;
}

// ---------------------------------------------------------------------------------------------
// brokers

export interface Broker {
  name: string;
  namesrvAddr: string;
  brokerAddr: string;
  /** The broker's process (ours: the `rmq start` process, which also runs the name server). */
  brokerPid: number | undefined;
  close(): Promise<void>;
}

function findRoot(): string {
  let dir = fileURLToPath(new URL('.', import.meta.url));
  while (!existsSync(join(dir, 'bin', 'rmq.js'))) {
    const parent = resolve(dir, '..');
    if (parent === dir) throw new Error('bench: cannot find bin/rmq.js');
    dir = parent;
  }
  return dir;
}

/**
 * How to run `rmq` from the build this script belongs to: bin/rmq.js when that is `<root>/build`
 * (npm run bench:*), else the same launcher pointed at this build's CLI, so a bench compiled
 * elsewhere (`tsc --outDir`) never runs another build's broker. As bin/rmq.js, it runs the build's
 * bundle (scripts/bundle-cli.mjs) unless tsc wrote the CLI after it.
 */
export function rmqCommand(): string[] {
  const root = findRoot();
  const build = fileURLToPath(new URL('..', import.meta.url));
  if (resolve(build) === join(root, 'build')) return [join(root, 'bin', 'rmq.js')];
  const compiled = join(build, 'src', 'cli', 'main.js');
  const bundled = join(build, 'bundle', 'cli', 'main.js');
  const bundledAt = statSync(bundled, { throwIfNoEntry: false })?.mtimeMs;
  const compiledAt = statSync(compiled, { throwIfNoEntry: false })?.mtimeMs ?? 0;
  const main = pathToFileURL(bundledAt !== undefined && bundledAt >= compiledAt ? bundled : compiled).href;
  return [
    '--input-type=module',
    '-e',
    `import { main } from ${JSON.stringify(main)}; main(process.argv.slice(1)).then((c) => { process.exitCode = c; });`,
  ];
}

/** Our name server and broker: `rmq start` in a child process, a temp data dir, free loopback ports. */
export async function startOurs(options: {
  dirPrefix: string;
  nodeFlags?: string[];
  /** More `rmq start` flags, e.g. `-c broker.conf`. */
  startArgs?: string[];
}): Promise<Broker> {
  const dir = tempDir(options.dirPrefix);
  const child = spawnTracked(
    process.execPath,
    [
      ...(options.nodeFlags ?? []),
      ...rmqCommand(),
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
      ...(options.startArgs ?? []),
    ],
    'ignore',
  );
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (d: string) => {
    stderr = (stderr + d).slice(-4000);
  });
  try {
    const [namesrvAddr, brokerAddr] = await new Promise<[string, string]>((resolvePromise, reject) => {
      let out = '';
      child.stdout?.setEncoding('utf8').on('data', (d: string) => {
        out += d;
        const ns = /name server\s+(\S+)/.exec(out)?.[1];
        const broker = /broker\s+(\d+\.\d+\.\d+\.\d+:\d+)/.exec(out)?.[1];
        if (ns !== undefined && broker !== undefined) resolvePromise([ns, broker]);
      });
      child.once('exit', (code) => reject(new Error(`rmq start exited ${code}\n${stderr}`)));
    });
    return {
      name: 'rocketmq-ts',
      namesrvAddr,
      brokerAddr,
      brokerPid: child.pid,
      close: async () => {
        child.kill('SIGTERM');
        await stopped(child, 30_000);
        removeTempDir(dir);
      },
    };
  } catch (error) {
    child.kill('SIGKILL');
    removeTempDir(dir);
    throw error;
  }
}

/**
 * The official 4.9.x name server and broker (test/interop/harness.ts), topics auto-created; `config`
 * adds broker.conf keys, `homeFiles` files under its ROCKETMQ_HOME (conf/plain_acl.yml).
 */
export async function startOfficial(
  options: {
    config?: Readonly<Record<string, string | number | boolean>>;
    homeFiles?: Readonly<Record<string, string>>;
  } = {},
): Promise<Broker> {
  const ns = await startNamesrv();
  removeOnExit(ns.homeDir);
  try {
    const broker = await startBroker({
      namesrvAddr: ns.addr,
      config: { autoCreateTopicEnable: true, ...options.config },
      ...(options.homeFiles === undefined ? {} : { homeFiles: options.homeFiles }),
    });
    removeOnExit(broker.homeDir);
    return {
      name: 'official 4.9.x',
      namesrvAddr: ns.addr,
      brokerAddr: broker.addr,
      brokerPid: broker.pid,
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

/** VmRSS of a process in MiB (/proc); -1 when it is gone or unreadable. */
export function rssMiB(pid: number | undefined): number {
  if (pid === undefined) return -1;
  try {
    const kib = Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? -1);
    return kib < 0 ? -1 : kib / 1024;
  } catch {
    return -1;
  }
}
