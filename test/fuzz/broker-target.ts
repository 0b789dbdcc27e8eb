/**
 * Broker requests over TCP: a real in-process broker (own temp store) is fed mutated request frames
 * over a socket, in batches, each batch followed by a valid probe request on the same connection.
 *
 * Inputs: half are requests built from the header schema of a random broker request code (fields
 * filled with random and hostile values, random bodies), half are byte mutations of seed frames (the
 * official client's request frames from the golden fixtures and such built requests). A mutated frame
 * gets its length prefix fixed up so the stream stays in step, so most inputs reach the handlers; one
 * in ten that no longer decodes is sent anyway (and ends its batch), as is, now and then, a frame
 * whose length prefix is left broken (after which the connection is ended by us).
 *
 * Findings:
 * - hang: a probe that gets no answer within `probeDeadlineMs` on a connection the broker has not
 *   closed, or on a fresh connection opened after it did;
 * - crash: an uncaught exception or unhandled rejection while the broker runs, a processor that
 *   throws something other than our typed errors (the dispatcher's "request processor threw" /
 *   "request handler threw" error lines), or an answer whose remark is a JavaScript fault's text.
 * A closed connection after a malformed frame is an outcome, not a finding.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrokerController, createBroker } from '../../src/broker/broker-controller.js';
import { BROKER_REQUEST_HANDLERS } from '../../src/broker/processor/processor-table.js';
import { createLogger, type LogRecord } from '../../src/common/logger.js';
import { createRequest, type RemotingCommand } from '../../src/remoting/protocol/command.js';
import { DEFAULT_MAX_FRAME_SIZE, decodeFrame, encodeFrame } from '../../src/remoting/protocol/frame.js';
import { FrameSplitter } from '../../src/remoting/protocol/frame-splitter.js';
import { requestHeaderByCode } from '../../src/remoting/protocol/headers/index.js';
import { popRequestHeaderByCode } from '../../src/remoting/protocol/headers/pop-headers.js';
import { RequestCode } from '../../src/remoting/protocol/request-code.js';
import { seededRandom } from '../helpers/chunks.js';
import { countOutcome, mutate, pick } from './engine.js';
import { goldenSeeds } from './golden-seeds.js';
import { fieldValue } from './hostile-values.js';

export interface BrokerFuzzOptions {
  inputs: number;
  seed: number;
  timeLimitMs?: number;
  /** Inputs sent before each probe. */
  batch?: number;
  /** A probe unanswered for this long is a hang. */
  probeDeadlineMs?: number;
  /** Called once the broker listens (the tests plant faulty processors here to see them found). */
  onBrokerStarted?: (broker: BrokerController) => void;
}

export interface BrokerFinding {
  inputIndex: number;
  /** The failing input and the ones sent before it on the connection, back to back. */
  input: Buffer;
  what: string;
}

export interface BrokerFuzzResult {
  inputs: number;
  outcomes: Map<string, number>;
  stoppedByTime: boolean;
  crashes: BrokerFinding[];
  hangs: BrokerFinding[];
  probes: number;
  reconnects: number;
  slowestProbeMillis: number;
}

const DEFAULT_BATCH = 8;
const DEFAULT_PROBE_DEADLINE_MS = 5000;
/** Inputs kept for a finding's reproduction file. */
const RECENT = 32;
/** Probe opaques live apart from the small opaques of seeds and mutations. */
const PROBE_OPAQUE_BASE = 0x5a000000;
const JS_FAULT =
  /Cannot read|Cannot set|is not a function|is not defined|is not iterable|TypeError|RangeError|ReferenceError|Invalid array length|Maximum call stack/;

const TEXTS = ['Fuzz', 'TopicA', 'TBW102', 'pg', 'g', '%RETRY%g', '*', 'TagA', '../up', 'KEYS\u0001k\u0002'];
const BODIES = [
  '{}',
  '[]',
  '{"mqSet":[{}]}',
  '{"offsetTable":{',
  'null',
  '{"a":1e999}',
  '{"clientID":"c","consumerDataSet":[{"groupName":"g","consumeType":"CONSUME_PASSIVELY","messageModel":"CLUSTERING","consumeFromWhere":"CONSUME_FROM_LAST_OFFSET","subscriptionDataSet":[{"topic":"Fuzz","subString":"*","expressionType":"TAG"}],"unitMode":false}],"producerDataSet":[{"groupName":"pg"}]}',
  '{"consumerGroup":"g","clientId":"c","mqSet":[{"topic":"Fuzz","brokerName":"b","queueId":0}]}',
  'brokerPermission=6\nflushDiskType=ASYNC_FLUSH',
];

function randomBody(random: () => number): Buffer | undefined {
  switch (Math.floor(random() * 5)) {
    case 0:
      return undefined;
    case 1: {
      const b = Buffer.alloc(Math.floor(random() * 200));
      for (let i = 0; i < b.length; i++) b[i] = Math.floor(random() * 256);
      return b;
    }
    case 2:
      return Buffer.from(pick(BODIES, random));
    default:
      return Buffer.from('body');
  }
}

const CODES = [...BROKER_REQUEST_HANDLERS.keys(), 9999, 0, -1];

/** A request for a random broker code, with the code's header fields (or some) and hostile values. */
export function structuredRequest(random: () => number): RemotingCommand {
  const code = pick(CODES, random);
  const extFields: Record<string, string> = {};
  const schema = requestHeaderByCode.get(code) ?? popRequestHeaderByCode.get(code);
  if (schema !== undefined) {
    const all = random() < 0.7;
    for (const f of schema.fields)
      if (all || random() < 0.5) extFields[f.key] = fieldValue(f.type, random, TEXTS, 0.15);
  }
  const body = randomBody(random);
  const cmd = createRequest(code, {
    extFields,
    ...(body === undefined ? {} : { body }),
    version: pick([0, 121, 317, 409, 9999], random),
    // A ROCKETMQ header carries the code as an int16 (Java casts it to short): 5.x POP codes go as JSON.
    serializeType: random() < 0.5 || code > 32767 ? 0 : 1,
    oneway: random() < 0.05,
  });
  cmd.opaque = Math.floor(random() * 1_000_000);
  return cmd;
}

function seedFrames(random: () => number): Buffer[] {
  // Requests only: a response frame is dropped by the broker before any handler sees it.
  const golden = goldenSeeds('commands/', '.bin').filter((f) => {
    const cmd = tryDecode(f);
    return cmd !== undefined && (cmd.flag & 1) === 0;
  });
  const built: Buffer[] = [];
  for (let i = 0; i < 200; i++) built.push(encodeFrame(structuredRequest(random)));
  return [...golden, ...built];
}

interface Answer {
  kind: 'answer' | 'closed' | 'timeout';
  cmd?: RemotingCommand;
}

/** A bare client socket: frames out as given, responses matched by opaque. */
class RawConnection {
  closed = false;
  private readonly splitter = new FrameSplitter(DEFAULT_MAX_FRAME_SIZE);
  private readonly waiting = new Map<number, (a: Answer) => void>();

  constructor(
    readonly socket: Socket,
    private readonly onOther: (cmd: RemotingCommand) => void,
  ) {
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => {
      this.splitter.push(chunk, (payload) => {
        const cmd = decodeFrame(payload);
        const w = this.waiting.get(cmd.opaque);
        if (w !== undefined) {
          this.waiting.delete(cmd.opaque);
          w({ kind: 'answer', cmd });
        } else {
          this.onOther(cmd);
        }
      });
    });
    // A reset from the broker shows as an error before close; close settles every waiter.
    socket.on('error', () => undefined);
    socket.on('close', () => {
      this.closed = true;
      for (const w of this.waiting.values()) w({ kind: 'closed' });
      this.waiting.clear();
    });
  }

  static open(port: number, onOther: (cmd: RemotingCommand) => void): Promise<RawConnection> {
    return new Promise((resolve, reject) => {
      const socket = connect({ host: '127.0.0.1', port });
      socket.once('connect', () => resolve(new RawConnection(socket, onOther)));
      socket.once('error', reject);
    });
  }

  request(frame: Buffer, opaque: number, deadlineMs: number): Promise<Answer> {
    if (this.closed) return Promise.resolve({ kind: 'closed' });
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.waiting.delete(opaque);
        resolve({ kind: 'timeout' });
      }, deadlineMs);
      this.waiting.set(opaque, (a) => {
        clearTimeout(timer);
        resolve(a);
      });
      this.socket.write(frame);
    });
  }

  /** Waits until the broker has closed the connection (after a frame it could not split). */
  closedWithin(ms: number): Promise<boolean> {
    if (this.closed) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(false), ms);
      this.socket.once('close', () => {
        clearTimeout(timer);
        resolve(true);
      });
    });
  }

  destroy(): void {
    this.socket.destroy();
  }
}

async function startBroker(parent: string, sink: (record: LogRecord) => void): Promise<BrokerController> {
  const root = join(parent, 'store');
  mkdirSync(root);
  const broker = createBroker({
    config: {
      storePathRootDir: root,
      listenPort: 0,
      listenHost: '127.0.0.1',
      brokerIP1: '127.0.0.1',
      brokerIP2: '127.0.0.1',
      namesrvAddr: undefined,
      autoCreateTopicEnable: true,
      enablePropertyFilter: true,
    },
    logger: createLogger('fuzz', { level: 'error', sink }),
  });
  await broker.start();
  return broker;
}

/**
 * Replays a finding file (frames back to back) against a fresh broker: sends the bytes, then probes
 * on the same connection and on a new one. Returns what happened, one line per event.
 */
export async function replayBroker(bytes: Buffer, deadlineMs = DEFAULT_PROBE_DEADLINE_MS): Promise<string[]> {
  const events: string[] = [];
  const onEvent = (what: string) => (err: unknown) => events.push(`${what}: ${String(err)}`);
  const onUncaught = onEvent('uncaught');
  process.on('uncaughtException', onUncaught);
  process.on('unhandledRejection', onUncaught);
  const parent = mkdtempSync(join(tmpdir(), 'rmq-fuzz-replay-'));
  let broker: BrokerController | undefined;
  try {
    broker = await startBroker(parent, (r) => {
      if (r.level === 'error')
        events.push(
          `error log: ${r.msg} ${JSON.stringify(r.fields, (_, v) => (typeof v === 'bigint' ? String(v) : v))}`,
        );
    });
    const port = Number(broker.brokerAddr.split(':')[1]);
    const onAnswer = (cmd: RemotingCommand): void => {
      events.push(`answer opaque ${cmd.opaque} code ${cmd.code} remark ${JSON.stringify(cmd.remark ?? '')}`);
    };
    const conn = await RawConnection.open(port, onAnswer);
    conn.socket.write(bytes);
    const same = await conn.request(probeFrame(PROBE_OPAQUE_BASE), PROBE_OPAQUE_BASE, deadlineMs);
    events.push(`probe on the same connection: ${same.kind}`);
    conn.destroy();
    const fresh = await RawConnection.open(port, onAnswer);
    const other = await fresh.request(probeFrame(PROBE_OPAQUE_BASE + 1), PROBE_OPAQUE_BASE + 1, deadlineMs);
    events.push(`probe on a new connection: ${other.kind}`);
    fresh.destroy();
  } finally {
    await broker?.shutdown();
    process.off('uncaughtException', onUncaught);
    process.off('unhandledRejection', onUncaught);
    rmSync(parent, { recursive: true, force: true });
  }
  return events;
}

function probeFrame(opaque: number): Buffer {
  const cmd = createRequest(RequestCode.GET_MAX_OFFSET, { extFields: { topic: 'Fuzz', queueId: '0' } });
  cmd.opaque = opaque;
  return encodeFrame(cmd);
}

interface Sent {
  bytes: Buffer;
  /** Decoded as the broker will see it; undefined when it does not decode. */
  cmd: RemotingCommand | undefined;
  /** False when the length prefix was left broken: the connection cannot be used after it. */
  inStep: boolean;
}

function tryDecode(frame: Buffer): RemotingCommand | undefined {
  try {
    return frame.length >= 4 ? decodeFrame(frame.subarray(4)) : undefined;
  } catch {
    return undefined;
  }
}

function makeInput(seeds: readonly Buffer[], random: () => number): Sent {
  if (random() < 0.5) {
    const bytes = encodeFrame(structuredRequest(random));
    return { bytes, cmd: tryDecode(bytes), inStep: true };
  }
  for (;;) {
    const bytes = mutate(pick(seeds, random), seeds, random);
    if (random() < 0.01) return { bytes, cmd: tryDecode(bytes), inStep: false };
    if (bytes.length < 8) continue;
    bytes.writeInt32BE(bytes.length - 4, 0);
    const cmd = tryDecode(bytes);
    if (cmd !== undefined || random() < 0.1) return { bytes, cmd, inStep: true };
  }
}

export async function fuzzBroker(options: BrokerFuzzOptions): Promise<BrokerFuzzResult> {
  const random = seededRandom(options.seed);
  const batch = options.batch ?? DEFAULT_BATCH;
  const deadlineMs = options.probeDeadlineMs ?? DEFAULT_PROBE_DEADLINE_MS;
  const stopAt = options.timeLimitMs === undefined ? Infinity : performance.now() + options.timeLimitMs;
  const result: BrokerFuzzResult = {
    inputs: 0,
    outcomes: new Map(),
    stoppedByTime: false,
    crashes: [],
    hangs: [],
    probes: 0,
    reconnects: 0,
    slowestProbeMillis: 0,
  };
  const recent: Buffer[] = [];
  let index = 0;
  const finding = (what: string): BrokerFinding => ({
    inputIndex: index,
    input: Buffer.concat(recent),
    what: `input ${index}, seed ${options.seed}: ${what}`,
  });
  const onLog = (record: LogRecord): void => {
    if (record.level !== 'error') return;
    if (record.msg === 'request processor threw' || record.msg === 'request handler threw') {
      result.crashes.push(
        finding(`${record.msg}: ${String(record.fields.error)} (code ${record.fields.code})`),
      );
    } else {
      // Some messages carry the peer's topic or group: classed by their first words.
      countOutcome(result.outcomes, `error log: ${record.msg.slice(0, 40)}`);
    }
  };
  const onUncaught = (err: unknown): void => {
    result.crashes.push(
      finding(`uncaught: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`),
    );
  };
  process.on('uncaughtException', onUncaught);
  process.on('unhandledRejection', onUncaught);

  const parent = mkdtempSync(join(tmpdir(), 'rmq-fuzz-tcp-'));
  let broker: BrokerController | undefined;
  let conn: RawConnection | undefined;
  try {
    broker = await startBroker(parent, onLog);
    options.onBrokerStarted?.(broker);
    const port = Number(broker.brokerAddr.split(':')[1]);
    const seeds = seedFrames(random);
    let answersThisBatch: RemotingCommand[] = [];
    const onOther = (cmd: RemotingCommand): void => {
      answersThisBatch.push(cmd);
      if (cmd.remark !== undefined && JS_FAULT.test(cmd.remark))
        result.crashes.push(finding(`answer to code ${cmd.code}... remark: ${cmd.remark.slice(0, 300)}`));
    };
    const reopen = async (): Promise<RawConnection> => {
      result.reconnects++;
      return RawConnection.open(port, onOther);
    };
    conn = await RawConnection.open(port, onOther);
    let probeOpaque = PROBE_OPAQUE_BASE;
    const probe = async (c: RawConnection): Promise<Answer> => {
      const opaque = probeOpaque++;
      const started = performance.now();
      const a = await c.request(probeFrame(opaque), opaque, deadlineMs);
      const took = performance.now() - started;
      result.probes++;
      if (a.kind === 'answer' && took > result.slowestProbeMillis) result.slowestProbeMillis = took;
      return a;
    };

    while (index < options.inputs && result.crashes.length === 0 && result.hangs.length === 0) {
      if (performance.now() > stopAt) {
        result.stoppedByTime = true;
        break;
      }
      answersThisBatch = [];
      const sentCodes: string[] = [];
      const codeByOpaque = new Map<number, number>();
      let brokeStep = false;
      for (let n = 0; n < batch && index < options.inputs; n++) {
        const input = makeInput(seeds, random);
        recent.push(input.bytes);
        if (recent.length > RECENT) recent.shift();
        conn.socket.write(input.bytes);
        index++;
        result.inputs++;
        sentCodes.push(input.cmd === undefined ? 'undecodable' : `code ${input.cmd.code}`);
        if (input.cmd !== undefined) codeByOpaque.set(input.cmd.opaque, input.cmd.code);
        if (!input.inStep) {
          // The broker may be waiting for the rest of a frame that never comes: end our side.
          conn.socket.end();
          brokeStep = true;
          break;
        }
        if (input.cmd === undefined) break;
      }
      if (brokeStep) {
        const closed = await conn.closedWithin(deadlineMs);
        if (!closed) conn.destroy();
        countOutcome(result.outcomes, closed ? 'broken length: closed' : 'broken length: left open');
        conn = await reopen();
      }
      let a = await probe(conn);
      if (a.kind === 'closed') {
        countOutcome(result.outcomes, `${sentCodes[sentCodes.length - 1]}: connection closed`);
        conn = await reopen();
        a = await probe(conn);
      }
      if (a.kind !== 'answer') {
        result.hangs.push(finding(`probe got no answer within ${deadlineMs} ms (${a.kind})`));
        break;
      }
      for (const r of answersThisBatch)
        countOutcome(result.outcomes, `code ${codeByOpaque.get(r.opaque) ?? '?'} answered ${r.code}`);
    }
  } finally {
    conn?.destroy();
    await broker?.shutdown();
    process.off('uncaughtException', onUncaught);
    process.off('unhandledRejection', onUncaught);
    rmSync(parent, { recursive: true, force: true });
  }
  return result;
}
