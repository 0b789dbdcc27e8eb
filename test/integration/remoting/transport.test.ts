/**
 * RemotingClient and RemotingServer over real TCP on 127.0.0.1 (port 0).
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
import { RequestCode } from '../../../src/remoting/protocol/request-code.js';
import {
  type Connection,
  RemotingAbortedError,
  RemotingClient,
  type RemotingClientSettings,
  RemotingConnectError,
  RemotingConnectionClosedError,
  RemotingServer,
  type RemotingServerSettings,
  RemotingTimeoutError,
} from '../../../src/remoting/transport/index.js';

const ECHO = 100;
const NEVER = 101;
/** Event waits that never come must fail, not hang. */
const LIMIT = { timeout: 20_000 };
const quiet = createLogger('test', { level: 'silent' });
const cleanups: Array<() => Promise<void>> = [];

afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((c) => c()));
});

async function startServer(settings: Partial<RemotingServerSettings> = {}) {
  const server = new RemotingServer(settings, { logger: quiet });
  cleanups.push(() => server.close());
  server.registerProcessor(ECHO, {
    processRequest: (_ctx, req) =>
      createResponse(req, 0, { remark: 'echo', extFields: req.extFields, body: req.body }),
  });
  const received: RemotingCommand[] = [];
  let onReceived: (() => void) | undefined;
  server.registerProcessor(NEVER, {
    processRequest(_ctx, req) {
      received.push(req);
      onReceived?.();
      return undefined;
    },
  });
  const bound = await server.listen({ host: '127.0.0.1', port: 0 });
  /** Resolves once the never-answering processor holds `count` requests. */
  const heldRequests = (count: number) =>
    new Promise<void>((resolve) => {
      onReceived = () => {
        if (received.length >= count) resolve();
      };
      onReceived();
    });
  return { server, address: bound.address, port: bound.port, heldRequests, received };
}

function newClient(settings: Partial<RemotingClientSettings> = {}, records?: LogRecord[]) {
  const logger = records ? createLogger('client', { level: 'debug', sink: (r) => records.push(r) }) : quiet;
  const client = new RemotingClient(settings, { logger });
  cleanups.push(() => client.close());
  return client;
}

/** The close reason, whether the connection closed already or closes later. */
function closedWith(connection: Connection): Promise<string> {
  const reason = connection.closeReason;
  if (reason !== undefined) return Promise.resolve(reason);
  return once(connection, 'close').then(([r]) => String(r));
}

function nextConnection(server: RemotingServer): Promise<Connection> {
  return once(server, 'connection').then(([c]) => c as Connection);
}

describe('RemotingClient <-> RemotingServer over TCP', () => {
  test('invoke works in both serializations', LIMIT, async () => {
    const { address } = await startServer();
    const client = newClient();
    for (const serializeType of [SerializeType.JSON, SerializeType.ROCKETMQ]) {
      const res = await client.invoke(
        address,
        createRequest(ECHO, {
          serializeType,
          extFields: { topic: 'T', queueId: '3' },
          body: Buffer.from('héllo'),
        }),
      );
      assert.equal(res.code, 0);
      assert.equal(res.remark, 'echo');
      assert.equal(res.serializeType, serializeType);
      assert.deepEqual(res.extFields, { topic: 'T', queueId: '3' });
      assert.equal(res.body?.toString(), 'héllo');
    }
    const own = client.connectionTo(address);
    assert.ok(own);
    await client.closeConnection(address);
    assert.equal(own.isOpen, false);
    assert.equal(client.connectionTo(address), undefined);
  });

  test('a client whose settings name a serialization sends every request in it', LIMIT, async () => {
    const { address, heldRequests, received } = await startServer();
    const client = newClient({ serializeType: SerializeType.ROCKETMQ });
    const res = await client.invoke(address, createRequest(ECHO, { extFields: { a: '1' } }));
    assert.equal(res.serializeType, SerializeType.ROCKETMQ);
    assert.deepEqual(res.extFields, { a: '1' });
    await client.invokeOneway(address, createRequest(NEVER, { serializeType: SerializeType.JSON }));
    await heldRequests(1);
    assert.equal(received[0]?.serializeType, SerializeType.ROCKETMQ);
    assert.throws(() => newClient({ serializeType: 7 as SerializeType }), /serializeType/);
  });

  test('1,000 pipelined invokes on one connection all resolve with their own responses', LIMIT, async () => {
    const { server, address } = await startServer();
    const client = newClient();
    const calls = Array.from({ length: 1000 }, (_, i) =>
      client.invoke(
        address,
        createRequest(ECHO, {
          extFields: { i: String(i) },
          serializeType: i % 2 === 0 ? SerializeType.JSON : SerializeType.ROCKETMQ,
        }),
      ),
    );
    const responses = await Promise.all(calls);
    responses.forEach((res, i) => {
      assert.equal(res.extFields?.i, String(i));
    });
    assert.equal(server.connections.size, 1);
  });

  test('concurrent first uses share one connect attempt', LIMIT, async () => {
    const { server, address } = await startServer();
    const client = newClient();
    let accepted = 0;
    server.on('connection', () => accepted++);
    await Promise.all(Array.from({ length: 20 }, () => client.invoke(address, createRequest(ECHO))));
    assert.equal(accepted, 1);
  });

  test(
    'pending requests fail at once when the server closes the connection; the next use reconnects',
    LIMIT,
    async () => {
      const { server, address, heldRequests } = await startServer();
      const client = newClient();
      const serverSide = nextConnection(server);
      const started = Date.now();
      const calls = Array.from({ length: 5 }, () =>
        client.invoke(address, createRequest(NEVER), { timeoutMs: 30_000 }),
      );
      await heldRequests(5);
      (await serverSide).close('test closes it');
      const results = await Promise.allSettled(calls);
      const elapsed = Date.now() - started;
      for (const r of results) {
        assert.equal(r.status, 'rejected');
        assert.ok(r.status === 'rejected' && r.reason instanceof RemotingConnectionClosedError, String(r));
      }
      assert.ok(elapsed < 3000, `took ${elapsed} ms against a 30 s timeout`);

      const first = client.connectionTo(address);
      assert.equal(first, undefined);
      const res = await client.invoke(address, createRequest(ECHO));
      assert.equal(res.code, 0);
      assert.ok(client.connectionTo(address)?.isOpen);
    },
  );

  test('a processor that never answers times out with RemotingTimeoutError', LIMIT, async () => {
    const { address } = await startServer();
    const client = newClient();
    const started = Date.now();
    await assert.rejects(client.invoke(address, createRequest(NEVER), { timeoutMs: 100 }), (e: unknown) => {
      assert.ok(e instanceof RemotingTimeoutError);
      assert.equal(e.timeoutMs, 100);
      return true;
    });
    assert.ok(Date.now() - started >= 95);
    // clientCloseSocketIfTimeout (upstream default true) dropped the connection; the next use reconnects.
    assert.equal(client.connectionTo(address), undefined);
    assert.equal((await client.invoke(address, createRequest(ECHO))).code, 0);
  });

  test(
    'an AbortSignal rejects the invoke with RemotingAbortedError and keeps the connection',
    LIMIT,
    async () => {
      const { address, heldRequests } = await startServer();
      const client = newClient();
      const controller = new AbortController();
      const call = client.invoke(address, createRequest(NEVER), {
        signal: controller.signal,
        timeoutMs: 30_000,
      });
      await heldRequests(1);
      controller.abort();
      await assert.rejects(call, RemotingAbortedError);
      assert.equal(client.connectionTo(address)?.pendingCount, 0);
      assert.equal((await client.invoke(address, createRequest(ECHO))).code, 0);
    },
  );

  test('the server invokes a client-side processor over the same connection', LIMIT, async () => {
    const { server, address } = await startServer();
    const client = newClient();
    client.registerProcessor(RequestCode.NOTIFY_CONSUMER_IDS_CHANGED, {
      processRequest: (_ctx, req) =>
        createResponse(req, 0, { remark: `client saw ${req.extFields?.consumerGroup ?? '?'}` }),
    });
    server.registerProcessor(102, {
      async processRequest(ctx, req) {
        const fromClient = await ctx.invoke(
          createRequest(RequestCode.NOTIFY_CONSUMER_IDS_CHANGED, { extFields: { consumerGroup: 'G1' } }),
        );
        const unknown = await ctx.invoke(createRequest(103));
        return createResponse(req, 0, { remark: `${fromClient.remark} / ${unknown.code} ${unknown.remark}` });
      },
    });
    const res = await client.invoke(address, createRequest(102));
    assert.equal(res.remark, 'client saw G1 / 3  request type 103 not supported');
  });

  test('RPC hooks run around every client invoke', LIMIT, async () => {
    const { address } = await startServer();
    const client = newClient();
    const seen: string[] = [];
    client.registerRPCHook({
      doBeforeRequest(addr, req) {
        req.extFields = { ...req.extFields, AccessKey: 'ak' };
        seen.push(`before ${addr}`);
      },
      doAfterResponse(_addr, _req, res) {
        seen.push(`after ${res?.extFields?.AccessKey}`);
      },
    });
    const res = await client.invoke(address, createRequest(ECHO));
    assert.equal(res.extFields?.AccessKey, 'ak');
    assert.deepEqual(seen, [`before ${address}`, 'after ak']);
  });

  test('invokeOneway resolves once written and the server processes it', LIMIT, async () => {
    const { address, heldRequests } = await startServer();
    const client = newClient();
    await client.invokeOneway(address, createRequest(NEVER, { extFields: { k: 'v' } }));
    await heldRequests(1);
  });

  test('connect failure is a RemotingConnectError naming the address', LIMIT, async () => {
    const { server, address } = await startServer();
    await server.close();
    const client = newClient();
    await assert.rejects(client.invoke(address, createRequest(ECHO)), (e: unknown) => {
      assert.ok(e instanceof RemotingConnectError);
      assert.equal(e.address, address);
      assert.ok(e.message.includes(address));
      return true;
    });
    await assert.rejects(client.invoke('no-port', createRequest(ECHO)), RemotingConnectError);
  });

  test('idle connections close on both sides with a short idle setting', LIMIT, async () => {
    const { server, address } = await startServer({ serverChannelMaxIdleTimeSeconds: 0.1 });
    const client = newClient({ clientChannelMaxIdleTimeSeconds: 60 });
    const accepted = nextConnection(server);
    // The server adopts a connection at its first byte (which tells TLS from plaintext).
    await client.invoke(address, createRequest(ECHO));
    const clientSide = await client.getConnection(address);
    const clientClosed = closedWith(clientSide);
    assert.match(await closedWith(await accepted), /idle/);
    assert.match(await clientClosed, /peer|stream/);
    assert.equal(client.connectionTo(address), undefined);

    // Against a server that does not close idle connections itself, the client closes its own.
    const patient = await startServer();
    const idleClient = newClient({ clientChannelMaxIdleTimeSeconds: 0.1 });
    const own = await idleClient.getConnection(patient.address);
    assert.match(await closedWith(own), /idle/);
    assert.equal(idleClient.connectionTo(patient.address), undefined);
  });

  test('a peer that does not read makes the server pause reading until it reads again', LIMIT, async () => {
    const { server, port } = await startServer({
      writeBufferHighWaterMark: 64 * 1024,
      writeBufferLowWaterMark: 0,
    });
    const body = Buffer.alloc(256 * 1024, 7);
    server.registerProcessor(104, { processRequest: (_ctx, req) => createResponse(req, 0, { body }) });
    const serverSide = nextConnection(server);
    const socket: Socket = netConnect({ host: '127.0.0.1', port });
    cleanups.push(async () => {
      socket.destroy();
    });
    await once(socket, 'connect');
    socket.pause(); // reads nothing: the responses pile up in the kernel, then in the server
    const count = 128; // 32 MiB of responses, far beyond loopback socket buffers
    for (let i = 0; i < count; i++) {
      const req = createRequest(104);
      req.opaque = i;
      socket.write(encodeFrame(req));
    }
    // The server adopts the connection at its first byte, so it may have paused already.
    const connection = await serverSide;
    if (!connection.readPaused) await once(connection, 'readPaused');
    assert.equal(connection.readPaused, true);
    assert.equal((connection.stream as Socket).isPaused(), true);

    const resumed = once(connection, 'readResumed');
    const splitter = new FrameSplitter();
    let answered = 0;
    const allAnswered = new Promise<void>((resolve) => {
      socket.on('data', (chunk: Buffer) =>
        splitter.push(chunk, (payload) => {
          assert.equal(decodeFrame(payload).opaque, answered);
          if (++answered === count) resolve();
        }),
      );
    });
    socket.resume();
    await resumed;
    await allAnswered;
    // The last response can reach the peer before the server sees its write buffer drained.
    if (connection.readPaused) await once(connection, 'readResumed');
    assert.equal(connection.readPaused, false);
  });

  test('server close() stops listening and closes client connections', LIMIT, async () => {
    const { server, address } = await startServer();
    const client = newClient();
    await client.invoke(address, createRequest(ECHO));
    const own = client.connectionTo(address);
    assert.ok(own);
    const closed = once(own, 'close');
    await server.close();
    assert.equal(server.connections.size, 0);
    assert.equal(server.address, undefined);
    // A client's idle socket does not hold the process (docs/producer.md): a timer does while the
    // test waits for the peer's close to reach it.
    const hold = setInterval(() => {}, 1000);
    try {
      await closed;
    } finally {
      clearInterval(hold);
    }
    await assert.rejects(client.invoke(address, createRequest(ECHO)), RemotingConnectError);
  });
});
