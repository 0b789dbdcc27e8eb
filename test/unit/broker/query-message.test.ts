/**
 * QUERY_MESSAGE (12) and VIEW_MESSAGE_BY_ID (33) through a broker's handlers over in-memory
 * connections, on the broker's own DefaultMessageStore in a temp dir: the records the index finds,
 * the unique-key query's maxNum, the store's cap, the time range, hash collisions, the response
 * header, and upstream's codes and remarks.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, test } from 'node:test';
import type { BrokerConfig } from '../../../src/broker/broker-config.js';
import { type BrokerController, createBroker } from '../../../src/broker/broker-controller.js';
import { QUERY_NOT_FOUND_REMARK } from '../../../src/broker/processor/query-message.js';
import { MixAll } from '../../../src/common/constants.js';
import type { HostAddress } from '../../../src/common/message/host.js';
import { MessageConst } from '../../../src/common/message/message-const.js';
import { messageProperties2String } from '../../../src/common/message/properties.js';
import { decodeMessages } from '../../../src/common/message/stored-format.js';
import { tagsString2tagsCode } from '../../../src/common/message/tag-hash.js';
import { createRequest, type RemotingCommand } from '../../../src/remoting/protocol/command.js';
import { decodeHeader, encodeHeader } from '../../../src/remoting/protocol/header-schema.js';
import {
  QueryMessageRequestHeader,
  QueryMessageResponseHeader,
  ViewMessageRequestHeader,
} from '../../../src/remoting/protocol/headers/index.js';
import { RequestCode } from '../../../src/remoting/protocol/request-code.js';
import { ResponseCode } from '../../../src/remoting/protocol/response-code.js';
import type { DispatchRequest } from '../../../src/store/dispatch-request.js';
import type { MessageExtBrokerInner } from '../../../src/store/stored-record-writer.js';
import { connectInMemory, ManualClock, MemoryFileIO, quiet, TEST_ENV, type TestClient } from './helpers.js';

const LIMIT = { timeout: 10_000 };
const START = 1_700_000_000_000;
const HOST: HostAddress = { address: '127.0.0.1', port: 10911 };
const BORN: HostAddress = { address: '127.0.0.1', port: 50000 };
const EVER = [0n, 9_223_372_036_854_775_807n] as const;

const cleanups: Array<() => Promise<void>> = [];

afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

interface Setup {
  broker: BrokerController;
  clock: ManualClock;
  c: TestClient;
  /** Stores a message and resolves once it is dispatched (consume queue and index); its commit-log offset. */
  put(m: MessageExtBrokerInner): Promise<bigint>;
}

async function setup(config: Partial<BrokerConfig> = {}): Promise<Setup> {
  const root = fs.mkdtempSync(join(tmpdir(), 'rmq-query-'));
  const clock = new ManualClock(START);
  const broker = createBroker({
    config: {
      storePathRootDir: root,
      brokerName: 'broker-a',
      mappedFileSizeCommitLog: 256 * 1024,
      mappedFileSizeConsumeQueue: 20 * 200,
      maxHashSlotNum: 64,
      maxIndexNum: 512,
      ...config,
    },
    env: TEST_ENV,
    clock,
    logger: quiet,
    configFileIO: new MemoryFileIO(),
  });
  const store = broker.messageStore;
  await store.load();
  await store.start();
  cleanups.push(async () => {
    await broker.shutdown();
    await store.shutdown();
    fs.rmSync(root, { recursive: true, force: true });
  });
  const dispatched = new Set<bigint>();
  const waiters = new Map<bigint, () => void>();
  store.onMessageArrived((r: DispatchRequest) => {
    dispatched.add(r.commitLogOffset);
    waiters.get(r.commitLogOffset)?.();
  });
  const put = async (m: MessageExtBrokerInner): Promise<bigint> => {
    const result = await store.putMessage(m);
    assert.equal(result.putMessageStatus, 'PUT_OK');
    const offset = result.appendMessageResult?.wroteOffset ?? -1n;
    if (!dispatched.has(offset)) await new Promise<void>((resolve) => waiters.set(offset, resolve));
    return offset;
  };
  return { broker, clock, c: connectInMemory(broker), put };
}

interface MsgInit {
  topic?: string;
  keys?: string;
  uniqKey?: string;
  body?: string;
}

function msg(i: number, init: MsgInit = {}): MessageExtBrokerInner {
  const properties = new Map<string, string>();
  if (init.keys !== undefined) properties.set(MessageConst.PROPERTY_KEYS, init.keys);
  properties.set(
    MessageConst.PROPERTY_UNIQ_CLIENT_MESSAGE_ID_KEYIDX,
    init.uniqKey ?? `7F00000100002A9F0000000000${i.toString(16).toUpperCase().padStart(6, '0')}`,
  );
  properties.set(MessageConst.PROPERTY_TAGS, 'TagA');
  properties.set(MessageConst.PROPERTY_WAIT_STORE_MSG_OK, 'true');
  return {
    topic: init.topic ?? 'TopicTest',
    queueId: i % 4,
    flag: 0,
    body: Buffer.from(init.body ?? `body-${i}`),
    propertiesString: messageProperties2String(properties),
    tagsCode: tagsString2tagsCode('TagA'),
    sysFlag: 0,
    bornTimestamp: BigInt(START + i),
    bornHost: BORN,
    storeHost: HOST,
    reconsumeTimes: 0,
    preparedTransactionOffset: 0n,
  };
}

function queryRequest(
  key: string,
  options: { topic?: string; maxNum?: number; range?: readonly [bigint, bigint]; unique?: string } = {},
): RemotingCommand {
  const [beginTimestamp, endTimestamp] = options.range ?? EVER;
  const extFields = encodeHeader(QueryMessageRequestHeader, {
    topic: options.topic ?? 'TopicTest',
    key,
    maxNum: options.maxNum ?? 32,
    beginTimestamp,
    endTimestamp,
  });
  if (options.unique !== undefined) extFields[MixAll.UNIQUE_MSG_QUERY_FLAG] = options.unique;
  return createRequest(RequestCode.QUERY_MESSAGE, { extFields });
}

/** The bodies of the records a QUERY_MESSAGE answer holds, in the order it holds them. */
function bodies(r: RemotingCommand): string[] {
  assert.equal(r.code, ResponseCode.SUCCESS, r.remark);
  return decodeMessages(r.body ?? Buffer.alloc(0)).map((m) => m.body.toString());
}

describe('QUERY_MESSAGE', () => {
  test(
    'finds each key of KEYS and the UNIQ_KEY; the body is the stored records back to back',
    LIMIT,
    async () => {
      const { broker, clock, c, put } = await setup();
      const offsets: bigint[] = [];
      for (let i = 0; i < 10; i++) {
        offsets.push(await put(msg(i, { keys: `order-${i % 3} k-${i}` })));
        clock.advance(1000);
      }
      const r = await c.call(queryRequest('order-1'));
      assert.deepEqual(bodies(r), ['body-1', 'body-4', 'body-7']);
      const store = broker.messageStore;
      const expected = Buffer.concat(
        [1, 4, 7].map((i) => store.selectOneMessageByOffset(offsets[i] ?? -1n) ?? Buffer.alloc(0)),
      );
      assert.ok(r.body?.equals(expected), 'the stored bytes, unchanged, in commit-log order');
      assert.equal(r.remark, undefined);
      // The index's last entry: message 9, stored at +9 s.
      assert.deepEqual(decodeHeader(QueryMessageResponseHeader, r.extFields), {
        indexLastUpdateTimestamp: BigInt(START + 9000),
        indexLastUpdatePhyoffset: offsets[9],
      });
      assert.deepEqual(bodies(await c.call(queryRequest('k-5'))), ['body-5']);
      const uniq = decodeMessages(r.body ?? Buffer.alloc(0))[1]?.msgId ?? '';
      assert.deepEqual(bodies(await c.call(queryRequest(uniq, { unique: 'true' }))), ['body-4']);
    },
  );

  test('nothing found: QUERY_NOT_FOUND with upstream remark and the index header', LIMIT, async () => {
    const { c, put } = await setup();
    const empty = await c.call(queryRequest('order-1'));
    assert.equal(empty.code, ResponseCode.QUERY_NOT_FOUND);
    assert.equal(empty.remark, 'can not find message, maybe time range not correct');
    assert.equal(QUERY_NOT_FOUND_REMARK, empty.remark);
    assert.equal(empty.body, undefined);
    assert.deepEqual(decodeHeader(QueryMessageResponseHeader, empty.extFields), {
      indexLastUpdateTimestamp: 0n,
      indexLastUpdatePhyoffset: 0n,
    });
    await put(msg(0, { keys: 'order-1' }));
    // Upstream's store fills the index fields only from a lookup that found offsets.
    const elsewhere = await c.call(queryRequest('order-1', { topic: 'OtherTopic' }));
    assert.equal(elsewhere.code, ResponseCode.QUERY_NOT_FOUND);
    assert.deepEqual(decodeHeader(QueryMessageResponseHeader, elsewhere.extFields), {
      indexLastUpdateTimestamp: 0n,
      indexLastUpdatePhyoffset: 0n,
    });
    assert.equal((await c.call(queryRequest('order-2'))).code, ResponseCode.QUERY_NOT_FOUND);
  });

  test('only messages stored within [begin, end] are found', LIMIT, async () => {
    const { clock, c, put } = await setup();
    for (let i = 0; i < 5; i++) {
      await put(msg(i, { keys: 'same' }));
      clock.advance(10_000);
    }
    const at = (s: number) => BigInt(START + s * 1000);
    assert.deepEqual(bodies(await c.call(queryRequest('same', { range: [at(10), at(30)] }))), [
      'body-1',
      'body-2',
      'body-3',
    ]);
    const before = await c.call(queryRequest('same', { range: [0n, at(0) - 1n] }));
    assert.equal(before.code, ResponseCode.QUERY_NOT_FOUND);
    assert.equal(before.remark, QUERY_NOT_FOUND_REMARK);
  });

  test(
    'maxNum limits a key query; a unique-key query asks for defaultQueryMaxNum instead',
    LIMIT,
    async () => {
      const { c, put } = await setup({ defaultQueryMaxNum: 3 });
      // A message sent again (or sent back) keeps its UNIQ_KEY: five records share one.
      const uniq = '7F00000100002A9F00000000000000AA';
      for (let i = 0; i < 5; i++) await put(msg(i, { keys: 'dup', uniqKey: uniq }));
      assert.equal(bodies(await c.call(queryRequest('dup', { maxNum: 2 }))).length, 2);
      assert.equal(bodies(await c.call(queryRequest(uniq, { maxNum: 1 }))).length, 1);
      assert.equal(bodies(await c.call(queryRequest(uniq, { maxNum: 1, unique: 'false' }))).length, 1);
      // Java compares with equals("true").
      assert.equal(bodies(await c.call(queryRequest(uniq, { maxNum: 1, unique: 'TRUE' }))).length, 1);
      assert.equal(bodies(await c.call(queryRequest(uniq, { maxNum: 1, unique: 'true' }))).length, 3);
      assert.equal(bodies(await c.call(queryRequest(uniq, { maxNum: 100, unique: 'true' }))).length, 3);
    },
  );

  test('one query returns at most maxMsgsNumBatch (64) records, the newest', LIMIT, async () => {
    const { c, put } = await setup();
    for (let i = 0; i < 70; i++) await put(msg(i, { keys: 'hot' }));
    const found = bodies(await c.call(queryRequest('hot', { maxNum: 1000 })));
    assert.equal(found.length, 64);
    assert.deepEqual(found.slice(0, 2), ['body-6', 'body-7']);
    assert.equal(found.at(-1), 'body-69');
  });

  test('records whose key only shares the hash come too (the client filters them)', LIMIT, async () => {
    const { c, put } = await setup();
    // "TopicTest#Aa" and "TopicTest#BB" have the same Java hashCode.
    await put(msg(0, { keys: 'Aa' }));
    await put(msg(1, { keys: 'BB' }));
    await put(msg(2, { keys: 'Ab' }));
    const found = decodeMessages((await c.call(queryRequest('Aa'))).body ?? Buffer.alloc(0));
    assert.deepEqual(
      found.map((m) => m.properties.get(MessageConst.PROPERTY_KEYS)),
      ['Aa', 'BB'],
    );
  });

  test('a missing or malformed header field: SYSTEM_ERROR naming it', LIMIT, async () => {
    const { c } = await setup();
    const fields = encodeHeader(QueryMessageRequestHeader, {
      topic: 'TopicTest',
      key: 'k',
      maxNum: 1,
      beginTimestamp: 0n,
      endTimestamp: 1n,
    });
    const { key: _key, ...noKey } = fields;
    const missing = await c.call(createRequest(RequestCode.QUERY_MESSAGE, { extFields: noKey }));
    assert.equal(missing.code, ResponseCode.SYSTEM_ERROR);
    assert.equal(missing.remark, 'the custom field <key> is null');
    const bad = await c.call(
      createRequest(RequestCode.QUERY_MESSAGE, { extFields: { ...fields, maxNum: 'lots' } }),
    );
    assert.equal(bad.code, ResponseCode.SYSTEM_ERROR);
    assert.match(bad.remark ?? '', /maxNum/);
  });

  test('the VIP channel serves it (the Java client queries there)', LIMIT, async () => {
    const { broker, put } = await setup();
    await put(msg(0, { keys: 'vip' }));
    const vip = connectInMemory(broker, '10.0.0.9:50001', true);
    assert.deepEqual(bodies(await vip.call(queryRequest('vip'))), ['body-0']);
  });
});

describe('VIEW_MESSAGE_BY_ID', () => {
  const view = (offset: bigint) =>
    createRequest(RequestCode.VIEW_MESSAGE_BY_ID, {
      extFields: encodeHeader(ViewMessageRequestHeader, { offset }),
    });

  test('the record at a commit-log offset, as stored', LIMIT, async () => {
    const { broker, c, put } = await setup();
    const offsets: bigint[] = [];
    for (let i = 0; i < 3; i++) offsets.push(await put(msg(i, { keys: `k-${i}` })));
    const r = await c.call(view(offsets[1] ?? -1n));
    assert.equal(r.code, ResponseCode.SUCCESS);
    assert.equal(r.remark, undefined);
    assert.equal(r.extFields, undefined);
    assert.ok(
      r.body?.equals(broker.messageStore.selectOneMessageByOffset(offsets[1] ?? -1n) ?? Buffer.alloc(1)),
    );
    const [m] = decodeMessages(r.body ?? Buffer.alloc(0));
    assert.equal(m?.body.toString(), 'body-1');
    assert.equal(m?.commitLogOffset, offsets[1]);
    assert.equal(decodeMessages(r.body ?? Buffer.alloc(0)).length, 1);
  });

  test('no record there: SYSTEM_ERROR "can not find message by the offset, <offset>"', LIMIT, async () => {
    const { c, put } = await setup();
    const first = await put(msg(0));
    const second = await put(msg(1));
    for (const offset of [second + 1n, second + 100_000n, first + 4n, -1n]) {
      const r = await c.call(view(offset));
      assert.equal(r.code, ResponseCode.SYSTEM_ERROR, String(offset));
      assert.equal(r.remark, `can not find message by the offset, ${offset}`);
      assert.equal(r.body, undefined);
    }
    const missing = await c.call(createRequest(RequestCode.VIEW_MESSAGE_BY_ID, { extFields: {} }));
    assert.equal(missing.code, ResponseCode.SYSTEM_ERROR);
    assert.equal(missing.remark, 'the custom field <offset> is null');
  });
});
