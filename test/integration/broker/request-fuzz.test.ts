/**
 * Every request the broker serves, with seeded random header fields and bodies, over real TCP: each
 * gets an answer (a pull may be held, so pulls are not awaited), the broker keeps serving, the
 * messages stored before are still there byte for byte, and nothing is written outside the store
 * root (topic and group names like "../x" never reach a path).
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { type BrokerController, createBroker } from '../../../src/broker/broker-controller.js';
import { BROKER_REQUEST_HANDLERS } from '../../../src/broker/processor/processor-table.js';
import { createLogger } from '../../../src/common/logger.js';
import { decodeMessage } from '../../../src/common/message/stored-format.js';
import { createRequest, type RemotingCommand } from '../../../src/remoting/protocol/command.js';
import { requestHeaderByCode } from '../../../src/remoting/protocol/headers/index.js';
import { popRequestHeaderByCode } from '../../../src/remoting/protocol/headers/pop-headers.js';
import { RequestCode } from '../../../src/remoting/protocol/request-code.js';
import { ResponseCode } from '../../../src/remoting/protocol/response-code.js';
import { RemotingClient } from '../../../src/remoting/transport/index.js';
import { GetMessageStatus } from '../../../src/store/message-store.js';
import { fieldValue, HOSTILE_VALUES } from '../../fuzz/hostile-values.js';

const ROUNDS = 6000;
const quiet = createLogger('fuzz', { level: 'silent' });

/** xorshift32: the same sequence for a seed, so a failure names the seed that repeats it. */
function rng(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x / 4294967296;
  };
}

const FIELDS = [
  'topic',
  'queueId',
  'consumerGroup',
  'group',
  'producerGroup',
  'defaultTopic',
  'defaultTopicQueueNums',
  'sysFlag',
  'bornTimestamp',
  'flag',
  'properties',
  'reconsumeTimes',
  'unitMode',
  'batch',
  'maxReconsumeTimes',
  'a',
  'b',
  'c',
  'd',
  'e',
  'f',
  'g',
  'h',
  'i',
  'j',
  'k',
  'l',
  'm',
  'queueOffset',
  'maxMsgNums',
  'commitOffset',
  'suspendTimeoutMillis',
  'subscription',
  'subVersion',
  'expressionType',
  'offset',
  'key',
  'maxNum',
  'beginTimestamp',
  'endTimestamp',
  'timestamp',
  'clientId',
  'readQueueNums',
  'writeQueueNums',
  'perm',
  'topicFilterType',
  'topicSysFlag',
  'order',
  'groupName',
  'originMsgId',
  'originTopic',
  'delayLevel',
  'isForce',
  'msgId',
  '_UNIQUE_KEY_QUERY',
  'isOrder',
];

function pick<T>(random: () => number, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)] as T;
}

const TEXTS = ['Keep', 'TopicA', 'TBW102', 'pg', 'g', '%RETRY%g', '*', 'TagA', '../up', 'KEYS\u0001k\u0002'];

function randomBody(random: () => number): Buffer | undefined {
  switch (Math.floor(random() * 5)) {
    case 0:
      return undefined;
    case 1: {
      const b = Buffer.alloc(Math.floor(random() * 200));
      for (let i = 0; i < b.length; i++) b[i] = Math.floor(random() * 256);
      return b;
    }
    case 2:
      return Buffer.from(
        pick(random, ['{}', '[]', '{"mqSet":[{}]}', '{"offsetTable":{', 'null', '{"a":1e999}']),
      );
    case 3:
      return Buffer.from(
        `{"consumerGroup":"${pick(random, HOSTILE_VALUES)}","clientId":"c","mqSet":[{"topic":"${pick(random, HOSTILE_VALUES)}","brokerName":"b","queueId":${pick(random, ['0', '-1', '99999999999'])}}]}`,
      );
    default:
      return Buffer.from('body');
  }
}

function requestFor(code: number, random: () => number): RemotingCommand {
  const extFields: Record<string, string> = {};
  // Half the requests carry every field of the code's header, so the handlers get past validation.
  const schema = requestHeaderByCode.get(code) ?? popRequestHeaderByCode.get(code);
  if (schema !== undefined && random() < 0.5) {
    for (const f of schema.fields) extFields[f.key] = fieldValue(f.type, random, TEXTS, 0.1);
  }
  const n = Math.floor(random() * 12);
  for (let i = 0; i < n; i++) extFields[pick(random, FIELDS)] = pick(random, HOSTILE_VALUES);
  const body = randomBody(random);
  return createRequest(code, {
    extFields,
    ...(body === undefined ? {} : { body }),
    version: pick(random, [0, 121, 317, 409, 9999]),
    // A ROCKETMQ header carries the code as an int16 (Java casts it to short), so the 5.x POP codes
    // travel in JSON headers only.
    serializeType: random() < 0.5 || code > 32767 ? 0 : 1,
  });
}

async function sendSome(client: RemotingClient, addr: string): Promise<void> {
  for (let i = 0; i < 4; i++) {
    const reply = await client.invoke(
      addr,
      createRequest(RequestCode.SEND_MESSAGE, {
        extFields: {
          producerGroup: 'pg',
          topic: 'Keep',
          defaultTopic: 'TBW102',
          defaultTopicQueueNums: '4',
          queueId: '0',
          sysFlag: '0',
          bornTimestamp: '1700000000000',
          flag: '0',
          properties: 'KEYS\u0001k\u0002',
          reconsumeTimes: '0',
          unitMode: 'false',
        },
        body: Buffer.from(`kept-${i}`),
      }),
      { timeoutMs: 5000 },
    );
    assert.equal(reply.code, ResponseCode.SUCCESS, reply.remark);
  }
}

test('random requests to every broker code: always an answer, stored data intact, no file outside the store', {
  timeout: 120_000,
}, async () => {
  const parent = mkdtempSync(join(tmpdir(), 'rmq-fuzz-broker-'));
  const root = join(parent, 'store');
  mkdirSync(root);
  let broker: BrokerController | undefined;
  const client = new RemotingClient({}, { logger: quiet });
  try {
    broker = createBroker({
      config: {
        storePathRootDir: root,
        listenPort: 0,
        listenHost: '127.0.0.1',
        brokerIP1: '127.0.0.1',
        brokerIP2: '127.0.0.1',
        namesrvAddr: undefined,
        autoCreateTopicEnable: true,
        enablePropertyFilter: true,
      },
      logger: quiet,
    });
    await broker.start();
    const addr = broker.brokerAddr;
    await sendSome(client, addr);
    const codes = [...BROKER_REQUEST_HANDLERS.keys(), 9999, 0, -1];
    const seed = Number(process.env.RMQ_FUZZ_SEED ?? 20261202);
    const random = rng(seed);
    let answered = 0;
    const codesSeen = new Set<number>();
    for (let round = 0; round < ROUNDS; round++) {
      const code = pick(random, codes);
      const request = requestFor(code, random);
      if (
        code === RequestCode.PULL_MESSAGE ||
        code === RequestCode.POP_MESSAGE ||
        code === RequestCode.NOTIFICATION
      ) {
        // A valid-enough pull (pop, notification) may be held until a message arrives; it must not block the others.
        void client.invoke(addr, request, { timeoutMs: 30_000 }).catch(() => undefined);
        continue;
      }
      const reply = await client.invoke(addr, request, { timeoutMs: 5000 }).catch((e: unknown) => {
        throw new Error(
          `seed ${seed} round ${round}: code ${code} ${JSON.stringify(request.extFields)} got no answer: ${String(e)}`,
        );
      });
      assert.equal(typeof reply.code, 'number');
      codesSeen.add(reply.code);
      // A JavaScript fault surfacing as a remark is a bug, even when the request was garbage.
      assert.doesNotMatch(
        reply.remark ?? '',
        /Cannot read|is not a function|is not defined|is not iterable|TypeError|RangeError|Invalid array length|Maximum call stack/,
        `seed ${seed} round ${round}: code ${code} ${JSON.stringify(request.extFields)}`,
      );
      answered++;
    }
    assert.ok(answered > ROUNDS / 2);
    assert.ok(codesSeen.has(ResponseCode.SUCCESS) && codesSeen.size > 4, `answers: ${[...codesSeen]}`);
    // Still serving, and what was stored before is all there.
    await sendSome(client, addr);
    const found = await broker.messageStore.getMessage('check', 'Keep', 0, 0n, 32);
    assert.equal(found.status, GetMessageStatus.FOUND);
    const bodies = found.messages.map((m) => decodeMessage(m).body?.toString());
    assert.deepEqual(bodies.slice(0, 4), ['kept-0', 'kept-1', 'kept-2', 'kept-3']);
    assert.deepEqual(readdirSync(parent), ['store']);
    for (const entry of readdirSync(join(root, 'consumequeue'))) {
      assert.ok(!entry.includes('..') && !entry.includes('/'), entry);
    }
  } finally {
    await broker?.shutdown();
    await client.close();
    rmSync(parent, { recursive: true, force: true });
  }
});
