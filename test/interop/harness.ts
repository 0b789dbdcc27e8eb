// Interop harness: starts the official Apache RocketMQ name server and broker (the jars that
// scripts/interop-prepare.mjs resolves into interop/target) as child JVMs on loopback, and runs the
// small Java helpers in interop/ (RemotingProbe, ProbeServer, ...). Everything lives in temp dirs
// (ROCKETMQ_HOME, user.home, store, logs) and every child is killed on close, on failure and when
// this process exits. Run `node scripts/interop-prepare.mjs` first.

import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import {
  createWriteStream,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { connect, createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { connect as tlsConnect } from 'node:tls';
import { fileURLToPath } from 'node:url';

export interface ServerHandle {
  /** host:port that clients use (127.0.0.1:port) */
  readonly addr: string;
  close(): Promise<void>;
}

export interface JavaServerHandle extends ServerHandle {
  readonly port: number;
  readonly pid: number;
  /** temp dir holding ROCKETMQ_HOME (conf/, logs/) and the child's stdout/stderr logs */
  readonly homeDir: string;
  /** last lines of every log file of this process, for failure reports */
  logTail(lines?: number): string;
}

export interface NamesrvHandle extends JavaServerHandle {}

export interface BrokerHandle extends JavaServerHandle {
  /** listenPort - 2: the "VIP" channel (every processor except pull) */
  readonly vipPort: number;
  /** listenPort + 1: HA port (BrokerStartup forces haListenPort = listenPort + 1) */
  readonly haPort: number;
  readonly brokerName: string;
  readonly clusterName: string;
  readonly storeDir: string;
}

export interface JavaResult {
  readonly stdout: string;
  readonly stderr: string;
  /** null when the process was killed (timeout) */
  readonly exitCode: number | null;
  readonly timedOut: boolean;
}

export interface RunJavaOptions {
  readonly timeoutMs: number;
  readonly env?: Readonly<Record<string, string>>;
  /** extra JVM flags placed before the main class */
  readonly jvmArgs?: readonly string[];
  /** replaces interop/'s classpath (e.g. interop/client5's, which holds the 5.x client) */
  readonly classpath?: string;
}

/**
 * Which official server line runs: 4 is interop/'s 4.9.x jars (the default), 5 the newest 5.x name
 * server and broker from interop/server5.
 */
export type UpstreamLine = 4 | 5;

/** Both lines, for suites that run once against each. */
export const UPSTREAM_LINES: readonly { readonly upstream: UpstreamLine; readonly name: string }[] = [
  { upstream: 4, name: '4.9.x' },
  { upstream: 5, name: '5.x' },
];

export interface StartNamesrvOptions {
  /** default 4 */
  readonly upstream?: UpstreamLine;
  /** deadline for the process to start and accept TCP connections (default 60 s) */
  readonly timeoutMs?: number;
  /** extra lines for namesrv.conf (NamesrvConfig / NettyServerConfig properties) */
  readonly config?: Readonly<Record<string, string | number | boolean>>;
  /** see StartBrokerOptions.gracefulStopMs (default 0) */
  readonly gracefulStopMs?: number;
  /** JVM options added to the defaults, e.g. `-Dtls.server.mode=enforcing` */
  readonly extraJvmArgs?: readonly string[];
}

export interface StartBrokerOptions {
  readonly namesrvAddr: string;
  readonly brokerName?: string;
  readonly clusterName?: string;
  /** default 4 */
  readonly upstream?: UpstreamLine;
  /** deadline for start + registration in the name server (default 90 s) */
  readonly timeoutMs?: number;
  /** overrides/extra lines for broker.conf (BrokerConfig, NettyServerConfig, MessageStoreConfig) */
  readonly config?: Readonly<Record<string, string | number | boolean>>;
  /**
   * How long close() lets the JVM run its shutdown hooks (unregister from the name server, flush,
   * and a fixed 3 s pause in DefaultMessageStore.shutdown) before SIGKILL. Default 0: kill at once,
   * which is what tests normally want (the name server drops a broker whose channel closes).
   */
  readonly gracefulStopMs?: number;
  /**
   * Store root (storePathRootDir) to use instead of `<homeDir>/store`, e.g. a directory written by
   * another store; it is outside the home dir, so close() leaves it in place.
   */
  readonly storeDir?: string;
  /**
   * JVM heap, GC and JIT flags instead of the defaults (sized for tests' start-up time, not for
   * throughput); the disk-space flags are always added.
   */
  readonly jvmArgs?: readonly string[];
  /** JVM options added to jvmArgs, e.g. `-Dtls.enable=true` */
  readonly extraJvmArgs?: readonly string[];
  /** The name server only speaks TLS: check the registration over TLS. */
  readonly namesrvTls?: boolean;
  /** Called right after the JVM is spawned, e.g. to time how long the listen port takes to accept. */
  readonly onSpawn?: (spawned: { readonly pid: number; readonly port: number }) => void;
  /**
   * Files written under the broker's ROCKETMQ_HOME before it starts, by path relative to it (e.g.
   * `conf/plain_acl.yml`, which the broker reads with `aclEnable=true`).
   */
  readonly homeFiles?: Readonly<Record<string, string>>;
}

/** A decoded reply from the harness's own minimal JSON-header client (used for readiness checks). */
export interface SimpleReply {
  readonly header: Readonly<Record<string, unknown>>;
  readonly body: Buffer;
}

// Heap sized for a 2-core / 24 GiB machine running a name server, a broker and test JVMs at once.
const NAMESRV_JVM = ['-Xms64m', '-Xmx256m', '-XX:+UseSerialGC', '-XX:TieredStopAtLevel=1'];
const BROKER_JVM = [
  '-Xms256m',
  '-Xmx512m',
  '-XX:MaxDirectMemorySize=512m',
  '-XX:+UseSerialGC',
  '-XX:TieredStopAtLevel=1',
];
// DefaultMessageStore refuses writes above 90 % disk use by default; tests must not depend on the
// host's free space.
const BROKER_DISK_SPACE_FLAGS = [
  '-Drocketmq.broker.diskSpaceWarningLevelRatio=0.99',
  '-Drocketmq.broker.diskSpaceCleanForciblyRatio=0.99',
];
const TOOL_JVM = ['-Xms32m', '-Xmx256m', '-XX:+UseSerialGC', '-XX:TieredStopAtLevel=1'];

const NAMESRV_MAIN = 'org.apache.rocketmq.namesrv.NamesrvStartup';
const BROKER_MAIN = 'org.apache.rocketmq.broker.BrokerStartup';
const WATCHDOG_MAIN = 'org.rocketmqts.interop.ParentWatchdog';
const GET_BROKER_CLUSTER_INFO = 106;

// ---------------------------------------------------------------------------------------------
// locating interop/ and its build outputs

function findRoot(): string {
  const fromEnv = process.env.RMQ_TS_ROOT;
  if (fromEnv !== undefined && fromEnv !== '') return resolve(fromEnv);
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const pkg = join(dir, 'package.json');
    if (existsSync(pkg) && existsSync(join(dir, 'interop', 'pom.xml'))) return dir;
    const parent = dirname(dir);
    if (parent === dir) throw new Error('interop harness: cannot find the project root (interop/pom.xml)');
    dir = parent;
  }
}

export interface JavaSetup {
  readonly classpath: string;
  readonly javaOpts: readonly string[];
}

let cachedSetup: JavaSetup | undefined;

/** Reads what scripts/interop-prepare.mjs wrote; throws a clear error when it has not run. */
export function javaSetup(): JavaSetup {
  if (cachedSetup !== undefined) return cachedSetup;
  const target = join(findRoot(), 'interop', 'target');
  const cpFile = join(target, 'classpath.txt');
  const optsFile = join(target, 'java-opts.txt');
  if (!existsSync(cpFile) || !existsSync(optsFile) || !existsSync(join(target, 'classes'))) {
    throw new Error(
      'interop harness: interop/target is not built; run `node scripts/interop-prepare.mjs` first',
    );
  }
  const jars = readFileSync(cpFile, 'utf8').trim();
  cachedSetup = {
    classpath: `${join(target, 'classes')}:${jars}`,
    javaOpts: readFileSync(optsFile, 'utf8')
      .split('\n')
      .filter((l) => l.length > 0),
  };
  return cachedSetup;
}

const cachedModuleClasspaths = new Map<string, string>();

/**
 * The classpath of a 5.x Maven module interop-prepare built: interop/client5's own classes (its
 * probes) or, for interop/server5, which has no sources, interop/'s classes (ParentWatchdog); then the
 * module's jars. 4.9.x and 5.x jars never share one.
 */
export function moduleClasspath(module: 'client5' | 'server5'): string {
  const cached = cachedModuleClasspaths.get(module);
  if (cached !== undefined) return cached;
  const root = findRoot();
  const target = join(root, 'interop', module, 'target');
  const classes = module === 'client5' ? join(target, 'classes') : join(root, 'interop', 'target', 'classes');
  const cpFile = join(target, 'classpath.txt');
  if (!existsSync(cpFile) || !existsSync(classes)) {
    throw new Error(
      `interop harness: interop/${module}/target is not built; run \`node scripts/interop-prepare.mjs\` first`,
    );
  }
  const classpath = `${classes}:${readFileSync(cpFile, 'utf8').trim()}`;
  cachedModuleClasspaths.set(module, classpath);
  return classpath;
}

function serverClasspath(line: UpstreamLine | undefined): string | undefined {
  return line === 5 ? moduleClasspath('server5') : undefined;
}

// ---------------------------------------------------------------------------------------------
// child process bookkeeping: every JVM we start is killed when this process exits

const live = new Set<ChildProcess>();
let exitHooksInstalled = false;

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    try {
      child.kill(signal);
    } catch {
      // already gone
    }
  }
}

function installExitHooks(): void {
  if (exitHooksInstalled) return;
  exitHooksInstalled = true;
  process.on('exit', () => {
    for (const c of live) killGroup(c, 'SIGKILL');
  });
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.once(sig, () => {
      for (const c of live) killGroup(c, 'SIGKILL');
      process.kill(process.pid, sig);
    });
  }
}

function track(child: ChildProcess): void {
  installExitHooks();
  live.add(child);
  child.once('exit', () => live.delete(child));
}

/**
 * Ends a child: with graceMs > 0, SIGTERM to its process group (shutdown hooks run) and SIGKILL
 * after graceMs; with 0, SIGKILL at once. Resolves when it has exited.
 */
async function stopChild(child: ChildProcess, graceMs: number): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  killGroup(child, graceMs > 0 ? 'SIGTERM' : 'SIGKILL');
  const timer = setTimeout(() => killGroup(child, 'SIGKILL'), Math.max(graceMs, 0));
  try {
    await exited;
  } finally {
    clearTimeout(timer);
  }
}

function javaArgs(
  jvm: readonly string[],
  extra: readonly string[],
  mainClass: string,
  args: readonly string[],
  classpath?: string,
) {
  const setup = javaSetup();
  return [...setup.javaOpts, ...jvm, ...extra, '-cp', classpath ?? setup.classpath, mainClass, ...args];
}

function tailOf(text: string, lines: number): string {
  const all = text.split('\n');
  return all.slice(Math.max(0, all.length - lines - 1)).join('\n');
}

// ---------------------------------------------------------------------------------------------
// runJava

let toolHome: string | undefined;

function sharedToolHome(): string {
  if (toolHome === undefined) {
    const dir = mkdtempSync(join(tmpdir(), 'rmq-interop-tools-'));
    toolHome = dir;
    process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
  }
  return toolHome;
}

/** Runs a Java main class from interop/ (or any class on its classpath) with a deadline. */
export function runJava(
  mainClass: string,
  args: readonly string[],
  opts: RunJavaOptions,
): Promise<JavaResult> {
  const home = sharedToolHome();
  const argv = javaArgs(
    TOOL_JVM,
    [`-Duser.home=${home}`, ...(opts.jvmArgs ?? [])],
    mainClass,
    args,
    opts.classpath,
  );
  const child = spawn('java', argv, {
    detached: true,
    env: { ...process.env, ...opts.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  track(child);
  return new Promise((resolvePromise, reject) => {
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout?.on('data', (d: Buffer) => out.push(d));
    child.stderr?.on('data', (d: Buffer) => err.push(d));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child, 'SIGKILL');
    }, opts.timeoutMs);
    child.once('error', (e) => {
      clearTimeout(timer);
      reject(new Error(`runJava ${mainClass}: cannot start java: ${e.message}`));
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      resolvePromise({
        stdout: Buffer.concat(out).toString('utf8'),
        stderr: Buffer.concat(err).toString('utf8'),
        exitCode: timedOut ? null : code,
        timedOut,
      });
    });
  });
}

// ---------------------------------------------------------------------------------------------
// ports

function canBind(port: number): Promise<boolean> {
  return new Promise((resolvePromise) => {
    const srv = createServer();
    srv.once('error', () => resolvePromise(false));
    // no host: the wildcard address, like the Java servers bind
    srv.listen({ port, exclusive: true }, () => srv.close(() => resolvePromise(true)));
  });
}

/** A free TCP port (ephemeral, asked from the OS). */
export function freePort(): Promise<number> {
  return new Promise((resolvePromise, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen({ port: 0, host: '127.0.0.1' }, () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr !== null ? addr.port : 0;
      srv.close(() => resolvePromise(port));
    });
  });
}

/**
 * Picks a port p with p-2, p and p+1 free (broker VIP, listen and HA ports). Ports come from
 * 20000-31999, below Linux's ephemeral range, so outgoing connections do not grab them meanwhile.
 */
export async function freeBrokerPorts(): Promise<{ vipPort: number; port: number; haPort: number }> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const port = 20002 + Math.floor(Math.random() * 11990);
    if ((await canBind(port - 2)) && (await canBind(port)) && (await canBind(port + 1))) {
      return { vipPort: port - 2, port, haPort: port + 1 };
    }
  }
  throw new Error('interop harness: no free broker port triple found');
}

async function freeServerPort(): Promise<number> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const port = 20000 + Math.floor(Math.random() * 12000);
    if (await canBind(port)) return port;
  }
  throw new Error('interop harness: no free port found');
}

/** Resolves once a TCP connect to 127.0.0.1:port succeeds. */
export function tcpConnectOnce(port: number, timeoutMs: number): Promise<void> {
  return new Promise((resolvePromise, reject) => {
    const sock: Socket = connect({ port, host: '127.0.0.1' });
    const timer = setTimeout(() => {
      sock.destroy();
      reject(new Error(`connect to 127.0.0.1:${port} timed out`));
    }, timeoutMs);
    sock.once('connect', () => {
      clearTimeout(timer);
      sock.destroy();
      resolvePromise();
    });
    sock.once('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
  });
}

// ---------------------------------------------------------------------------------------------
// a minimal JSON-header remoting call, only for readiness checks (the real codecs live in src/)

let nextOpaque = 1;

export function simpleRequest(
  addr: string,
  code: number,
  timeoutMs: number,
  tls = false,
): Promise<SimpleReply> {
  const [host, portText] = splitAddr(addr);
  const opaque = nextOpaque++;
  const header = Buffer.from(
    JSON.stringify({
      code,
      flag: 0,
      language: 'JAVA',
      opaque,
      serializeTypeCurrentRPC: 'JSON',
      version: 409,
    }),
    'utf8',
  );
  const frame = Buffer.alloc(8 + header.length);
  frame.writeInt32BE(4 + header.length, 0);
  frame.writeInt32BE(header.length, 4); // serialize type 0 = JSON in the high byte
  header.copy(frame, 8);
  return new Promise((resolvePromise, reject) => {
    // TLS as the official client's default: any server certificate is accepted.
    const sock = tls
      ? tlsConnect({ host, port: Number(portText), rejectUnauthorized: false })
      : connect({ host, port: Number(portText) });
    let buf = Buffer.alloc(0);
    const fail = (e: Error) => {
      clearTimeout(timer);
      sock.destroy();
      reject(e);
    };
    const timer = setTimeout(() => fail(new Error(`request ${code} to ${addr} timed out`)), timeoutMs);
    sock.once('error', fail);
    sock.once(tls ? 'secureConnect' : 'connect', () => sock.write(frame));
    sock.on('data', (d: Buffer) => {
      buf = Buffer.concat([buf, d]);
      if (buf.length < 4) return;
      const total = buf.readInt32BE(0);
      if (total < 4 || total > 16 * 1024 * 1024) return fail(new Error(`bad frame length ${total}`));
      if (buf.length < 4 + total) return;
      const typeAndLen = buf.readInt32BE(4);
      const headerLen = typeAndLen & 0xffffff;
      if (typeAndLen >>> 24 !== 0 || headerLen > total - 4) {
        return fail(new Error('reply is not a JSON-header frame'));
      }
      clearTimeout(timer);
      sock.destroy();
      try {
        const parsed: unknown = JSON.parse(buf.subarray(8, 8 + headerLen).toString('utf8'));
        if (typeof parsed !== 'object' || parsed === null) throw new Error('header is not an object');
        resolvePromise({
          header: parsed as Record<string, unknown>,
          body: Buffer.from(buf.subarray(8 + headerLen, 4 + total)),
        });
      } catch (e) {
        reject(e instanceof Error ? e : new Error(String(e)));
      }
    });
  });
}

function splitAddr(addr: string): [string, string] {
  const i = addr.lastIndexOf(':');
  if (i <= 0) throw new Error(`bad address ${addr}`);
  return [addr.slice(0, i), addr.slice(i + 1)];
}

// ---------------------------------------------------------------------------------------------
// starting the official servers

interface Started {
  child: ChildProcess;
  homeDir: string;
  logFiles: string[];
  /** resolves with the first stdout line matching the pattern; rejects if the process exits first */
  waitForLine(pattern: RegExp, timeoutMs: number): Promise<string>;
}

const LOGBACK = (file: string) => `<?xml version="1.0" encoding="UTF-8"?>
<configuration>
  <appender name="FILE" class="ch.qos.logback.core.FileAppender">
    <file>\${user.home}/logs/${file}</file>
    <append>true</append>
    <encoder><pattern>%d{HH:mm:ss.SSS} %-5level [%thread] %logger{0} - %msg%n</pattern></encoder>
  </appender>
  <root level="INFO"><appender-ref ref="FILE"/></root>
</configuration>
`;

function newHomeDir(name: string): string {
  return mkdtempSync(join(tmpdir(), `rmq-interop-${name}-`));
}

/** Starts `mainClass` under ParentWatchdog with ROCKETMQ_HOME = user.home = cwd = homeDir. */
function startJavaServer(
  name: string,
  homeDir: string,
  jvm: readonly string[],
  mainClass: string,
  args: readonly string[],
  classpath?: string,
): Started {
  const confDir = join(homeDir, 'conf');
  writeConf(confDir, `logback_${name}.xml`, LOGBACK(`${name}.log`));
  const stdoutLog = join(homeDir, `${name}.stdout.log`);
  const stderrLog = join(homeDir, `${name}.stderr.log`);
  const extra = [
    `-Duser.home=${homeDir}`,
    `-Drocketmq.home.dir=${homeDir}`,
    '-Dfile.encoding=UTF-8',
    // where ClientLogger (rocketmq-client classes the broker loads) would write
    `-Drocketmq.client.logRoot=${join(homeDir, 'logs')}`,
  ];
  const child = spawn('java', javaArgs(jvm, extra, WATCHDOG_MAIN, [mainClass, ...args], classpath), {
    cwd: homeDir,
    detached: true,
    env: { ...process.env, ROCKETMQ_HOME: homeDir },
    // stdin stays a pipe we never close until shutdown: ParentWatchdog exits the JVM on its EOF
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  track(child);
  const outFile = createWriteStream(stdoutLog);
  const errFile = createWriteStream(stderrLog);
  child.stdout?.pipe(outFile);
  child.stderr?.pipe(errFile);
  const lines: string[] = [];
  const waiters = new Set<(line: string | null) => void>();
  if (child.stdout !== null) {
    createInterface({ input: child.stdout }).on('line', (line) => {
      lines.push(line);
      for (const w of waiters) w(line);
    });
  }
  let startError: Error | undefined;
  const ended = (e?: Error) => {
    startError ??= e;
    for (const w of waiters) w(null);
  };
  child.once('exit', () => ended());
  child.once('error', (e) => ended(e));
  const waitForLine = (pattern: RegExp, timeoutMs: number) =>
    new Promise<string>((resolvePromise, reject) => {
      const seen = lines.find((l) => pattern.test(l));
      if (seen !== undefined) {
        resolvePromise(seen);
        return;
      }
      const timer = setTimeout(() => {
        waiters.delete(onLine);
        reject(new Error(`${name}: no line matching ${pattern} within ${timeoutMs} ms`));
      }, timeoutMs);
      const onLine = (line: string | null) => {
        if (line === null) {
          clearTimeout(timer);
          waiters.delete(onLine);
          const why = startError !== undefined ? startError.message : `exited with code ${child.exitCode}`;
          reject(new Error(`${name}: process ${why} before ${pattern} appeared`));
        } else if (pattern.test(line)) {
          clearTimeout(timer);
          waiters.delete(onLine);
          resolvePromise(line);
        }
      };
      if (child.exitCode !== null || child.signalCode !== null || startError !== undefined) onLine(null);
      else waiters.add(onLine);
    });
  return {
    child,
    homeDir,
    // 4.9.x logs through our logback file; 5.x ignores it (shaded logback, its own config) and logs
    // to ${user.home}/logs/rocketmqlogs/
    logFiles: [
      stdoutLog,
      stderrLog,
      join(homeDir, 'logs', `${name}.log`),
      join(homeDir, 'logs', 'rocketmqlogs', `${name}.log`),
      ...(name === 'broker' ? [join(homeDir, 'logs', 'rocketmqlogs', 'store.log')] : []),
    ],
    waitForLine,
  };
}

function writeConf(dir: string, file: string, text: string): string {
  mkdirSync(dir, { recursive: true });
  const full = join(dir, file);
  writeFileSync(full, text);
  return full;
}

function readTail(file: string, lines: number): string {
  try {
    return tailOf(readFileSync(file, 'utf8'), lines);
  } catch {
    return '(missing)';
  }
}

function makeLogTail(files: readonly string[]) {
  return (lines = 40): string =>
    files.map((f) => `----- ${f} (last ${lines} lines)\n${readTail(f, lines)}`).join('\n');
}

function makeClose(started: Started, graceMs: number) {
  let closing: Promise<void> | undefined;
  return (): Promise<void> => {
    if (closing === undefined) {
      closing = (async () => {
        if (graceMs > 0) started.child.stdin?.end(); // ParentWatchdog: System.exit, shutdown hooks run
        await stopChild(started.child, graceMs);
        if (process.env.RMQ_INTEROP_KEEP !== '1') {
          rmSync(started.homeDir, { recursive: true, force: true });
        }
      })();
    }
    return closing;
  };
}

function confText(entries: Readonly<Record<string, string | number | boolean>>): string {
  return `${Object.entries(entries)
    .map(([k, v]) => `${k}=${String(v)}`)
    .join('\n')}\n`;
}

async function failWithLogs(started: Started, err: unknown, what: string): Promise<never> {
  await stopChild(started.child, 0);
  const tail = makeLogTail(started.logFiles)(60);
  const keep = process.env.RMQ_INTEROP_KEEP === '1';
  if (!keep) rmSync(started.homeDir, { recursive: true, force: true });
  const message = err instanceof Error ? err.message : String(err);
  const where = keep ? `files kept in ${started.homeDir}` : 'set RMQ_INTEROP_KEEP=1 to keep the files';
  throw new Error(`${what} failed: ${message}\n${tail}\n(${where})`);
}

/** Starts the official NamesrvStartup on a free loopback port; resolves when it accepts TCP. */
export async function startNamesrv(opts: StartNamesrvOptions = {}): Promise<NamesrvHandle> {
  const timeoutMs = opts.timeoutMs ?? 60_000;
  const port = await freeServerPort();
  const deadline = Date.now() + timeoutMs;
  const homeDir = newHomeDir('namesrv');
  const confFile = writeConf(homeDir, 'namesrv.conf', confText({ listenPort: port, ...opts.config }));
  const started = startJavaServer(
    'namesrv',
    homeDir,
    [...NAMESRV_JVM, ...(opts.extraJvmArgs ?? [])],
    NAMESRV_MAIN,
    ['-c', confFile],
    serverClasspath(opts.upstream),
  );
  try {
    await started.waitForLine(/The Name Server boot success/, Math.max(1, deadline - Date.now()));
    await tcpConnectOnce(port, Math.max(1, deadline - Date.now()));
  } catch (err) {
    return failWithLogs(started, err, `name server on port ${port}`);
  }
  const logTail = makeLogTail(started.logFiles);
  return {
    addr: `127.0.0.1:${port}`,
    port,
    pid: started.child.pid ?? -1,
    homeDir: started.homeDir,
    logTail,
    close: makeClose(started, opts.gracefulStopMs ?? 0),
  };
}

/**
 * Starts the official BrokerStartup (master, id 0) with a generated broker.conf on loopback and
 * free ports; resolves once it accepts TCP and the name server lists it in GET_BROKER_CLUSTER_INFO.
 */
export async function startBroker(opts: StartBrokerOptions): Promise<BrokerHandle> {
  const timeoutMs = opts.timeoutMs ?? 90_000;
  const deadline = Date.now() + timeoutMs;
  const brokerName = opts.brokerName ?? 'broker-interop';
  const clusterName = opts.clusterName ?? 'DefaultCluster';
  const ports = await freeBrokerPorts();
  const homeDir = newHomeDir('broker');
  const storeDir = opts.storeDir ?? join(homeDir, 'store');
  const conf = {
    brokerClusterName: clusterName,
    brokerName,
    brokerId: 0,
    brokerRole: 'ASYNC_MASTER',
    flushDiskType: 'ASYNC_FLUSH',
    brokerIP1: '127.0.0.1',
    brokerIP2: '127.0.0.1',
    listenPort: ports.port,
    namesrvAddr: opts.namesrvAddr,
    storePathRootDir: storeDir,
    storePathCommitLog: join(storeDir, 'commitlog'),
    autoCreateTopicEnable: true,
    autoCreateSubscriptionGroup: true,
    // small files: the defaults (1 GiB commit log, 420 MB index files) are wasteful in tests
    mappedFileSizeCommitLog: 16 * 1024 * 1024,
    mappedFileSizeConsumeQueue: 30_000 * 20,
    maxHashSlotNum: 100_000,
    maxIndexNum: 400_000,
    // a slow first send on a busy 2-core machine must not turn into [TIMEOUT_CLEAN_QUEUE]
    waitTimeMillsInSendQueue: 3000,
    ...opts.config,
  };
  for (const [path, text] of Object.entries(opts.homeFiles ?? {})) {
    const full = join(homeDir, path);
    writeConf(dirname(full), basename(full), text);
  }
  const confFile = writeConf(homeDir, 'broker.conf', confText(conf));
  const started = startJavaServer(
    'broker',
    homeDir,
    [...(opts.jvmArgs ?? BROKER_JVM), ...(opts.extraJvmArgs ?? []), ...BROKER_DISK_SPACE_FLAGS],
    BROKER_MAIN,
    ['-c', confFile],
    serverClasspath(opts.upstream),
  );
  if (started.child.pid !== undefined) opts.onSpawn?.({ pid: started.child.pid, port: ports.port });
  const addr = `127.0.0.1:${ports.port}`;
  try {
    await started.waitForLine(/boot success/, Math.max(1, deadline - Date.now()));
    await tcpConnectOnce(ports.port, Math.max(1, deadline - Date.now()));
    await waitForRegistration(opts.namesrvAddr, addr, deadline, opts.namesrvTls === true);
  } catch (err) {
    return failWithLogs(started, err, `broker ${brokerName} on ${addr}`);
  }
  return {
    addr,
    port: ports.port,
    vipPort: ports.vipPort,
    haPort: ports.haPort,
    brokerName,
    clusterName,
    storeDir,
    pid: started.child.pid ?? -1,
    homeDir: started.homeDir,
    logTail: makeLogTail([...started.logFiles, confFile]),
    close: makeClose(started, opts.gracefulStopMs ?? 0),
  };
}

/**
 * BrokerController.start registers synchronously before "boot success" is printed, so the first
 * query normally finds it; a failed first registration is retried by the broker only after 10 s,
 * hence the bounded retry here.
 */
async function waitForRegistration(
  namesrvAddr: string,
  brokerAddr: string,
  deadline: number,
  tls: boolean,
): Promise<void> {
  let last = 'no reply';
  while (Date.now() < deadline) {
    try {
      const reply = await simpleRequest(
        namesrvAddr,
        GET_BROKER_CLUSTER_INFO,
        Math.max(1, deadline - Date.now()),
        tls,
      );
      if (reply.header.code === 0 && reply.body.toString('utf8').includes(`"${brokerAddr}"`)) return;
      last = `code ${String(reply.header.code)}, body ${reply.body.toString('utf8').slice(0, 200)}`;
    } catch (e) {
      last = e instanceof Error ? e.message : String(e);
    }
    await new Promise((r) => setTimeout(r, Math.min(500, Math.max(0, deadline - Date.now()))));
  }
  throw new Error(`broker ${brokerAddr} not registered in ${namesrvAddr} (${last})`);
}

// ---------------------------------------------------------------------------------------------
// ProbeServer (official NettyRemotingServer that records requests)

export interface ProbeRequest {
  readonly request: {
    readonly code: number;
    readonly opaque: number;
    readonly flag: number;
    readonly language: string | null;
    readonly version: number;
    readonly remark: string | null;
    readonly extFields: Readonly<Record<string, string | null>> | null;
    readonly bodyHex: string | null;
    readonly serializeTypeCurrentRPC: string | null;
  };
  readonly oneway: boolean;
}

export interface ProbeServerHandle extends ServerHandle {
  readonly port: number;
  /** every request recorded so far, in arrival order */
  readonly requests: readonly ProbeRequest[];
  /** resolves with the first recorded request (past or future) that matches */
  waitForRequest(match: (r: ProbeRequest) => boolean, timeoutMs: number): Promise<ProbeRequest>;
  logTail(lines?: number): string;
}

function isProbeRequest(v: unknown): v is ProbeRequest {
  return typeof v === 'object' && v !== null && 'request' in v && 'oneway' in v;
}

/** Starts interop's ProbeServer on an ephemeral port. */
export async function startProbeServer(opts: { timeoutMs?: number } = {}): Promise<ProbeServerHandle> {
  const timeoutMs = opts.timeoutMs ?? 30_000;
  const home = sharedToolHome();
  const child = spawn(
    'java',
    javaArgs(TOOL_JVM, [`-Duser.home=${home}`], 'org.rocketmqts.interop.ProbeServer', ['0']),
    { detached: true, stdio: ['pipe', 'pipe', 'pipe'] },
  );
  track(child);
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (d: string) => {
    stderr = tailOf(stderr + d, 200);
  });
  const requests: ProbeRequest[] = [];
  const waiters = new Set<() => void>();
  let resolvePort: (p: number) => void = () => {};
  let rejectPort: (e: Error) => void = () => {};
  const portPromise = new Promise<number>((res, rej) => {
    resolvePort = res;
    rejectPort = rej;
  });
  if (child.stdout !== null) {
    createInterface({ input: child.stdout }).on('line', (line) => {
      let parsed: unknown;
      try {
        parsed = JSON.parse(line);
      } catch {
        return;
      }
      if (
        typeof parsed === 'object' &&
        parsed !== null &&
        'port' in parsed &&
        typeof parsed.port === 'number'
      ) {
        resolvePort(parsed.port);
      } else if (isProbeRequest(parsed)) {
        requests.push(parsed);
        for (const w of waiters) w();
      }
    });
  }
  child.once('exit', (code) => {
    rejectPort(new Error(`ProbeServer exited (code ${code}) before reporting its port\n${stderr}`));
    for (const w of waiters) w();
  });
  const timer = setTimeout(
    () => rejectPort(new Error(`ProbeServer did not start in ${timeoutMs} ms`)),
    timeoutMs,
  );
  let port: number;
  try {
    port = await portPromise;
  } catch (e) {
    await stopChild(child, 0);
    throw e;
  } finally {
    clearTimeout(timer);
  }
  let closing: Promise<void> | undefined;
  return {
    addr: `127.0.0.1:${port}`,
    port,
    requests,
    logTail: (lines = 40) => tailOf(stderr, lines),
    waitForRequest(match, waitMs) {
      return new Promise((resolvePromise, reject) => {
        const check = () => {
          const found = requests.find(match);
          if (found !== undefined) {
            clearTimeout(t);
            waiters.delete(check);
            resolvePromise(found);
          } else if (child.exitCode !== null || child.signalCode !== null) {
            clearTimeout(t);
            waiters.delete(check);
            reject(new Error('ProbeServer exited'));
          }
        };
        const t = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`no matching request within ${waitMs} ms`));
        }, waitMs);
        waiters.add(check);
        check();
      });
    },
    close() {
      if (closing === undefined) {
        closing = (async () => {
          child.stdin?.end();
          await stopChild(child, 5000);
        })();
      }
      return closing;
    },
  };
}

// ---------------------------------------------------------------------------------------------
// RemotingProbe convenience

export interface ProbeReply {
  readonly code: number;
  readonly opaque: number;
  readonly flag: number;
  readonly language: string | null;
  readonly version: number;
  readonly remark: string | null;
  readonly extFields: Readonly<Record<string, string | null>> | null;
  readonly bodyHex: string | null;
  readonly serializeTypeCurrentRPC: string | null;
}

export interface ProbeOnewayAck {
  readonly oneway: true;
  readonly sent: true;
  readonly opaque: number;
}

export interface ProbeOptions {
  readonly serializeType?: 'JSON' | 'ROCKETMQ';
  readonly extFields?: Readonly<Record<string, string>>;
  readonly body?: Buffer;
  readonly version?: number;
  readonly language?: string;
  /** request timeout inside Java (default 5000 ms); the JVM gets 30 s more to start and stop */
  readonly requestTimeoutMs?: number;
}

async function probeLine(addr: string, code: number, oneway: boolean, opts: ProbeOptions): Promise<unknown> {
  const args = [addr, String(code), opts.serializeType ?? 'JSON', String(oneway)];
  for (const [k, v] of Object.entries(opts.extFields ?? {})) args.push(`${k}=${v}`);
  if (opts.body !== undefined) args.push('--body', opts.body.toString('hex'));
  const requestTimeoutMs = opts.requestTimeoutMs ?? 5000;
  args.push('--timeout', String(requestTimeoutMs));
  if (opts.version !== undefined) args.push('--version', String(opts.version));
  if (opts.language !== undefined) args.push('--language', opts.language);
  const r = await runJava('org.rocketmqts.interop.RemotingProbe', args, {
    timeoutMs: requestTimeoutMs + 30_000,
  });
  const line = r.stdout.trim().split('\n').pop() ?? '';
  if (r.exitCode !== 0) {
    const why = r.timedOut ? ' (timed out)' : '';
    throw new Error(`RemotingProbe exit ${String(r.exitCode)}${why}: ${line}\n${tailOf(r.stderr, 20)}`);
  }
  const parsed: unknown = JSON.parse(line);
  if (typeof parsed !== 'object' || parsed === null) throw new Error(`RemotingProbe printed ${line}`);
  return parsed;
}

/** Sends one request with the official NettyRemotingClient (RemotingProbe) and returns the reply. */
export async function remotingProbe(
  addr: string,
  code: number,
  opts: ProbeOptions = {},
): Promise<ProbeReply> {
  const parsed = await probeLine(addr, code, false, opts);
  if (!(typeof parsed === 'object' && parsed !== null && 'code' in parsed && 'opaque' in parsed)) {
    throw new Error(`RemotingProbe printed no response: ${JSON.stringify(parsed)}`);
  }
  return parsed as ProbeReply;
}

/** Sends one oneway request with the official client; resolves once Java has written it. */
export async function remotingProbeOneway(
  addr: string,
  code: number,
  opts: ProbeOptions = {},
): Promise<ProbeOnewayAck> {
  const parsed = await probeLine(addr, code, true, opts);
  if (!(typeof parsed === 'object' && parsed !== null && 'oneway' in parsed && parsed.oneway === true)) {
    throw new Error(`RemotingProbe printed no oneway acknowledgement: ${JSON.stringify(parsed)}`);
  }
  return parsed as ProbeOnewayAck;
}

// ---------------------------------------------------------------------------------------------
// the official mqadmin

/**
 * Runs the official `mqadmin` (rocketmq-tools MQAdminStartup) with `args` and `-n namesrvAddr`.
 * MQAdminStartup reads `<rocketmq.home.dir>/conf/logback_tools.xml` before any command, so the
 * shared tool home gets one that logs to a file there. Resolves with everything it printed.
 */
export async function mqadmin(
  namesrvAddr: string,
  args: readonly string[],
  timeoutMs = 60_000,
  options: {
    readonly upstream?: UpstreamLine;
    /**
     * ROCKETMQ_HOME to run with instead of the shared tool home, e.g. one whose conf/tools.yml holds
     * the ACL credentials mqadmin signs with (it has no flag for them).
     */
    readonly rocketmqHome?: string;
  } = {},
): Promise<JavaResult> {
  const home = options.rocketmqHome ?? sharedToolHome();
  writeConf(join(home, 'conf'), 'logback_tools.xml', LOGBACK('tools.log'));
  return runJava('org.apache.rocketmq.tools.command.MQAdminStartup', [...args, '-n', namesrvAddr], {
    timeoutMs,
    jvmArgs: [`-Drocketmq.home.dir=${home}`],
    env: { ROCKETMQ_HOME: home },
    // rocketmq-tools 5.x comes with the 5.x broker's jars
    ...(options.upstream === 5 ? { classpath: moduleClasspath('server5') } : {}),
  });
}

/** A Java program that runs alongside the test and reports as it goes (one JSON line per event). */
export interface JavaProgram {
  /** Every stdout line so far. */
  readonly lines: readonly string[];
  /** Resolves with the first line (seen or to come) that matches; rejects on exit or timeout. */
  waitForLine(pattern: RegExp, timeoutMs: number): Promise<string>;
  /** Resolves once `count` lines match `pattern`; rejects on exit or timeout. */
  waitForCount(pattern: RegExp, count: number, timeoutMs: number): Promise<void>;
  /** SIGTERM (shutdown hooks run), SIGKILL after graceMs. */
  close(graceMs?: number): Promise<void>;
  stderrTail(): string;
}

export function startJavaProgram(mainClass: string, args: readonly string[]): JavaProgram {
  const home = sharedToolHome();
  const child = spawn('java', javaArgs(TOOL_JVM, [`-Duser.home=${home}`], mainClass, args), {
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  track(child);
  const lines: string[] = [];
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => {
    stderr = (stderr + d.toString()).slice(-8000);
  });
  const listeners = new Set<() => void>();
  let exited = false;
  if (child.stdout !== null) {
    createInterface({ input: child.stdout }).on('line', (line) => {
      lines.push(line);
      for (const l of listeners) l();
    });
  }
  child.once('exit', () => {
    exited = true;
    for (const l of listeners) l();
  });
  const until = (done: () => string | undefined, what: string, timeoutMs: number) =>
    new Promise<string>((resolvePromise, reject) => {
      const check = () => {
        const value = done();
        if (value !== undefined) finish(() => resolvePromise(value));
        else if (exited) finish(() => reject(new Error(`${mainClass} exited before ${what}\n${stderr}`)));
      };
      const timer = setTimeout(
        () => finish(() => reject(new Error(`${mainClass}: no ${what} in ${timeoutMs} ms\n${stderr}`))),
        timeoutMs,
      );
      const finish = (settle: () => void) => {
        clearTimeout(timer);
        listeners.delete(check);
        settle();
      };
      listeners.add(check);
      check();
    });
  return {
    lines,
    waitForLine: (pattern, timeoutMs) =>
      until(() => lines.find((l) => pattern.test(l)), `line ${pattern}`, timeoutMs),
    waitForCount: async (pattern, count, timeoutMs) => {
      await until(
        () => (lines.filter((l) => pattern.test(l)).length >= count ? 'done' : undefined),
        `${count} lines ${pattern}`,
        timeoutMs,
      );
    },
    close: (graceMs = 5000) => stopChild(child, graceMs),
    stderrTail: () => stderr,
  };
}

/**
 * JVM flags of a load generator that measures: full JIT (the TieredStopAtLevel=1 of the tests is for
 * start-up time, a bench measures a rate) and a fixed heap, so that its growth is not timed.
 */
export const JAVA_LOAD_JVM: readonly string[] = ['-server', '-Xms512m', '-Xmx512m'];

export interface JavaLoadOptions {
  /** user.home of the JVM; the client logs go to `<home>/logs`. Default: the harness's temp dir. */
  readonly home?: string;
  /** JVM flags in place of JAVA_LOAD_JVM */
  readonly jvmArgs?: readonly string[];
}

/**
 * The arguments for `java` that run a load generator of interop/ (LoadProducer, LoadConsumer: the
 * flags and lines of `rmq bench producer|consumer`, on the official 4.9.8 client) under
 * ParentWatchdog. Spawn it with stdin a pipe and keep that open: its end (closing it, or this process
 * dying) stops the run as SIGTERM does: summary printed, exit status 0 (1 when nothing at all was sent
 * or consumed, 2 for a bad flag). stdout: a settings line, the interval lines, `[Complete] ...`
 * (producer) and the `Summary:` lines; `--json FILE` writes the summary object.
 */
export function javaLoadCommand(
  mainClass: 'LoadProducer' | 'LoadConsumer',
  args: readonly string[],
  options: JavaLoadOptions = {},
): string[] {
  const home = options.home ?? sharedToolHome();
  return javaArgs(
    options.jvmArgs ?? JAVA_LOAD_JVM,
    [`-Duser.home=${home}`, `-Drocketmq.client.logRoot=${join(home, 'logs')}`],
    WATCHDOG_MAIN,
    [`org.rocketmqts.interop.${mainClass}`, ...args],
  );
}
