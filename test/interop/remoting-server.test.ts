/**
 * Frames between our transport and the official Java remoting (4.9.8 NettyRemotingClient and
 * NettyRemotingServer), in both header serializations: what the official client sends decodes to the
 * expected command in our RemotingServer and our replies are accepted by it; what our RemotingClient
 * sends is decoded by the official server as we meant it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  createRequest,
  createResponse,
  type RemotingCommand,
  SerializeType,
} from '../../src/remoting/protocol/command.js';
import { ResponseCode } from '../../src/remoting/protocol/response-code.js';
import { RemotingClient, RemotingServer } from '../../src/remoting/transport/index.js';
import { type ProbeServerHandle, remotingProbe, remotingProbeOneway, startProbeServer } from './harness.js';

const ECHO_CODE = 105;
const ONEWAY_CODE = 15;
const PROPERTIES = 'TAGS\u0001TagA\u0002KEYS\u0001k1 k2\u0002UNIQ_KEY\u00017F000001000000000000000000000001';

describe('official NettyRemotingClient -> our RemotingServer', { timeout: 300_000 }, () => {
  const server = new RemotingServer();
  const received: RemotingCommand[] = [];
  let addr = '';
  let onewaySeen: ((cmd: RemotingCommand) => void) | undefined;

  before(async () => {
    server.registerProcessor(ECHO_CODE, {
      processRequest: (_ctx, request) => {
        received.push(request);
        return createResponse(request, ResponseCode.SUCCESS, {
          remark: 'échο ✓',
          extFields: { echo: String(request.code), topic: request.extFields?.topic ?? '', props: PROPERTIES },
          body: Buffer.from([0, 1, 2, 0xff]),
        });
      },
    });
    server.registerProcessor(ONEWAY_CODE, {
      processRequest: (_ctx, request) => {
        onewaySeen?.(request);
        return createResponse(request, ResponseCode.SUCCESS);
      },
    });
    const bound = await server.listen({ host: '127.0.0.1', port: 0 });
    addr = `127.0.0.1:${bound.port}`;
  });

  after(() => server.close());

  for (const serializeType of ['JSON', 'ROCKETMQ'] as const) {
    test(`a request and our reply (${serializeType})`, { timeout: 60_000 }, async () => {
      const before = received.length;
      const reply = await remotingProbe(addr, ECHO_CODE, {
        serializeType,
        extFields: { topic: 'TopicTest', queueId: '3' },
        body: Buffer.from('payload ✓'),
      });
      const request = received[before];
      assert.ok(request, 'our server saw no request');
      assert.equal(request.code, ECHO_CODE);
      assert.equal(request.language, 'JAVA');
      assert.equal(request.version, 409);
      assert.equal(request.flag, 0);
      assert.equal(
        request.serializeType,
        serializeType === 'JSON' ? SerializeType.JSON : SerializeType.ROCKETMQ,
      );
      assert.deepEqual(request.extFields, { topic: 'TopicTest', queueId: '3' });
      assert.equal(request.body?.toString('utf8'), 'payload ✓');

      assert.equal(reply.code, ResponseCode.SUCCESS);
      assert.equal(reply.opaque, request.opaque);
      assert.equal(reply.flag & 1, 1);
      assert.equal(reply.remark, 'échο ✓');
      assert.equal(reply.serializeTypeCurrentRPC, serializeType);
      assert.deepEqual(reply.extFields, { echo: String(ECHO_CODE), topic: 'TopicTest', props: PROPERTIES });
      assert.equal(reply.bodyHex, '000102ff');
    });

    test(`a oneway request reaches us and gets no reply (${serializeType})`, {
      timeout: 60_000,
    }, async () => {
      const seen = new Promise<RemotingCommand>((resolve) => {
        onewaySeen = resolve;
      });
      const ack = await remotingProbeOneway(addr, ONEWAY_CODE, {
        serializeType,
        extFields: { commitOffset: '7' },
      });
      const request = await seen;
      assert.equal(request.flag & 2, 2);
      assert.equal(request.opaque, ack.opaque);
      assert.equal(request.extFields?.commitOffset, '7');
    });

    test(`an unknown code gets REQUEST_CODE_NOT_SUPPORTED (${serializeType})`, {
      timeout: 60_000,
    }, async () => {
      const reply = await remotingProbe(addr, 9999, { serializeType });
      assert.equal(reply.code, ResponseCode.REQUEST_CODE_NOT_SUPPORTED);
      assert.equal(reply.remark, ' request type 9999 not supported');
      assert.equal(reply.serializeTypeCurrentRPC, 'JSON');
    });
  }
});

describe('our RemotingClient -> official NettyRemotingServer', { timeout: 120_000 }, () => {
  let probe: ProbeServerHandle | undefined;
  const client = new RemotingClient();

  before(async () => {
    probe = await startProbeServer();
  });
  after(async () => {
    await client.close();
    await probe?.close();
  });

  for (const serializeType of [SerializeType.JSON, SerializeType.ROCKETMQ]) {
    const kind = serializeType === SerializeType.JSON ? 'JSON' : 'ROCKETMQ';
    test(`the official server decodes what we send and we decode its reply (${kind})`, {
      timeout: 30_000,
    }, async () => {
      assert.ok(probe);
      const request = createRequest(310, {
        serializeType,
        remark: 'rémark',
        extFields: { a: 'pg', b: 'TopicTest', i: PROPERTIES, k: 'false', e: '-1' },
        body: Buffer.from('hello from node'),
      });
      const reply = await client.invoke(probe.addr, request, { timeoutMs: 10_000 });
      const seen = await probe.waitForRequest((r) => r.request.opaque === request.opaque, 10_000);
      assert.equal(seen.request.code, 310);
      assert.equal(seen.request.language, 'JAVA');
      assert.equal(seen.request.version, 409);
      assert.equal(seen.request.remark, 'rémark');
      assert.equal(seen.request.serializeTypeCurrentRPC, kind);
      assert.deepEqual(seen.request.extFields, {
        a: 'pg',
        b: 'TopicTest',
        i: PROPERTIES,
        k: 'false',
        e: '-1',
      });
      assert.equal(seen.request.bodyHex, Buffer.from('hello from node').toString('hex'));
      assert.equal(seen.oneway, false);
      assert.equal(reply.code, ResponseCode.SUCCESS);
      assert.equal(reply.opaque, request.opaque);
      assert.equal(reply.extFields?.echo, '310');
    });

    test(`a oneway request arrives flagged oneway (${kind})`, { timeout: 30_000 }, async () => {
      assert.ok(probe);
      const request = createRequest(15, { serializeType, extFields: { commitOffset: '9' } });
      await client.invokeOneway(probe.addr, request);
      const seen = await probe.waitForRequest((r) => r.request.opaque === request.opaque, 10_000);
      assert.equal(seen.oneway, true);
      assert.equal(seen.request.extFields?.commitOffset, '9');
    });
  }
});
