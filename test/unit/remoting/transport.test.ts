/**
 * Transport behaviour over in-memory duplex pairs (no ports): the server's dispatch rules, the
 * connection's pending table, closing, idle timeout, write batching and backpressure.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { type Duplex, duplexPair } from 'node:stream';
import { afterEach, describe, test } from 'node:test';
import { RocketMQError } from '../../../src/common/errors.js';
import { createLogger, type LogRecord } from '../../../src/common/logger.js';
import {
  createRequest,
  createResponse,
  type RemotingCommand,
  RPC_ONEWAY,
  RPC_TYPE_RESPONSE,
  SerializeType,
} from '../../../src/remoting/protocol/command.js';
import { decodeFrame, encodeFrame } from '../../../src/remoting/protocol/frame.js';
import { FrameSplitter } from '../../../src/remoting/protocol/frame-splitter.js';
import {
  type Connection,
  type ProcessorContext,
  REJECT_REQUEST_REMARK,
  RemotingAbortedError,
  RemotingConnectionClosedError,
  RemotingServer,
  type RemotingServerSettings,
  RemotingTimeoutError,
} from '../../../src/remoting/transport/index.js';

/** Event waits that never come must fail, not hang. */
const LIMIT = { timeout: 5_000 };

/** duplexPair ends do not tell each other about destroy(); a socket pair would, so make them. */
function linkedPair(): [Duplex, Duplex] {
  const [a, b] = duplexPair();
  a.on('close', () => b.destroy());
  b.on('close', () => a.destroy());
  return [a, b];
}

/** The far end of a connection: writes raw frames, decodes what comes back, in order. */
class Peer {
  readonly stream: Duplex;
  private readonly splitter = new FrameSplitter();
  private readonly queue: RemotingCommand[] = [];
  private waiter: ((cmd: RemotingCommand) => void) | undefined;
  ended = false;

  constructor(stream: Duplex) {
    this.stream = stream;
    stream.on('data', (chunk: Buffer) =>
      this.splitter.push(chunk, (payload) => this.deliver(decodeFrame(payload))),
    );
    stream.on('error', () => {});
    stream.on('close', () => {
      this.ended = true;
    });
  }

  private deliver(cmd: RemotingCommand): void {
    const waiter = this.waiter;
    if (waiter !== undefined) {
      this.waiter = undefined;
      waiter(cmd);
    } else {
      this.queue.push(cmd);
    }
  }

  send(cmd: RemotingCommand): void {
    this.stream.write(encodeFrame(cmd));
  }

  next(): Promise<RemotingCommand> {
    const queued = this.queue.shift();
    if (queued !== undefined) return Promise.resolve(queued);
    return new Promise((resolve) => {
      this.waiter = resolve;
    });
  }
}

function request(
  code: number,
  opaque: number,
  options: Parameters<typeof createRequest>[1] = {},
): RemotingCommand {
  const cmd = createRequest(code, options);
  cmd.opaque = opaque;
  return cmd;
}

interface Setup {
  server: RemotingServer;
  records: LogRecord[];
  connect(name?: string): { peer: Peer; connection: Connection };
}

const servers: RemotingServer[] = [];

afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

function setup(settings: Partial<RemotingServerSettings> = {}): Setup {
  const records: LogRecord[] = [];
  const logger = createLogger('test', { level: 'debug', sink: (r) => records.push(r) });
  const server = new RemotingServer(settings, { logger });
  servers.push(server);
  return {
    server,
    records,
    connect(name = 'peer') {
      const [near, far] = linkedPair();
      const connection = server.handle(near, { remoteAddress: name });
      return { peer: new Peer(far), connection };
    },
  };
}

const echo = {
  processRequest(_ctx: ProcessorContext, req: RemotingCommand) {
    return createResponse(req, 0, { remark: `echo ${req.code}`, body: req.body, extFields: req.extFields });
  },
};

describe('RemotingServer dispatch', () => {
  test(
    'unknown code gets REQUEST_CODE_NOT_SUPPORTED with the upstream remark, in JSON, opaque echoed',
    LIMIT,
    async () => {
      const { connect } = setup();
      const { peer } = connect();
      peer.send(request(999, 41, { serializeType: SerializeType.ROCKETMQ }));
      const res = await peer.next();
      assert.equal(res.code, 3);
      assert.equal(res.remark, ' request type 999 not supported');
      assert.equal(res.opaque, 41);
      assert.equal(res.flag, RPC_TYPE_RESPONSE);
      assert.equal(res.serializeType, SerializeType.JSON);
    },
  );

  test('a oneway request with an unknown code is still answered with code 3', LIMIT, async () => {
    const { connect } = setup();
    const { peer } = connect();
    peer.send(request(998, 7, { oneway: true }));
    const res = await peer.next();
    assert.equal(res.code, 3);
    assert.equal(res.opaque, 7);
    assert.equal(res.remark, ' request type 998 not supported');
  });

  test('a oneway request to a processor gets no response', LIMIT, async () => {
    const { server, connect } = setup();
    const seen: number[] = [];
    server.registerProcessor(10, {
      processRequest(_ctx, req) {
        seen.push(req.opaque);
        return createResponse(req, 0);
      },
    });
    const { peer } = connect();
    peer.send(request(10, 1, { oneway: true }));
    peer.send(request(10, 2));
    const res = await peer.next();
    assert.equal(res.opaque, 2, 'the first answer on the wire belongs to the normal request');
    assert.deepEqual(seen, [1, 2]);
  });

  test('responses echo the exact int32 opaque and keep the request serialization', LIMIT, async () => {
    const { server, connect } = setup();
    server.registerProcessor(11, echo);
    const { peer } = connect();
    peer.send(request(11, -2147483648, { serializeType: SerializeType.ROCKETMQ, extFields: { a: '1' } }));
    peer.send(request(11, 2147483647, { serializeType: SerializeType.JSON, body: Buffer.from('xyz') }));
    const first = await peer.next();
    assert.equal(first.opaque, -2147483648);
    assert.equal(first.serializeType, SerializeType.ROCKETMQ);
    assert.deepEqual(first.extFields, { a: '1' });
    assert.equal(first.flag, RPC_TYPE_RESPONSE);
    const second = await peer.next();
    assert.equal(second.opaque, 2147483647);
    assert.equal(second.serializeType, SerializeType.JSON);
    assert.equal(second.body?.toString(), 'xyz');
  });

  test(
    'a processor that sets another serialization keeps it; opaque and flag are filled in',
    LIMIT,
    async () => {
      const { server, connect } = setup();
      server.registerProcessor(12, {
        processRequest: () => ({
          code: 0,
          language: 'JAVA',
          version: 409,
          opaque: 0,
          flag: 0,
          serializeType: SerializeType.JSON,
        }),
      });
      const { peer } = connect();
      peer.send(request(12, 99, { serializeType: SerializeType.ROCKETMQ }));
      const res = await peer.next();
      assert.equal(res.serializeType, SerializeType.JSON);
      assert.equal(res.opaque, 99);
      assert.equal(res.flag, RPC_TYPE_RESPONSE);
    },
  );

  test('a processor that throws gives SYSTEM_ERROR with the error text, in JSON', LIMIT, async () => {
    const { server, connect, records } = setup();
    server.registerProcessor(13, {
      processRequest() {
        throw new TypeError('boom');
      },
    });
    server.registerProcessor(14, { processRequest: async () => Promise.reject(new Error('later boom')) });
    const { peer } = connect();
    peer.send(request(13, 5, { serializeType: SerializeType.ROCKETMQ }));
    const res = await peer.next();
    assert.equal(res.code, 1);
    assert.equal(res.remark, 'TypeError: boom');
    assert.equal(res.opaque, 5);
    assert.equal(res.serializeType, SerializeType.JSON);
    peer.send(request(14, 6, { serializeType: SerializeType.ROCKETMQ }));
    const res2 = await peer.next();
    assert.equal(res2.code, 1);
    assert.equal(res2.remark, 'Error: later boom');
    assert.equal(res2.serializeType, SerializeType.JSON);
    assert.equal(records.filter((r) => r.level === 'error').length, 2);
  });

  test('a thrown RocketMQError answers with its own responseCode and message', LIMIT, async () => {
    const { server, connect } = setup();
    server.registerProcessor(15, {
      processRequest() {
        throw new RocketMQError('topic not exist', 17);
      },
    });
    const { peer } = connect();
    peer.send(request(15, 8));
    const res = await peer.next();
    assert.equal(res.code, 17);
    assert.equal(res.remark, 'topic not exist');
    assert.equal(res.serializeType, SerializeType.JSON);
  });

  test('a oneway request whose processor throws gets nothing', LIMIT, async () => {
    const { server, connect } = setup();
    server.registerProcessor(16, {
      processRequest(_ctx, req) {
        if (req.opaque === 1) throw new Error('oneway failure');
        return createResponse(req, 0);
      },
    });
    const { peer } = connect();
    peer.send(request(16, 1, { oneway: true }));
    peer.send(request(16, 2));
    const res = await peer.next();
    assert.equal(res.opaque, 2);
    assert.equal(res.code, 0);
  });

  test('returning undefined sends nothing; ctx.writeResponse answers later', LIMIT, async () => {
    const { server, connect } = setup();
    const held: Array<{ ctx: ProcessorContext; req: RemotingCommand }> = [];
    server.registerProcessor(17, {
      processRequest(ctx, req) {
        held.push({ ctx, req });
        return undefined;
      },
    });
    server.registerProcessor(18, echo);
    const { peer } = connect();
    peer.send(request(17, 30));
    peer.send(request(18, 31));
    assert.equal((await peer.next()).opaque, 31);
    const first = held[0];
    assert.ok(first);
    assert.equal(first.ctx.writeResponse(createResponse(first.req, 19, { remark: 'later' })), true);
    const late = await peer.next();
    assert.equal(late.opaque, 30);
    assert.equal(late.code, 19);
  });

  test('rejectRequest() answers SYSTEM_BUSY with the upstream remark', LIMIT, async () => {
    const { server, connect } = setup();
    server.registerProcessor(19, {
      processRequest: () => assert.fail('must not run'),
      rejectRequest: () => true,
    });
    const { peer } = connect();
    peer.send(request(19, 3, { serializeType: SerializeType.ROCKETMQ }));
    const res = await peer.next();
    assert.equal(res.code, 2);
    assert.equal(res.remark, REJECT_REQUEST_REMARK);
    assert.equal(res.serializeType, SerializeType.JSON);
  });

  test('the default processor takes codes without their own processor', LIMIT, async () => {
    const { server, connect } = setup();
    server.registerDefaultProcessor(echo);
    const { peer } = connect();
    peer.send(request(777, 4));
    const res = await peer.next();
    assert.equal(res.code, 0);
    assert.equal(res.remark, 'echo 777');
  });

  test('RPC hooks run before (may add extFields) and after (see the response)', LIMIT, async () => {
    const { server, connect } = setup();
    const after: Array<[string, number, number | undefined]> = [];
    server.registerRPCHook({
      doBeforeRequest(_addr, req) {
        req.extFields = { ...req.extFields, signed: 'yes' };
      },
      doAfterResponse(addr, req, res) {
        after.push([addr, req.opaque, res?.code]);
      },
    });
    server.registerProcessor(20, echo);
    const { peer } = connect('hooked-peer');
    peer.send(request(20, 9));
    const res = await peer.next();
    assert.deepEqual(res.extFields, { signed: 'yes' });
    assert.deepEqual(after, [['hooked-peer', 9, 0]]);
  });

  test('a malformed frame closes only that connection, with exactly one warn line', LIMIT, async () => {
    const { server, connect, records } = setup();
    server.registerProcessor(21, echo);
    const bad = connect('bad-peer');
    const good = connect('good-peer');
    // Two frames with serialize type 7 in one chunk: only the first may produce a log line.
    const garbage = Buffer.from([0, 0, 0, 6, 7, 0, 0, 2, 0x7b, 0x7d]);
    const closed = once(bad.connection, 'close');
    bad.peer.stream.write(Buffer.concat([garbage, garbage]));
    const [reason] = await closed;
    assert.match(String(reason), /malformed frame/);
    good.peer.send(request(21, 1));
    assert.equal((await good.peer.next()).code, 0);
    assert.equal(good.connection.isOpen, true);
    assert.equal(server.connections.size, 1);
    const warns = records.filter((r) => r.level === 'warn');
    assert.equal(warns.length, 1);
    assert.equal(warns[0]?.fields.remoteAddress, 'bad-peer');
    assert.match(String(warns[0]?.fields.error), /unknown serialize type 7/);
    assert.equal(records.filter((r) => r.level === 'error').length, 0);
  });

  test('a frame over the limit closes the connection on its length prefix alone', LIMIT, async () => {
    const { connect, records } = setup({ maxFrameSize: 1024 });
    const { peer, connection } = connect('big-peer');
    const prefix = Buffer.alloc(4);
    prefix.writeInt32BE(2000);
    const closed = once(connection, 'close');
    peer.stream.write(prefix); // the 2000 bytes it announces never come
    const [reason] = await closed;
    assert.match(String(reason), /exceeds the limit of 1024/);
    assert.equal(connection.readBuffered, 0);
    assert.equal(records.filter((r) => r.level === 'warn').length, 1);
  });

  test('a frame split into single bytes is still answered', LIMIT, async () => {
    const { server, connect } = setup();
    server.registerProcessor(22, echo);
    const { peer } = connect();
    const bytes = Buffer.concat([encodeFrame(request(22, 1)), encodeFrame(request(22, 2))]);
    for (const byte of bytes) peer.stream.write(Buffer.from([byte]));
    assert.equal((await peer.next()).opaque, 1);
    assert.equal((await peer.next()).opaque, 2);
  });

  test('all responses of one turn are written under one cork', LIMIT, async () => {
    const { server } = setup();
    server.registerProcessor(23, echo);
    const [near, far] = linkedPair();
    let corks = 0;
    const cork = near.cork.bind(near);
    near.cork = () => {
      corks++;
      cork();
    };
    server.handle(near);
    const peer = new Peer(far);
    far.write(Buffer.concat(Array.from({ length: 50 }, (_, i) => encodeFrame(request(23, i)))));
    for (let i = 0; i < 50; i++) assert.equal((await peer.next()).opaque, i);
    assert.equal(corks, 1);
  });

  test('server close() closes every connection and resolves', LIMIT, async () => {
    const { server, connect } = setup();
    const a = connect('a');
    const b = connect('b');
    await server.close();
    assert.equal(a.connection.isOpen, false);
    assert.equal(b.connection.isOpen, false);
    assert.equal(server.connections.size, 0);
  });
});

describe('Connection', () => {
  test(
    'invoke to the peer resolves with the response matched on opaque; others are dropped',
    LIMIT,
    async () => {
      const { connect, records } = setup();
      const { peer, connection } = connect('client-a');
      const pending = connection.invoke(createRequest(40, { extFields: { group: 'g' } }));
      const req = await peer.next();
      assert.equal(req.code, 40);
      assert.equal(req.flag, 0);
      peer.send(createResponse({ ...req, opaque: req.opaque + 1000 }, 0, { remark: 'stray' }));
      peer.send(createResponse(req, 0, { remark: 'ok' }));
      const res = await pending;
      assert.equal(res.remark, 'ok');
      assert.equal(connection.pendingCount, 0);
      const dropped = records.filter((r) => r.level === 'debug' && /unknown opaque/.test(r.msg));
      assert.equal(dropped.length, 1);
    },
  );

  test('invokeOneway marks the request oneway', LIMIT, async () => {
    const { connect } = setup();
    const { peer, connection } = connect();
    await connection.invokeOneway(createRequest(41));
    const req = await peer.next();
    assert.equal(req.flag, RPC_ONEWAY);
  });

  test('closing fails every pending request at once with RemotingConnectionClosedError', LIMIT, async () => {
    const { connect } = setup();
    const { peer, connection } = connect('closing-peer');
    const pending = [1, 2, 3].map(() => connection.invoke(createRequest(42), { timeoutMs: 60_000 }));
    await peer.next();
    connection.close('test says so');
    for (const p of pending) {
      await assert.rejects(p, (e: unknown) => {
        assert.ok(e instanceof RemotingConnectionClosedError);
        assert.equal(e.address, 'closing-peer');
        assert.equal(e.reason, 'test says so');
        return true;
      });
    }
    await assert.rejects(connection.invoke(createRequest(42)), RemotingConnectionClosedError);
    assert.equal(connection.send(createRequest(42)), false);
  });

  test('the peer going away fails pending requests', LIMIT, async () => {
    const { connect } = setup();
    const { peer, connection } = connect();
    const pending = connection.invoke(createRequest(43), { timeoutMs: 60_000 });
    await peer.next();
    peer.stream.destroy();
    await assert.rejects(pending, RemotingConnectionClosedError);
  });

  test('timeout rejects with RemotingTimeoutError; a server connection stays open', LIMIT, async () => {
    const { connect } = setup();
    const { connection } = connect('slow');
    await assert.rejects(connection.invoke(createRequest(44), { timeoutMs: 20 }), (e: unknown) => {
      assert.ok(e instanceof RemotingTimeoutError);
      assert.equal(e.timeoutMs, 20);
      assert.equal(e.address, 'slow');
      return true;
    });
    assert.equal(connection.isOpen, true);
    assert.equal(connection.pendingCount, 0);
  });

  test('an AbortSignal rejects with RemotingAbortedError, before or after sending', LIMIT, async () => {
    const { connect } = setup();
    const { peer, connection } = connect();
    const controller = new AbortController();
    const pending = connection.invoke(createRequest(45), { signal: controller.signal, timeoutMs: 60_000 });
    await peer.next();
    controller.abort(new Error('user gave up'));
    await assert.rejects(pending, RemotingAbortedError);
    await assert.rejects(
      connection.invoke(createRequest(45), { signal: controller.signal }),
      RemotingAbortedError,
    );
    assert.equal(connection.pendingCount, 0);
    assert.equal(connection.isOpen, true);
  });

  test('closes after the idle time with no reads or writes', LIMIT, async () => {
    const { connect } = setup({ serverChannelMaxIdleTimeSeconds: 0.03 });
    const { connection } = connect();
    const [reason] = await once(connection, 'close');
    assert.match(String(reason), /idle/);
  });

  test('pauses reading while the peer does not read, resumes once it does', LIMIT, async () => {
    const { server } = setup({ writeBufferHighWaterMark: 4096, writeBufferLowWaterMark: 0 });
    const body = Buffer.alloc(8192, 1);
    server.registerProcessor(46, { processRequest: (_ctx, req) => createResponse(req, 0, { body }) });
    const [near, far] = linkedPair();
    const connection = server.handle(near);
    far.pause(); // the peer reads nothing
    const paused = once(connection, 'readPaused');
    for (let i = 0; i < 20; i++) far.write(encodeFrame(request(46, i)));
    await paused;
    assert.equal(connection.readPaused, true);
    assert.equal(near.isPaused(), true);
    const resumed = once(connection, 'readResumed');
    const peer = new Peer(far);
    far.resume(); // starts reading
    await resumed;
    assert.equal(connection.readPaused, false);
    for (let i = 0; i < 20; i++) assert.equal((await peer.next()).opaque, i);
  });
});
