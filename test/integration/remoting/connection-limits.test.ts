/**
 * The server's per-connection limits over real TCP on 127.0.0.1: reading stops under unread
 * responses and under requests in flight, a write buffer past its hard limit closes the connection,
 * the connection count, the frame deadline and the header limits. Settings are shortened so each
 * case runs in well under a second.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { connect as netConnect, type Socket } from 'node:net';
import { afterEach, describe, test } from 'node:test';
import { createLogger, type LogRecord } from '../../../src/common/logger.js';
import {
  createRequest,
  createResponse,
  type RemotingCommand,
  SerializeType,
} from '../../../src/remoting/protocol/command.js';
import { decodeFrame, encodeFrame } from '../../../src/remoting/protocol/frame.js';
import { FrameSplitter } from '../../../src/remoting/protocol/frame-splitter.js';
import { ResponseCode } from '../../../src/remoting/protocol/response-code.js';
import {
  type Connection,
  RemotingClient,
  RemotingServer,
  type RemotingServerOverrides,
} from '../../../src/remoting/transport/index.js';

const ECHO = 100;
const HOLD = 101;
const BIG = 102;
const LIMIT = { timeout: 20_000 };
const cleanups: Array<() => Promise<void> | void> = [];

afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((c) => c()));
});

async function startServer(settings: RemotingServerOverrides) {
  const records: LogRecord[] = [];
  const logger = createLogger('test', { level: 'warn', sink: (r) => records.push(r) });
  const server = new RemotingServer(settings, { logger });
  cleanups.push(() => server.close());
  server.registerProcessor(ECHO, {
    processRequest: (_ctx, req) => createResponse(req, 0, { extFields: req.extFields, body: req.body }),
  });
  const big = Buffer.alloc(256 * 1024, 7);
  server.registerProcessor(BIG, { processRequest: (_ctx, req) => createResponse(req, 0, { body: big }) });
  /** Requests the HOLD processor has not answered yet; release() answers them all. */
  const held: Array<() => void> = [];
  let onHeld: (() => void) | undefined;
  server.registerProcessor(HOLD, {
    processRequest: (_ctx, req) =>
      new Promise<RemotingCommand>((resolve) => {
        held.push(() => resolve(createResponse(req, 0, { body: big })));
        onHeld?.();
      }),
  });
  const heldCount = (count: number) =>
    new Promise<void>((resolve) => {
      onHeld = () => {
        if (held.length >= count) resolve();
      };
      onHeld();
    });
  const release = () => {
    for (const answer of held.splice(0)) answer();
  };
  const bound = await server.listen({ host: '127.0.0.1', port: 0 });
  return { server, address: bound.address, port: bound.port, records, held, heldCount, release };
}

async function rawSocket(port: number): Promise<Socket> {
  const socket = netConnect({ host: '127.0.0.1', port });
  cleanups.push(() => {
    socket.destroy();
  });
  await once(socket, 'connect');
  return socket;
}

function frames(code: number, count: number): Buffer {
  const all: Buffer[] = [];
  for (let i = 0; i < count; i++) {
    const req = createRequest(code);
    req.opaque = i;
    all.push(encodeFrame(req));
  }
  return Buffer.concat(all);
}

function nextConnection(server: RemotingServer): Promise<Connection> {
  return once(server, 'connection').then(([c]) => c as Connection);
}

function closedWith(connection: Connection): Promise<string> {
  const reason = connection.closeReason;
  if (reason !== undefined) return Promise.resolve(reason);
  return once(connection, 'close').then(([r]) => String(r));
}

/** Reads every response the socket gets from now on; resolves once `count` came, in order. */
function readResponses(socket: Socket, count: number): Promise<RemotingCommand[]> {
  const splitter = new FrameSplitter();
  const got: RemotingCommand[] = [];
  return new Promise((resolve) => {
    socket.on('data', (chunk: Buffer) =>
      splitter.push(chunk, (payload) => {
        got.push(decodeFrame(payload));
        if (got.length === count) resolve(got);
      }),
    );
    socket.resume();
  });
}

describe('per-connection limits of RemotingServer', () => {
  test(
    'unread responses stop the reading of a chunk at the high water mark, not after it',
    LIMIT,
    async () => {
      const { server, port } = await startServer({
        writeBufferHighWaterMark: 64 * 1024,
        writeBufferLowWaterMark: 0,
      });
      const serverSide = nextConnection(server);
      const socket = await rawSocket(port);
      socket.pause();
      const count = 128; // 32 MiB of responses asked for in one write
      socket.write(frames(BIG, count));
      const connection = await serverSide;
      if (!connection.readPaused) await once(connection, 'readPaused');
      const queued = (connection.stream as Socket).writableLength;
      // Only the responses up to the mark were produced; the rest of the requests wait, unparsed.
      assert.ok(queued < 2 * 256 * 1024 + 64 * 1024, `queued ${queued} bytes`);
      assert.ok(connection.readBuffered > 0);
      const responses = await readResponses(socket, count);
      assert.deepEqual(
        responses.map((r) => r.opaque),
        Array.from({ length: count }, (_, i) => i),
      );
      // The last response can reach the peer before the server sees its write buffer drained.
      if (connection.readPaused) await once(connection, 'readResumed');
      assert.equal(connection.readPaused, false);
    },
  );

  test('reading stops at serverMaxRequestsInFlight and resumes as requests are answered', LIMIT, async () => {
    const { server, port, held, heldCount, release } = await startServer({ serverMaxRequestsInFlight: 4 });
    const serverSide = nextConnection(server);
    const socket = await rawSocket(port);
    const answers = readResponses(socket, 20);
    socket.write(frames(HOLD, 20));
    const connection = await serverSide;
    await heldCount(4);
    if (!connection.readPaused) await once(connection, 'readPaused');
    assert.equal(held.length, 4);
    assert.equal(connection.requestsInFlight, 4);
    const resumed = once(connection, 'readResumed');
    release();
    await resumed;
    for (let batch = 2; batch <= 5; batch++) {
      await heldCount(4);
      release();
    }
    assert.equal((await answers).length, 20);
  });

  test('requests parked by their processor (long polling) leave the count in flight', LIMIT, async () => {
    const { server, port } = await startServer({ serverMaxRequestsInFlight: 4 });
    const PARK = 105;
    const parked: Array<() => void> = [];
    let onParked: (() => void) | undefined;
    server.registerProcessor(PARK, {
      processRequest: (ctx, req) =>
        new Promise<RemotingCommand>((resolve) => {
          parked.push(() => resolve(createResponse(req, 0)));
          ctx.park?.(req);
          onParked?.();
        }),
    });
    const serverSide = nextConnection(server);
    const socket = await rawSocket(port);
    const answers = readResponses(socket, 20);
    socket.write(frames(PARK, 20));
    await new Promise<void>((resolve) => {
      onParked = () => {
        if (parked.length === 20) resolve();
      };
    });
    const connection = await serverSide;
    assert.equal(connection.requestsInFlight, 0);
    assert.equal(connection.readPaused, false);
    for (const answer of parked) answer();
    assert.equal((await answers).length, 20);
  });

  test('a write buffer past serverWriteBufferHardLimit closes that connection only', LIMIT, async () => {
    const { server, port, address, heldCount, release, records } = await startServer({
      maxFrameSize: 1024 * 1024,
      writeBufferHighWaterMark: 64 * 1024,
      writeBufferLowWaterMark: 0,
      serverWriteBufferHardLimit: 1024 * 1024,
    });
    const serverSide = nextConnection(server);
    const socket = await rawSocket(port);
    socket.pause();
    socket.write(frames(HOLD, 16));
    const connection = await serverSide;
    await heldCount(16);
    release(); // 16 x 256 KiB answered at once to a peer that reads nothing
    assert.equal(await closedWith(connection), 'writeBufferHardLimit reached');
    assert.equal(records.filter((r) => /hard limit/.test(r.msg)).length, 1);
    const client = new RemotingClient({}, { logger: createLogger('c', { level: 'silent' }) });
    cleanups.push(() => client.close());
    assert.equal((await client.invoke(address, createRequest(ECHO))).code, 0);
  });

  test('a connection past serverMaxConnections is closed at once, with one log line', LIMIT, async () => {
    const { server, port, records } = await startServer({ serverMaxConnections: 2 });
    const first = nextConnection(server);
    const a = await rawSocket(port);
    a.write(frames(ECHO, 1));
    await first;
    const b = await rawSocket(port);
    const c = await rawSocket(port);
    await once(c, 'close');
    const d = await rawSocket(port);
    await once(d, 'close');
    assert.equal(records.filter((r) => /connection limit reached/.test(r.msg)).length, 1);
    const answer = readResponses(b, 1);
    b.write(frames(ECHO, 1));
    assert.equal((await answer)[0]?.code, 0);
  });

  test('a frame not completed within serverFrameDeadlineMillis closes the connection', LIMIT, async () => {
    const { server, port } = await startServer({ serverFrameDeadlineMillis: 300 });
    // A byte at a time, each well inside the idle timeout.
    const dribbleSide = nextConnection(server);
    const dribble = await rawSocket(port);
    const frame = frames(ECHO, 1);
    let sent = 0;
    const timer = setInterval(() => {
      if (sent < frame.length - 1) dribble.write(frame.subarray(sent, ++sent));
    }, 20);
    cleanups.push(() => clearInterval(timer));
    dribble.write(frame.subarray(0, ++sent));
    const started = Date.now();
    assert.equal(await closedWith(await dribbleSide), 'frameDeadline reached');
    assert.ok(Date.now() - started < 2000);
    // Held one byte short.
    const shortSide = nextConnection(server);
    const short = await rawSocket(port);
    short.write(Buffer.concat([frames(ECHO, 1), frame.subarray(0, frame.length - 1)]));
    const connection = await shortSide;
    assert.equal(await closedWith(connection), 'frameDeadline reached');
  });

  test('a frame that completes within the deadline is answered, across several reads', LIMIT, async () => {
    const { port } = await startServer({ serverFrameDeadlineMillis: 2000 });
    const socket = await rawSocket(port);
    const answer = readResponses(socket, 2);
    const frame = frames(ECHO, 2);
    socket.write(frame.subarray(0, 10));
    await new Promise((resolve) => setImmediate(resolve));
    socket.write(frame.subarray(10));
    assert.equal((await answer).length, 2);
  });
});

describe('a client reading large answers', () => {
  test('is never throttled or cut: 64 pipelined 4 MiB answers all arrive', LIMIT, async () => {
    const { server, address } = await startServer({});
    const body = Buffer.alloc(4 * 1024 * 1024, 3);
    server.registerProcessor(103, { processRequest: (_ctx, req) => createResponse(req, 0, { body }) });
    const client = new RemotingClient({}, { logger: createLogger('c', { level: 'silent' }) });
    cleanups.push(() => client.close());
    const answers = await Promise.all(
      Array.from({ length: 64 }, () => client.invoke(address, createRequest(103), { timeoutMs: 15_000 })),
    );
    assert.ok(answers.every((a) => a.code === 0 && a.body?.length === body.length));
    const [connection] = [...server.connections];
    assert.equal(connection?.isOpen, true);
  });
});

describe('header limits of RemotingServer', () => {
  const limits = { serverHeaderMaxSize: 4096, serverHeaderMaxExtFields: 16 };

  async function setup() {
    const started = await startServer(limits);
    const client = new RemotingClient({}, { logger: createLogger('c', { level: 'silent' }) });
    cleanups.push(() => client.close());
    return { ...started, client };
  }

  function fields(count: number): Record<string, string> {
    const out: Record<string, string> = {};
    for (let i = 0; i < count; i++) out[`k${i}`] = 'v';
    return out;
  }

  for (const serializeType of [SerializeType.JSON, SerializeType.ROCKETMQ]) {
    const name = serializeType === SerializeType.JSON ? 'JSON' : 'ROCKETMQ';
    test(
      `${name}: over serverHeaderMaxExtFields is refused with MESSAGE_ILLEGAL naming the limit`,
      LIMIT,
      async () => {
        const { client, address } = await setup();
        const ok = await client.invoke(
          address,
          createRequest(ECHO, { extFields: fields(16), serializeType }),
        );
        assert.equal(ok.code, 0);
        const refused = await client.invoke(
          address,
          createRequest(ECHO, { extFields: fields(17), serializeType }),
        );
        assert.equal(refused.code, ResponseCode.MESSAGE_ILLEGAL);
        assert.match(refused.remark ?? '', /request code 100: .*limit of 16 \(maxExtFields\)/);
        // The same connection serves on.
        assert.equal((await client.invoke(address, createRequest(ECHO, { serializeType }))).code, 0);
      },
    );

    test(
      `${name}: over serverHeaderMaxSize is refused with MESSAGE_ILLEGAL naming the limit`,
      LIMIT,
      async () => {
        const { client, address, records } = await setup();
        const refused = await client.invoke(
          address,
          createRequest(ECHO, { extFields: { big: 'x'.repeat(5000) }, serializeType }),
        );
        assert.equal(refused.code, ResponseCode.MESSAGE_ILLEGAL);
        assert.match(
          refused.remark ?? '',
          /header of \d+ bytes exceeds the limit of 4096 bytes \(maxHeaderSize\)/,
        );
        assert.equal((await client.invoke(address, createRequest(ECHO, { serializeType }))).code, 0);
        assert.equal(records.filter((r) => /header over its limit/.test(r.msg)).length, 1);
      },
    );
  }

  test('a header over the limit whose opaque cannot be read closes the connection', LIMIT, async () => {
    const { server, port } = await setup();
    const serverSide = nextConnection(server);
    const socket = await rawSocket(port);
    const header = Buffer.from(`{"x":"${'y'.repeat(5000)}"}`);
    const frame = Buffer.alloc(8 + header.length);
    frame.writeInt32BE(4 + header.length, 0);
    frame.writeInt32BE(header.length, 4);
    header.copy(frame, 8);
    socket.write(frame);
    assert.equal(await closedWith(await serverSide), 'maxHeaderSize reached');
  });
});
