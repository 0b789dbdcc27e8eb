/**
 * What the `rmq admin` vs mqadmin suites share: the two clusters they run against (our name server
 * and broker, and the official 4.9.8 ones), our CLI run in this process, the official mqadmin (one
 * JVM per cluster, mqadmin-session.ts), and the parsers that turn either tool's output into
 * comparable facts.
 */
import assert from 'node:assert/strict';
import { main } from '../../src/cli/main.js';
import { startBroker, startNamesrv } from './harness.js';
import { startLoopbackPair } from './loopback-pair.js';
import { type MqadminSession, startMqadminSession } from './mqadmin-session.js';

export interface Cluster {
  readonly namesrvAddr: string;
  readonly brokerAddr: string;
  readonly brokerName: string;
  close(): Promise<void>;
}

export interface Target {
  readonly name: string;
  start(): Promise<Cluster>;
}

/** Our name server and broker (in this process), then the official 4.9.8 ones; `name` tags temp dirs. */
export function adminTargets(name: string): readonly Target[] {
  return [
    {
      name: 'our broker',
      async start() {
        const pair = await startLoopbackPair(name);
        return {
          namesrvAddr: pair.namesrvAddr,
          brokerAddr: pair.brokerAddr,
          brokerName: 'broker-ts',
          close: () => pair.close(),
        };
      },
    },
    {
      name: 'the official 4.9.8 broker',
      async start() {
        const ns = await startNamesrv();
        try {
          const broker = await startBroker({ namesrvAddr: ns.addr, brokerName: 'broker-java' });
          return {
            namesrvAddr: ns.addr,
            brokerAddr: broker.addr,
            brokerName: broker.brokerName,
            async close() {
              await broker.close();
              await ns.close();
            },
          };
        } catch (error) {
          await ns.close();
          throw error;
        }
      },
    },
  ];
}

/** The target's cluster and an mqadmin session, started side by side; neither is left running on failure. */
export async function startClusterAndSession(
  target: Target,
): Promise<{ cluster: Cluster; session: MqadminSession }> {
  const [cluster, session] = await Promise.allSettled([target.start(), startMqadminSession()]);
  if (cluster.status === 'fulfilled' && session.status === 'fulfilled') {
    return { cluster: cluster.value, session: session.value };
  }
  if (cluster.status === 'fulfilled') await cluster.value.close();
  if (session.status === 'fulfilled') await session.value.close();
  throw cluster.status === 'rejected' ? cluster.reason : (session as PromiseRejectedResult).reason;
}

/** `rmq admin <args> -n <namesrvAddr>` in this process: its exit code, stdout and stderr. */
export async function runOurs(
  namesrvAddr: string,
  args: readonly string[],
): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await main(['admin', ...args, '-n', namesrvAddr], {
    out: (t) => {
      out += t;
    },
    err: (t) => {
      err += t;
    },
  });
  return { code, out, err };
}

/** `rmq admin <args>`, which must succeed; its stdout. */
export async function ours(namesrvAddr: string, args: readonly string[]): Promise<string> {
  const r = await runOurs(namesrvAddr, args);
  assert.equal(r.code, 0, `rmq admin ${args.join(' ')}: ${r.err}`);
  return r.out;
}

/** mqadmin prints a failed command's stack trace and still exits 0: any exception fails the step. */
function assertNoException(args: readonly string[], stdout: string, stderr: string): void {
  assert.doesNotMatch(`${stdout}\n${stderr}`, /Exception/, `mqadmin ${args.join(' ')}: ${stdout}\n${stderr}`);
}

/** The official mqadmin in a running session (mqadmin-session.ts), which must succeed; its stdout. */
export async function officialIn(
  session: MqadminSession,
  namesrvAddr: string,
  args: readonly string[],
): Promise<string> {
  const r = await session.run([...args, '-n', namesrvAddr]);
  assertNoException(args, r.stdout, r.stderr);
  return r.stdout;
}

/** Lines matching `re`, as the tuples of its groups. */
export function rows(text: string, re: RegExp): string[][] {
  return text
    .split('\n')
    .map((l) => re.exec(l.trimEnd()))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => m.slice(1));
}

export const sorted = (r: string[][]): string[][] =>
  [...r].sort((a, b) => (a.join('|') < b.join('|') ? -1 : 1));

/** `key=value` lines of getBrokerConfig and `key: value` lines of brokerStatus, as a map. */
export function keyValues(text: string, sep: RegExp): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of text.split('\n')) {
    const m = sep.exec(line);
    if (m?.[1] !== undefined) out.set(m[1], m[2] ?? '');
  }
  return out;
}

/** Java's AbstractMap.toString (`{k=v, k2=v2}`) as sorted entries: HashMap orders differ. */
export function javaMapEntries(text: string): string[][] {
  const inner = text.replace(/^\{|\}$/g, '');
  return inner === ''
    ? []
    : inner
        .split(', ')
        .map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)])
        .sort();
}

/**
 * The message block queryMsgById, queryMsgByUniqueKey and queryMsgByOffset print (`Topic:  …` lines,
 * up to the first blank line, where mqadmin's consume track starts), Properties as sorted entries.
 */
export function messageDetail(text: string): {
  fields: Map<string, string>;
  properties: string[][] | undefined;
} {
  const fields = keyValues(text.split('\n\n')[0] ?? '', /^([A-Z][A-Za-z ]+):\s+(.*)$/);
  const props = fields.get('Properties');
  fields.delete('Properties');
  return { fields, properties: props === undefined ? undefined : javaMapEntries(props) };
}

/** printMsg's and consumeMessage's `MSGID: ... MessageExt [...] BODY: ...` lines as sorted field lists. */
export function messageLines(text: string): string[][] {
  const re =
    /^MSGID: (\S+) MessageExt \[brokerName=(\S+), queueId=(\d+), storeSize=(\d+), queueOffset=(\d+), sysFlag=(\d+), bornTimestamp=(\d+), bornHost=(\S+), storeTimestamp=(\d+), storeHost=(\S+), msgId=(\S+), commitLogOffset=(\d+), bodyCRC=(\d+), reconsumeTimes=(\d+), preparedTransactionOffset=(\d+), toString\(\)=Message\{topic='([^']*)', flag=(-?\d+), properties=(\{.*\}), body=(\[[-\d, ]*\]), transactionId='([^']*)'\}\] BODY: (.*)$/;
  return sorted(
    rows(text, re).map((fields) => fields.map((f, i) => (i === 17 ? JSON.stringify(javaMapEntries(f)) : f))),
  );
}

/** Polls `probe` until it returns a value other than undefined; fails after `timeoutMs`. */
export async function until<T>(
  probe: () => Promise<T | undefined>,
  what: string,
  timeoutMs: number,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    assert.ok(Date.now() < deadline, `never happened within ${timeoutMs} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
