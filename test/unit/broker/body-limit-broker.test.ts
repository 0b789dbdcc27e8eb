/**
 * The request body limit on a real in-process broker over TCP: one 16 MiB JSON heartbeat or lock
 * batch is refused with MESSAGE_ILLEGAL without stalling the broker's event loop (decoding one took
 * 0.6 s and 2 s before the limit), and the client's connection goes on serving.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { MessageQueue } from '../../../src/common/message/message-queue.js';
import { encodeHeartbeatData, type HeartbeatData } from '../../../src/common/protocol/heartbeat-data.js';
import { encodeLockBatchRequestBody } from '../../../src/common/protocol/lock-batch-body.js';
import type { SubscriptionData } from '../../../src/common/protocol/subscription-data.js';
import { type Embedded, startEmbedded } from '../../../src/embedded/embedded.js';
import { createRequest, type RemotingCommand } from '../../../src/remoting/protocol/command.js';
import { RequestCode } from '../../../src/remoting/protocol/request-code.js';
import { ResponseCode } from '../../../src/remoting/protocol/response-code.js';
import { RemotingClient } from '../../../src/remoting/transport/index.js';

const LIMIT = { timeout: 60_000 };
const MiB = 1024 * 1024;
/** Far above the ~10 ms the refusal costs, far below the 600+ ms that decoding the body cost. */
const MAX_STALL_MS = 300;

function heartbeat(subscriptions: number): HeartbeatData {
  const subscriptionDataSet: SubscriptionData[] = [];
  for (let i = 0; i < subscriptions; i++) {
    subscriptionDataSet.push({
      topic: `T${String(i).padStart(10, '0')}`,
      subString: '*',
      tagsSet: [],
      codeSet: [],
      subVersion: 1n,
      expressionType: 'TAG',
      classFilterMode: false,
    });
  }
  return {
    clientID: 'client-1',
    producerDataSet: [],
    consumerDataSet: [
      {
        groupName: 'cg-big',
        consumeType: 'CONSUME_PASSIVELY',
        messageModel: 'CLUSTERING',
        consumeFromWhere: 'CONSUME_FROM_LAST_OFFSET',
        unitMode: false,
        subscriptionDataSet,
      },
    ],
  };
}

/** Sends `request` and reports the longest gap between 1 ms timer ticks while it was under way. */
async function stallDuring(
  client: RemotingClient,
  address: string,
  request: RemotingCommand,
): Promise<{ response: RemotingCommand; stallMs: number }> {
  let last = performance.now();
  let stallMs = 0;
  const ticker = setInterval(() => {
    const now = performance.now();
    stallMs = Math.max(stallMs, now - last);
    last = now;
  }, 1);
  try {
    const response = await client.invoke(address, request, { timeoutMs: 30_000 });
    return { response, stallMs: Math.max(stallMs, performance.now() - last) };
  } finally {
    clearInterval(ticker);
  }
}

describe('request body limit on a running broker', () => {
  let embedded: Embedded;
  let client: RemotingClient;
  before(async () => {
    embedded = await startEmbedded();
    client = new RemotingClient();
  });
  after(async () => {
    await client.close();
    await embedded.close();
  });

  test('a 16 MiB heartbeat is refused at once and the same connection then heartbeats', LIMIT, async () => {
    let n = 120_000;
    let body = encodeHeartbeatData(heartbeat(n));
    while (body.length < 15.5 * MiB) {
      n = Math.ceil((n * 15.6 * MiB) / body.length);
      body = encodeHeartbeatData(heartbeat(n));
    }
    assert.ok(body.length < 16 * MiB - 1024, `body of ${body.length} bytes must fit one frame`);
    const { response, stallMs } = await stallDuring(
      client,
      embedded.brokerAddr,
      createRequest(RequestCode.HEART_BEAT, { body }),
    );
    assert.equal(response.code, ResponseCode.MESSAGE_ILLEGAL, response.remark);
    assert.match(response.remark ?? '', /code 34: body of \d+ bytes exceeds the limit of 1048576 bytes/);
    assert.ok(stallMs < MAX_STALL_MS, `the event loop stalled ${stallMs.toFixed(0)} ms`);
    const ok = await client.invoke(
      embedded.brokerAddr,
      createRequest(RequestCode.HEART_BEAT, { body: encodeHeartbeatData(heartbeat(3)) }),
    );
    assert.equal(ok.code, ResponseCode.SUCCESS, ok.remark);
  });

  test('a 16 MiB LOCK_BATCH_MQ body is refused without a stall', LIMIT, async () => {
    const mqSet = [];
    for (let i = 0; i < 260_000; i++) mqSet.push(new MessageQueue(`T${i}`, 'broker-a', i % 8));
    const body = encodeLockBatchRequestBody({ consumerGroup: 'cg-big', clientId: 'client-1', mqSet });
    assert.ok(body.length > 8 * MiB && body.length < 16 * MiB - 1024, `body of ${body.length} bytes`);
    const { response, stallMs } = await stallDuring(
      client,
      embedded.brokerAddr,
      createRequest(RequestCode.LOCK_BATCH_MQ, { body }),
    );
    assert.equal(response.code, ResponseCode.MESSAGE_ILLEGAL, response.remark);
    assert.ok(stallMs < MAX_STALL_MS, `the event loop stalled ${stallMs.toFixed(0)} ms`);
  });
});
