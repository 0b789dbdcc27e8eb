/**
 * Per-request-code body limits of the server (body-limits.ts) over real TCP: an oversized control
 * body is refused with MESSAGE_ILLEGAL and one log line before any processor sees it (from its
 * header, before the body is buffered, when the frame spans reads), the connection stays usable,
 * message-carrying codes keep the frame limit, and the settings merge and validate. Also the frame
 * splitter's head inspection that the early refusal rides on.
 */
import assert from 'node:assert/strict';
import { afterEach, describe, test } from 'node:test';
import { ValidationError } from '../../../src/common/errors.js';
import { createLogger, type LogRecord } from '../../../src/common/logger.js';
import {
  createRequest,
  createResponse,
  type RemotingCommand,
} from '../../../src/remoting/protocol/command.js';
import { decodeFrame, encodeFrame } from '../../../src/remoting/protocol/frame.js';
import { FrameSplitter } from '../../../src/remoting/protocol/frame-splitter.js';
import { RequestCode } from '../../../src/remoting/protocol/request-code.js';
import { ResponseCode } from '../../../src/remoting/protocol/response-code.js';
import {
  DEFAULT_REQUEST_BODY_MAX_SIZE,
  RemotingClient,
  RemotingServer,
  type RemotingServerSettings,
  requestBodyLimit,
  serverSettings,
} from '../../../src/remoting/transport/index.js';

const LIMIT = { timeout: 10_000 };
const quiet = createLogger('test', { level: 'silent' });

interface Running {
  server: RemotingServer;
  client: RemotingClient;
  address: string;
  records: LogRecord[];
  /** Codes a processor was handed, with their body sizes. */
  seen: Array<[number, number]>;
}

const open: Running[] = [];

afterEach(async () => {
  for (const r of open.splice(0)) {
    await r.client.close();
    await r.server.close();
  }
});

async function start(settings: Partial<RemotingServerSettings> = {}): Promise<Running> {
  const records: LogRecord[] = [];
  const logger = createLogger('test', { level: 'debug', sink: (r) => records.push(r) });
  const server = new RemotingServer(settings, { logger });
  const seen: Array<[number, number]> = [];
  server.registerDefaultProcessor({
    processRequest(_ctx, request: RemotingCommand) {
      seen.push([request.code, request.body?.length ?? 0]);
      return createResponse(request, ResponseCode.SUCCESS);
    },
  });
  const bound = await server.listen({ host: '127.0.0.1' });
  const client = new RemotingClient({}, { logger: quiet });
  const running = { server, client, address: bound.address, records, seen };
  open.push(running);
  return running;
}

function invoke(r: Running, code: number, size: number): Promise<RemotingCommand> {
  return r.client.invoke(r.address, createRequest(code, { body: Buffer.alloc(size, 0x20) }));
}

function invokeOneway(r: Running, code: number, size: number): Promise<void> {
  return r.client.invokeOneway(r.address, createRequest(code, { body: Buffer.alloc(size, 0x20) }));
}

describe('request body limits', () => {
  test('defaults: control codes 1 MiB, message codes and REGISTER_BROKER only the frame limit', () => {
    const s = serverSettings();
    assert.equal(s.requestBodyMaxSize, DEFAULT_REQUEST_BODY_MAX_SIZE);
    for (const code of [RequestCode.HEART_BEAT, RequestCode.LOCK_BATCH_MQ, RequestCode.UNLOCK_BATCH_MQ]) {
      assert.equal(requestBodyLimit(s, code), 1024 * 1024);
    }
    for (const code of [RequestCode.UPDATE_BROKER_CONFIG, RequestCode.CHECK_CLIENT_CONFIG, 318]) {
      assert.equal(requestBodyLimit(s, code), 1024 * 1024);
    }
    for (const code of [
      RequestCode.SEND_MESSAGE,
      RequestCode.SEND_MESSAGE_V2,
      RequestCode.SEND_BATCH_MESSAGE,
      RequestCode.CONSUMER_SEND_MSG_BACK,
      RequestCode.REGISTER_BROKER,
    ]) {
      assert.equal(requestBodyLimit(s, code), Number.POSITIVE_INFINITY);
    }
  });

  test('per-code overrides merge over the defaults; bad values are refused', () => {
    const s = serverSettings({ requestBodyMaxSizeByCode: { [RequestCode.HEART_BEAT]: 4096 } });
    assert.equal(requestBodyLimit(s, RequestCode.HEART_BEAT), 4096);
    assert.equal(requestBodyLimit(s, RequestCode.SEND_MESSAGE), Number.POSITIVE_INFINITY);
    assert.throws(() => serverSettings({ requestBodyMaxSizeByCode: { 34: -1 } }), ValidationError);
    assert.throws(() => serverSettings({ requestBodyMaxSize: -1 }), ValidationError);
  });

  test(
    'an oversized body is refused with MESSAGE_ILLEGAL, logged once, never processed; the connection stays usable',
    LIMIT,
    async () => {
      const r = await start({ requestBodyMaxSize: 1000 });
      const refused = await invoke(r, RequestCode.LOCK_BATCH_MQ, 1001);
      assert.equal(refused.code, ResponseCode.MESSAGE_ILLEGAL);
      assert.match(refused.remark ?? '', /code 41: body of 1001 bytes exceeds the limit of 1000 bytes/);
      assert.deepEqual(r.seen, []);
      const lines = r.records.filter((x) => x.msg === 'request body exceeds its limit, refused');
      assert.equal(lines.length, 1);
      assert.equal(lines[0]?.level, 'warn');
      assert.deepEqual(
        { code: lines[0]?.fields.code, bodySize: lines[0]?.fields.bodySize, limit: lines[0]?.fields.limit },
        { code: 41, bodySize: 1001, limit: 1000 },
      );
      // Same client, same connection: the next requests are served.
      const ok = await invoke(r, RequestCode.LOCK_BATCH_MQ, 1000);
      assert.equal(ok.code, ResponseCode.SUCCESS);
      assert.equal(r.server.connections.size, 1);
      assert.deepEqual(r.seen, [[41, 1000]]);
    },
  );

  test('message-carrying codes take bodies up to the frame limit', LIMIT, async () => {
    const r = await start({ requestBodyMaxSize: 1000 });
    const res = await invoke(r, RequestCode.SEND_MESSAGE_V2, 3 * 1024 * 1024);
    assert.equal(res.code, ResponseCode.SUCCESS);
    assert.deepEqual(r.seen, [[RequestCode.SEND_MESSAGE_V2, 3 * 1024 * 1024]]);
  });

  test('a refused oneway request gets no answer but the log line', LIMIT, async () => {
    const r = await start({ requestBodyMaxSize: 10 });
    await invokeOneway(r, RequestCode.HEART_BEAT, 11);
    // A request behind it on the same connection is answered after the oneway one was handled.
    const next = await invoke(r, RequestCode.HEART_BEAT, 10);
    assert.equal(next.code, ResponseCode.SUCCESS);
    assert.deepEqual(r.seen, [[RequestCode.HEART_BEAT, 10]]);
    assert.equal(r.records.filter((x) => x.msg === 'request body exceeds its limit, refused').length, 1);
  });

  test('an oversized body is refused from its header: the frame is never buffered', LIMIT, async () => {
    const r = await start({ requestBodyMaxSize: 64 * 1024 });
    let maxBuffered = 0;
    let chunks = 0;
    r.server.on('connection', (connection) => {
      // Added after the connection's own listener: sees what the splitter holds after each read.
      connection.stream.on('data', () => {
        chunks++;
        maxBuffered = Math.max(maxBuffered, connection.readBuffered);
      });
    });
    const big = 12 * 1024 * 1024;
    const refused = await invoke(r, RequestCode.HEART_BEAT, big);
    assert.equal(refused.code, ResponseCode.MESSAGE_ILLEGAL);
    assert.match(refused.remark ?? '', new RegExp(`body of ${big} bytes exceeds the limit of 65536 bytes`));
    assert.ok(chunks > 1, 'the frame came in several reads');
    assert.ok(maxBuffered < 256 * 1024, `held ${maxBuffered} bytes of the frame`);
    const line = r.records.find((x) => x.msg === 'request body exceeds its limit, refused');
    assert.equal(line?.fields.bodySize, big);
    // The rest of the frame was dropped in step: the next request on the connection is read whole.
    const ok = await invoke(r, RequestCode.HEART_BEAT, 100);
    assert.equal(ok.code, ResponseCode.SUCCESS);
    assert.deepEqual(r.seen, [[RequestCode.HEART_BEAT, 100]]);
  });
});

describe('FrameSplitter head inspection', () => {
  const frame = (code: number, size: number) =>
    encodeFrame(createRequest(code, { body: Buffer.alloc(size, code & 0xff), extFields: { k: 'v' } }));

  /** Feeds `bytes` in pieces of the given sizes (cycled); returns the codes delivered and inspected. */
  function feed(bytes: Buffer, sizes: number[], drop: (code: number, bodyLength: number) => boolean) {
    const inspected: Array<[number, number]> = [];
    const splitter = new FrameSplitter(undefined, (head, bodyLength) => {
      const cmd = decodeFrame(head);
      assert.equal(cmd.body, undefined);
      inspected.push([cmd.code, bodyLength]);
      return drop(cmd.code, bodyLength);
    });
    const delivered: Array<[number, number]> = [];
    let at = 0;
    for (let i = 0; at < bytes.length; i++) {
      const n = sizes[i % sizes.length] ?? 1;
      splitter.push(bytes.subarray(at, at + n), (payload) => {
        const cmd = decodeFrame(payload);
        delivered.push([cmd.code, cmd.body?.length ?? 0]);
      });
      at += n;
    }
    assert.equal(splitter.buffered, 0);
    return { inspected, delivered };
  }

  test('a dropped frame is skipped at any chunking; the frames around it arrive intact', () => {
    const stream = Buffer.concat([frame(1, 10), frame(34, 5000), frame(2, 20), frame(34, 3000), frame(3, 0)]);
    // Pieces smaller than each frame of code 34, so it always spans reads (a frame inside one read
    // is delivered without inspection), and one read of everything.
    for (const sizes of [[1], [3, 7], [64], [1000], [2000, 1], [stream.length]]) {
      const { delivered } = feed(stream, sizes, (code) => code === 34);
      if (sizes[0] === stream.length) {
        // One read holds every frame: nothing is inspected early, all are delivered.
        assert.equal(delivered.length, 5);
        continue;
      }
      assert.deepEqual(
        delivered,
        [
          [1, 10],
          [2, 20],
          [3, 0],
        ],
        `pieces of ${sizes.join(',')}`,
      );
    }
  });

  test('an inspected frame that is not dropped is delivered whole', () => {
    const stream = Buffer.concat([frame(34, 5000), frame(2, 20)]);
    const { inspected, delivered } = feed(stream, [100], () => false);
    assert.deepEqual(inspected, [[34, 5000]]);
    assert.deepEqual(delivered, [
      [34, 5000],
      [2, 20],
    ]);
  });

  test('random frames, reads and verdicts: every frame not dropped arrives, in order, intact', () => {
    let seed = 0x2545f491;
    const random = (n: number) => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return seed % n;
    };
    let droppedTotal = 0;
    let keptAfterInspection = 0;
    for (let round = 0; round < 200; round++) {
      const frames: Array<[number, number]> = [];
      for (let i = 0; i < 1 + random(8); i++) frames.push([1000 + i, random(3) === 0 ? 0 : random(4000)]);
      const stream = Buffer.concat(frames.map(([code, size]) => frame(code, size)));
      const dropped = new Set<number>();
      const sizes = Array.from({ length: 5 }, () => 1 + random(random(2) === 0 ? 50 : 3000));
      const { inspected, delivered } = feed(stream, sizes, (code) => {
        const drop = random(2) === 0;
        if (drop) dropped.add(code);
        return drop;
      });
      for (const [code, bodyLength] of inspected) {
        assert.deepEqual(
          [code, bodyLength],
          frames.find(([c]) => c === code),
        );
      }
      const expected = frames
        .filter(([code]) => !dropped.has(code))
        .map(([code, size]): [number, number] => [code, size]);
      assert.deepEqual(delivered, expected, `round ${round}, pieces ${sizes.join(',')}`);
      droppedTotal += dropped.size;
      keptAfterInspection += inspected.length - dropped.size;
    }
    // Both verdicts were exercised many times over.
    assert.ok(droppedTotal > 50 && keptAfterInspection > 50, `${droppedTotal} / ${keptAfterInspection}`);
  });
});
