/**
 * Pulls held by long polling do not count among a connection's requests in flight: a consumer with
 * more held pulls than serverMaxRequestsInFlight on one connection still gets its other requests
 * answered at once.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createProducer } from '../../../src/client/index.js';
import { PullSysFlag } from '../../../src/common/constants.js';
import { createLogger } from '../../../src/common/logger.js';
import { Message } from '../../../src/common/message/message.js';
import { type Embedded, startEmbedded } from '../../../src/embedded/embedded.js';
import { createRequest } from '../../../src/remoting/protocol/command.js';
import { decodeHeader, encodeHeader } from '../../../src/remoting/protocol/header-schema.js';
import {
  GetMaxOffsetResponseHeader,
  PullMessageRequestHeader,
} from '../../../src/remoting/protocol/headers/index.js';
import { RequestCode } from '../../../src/remoting/protocol/request-code.js';
import { ResponseCode } from '../../../src/remoting/protocol/response-code.js';
import { RemotingClient } from '../../../src/remoting/transport/index.js';

const TOPIC = 'HeldPulls';
const quiet = createLogger('test', { level: 'silent' });

describe('held pulls and serverMaxRequestsInFlight', { timeout: 60_000 }, () => {
  let embedded: Embedded | undefined;
  const client = new RemotingClient({}, { logger: quiet });

  before(async () => {
    embedded = await startEmbedded({ serverMaxRequestsInFlight: 2 });
    const producer = createProducer({
      namesrvAddr: embedded.namesrvAddr,
      producerGroup: 'pg_held',
      logger: quiet,
    });
    await producer.start();
    await producer.send(new Message(TOPIC, Buffer.from('x')));
    await producer.shutdown();
  });
  after(async () => {
    await client.close();
    await embedded?.close();
  });

  test('eight held pulls on one connection leave it reading', async () => {
    assert.ok(embedded);
    const addr = embedded.brokerAddr;
    const maxOffset = async (queueId: number) => {
      const r = await client.invoke(
        addr,
        createRequest(RequestCode.GET_MAX_OFFSET, { extFields: { topic: TOPIC, queueId: String(queueId) } }),
      );
      return decodeHeader(GetMaxOffsetResponseHeader, r.extFields).offset;
    };
    const held: Array<Promise<unknown>> = [];
    for (let i = 0; i < 8; i++) {
      const queueId = i % 4;
      const request = createRequest(RequestCode.PULL_MESSAGE, {
        extFields: encodeHeader(PullMessageRequestHeader, {
          consumerGroup: 'cg_held',
          topic: TOPIC,
          queueId,
          queueOffset: await maxOffset(queueId),
          maxMsgNums: 32,
          sysFlag: PullSysFlag.buildSysFlag(false, true, true, false),
          commitOffset: 0n,
          suspendTimeoutMillis: 20_000n,
          subscription: '*',
          subVersion: 0n,
          expressionType: 'TAG',
        }),
      });
      held.push(client.invoke(addr, request, { timeoutMs: 30_000 }).catch(() => undefined));
    }
    // Answered while the eight pulls are held, not after their 20 s.
    const started = Date.now();
    const answer = await client.invoke(
      addr,
      createRequest(RequestCode.GET_MAX_OFFSET, { extFields: { topic: TOPIC, queueId: '0' } }),
      { timeoutMs: 5000 },
    );
    assert.equal(answer.code, ResponseCode.SUCCESS);
    assert.ok(Date.now() - started < 5000);
    await client.close();
  });
});
