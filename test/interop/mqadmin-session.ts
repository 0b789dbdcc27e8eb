/**
 * The official 4.9.8 mqadmin kept running (interop MqadminSession): one JVM runs command after
 * command, so a suite comparing dozens of mqadmin commands starts the JVM once (≈3-4 s on the
 * 2-core machine) instead of once per command. Each command runs through MQAdminStartup.main0 as
 * `mqadmin` would; what it printed comes back as stdout and stderr.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { javaSetup } from './harness.js';

const SESSION_MAIN = 'org.rocketmqts.interop.MqadminSession';
/** The harness's flags for tool JVMs (small heap, quick start). */
const TOOL_JVM = ['-Xms32m', '-Xmx256m', '-XX:+UseSerialGC', '-XX:TieredStopAtLevel=1'];
/** How long the JVM may take to say it is ready. */
const START_TIMEOUT_MS = 60_000;
/** A command's deadline unless the caller gives one (mqadmin's own calls time out well before). */
const COMMAND_TIMEOUT_MS = 60_000;
/** How long close() waits for the JVM to leave after its input ends, before SIGKILL. */
const CLOSE_GRACE_MS = 5_000;

/** mqadmin reads conf/logback_tools.xml under its home; its logs stay in that directory. */
const LOGBACK_TOOLS = `<?xml version="1.0" encoding="UTF-8"?>
<configuration>
  <appender name="FILE" class="ch.qos.logback.core.FileAppender">
    <file>\${user.home}/logs/tools.log</file>
    <encoder><pattern>%d{HH:mm:ss.SSS} %-5level [%thread] %logger{0} - %msg%n</pattern></encoder>
  </appender>
  <root level="INFO"><appender-ref ref="FILE"/></root>
</configuration>
`;

export interface MqadminRun {
  readonly stdout: string;
  readonly stderr: string;
  /** How long the command ran inside the JVM. */
  readonly ms: number;
}

export interface MqadminSession {
  /** Runs one mqadmin command (with its `-n`); commands run one at a time, in call order. */
  run(args: readonly string[], timeoutMs?: number): Promise<MqadminRun>;
  /** Ends the JVM and removes its home directory. */
  close(): Promise<void>;
}

const live = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of live) child.kill('SIGKILL');
});

export async function startMqadminSession(): Promise<MqadminSession> {
  const home = mkdtempSync(join(tmpdir(), 'rmq-mqadmin-session-'));
  mkdirSync(join(home, 'conf'));
  writeFileSync(join(home, 'conf', 'logback_tools.xml'), LOGBACK_TOOLS);
  const setup = javaSetup();
  const argv = [
    ...setup.javaOpts,
    ...TOOL_JVM,
    `-Duser.home=${home}`,
    `-Drocketmq.home.dir=${home}`,
    '-cp',
    setup.classpath,
    SESSION_MAIN,
  ];
  // If this process dies, the session's stdin closes and the JVM exits by itself.
  const child = spawn('java', argv, {
    cwd: home,
    env: { ...process.env, ROCKETMQ_HOME: home },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  child.stdin?.on('error', () => {});
  live.add(child);
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => {
    stderr = (stderr + d.toString()).slice(-8000);
  });
  const results: Array<Record<string, unknown>> = [];
  const listeners = new Set<() => void>();
  let exited = false;
  child.once('exit', () => {
    exited = true;
    live.delete(child);
    for (const l of listeners) l();
  });
  if (child.stdout !== null) {
    createInterface({ input: child.stdout }).on('line', (line) => {
      if (!line.startsWith('{')) return;
      try {
        results.push(JSON.parse(line) as Record<string, unknown>);
      } catch {
        return;
      }
      for (const l of listeners) l();
    });
  }
  const waitFor = (index: number, what: string, timeoutMs: number) =>
    new Promise<Record<string, unknown>>((resolve, reject) => {
      const finish = (settle: () => void) => {
        clearTimeout(timer);
        listeners.delete(check);
        settle();
      };
      const check = () => {
        const r = results[index];
        if (r !== undefined) finish(() => resolve(r));
        else if (exited) finish(() => reject(new Error(`mqadmin session exited before ${what}\n${stderr}`)));
      };
      const timer = setTimeout(
        () => finish(() => reject(new Error(`mqadmin session: no ${what} in ${timeoutMs} ms\n${stderr}`))),
        timeoutMs,
      );
      listeners.add(check);
      check();
    });
  const kill = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const gone = once(child, 'exit');
    child.kill('SIGKILL');
    await gone;
  };
  const cleanUp = async () => {
    await kill();
    rmSync(home, { recursive: true, force: true });
  };
  try {
    await waitFor(0, 'ready line', START_TIMEOUT_MS);
  } catch (error) {
    await cleanUp();
    throw error;
  }
  let issued = 0;
  let queue: Promise<unknown> = Promise.resolve();
  return {
    run(args, timeoutMs = COMMAND_TIMEOUT_MS) {
      const command = [...args];
      if (command.some((a) => a.includes('\t') || a.includes('\n')))
        throw new Error(`mqadmin session: an argument holds a tab or line break: ${command.join(' ')}`);
      const next = queue.then(async () => {
        const index = ++issued;
        child.stdin?.write(`${command.join('\t')}\n`);
        try {
          const r = await waitFor(index, `answer to mqadmin ${args.join(' ')}`, timeoutMs);
          return { stdout: String(r.stdout), stderr: String(r.stderr), ms: Number(r.ms) };
        } catch (error) {
          // A command that never finished leaves the JVM busy: the session is over.
          await kill();
          throw error;
        }
      });
      queue = next.catch(() => undefined);
      return next;
    },
    async close() {
      await queue;
      if (child.exitCode === null && child.signalCode === null) {
        const gone = once(child, 'exit');
        child.stdin?.end();
        const timer = setTimeout(() => child.kill('SIGKILL'), CLOSE_GRACE_MS);
        await gone;
        clearTimeout(timer);
      }
      await cleanUp();
    },
  };
}
