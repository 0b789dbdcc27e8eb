/**
 * The figures of docs/broker-limits.md: how long one ~15.5 MiB JSON body (HEART_BEAT, LOCK_BATCH_MQ,
 * UNLOCK_BATCH_MQ) stalls an in-process broker's event loop with the request body limit lifted and
 * with it in force, and what a named filter costs per message with and without its deadline.
 * Run after a build: `node build/scripts/bench-limits.js`.
 */

import { encodeMessage, MessageExt, MessageQueue } from '../src/common/message/index.js';
import { encodeHeartbeatData, type HeartbeatData } from '../src/common/protocol/heartbeat-data.js';
import { encodeLockBatchRequestBody } from '../src/common/protocol/lock-batch-body.js';
import type { SubscriptionData } from '../src/common/protocol/subscription-data.js';
import { startEmbedded } from '../src/embedded/embedded.js';
import { NamedFilterRegistry } from '../src/filter/index.js';
import { createRequest } from '../src/remoting/protocol/command.js';
import { DEFAULT_MAX_FRAME_SIZE } from '../src/remoting/protocol/frame.js';
import { RequestCode } from '../src/remoting/protocol/request-code.js';
import { RemotingClient } from '../src/remoting/transport/index.js';

const MiB = 1024 * 1024;
const TARGET = 15.5 * MiB;

function heartbeatBody(target: number): Buffer {
  const subscriptionDataSet: SubscriptionData[] = [];
  const make = (n: number): HeartbeatData => {
    for (let i = subscriptionDataSet.length; i < n; i++) {
      subscriptionDataSet.push({
        topic: `T${String(i).padStart(10, '0')}`,
        subString: '*',
        tagsSet: ['a'],
        codeSet: [97],
        subVersion: 1n,
        expressionType: 'TAG',
        classFilterMode: false,
      });
    }
    subscriptionDataSet.length = n;
    return {
      clientID: 'bench-client',
      producerDataSet: [],
      consumerDataSet: [
        {
          groupName: 'bench-group',
          consumeType: 'CONSUME_PASSIVELY',
          messageModel: 'CLUSTERING',
          consumeFromWhere: 'CONSUME_FROM_LAST_OFFSET',
          unitMode: false,
          subscriptionDataSet,
        },
      ],
    };
  };
  const per = encodeHeartbeatData(make(1000)).length / 1000;
  return encodeHeartbeatData(make(Math.floor(target / per)));
}

function lockBody(target: number): Buffer {
  const mqSet: MessageQueue[] = [];
  for (let i = 0; i < target / 60; i++) {
    mqSet.push(new MessageQueue(`T${String(i).padStart(10, '0')}`, 'broker-a', i % 8));
  }
  return encodeLockBatchRequestBody({ consumerGroup: 'bench-group', clientId: 'bench-client', mqSet });
}

/** Longest gap between 1 ms timer ticks while `work` runs: the event loop's stall. */
async function stallOf(work: () => Promise<unknown>): Promise<number> {
  let last = performance.now();
  let worst = 0;
  const ticker = setInterval(() => {
    const now = performance.now();
    worst = Math.max(worst, now - last);
    last = now;
  }, 1);
  try {
    await work();
    return Math.max(worst, performance.now() - last);
  } finally {
    clearInterval(ticker);
  }
}

async function bodyStalls(requestBodyMaxSize: number): Promise<void> {
  const embedded = await startEmbedded({ requestBodyMaxSize });
  const client = new RemotingClient();
  try {
    const cases: Array<[string, number, Buffer]> = [
      ['HEART_BEAT', RequestCode.HEART_BEAT, heartbeatBody(TARGET)],
      ['LOCK_BATCH_MQ', RequestCode.LOCK_BATCH_MQ, lockBody(TARGET)],
      ['UNLOCK_BATCH_MQ', RequestCode.UNLOCK_BATCH_MQ, lockBody(TARGET)],
    ];
    for (const [name, code, body] of cases) {
      let answer = -1;
      const stall = await stallOf(async () => {
        const r = await client.invoke(embedded.brokerAddr, createRequest(code, { body }), {
          timeoutMs: 60_000,
        });
        answer = r.code;
      });
      console.log(
        `  ${name.padEnd(16)} ${(body.length / MiB).toFixed(1)} MiB -> code ${answer}, event loop stall ${stall.toFixed(1)} ms`,
      );
    }
  } finally {
    await client.close();
    await embedded.close();
  }
}

function filterCost(timeoutMillis: number): number {
  const registry = new NamedFilterRegistry({ timeoutMillis });
  registry.configure(new Map([['red', (m) => m.properties.get('color') === 'red']]));
  const expression = registry.compile('red');
  const ext = new MessageExt('TopicTest', Buffer.from('body'));
  ext.properties = new Map([
    ['color', 'red'],
    ['TAGS', 'TagA'],
  ]);
  const record = encodeMessage(ext);
  for (let i = 0; i < 1000; i++) expression.matchesRecord(record);
  const n = 20_000;
  const started = process.hrtime.bigint();
  for (let i = 0; i < n; i++) expression.matchesRecord(record);
  return Number(process.hrtime.bigint() - started) / n / 1000;
}

console.log(`request body limit lifted (requestBodyMaxSize=${DEFAULT_MAX_FRAME_SIZE}):`);
await bodyStalls(DEFAULT_MAX_FRAME_SIZE);
console.log('request body limit in force (requestBodyMaxSize=1048576, the default):');
await bodyStalls(MiB);
for (const timeoutMillis of [0, 100]) {
  console.log(
    `named filter, namedFilterTimeoutMillis=${timeoutMillis}: ${filterCost(timeoutMillis).toFixed(2)} µs per message`,
  );
}
