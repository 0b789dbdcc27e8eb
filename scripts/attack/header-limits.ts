/**
 * header-limits (issue 26, point 5): one frame whose header holds a million extFields keys, in JSON
 * (~14 MiB, over serverHeaderMaxSize), in JSON again just under the size limit (so the extFields
 * count refuses it) and in the ROCKETMQ form. Before the limits, the first stalled the broker ~2.3 s
 * and peaked at 642 MB before the ACL check ran. Held when the broker answers MESSAGE_ILLEGAL (or
 * closes the connection), an unrelated client never waits 1 s, and RSS stays within +128 MiB.
 */
import { once } from 'node:events';
import type { Socket } from 'node:net';
import { decodeFrame } from '../../src/remoting/protocol/frame.js';
import { FrameSplitter } from '../../src/remoting/protocol/frame-splitter.js';
import { RequestCode } from '../../src/remoting/protocol/request-code.js';
import { ResponseCode } from '../../src/remoting/protocol/response-code.js';
import type { Broker } from '../bench-support.js';
import type { AttackClass, AttackVerdict } from './attack-class.js';
import { f1, latencyProbe, MiB, rawSocket, rssPeak, startChildBroker } from './connection-support.js';

const TOPIC = 'AttackHeaderLimits';
const STALL_BOUND_MS = 1000;
const RSS_BOUND_MIB = 128;

/** A JSON header of about `bytes` bytes, all of it extFields, as a whole frame. */
export function jsonHeaderFrame(keys: number): Buffer {
  const parts = [`{"code":${RequestCode.HEART_BEAT},"extFields":{`];
  for (let i = 0; i < keys; i++) parts.push(`${i === 0 ? '' : ','}"k${i}":"v"`);
  parts.push('},"flag":0,"language":"JAVA","opaque":7,"serializeTypeCurrentRPC":"JSON","version":409}');
  return frameOf(0, Buffer.from(parts.join('')));
}

/** The same in the binary ROCKETMQ form. */
export function rocketmqHeaderFrame(keys: number): Buffer {
  const entries: Buffer[] = [];
  for (let i = 0; i < keys; i++) {
    const key = Buffer.from(`k${i}`);
    const entry = Buffer.alloc(2 + key.length + 4 + 1);
    entry.writeInt16BE(key.length, 0);
    key.copy(entry, 2);
    entry.writeInt32BE(1, 2 + key.length);
    entry.write('v', 6 + key.length);
    entries.push(entry);
  }
  const ext = Buffer.concat(entries);
  const fixed = Buffer.alloc(21);
  fixed.writeInt16BE(RequestCode.HEART_BEAT, 0);
  fixed.writeInt16BE(409, 3);
  fixed.writeInt32BE(7, 5);
  fixed.writeInt32BE(ext.length, 17);
  return frameOf(1, Buffer.concat([fixed, ext]));
}

function frameOf(type: number, header: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeInt32BE(4 + header.length, 0);
  head.writeInt32BE(((type << 24) | header.length) >>> 0, 4);
  return Buffer.concat([head, header]);
}

/** The first response's code, or 'closed' when the connection closes first. */
function firstAnswer(socket: Socket): Promise<number | 'closed'> {
  const splitter = new FrameSplitter();
  return new Promise((resolve) => {
    socket.on('data', (chunk: Buffer) =>
      splitter.push(chunk, (payload) => {
        resolve(decodeFrame(payload).code);
      }),
    );
    socket.once('close', () => resolve('closed'));
  });
}

async function oneFrame(broker: Broker, name: string, frame: Buffer): Promise<AttackVerdict> {
  const socket = await rawSocket(broker.brokerAddr);
  const rss = rssPeak(broker.brokerPid);
  const probe = latencyProbe(broker.brokerAddr, TOPIC);
  await new Promise((resolve) => setTimeout(resolve, 200));
  const answer = firstAnswer(socket);
  const started = performance.now();
  if (!socket.write(frame)) await Promise.race([once(socket, 'drain'), once(socket, 'close')]);
  const code = await answer;
  const answeredMs = performance.now() - started;
  await new Promise((resolve) => setTimeout(resolve, 200));
  const latency = await probe.stop();
  const rssDelta = rss.stop();
  socket.destroy();
  const refused = code === ResponseCode.MESSAGE_ILLEGAL || code === 'closed';
  const held = refused && latency.maxMs < STALL_BOUND_MS && rssDelta <= RSS_BOUND_MIB;
  return {
    attack: 'header-limits',
    case: `${name} (${f1(frame.length / MiB)} MiB frame)`,
    verdict: held ? 'held' : 'breached',
    figure:
      `${code === 'closed' ? 'closed' : `code ${code}`} after ${answeredMs.toFixed(0)} ms; ` +
      `other client max ${latency.maxMs.toFixed(0)} ms (bound ${STALL_BOUND_MS}); ` +
      `RSS peak +${f1(rssDelta)} MiB (bound ${RSS_BOUND_MIB})`,
  };
}

export const headerLimits: AttackClass = {
  name: 'header-limits',
  async run() {
    const broker = await startChildBroker('attack-header-limits-');
    try {
      return [
        await oneFrame(broker, 'JSON header, 1M extFields', jsonHeaderFrame(1_000_000)),
        await oneFrame(broker, 'JSON header < 4 MiB, 300k extFields', jsonHeaderFrame(300_000)),
        await oneFrame(broker, 'ROCKETMQ header, 1M extFields', rocketmqHeaderFrame(1_000_000)),
      ];
    } finally {
      await broker.close();
    }
  },
};
