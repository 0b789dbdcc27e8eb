/**
 * slow-frames (issue 26, point 5): a frame sent a byte at a time, connections each holding a 16 MiB
 * frame one byte short, and more connections than serverMaxConnections. Before the limits the
 * first two were held until the idle timeout (the dribble outlived it) and the count was unbounded.
 * Held when the broker closes each slow connection within serverFrameDeadlineMillis (+2 s) and
 * closes every connection past the limit at once while the others keep being served. The short
 * form runs the broker with a 3 s deadline and a limit of 64 connections to keep within its time;
 * the full form keeps the 30 s default deadline and sets the limit to 1000.
 */
import type { Socket } from 'node:net';
import { createRequest } from '../../src/remoting/protocol/command.js';
import { encodeFrame } from '../../src/remoting/protocol/frame.js';
import { RequestCode } from '../../src/remoting/protocol/request-code.js';
import { DEFAULT_REMOTING_SERVER_SETTINGS } from '../../src/remoting/transport/settings.js';
import type { Broker } from '../bench-support.js';
import type { AttackClass, AttackVerdict } from './attack-class.js';
import { closesWithin, f1, MiB, rawSocket, rssMiB, rssPeak, startChildBroker } from './connection-support.js';

/** Timers run late on a loaded machine: 2 s, plus a tenth of the deadline. */
const slackMs = (deadlineMs: number): number => 2000 + deadlineMs / 10;

function sendFrame(bodySize: number): Buffer {
  const request = createRequest(RequestCode.SEND_MESSAGE, {
    extFields: { topic: 'AttackSlowFrames', queueId: '0' },
    body: Buffer.alloc(bodySize, 0x62),
  });
  return encodeFrame(request);
}

async function dribble(broker: Broker, deadlineMs: number, everyMs: number): Promise<AttackVerdict> {
  const socket = await rawSocket(broker.brokerAddr);
  const frame = sendFrame(1024);
  let sent = 0;
  const timer = setInterval(() => {
    if (sent < frame.length - 1 && !socket.destroyed) socket.write(frame.subarray(sent, ++sent));
  }, everyMs);
  const started = performance.now();
  const closed = await closesWithin(socket, deadlineMs + slackMs(deadlineMs));
  const tookMs = performance.now() - started;
  clearInterval(timer);
  socket.destroy();
  return {
    attack: 'slow-frames',
    case: `one byte every ${everyMs} ms`,
    verdict: closed ? 'held' : 'breached',
    figure: closed
      ? `closed after ${(tookMs / 1000).toFixed(1)} s, ${sent} bytes in (deadline ${deadlineMs / 1000} s)`
      : `still open after ${(tookMs / 1000).toFixed(1)} s`,
  };
}

async function oneByteShort(broker: Broker, deadlineMs: number, connections: number): Promise<AttackVerdict> {
  const rss = rssPeak(broker.brokerPid);
  const frame = sendFrame(16 * MiB - 1024);
  const sockets: Socket[] = [];
  for (let i = 0; i < connections; i++) {
    const socket = await rawSocket(broker.brokerAddr);
    socket.write(frame.subarray(0, frame.length - 1));
    sockets.push(socket);
  }
  const started = performance.now();
  const closed = await Promise.all(
    sockets.map((s) => closesWithin(s, deadlineMs + slackMs(deadlineMs) + 5000)),
  );
  const tookMs = performance.now() - started;
  const peak = rss.stop();
  const after = rssMiB(broker.brokerPid) - rss.start;
  for (const socket of sockets) socket.destroy();
  const all = closed.every(Boolean);
  return {
    attack: 'slow-frames',
    case: `${connections} conns, 16 MiB frame one byte short`,
    verdict: all && tookMs <= deadlineMs + slackMs(deadlineMs) ? 'held' : 'breached',
    figure:
      `${closed.filter(Boolean).length}/${connections} closed within ${(tookMs / 1000).toFixed(1)} s ` +
      `(deadline ${deadlineMs / 1000} s); RSS peak +${f1(peak)} MiB, +${f1(after)} MiB after`,
  };
}

async function overTheCount(broker: Broker, limit: number): Promise<AttackVerdict> {
  const extra = 20;
  const sockets: Socket[] = [];
  for (let i = 0; i < limit + extra; i++) sockets.push(await rawSocket(broker.brokerAddr));
  const closed = await Promise.all(sockets.map((s) => closesWithin(s, 1000)));
  const closedCount = closed.filter(Boolean).length;
  // The connections within the limit are served: ask on the first one.
  const first = sockets[0] as Socket;
  const answered = new Promise<boolean>((resolve) => {
    first.once('data', () => resolve(true));
    setTimeout(() => resolve(false), 5000);
  });
  first.write(encodeFrame(createRequest(RequestCode.GET_BROKER_CONFIG)));
  const served = await answered;
  for (const socket of sockets) socket.destroy();
  return {
    attack: 'slow-frames',
    case: `${limit + extra} conns against serverMaxConnections=${limit}`,
    verdict: closedCount === extra && served ? 'held' : 'breached',
    figure: `${closedCount} closed at once (expected ${extra}); the others ${served ? 'served' : 'NOT served'}`,
  };
}

export const slowFrames: AttackClass = {
  name: 'slow-frames',
  async run({ short }) {
    const deadlineMs = short ? 3000 : DEFAULT_REMOTING_SERVER_SETTINGS.serverFrameDeadlineMillis;
    const limit = short ? 64 : 1000;
    const broker = await startChildBroker('attack-slow-frames-', {
      serverFrameDeadlineMillis: deadlineMs,
      serverMaxConnections: limit,
    });
    try {
      const [slow, held] = await Promise.all([
        dribble(broker, deadlineMs, short ? 200 : 1000),
        oneByteShort(broker, deadlineMs, short ? 10 : 40),
      ]);
      return [slow, held, await overTheCount(broker, limit)];
    } finally {
      await broker.close();
    }
  },
};
