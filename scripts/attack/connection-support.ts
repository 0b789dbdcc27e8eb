/**
 * What the connection attack classes (connection-memory, header-limits, slow-frames) share: our
 * broker as a child process (`rmq start`, loopback, temp dir, an optional broker.conf), its RSS from
 * /proc, raw sockets that write frames and never read, and a probe client measuring the latency an
 * unrelated client sees meanwhile.
 */
import { once } from 'node:events';
import { readFileSync, writeFileSync } from 'node:fs';
import { connect as netConnect, type Socket } from 'node:net';
import { join } from 'node:path';
import { createHistogram } from 'node:perf_hooks';
import { createProducer } from '../../src/client/index.js';
import { createLogger } from '../../src/common/logger.js';
import { Message } from '../../src/common/message/message.js';
import { decodeOffsetMsgId } from '../../src/common/message/message-id.js';
import { createRequest } from '../../src/remoting/protocol/command.js';
import { RequestCode } from '../../src/remoting/protocol/request-code.js';
import { RemotingClient } from '../../src/remoting/transport/index.js';
import { type Broker, startOurs, tempDir } from '../bench-support.js';

export const MiB = 1024 * 1024;
export const QUIET = createLogger('attack', { level: 'silent' });

/** `rmq start` in a child process; `conf` becomes its broker.conf. */
export async function startChildBroker(prefix: string, conf: Record<string, string | number> = {}) {
  const keys = Object.entries(conf);
  const startArgs: string[] = [];
  if (keys.length > 0) {
    const file = join(tempDir(`${prefix}conf-`), 'broker.conf');
    writeFileSync(file, keys.map(([k, v]) => `${k}=${v}\n`).join(''));
    startArgs.push('-c', file);
  }
  return startOurs({ dirPrefix: prefix, startArgs });
}

/** VmRSS of a process, MiB. */
export function rssMiB(pid: number | undefined): number {
  if (pid === undefined) return Number.NaN;
  const status = readStatus(pid);
  const kb = /VmRSS:\s+(\d+)/.exec(status)?.[1];
  return kb === undefined ? Number.NaN : Number(kb) / 1024;
}

function readStatus(pid: number): string {
  try {
    // A synchronous read of a tiny /proc file: cheap and never blocks on disk.
    return readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return '';
  }
}

/** Samples a process's RSS every 50 ms until stopped; the peak over the start figure. */
export function rssPeak(pid: number | undefined): { stop(): number; readonly start: number } {
  const start = rssMiB(pid);
  let peak = start;
  const timer = setInterval(() => {
    peak = Math.max(peak, rssMiB(pid));
  }, 50);
  return {
    start,
    stop() {
      clearInterval(timer);
      return Math.max(peak, rssMiB(pid)) - start;
    },
  };
}

export async function rawSocket(address: string): Promise<Socket> {
  const [host, port] = splitAddress(address);
  const socket = netConnect({ host, port });
  socket.on('error', () => {});
  await once(socket, 'connect');
  return socket;
}

function splitAddress(address: string): [string, number] {
  const at = address.lastIndexOf(':');
  return [address.slice(0, at), Number(address.slice(at + 1))];
}

/** Resolves true when `socket` closes within `ms`, false otherwise. */
export function closesWithin(socket: Socket, ms: number): Promise<boolean> {
  if (socket.destroyed) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    socket.once('close', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

/** Sends one message of `size` bytes and returns its commit-log offset. */
export async function storeMessage(broker: Broker, topic: string, size: number): Promise<bigint> {
  const producer = createProducer({
    namesrvAddr: broker.namesrvAddr,
    producerGroup: 'attack_fill',
    instanceName: `attack-fill-${Date.now()}`,
    logger: QUIET,
  });
  await producer.start();
  try {
    const result = await producer.send(new Message(topic, Buffer.alloc(size, 0x61)));
    return decodeOffsetMsgId(result.offsetMsgId).offset;
  } finally {
    await producer.shutdown();
  }
}

/**
 * An unrelated client's round trips (GET_MAX_OFFSET, answered from memory), one at a time, until
 * stopped: its p99 and worst latency in ms.
 */
export function latencyProbe(brokerAddr: string, topic: string) {
  const client = new RemotingClient({ defaultInvokeTimeoutMs: 30_000 }, { logger: QUIET });
  const histogram = createHistogram({ lowest: 1, highest: 60e9, figures: 3 });
  let running = true;
  let failures = 0;
  const loop = (async () => {
    while (running) {
      const t0 = process.hrtime.bigint();
      try {
        await client.invoke(
          brokerAddr,
          createRequest(RequestCode.GET_MAX_OFFSET, { extFields: { topic, queueId: '0' } }),
        );
        histogram.record(Math.max(1, Number(process.hrtime.bigint() - t0)));
      } catch {
        failures++;
      }
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      await client.close();
      return {
        p99Ms: histogram.count === 0 ? Number.NaN : histogram.percentile(99) / 1e6,
        maxMs: histogram.count === 0 ? Number.NaN : histogram.max / 1e6,
        count: histogram.count,
        failures,
      };
    },
  };
}

/** Idle latency of the probe over `ms`. */
export async function idleLatency(brokerAddr: string, topic: string, ms: number) {
  const probe = latencyProbe(brokerAddr, topic);
  await new Promise((resolve) => setTimeout(resolve, ms));
  return probe.stop();
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export const f1 = (n: number): string => n.toFixed(1);
