/**
 * SEND_MESSAGE (10), SEND_MESSAGE_V2 (310) and SEND_BATCH_MESSAGE (320) against a broker with a real
 * DefaultMessageStore in a temp dir, over in-memory connections: what is stored (read back from the
 * store), the response header and extFields, and upstream's codes and remarks for every refusal.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, test } from 'node:test';
import type { BrokerConfigOverrides } from '../../../src/broker/broker-config.js';
import { brokerConfig, toMessageStoreConfig } from '../../../src/broker/broker-config.js';
import {
  type BrokerController,
  type CreateBrokerOptions,
  createBroker,
} from '../../../src/broker/broker-controller.js';
import { rewriteProperties } from '../../../src/broker/processor/send-message-support.js';
import { ManualClock } from '../../../src/common/clock.js';
import { PermName, TopicSysFlag } from '../../../src/common/constants.js';
import { encodeBatch } from '../../../src/common/message/batch.js';
import type { HostAddress } from '../../../src/common/message/host.js';
import { Message, type MessageExt } from '../../../src/common/message/message.js';
import { createOffsetMsgId } from '../../../src/common/message/message-id.js';
import { messageProperties2String } from '../../../src/common/message/properties.js';
import { decodeMessage } from '../../../src/common/message/stored-format.js';
import { MessageSysFlag } from '../../../src/common/message/sysflag.js';
import { tagsString2tagsCode } from '../../../src/common/message/tag-hash.js';
import { createTopicConfig, type TopicConfig } from '../../../src/common/protocol/topic-config.js';
import {
  createRequest,
  type RemotingCommand,
  SerializeType,
} from '../../../src/remoting/protocol/command.js';
import {
  decodeHeader,
  encodeHeader,
  type HeaderInputOf,
} from '../../../src/remoting/protocol/header-schema.js';
import { createSendMessageRequestHeaderV2 } from '../../../src/remoting/protocol/headers/send-message-converters.js';
import { SendMessageRequestHeader } from '../../../src/remoting/protocol/headers/send-message-request-header.js';
import { SendMessageRequestHeaderV2 } from '../../../src/remoting/protocol/headers/send-message-request-header-v2.js';
import { SendMessageResponseHeader } from '../../../src/remoting/protocol/headers/send-message-response-header.js';
import { RequestCode } from '../../../src/remoting/protocol/request-code.js';
import { ResponseCode } from '../../../src/remoting/protocol/response-code.js';
import { DefaultMessageStore } from '../../../src/store/default-message-store.js';
import {
  AppendMessageResult,
  AppendMessageStatus,
  PutMessageResult,
  PutMessageStatus,
} from '../../../src/store/put-message-result.js';
import { TestIO } from '../store/commit-log-support.js';
import {
  connectInMemory,
  FakeMessageStore,
  MemoryFileIO,
  quiet,
  TEST_ENV,
  type TestClient,
} from './helpers.js';

const LIMIT = { timeout: 10_000 };
/** TEST_ENV's brokerIP1 and the default listenPort: the store host of every message. */
const STORE_HOST: HostAddress = { address: '10.0.0.7', port: 10911 };
const PRODUCER = '10.0.0.9:50000';
const MAX_MESSAGE_SIZE = 64 * 1024;
const FAQ = '\nSee http://rocketmq.apache.org/docs/faq/ for further details.';

interface Setup {
  broker: BrokerController;
  client: TestClient;
  clock: ManualClock;
}

const cleanups: Array<() => Promise<void>> = [];

afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function tempRoot(): string {
  const root = mkdtempSync(join(tmpdir(), 'rmq-send-'));
  cleanups.push(async () => rmSync(root, { recursive: true, force: true }));
  return root;
}

function settings(root: string, config: BrokerConfigOverrides): BrokerConfigOverrides {
  return {
    storePathRootDir: root,
    brokerName: 'broker-a',
    mappedFileSizeCommitLog: 1024 * 1024,
    mappedFileSizeConsumeQueue: 1000 * 20,
    maxMessageSize: MAX_MESSAGE_SIZE,
    ...config,
  };
}

/** A broker (not listening) whose own store is loaded and started; the client talks to it in memory. */
async function setup(
  config: BrokerConfigOverrides = {},
  options: Partial<CreateBrokerOptions> = {},
): Promise<Setup> {
  const root = tempRoot();
  const clock = new ManualClock();
  const broker = createBroker({
    config: settings(root, config),
    env: TEST_ENV,
    clock,
    logger: quiet,
    configFileIO: new MemoryFileIO(),
    ...options,
  });
  await broker.messageStore.load();
  await broker.messageStore.start();
  cleanups.push(async () => {
    await broker.messageStore.shutdown();
    await broker.shutdown();
  });
  return { broker, client: connectInMemory(broker, PRODUCER), clock };
}

function addTopic(broker: BrokerController, topic: string, fields: Partial<TopicConfig> = {}): void {
  broker.topicConfigManager.updateTopicConfig(
    createTopicConfig(topic, { readQueueNums: 4, writeQueueNums: 4, ...fields }),
  );
}

type Header = HeaderInputOf<typeof SendMessageRequestHeader>;

function header(topic: string, fields: Partial<Header> = {}): Header {
  return {
    producerGroup: 'PG',
    topic,
    defaultTopic: 'TBW102',
    defaultTopicQueueNums: 4,
    queueId: 0,
    sysFlag: 0,
    bornTimestamp: 1_700_000_000_123n,
    flag: 0,
    properties: props({ WAIT: 'true' }),
    reconsumeTimes: 0,
    unitMode: false,
    batch: false,
    ...fields,
  };
}

function props(entries: Record<string, string>): string {
  return messageProperties2String(new Map(Object.entries(entries)));
}

interface SendOptions {
  code?: number;
  version?: number;
  serializeType?: SerializeType;
}

/** A send request: code 10 with the V1 header, 310 and 320 with the one-letter V2 header. */
function sendRequest(h: Header, body: Buffer | undefined, o: SendOptions = {}): RemotingCommand {
  const code = o.code ?? RequestCode.SEND_MESSAGE_V2;
  const extFields =
    code === RequestCode.SEND_MESSAGE
      ? encodeHeader(SendMessageRequestHeader, h)
      : encodeHeader(
          SendMessageRequestHeaderV2,
          createSendMessageRequestHeaderV2({
            bname: undefined,
            properties: undefined,
            reconsumeTimes: undefined,
            maxReconsumeTimes: undefined,
            ...h,
            unitMode: h.unitMode ?? false,
            batch: h.batch ?? false,
          }),
        );
  return createRequest(code, {
    extFields,
    body,
    ...(o.version === undefined ? {} : { version: o.version }),
    ...(o.serializeType === undefined ? {} : { serializeType: o.serializeType }),
  });
}

function send(
  s: Setup,
  h: Header,
  body: Buffer | string = 'hello',
  o: SendOptions = {},
): Promise<RemotingCommand> {
  return s.client.call(sendRequest(h, typeof body === 'string' ? Buffer.from(body) : body, o));
}

function result(response: RemotingCommand) {
  return decodeHeader(SendMessageResponseHeader, response.extFields);
}

function assertRefused(response: RemotingCommand, code: number, remark: string | RegExp): void {
  assert.equal(response.code, code, response.remark);
  if (typeof remark === 'string') assert.equal(response.remark, remark);
  else assert.match(response.remark ?? '', remark);
  // Refusals carry the region and trace switch too, but no result.
  assert.equal(response.extFields?.MSG_REGION, 'DefaultRegion');
  assert.equal(response.extFields?.TRACE_ON, 'true');
  assert.equal(response.extFields?.msgId, undefined);
}

/** The queue's stored messages, with the consume-queue tag hash of each. */
async function readQueue(
  broker: BrokerController,
  topic: string,
  queueId: number,
): Promise<Array<{ msg: MessageExt; tagsCode: bigint | undefined }>> {
  const tagsCodes: Array<bigint | undefined> = [];
  const got = await broker.messageStore.getMessage('reader', topic, queueId, 0n, 32, {
    isMatchedByConsumeQueue: (tagsCode) => {
      tagsCodes.push(tagsCode);
      return true;
    },
    isMatchedByCommitLog: () => true,
  });
  return got.messages.map((buf, i) => ({ msg: decodeMessage(buf), tagsCode: tagsCodes[i] }));
}

function storedProperties(msg: MessageExt): Record<string, string> {
  return Object.fromEntries(msg.properties);
}

describe('single messages', () => {
  test(
    'SEND_MESSAGE stores the message and answers with its offsetMsgId, queue and offset',
    LIMIT,
    async () => {
      const s = await setup();
      addTopic(s.broker, 'TopicA');
      const properties = props({
        UNIQ_KEY: 'AC1100010000',
        WAIT: 'true',
        TAGS: 'TagA',
        KEYS: 'k1 k2',
        a: '1',
      });
      const h = header('TopicA', { queueId: 2, flag: 7, properties, bornTimestamp: 1_700_000_000_777n });
      const first = await send(s, h, 'body-1', { code: RequestCode.SEND_MESSAGE });
      assert.equal(first.code, ResponseCode.SUCCESS);
      assert.equal(first.remark, undefined);
      assert.equal(first.extFields?.MSG_REGION, 'DefaultRegion');
      assert.equal(first.extFields?.TRACE_ON, 'true');
      assert.deepEqual(result(first), {
        msgId: createOffsetMsgId(STORE_HOST, 0n),
        queueId: 2,
        queueOffset: 0n,
        transactionId: undefined,
      });
      const second = await send(s, h, 'body-2', { code: RequestCode.SEND_MESSAGE });
      assert.equal(second.code, ResponseCode.SUCCESS);
      assert.equal(result(second).queueOffset, 1n);

      const stored = await readQueue(s.broker, 'TopicA', 2);
      assert.equal(stored.length, 2);
      const [one, two] = stored;
      assert.ok(one !== undefined && two !== undefined);
      assert.equal(one.msg.topic, 'TopicA');
      assert.equal(one.msg.queueId, 2);
      assert.equal(one.msg.queueOffset, 0n);
      assert.equal(one.msg.body.toString(), 'body-1');
      assert.equal(one.msg.flag, 7);
      assert.equal(one.msg.bornTimestamp, 1_700_000_000_777n);
      assert.deepEqual(one.msg.bornHost, { address: '10.0.0.9', port: 50000 });
      assert.deepEqual(one.msg.storeHost, STORE_HOST);
      assert.equal(one.msg.offsetMsgId, result(first).msgId);
      assert.deepEqual(storedProperties(one.msg), {
        UNIQ_KEY: 'AC1100010000',
        TAGS: 'TagA',
        KEYS: 'k1 k2',
        a: '1',
        CLUSTER: 'DefaultCluster',
      });
      assert.equal(one.tagsCode, tagsString2tagsCode('TagA'));
      assert.equal(two.msg.body.toString(), 'body-2');
      assert.equal(two.msg.offsetMsgId, result(second).msgId);
      assert.equal(two.msg.commitLogOffset, BigInt(one.msg.storeSize));
    },
  );

  test(
    'SEND_MESSAGE_V2 (one-letter keys, binary header) and a negative queueId picks a writable queue',
    LIMIT,
    async () => {
      const s = await setup();
      addTopic(s.broker, 'TopicB', { readQueueNums: 8, writeQueueNums: 3 });
      const counts = new Map<number, number>();
      for (let i = 0; i < 12; i++) {
        const response = await send(s, header('TopicB', { queueId: -1 }), `m${i}`, {
          serializeType: SerializeType.ROCKETMQ,
        });
        assert.equal(response.code, ResponseCode.SUCCESS);
        assert.equal(response.serializeType, SerializeType.ROCKETMQ);
        const r = result(response);
        assert.ok(r.queueId >= 0 && r.queueId < 3, `queue ${r.queueId}`);
        assert.equal(r.queueOffset, BigInt(counts.get(r.queueId) ?? 0));
        counts.set(r.queueId, (counts.get(r.queueId) ?? 0) + 1);
      }
      let total = 0;
      for (const [queueId, n] of counts) {
        const stored = await readQueue(s.broker, 'TopicB', queueId);
        assert.equal(stored.length, n);
        total += n;
      }
      assert.equal(total, 12);
    },
  );

  test(
    'a client-sent CLUSTER is replaced, WAIT=false is not stored, MULTI_TAG topics get MULTI_TAGS_FLAG',
    LIMIT,
    async () => {
      const s = await setup({ brokerClusterName: 'C1' });
      addTopic(s.broker, 'Multi', { topicFilterType: 'MULTI_TAG' });
      const response = await send(
        s,
        header('Multi', { properties: props({ CLUSTER: 'Other', WAIT: 'false', TAGS: 'x' }), sysFlag: 0 }),
      );
      assert.equal(response.code, ResponseCode.SUCCESS);
      const [stored] = await readQueue(s.broker, 'Multi', 0);
      assert.ok(stored !== undefined);
      assert.deepEqual(storedProperties(stored.msg), { TAGS: 'x', CLUSTER: 'C1' });
      assert.equal(stored.msg.sysFlag & MessageSysFlag.MULTI_TAGS_FLAG, MessageSysFlag.MULTI_TAGS_FLAG);
    },
  );

  test('a message without body or properties is stored empty', LIMIT, async () => {
    const s = await setup();
    addTopic(s.broker, 'TopicE');
    const response = await s.client.call(sendRequest(header('TopicE', { properties: undefined }), undefined));
    assert.equal(response.code, ResponseCode.SUCCESS);
    const [stored] = await readQueue(s.broker, 'TopicE', 0);
    assert.ok(stored !== undefined);
    assert.equal(stored.msg.body.length, 0);
    assert.deepEqual(storedProperties(stored.msg), { CLUSTER: 'DefaultCluster' });
    assert.equal(stored.tagsCode, 0n);
  });

  test(
    'a delayed message is left to the store, which moves it to SCHEDULE_TOPIC_XXXX once',
    LIMIT,
    async () => {
      const s = await setup();
      addTopic(s.broker, 'TopicD');
      const response = await send(s, header('TopicD', { queueId: 1, properties: props({ DELAY: '3' }) }));
      assert.equal(response.code, ResponseCode.SUCCESS);
      assert.equal(result(response).queueId, 1, 'the queue asked for, not the schedule queue');
      assert.equal((await readQueue(s.broker, 'TopicD', 1)).length, 0);
      const [scheduled, ...more] = await readQueue(s.broker, 'SCHEDULE_TOPIC_XXXX', 2);
      assert.ok(scheduled !== undefined);
      assert.equal(more.length, 0);
      assert.equal(scheduled.msg.getProperty('REAL_TOPIC'), 'TopicD');
      assert.equal(scheduled.msg.getProperty('REAL_QID'), '1');
      assert.equal(scheduled.msg.getProperty('DELAY'), '3');
      assert.equal(s.broker.messageStore.getMaxPhyOffset(), BigInt(scheduled.msg.storeSize));
    },
  );

  test('a missing required header field gives the schema error', LIMIT, async () => {
    const s = await setup();
    addTopic(s.broker, 'TopicA');
    const v2 = sendRequest(header('TopicA'), Buffer.from('x'));
    delete v2.extFields?.a;
    const r2 = await s.client.call(v2);
    assert.equal(r2.code, ResponseCode.SYSTEM_ERROR);
    assert.equal(r2.remark, 'the custom field <a> is null');
    const v1 = sendRequest(header('TopicA'), Buffer.from('x'), { code: RequestCode.SEND_MESSAGE });
    delete v1.extFields?.producerGroup;
    const r1 = await s.client.call(v1);
    assert.equal(r1.code, ResponseCode.SYSTEM_ERROR);
    assert.equal(r1.remark, 'the custom field <producerGroup> is null');
    const bad = sendRequest(header('TopicA'), Buffer.from('x'));
    if (bad.extFields !== undefined) bad.extFields.e = 'one';
    const r3 = await s.client.call(bad);
    assert.equal(r3.code, ResponseCode.SYSTEM_ERROR);
    assert.match(r3.remark ?? '', /<e>.*not a valid int/);
    assert.equal(s.broker.messageStore.getMaxPhyOffset(), 0n);
  });
});

describe('topic checks', () => {
  test(
    'an unknown topic is created from TBW102 with the smaller queue count and registered',
    LIMIT,
    async () => {
      const s = await setup();
      const before = s.broker.topicConfigManager.dataVersion.counter;
      const response = await send(s, header('Fresh', { defaultTopicQueueNums: 3, queueId: 2 }));
      assert.equal(response.code, ResponseCode.SUCCESS);
      assert.deepEqual(s.broker.topicConfigManager.selectTopicConfig('Fresh'), {
        ...createTopicConfig('Fresh', { readQueueNums: 3, writeQueueNums: 3 }),
      });
      assert.ok(s.broker.topicConfigManager.dataVersion.counter > before);
      assert.equal((await readQueue(s.broker, 'Fresh', 2)).length, 1);
      const many = await send(s, header('Wide', { defaultTopicQueueNums: 100 }));
      assert.equal(many.code, ResponseCode.SUCCESS);
      assert.equal(s.broker.topicConfigManager.selectTopicConfig('Wide')?.writeQueueNums, 8);
      const unit = await send(s, header('Unit', { unitMode: true }));
      assert.equal(unit.code, ResponseCode.SUCCESS);
      assert.equal(
        s.broker.topicConfigManager.selectTopicConfig('Unit')?.topicSysFlag,
        TopicSysFlag.FLAG_UNIT,
      );
    },
  );

  test(
    'without autoCreateTopicEnable (or with a template that is not there) the topic does not exist',
    LIMIT,
    async () => {
      const s = await setup({ autoCreateTopicEnable: false });
      const response = await send(s, header('Fresh'));
      assertRefused(
        response,
        ResponseCode.TOPIC_NOT_EXIST,
        `topic[Fresh] not exist, apply first please!${FAQ}`,
      );
      assert.equal(s.broker.topicConfigManager.selectTopicConfig('Fresh'), undefined);
      const s2 = await setup();
      const r2 = await send(s2, header('Fresh', { defaultTopic: 'NoSuchTemplate' }));
      assertRefused(r2, ResponseCode.TOPIC_NOT_EXIST, `topic[Fresh] not exist, apply first please!${FAQ}`);
      assert.equal(s.broker.messageStore.getMaxPhyOffset(), 0n);
    },
  );

  test('bad and forbidden topic names are refused with upstream remarks', LIMIT, async () => {
    const s = await setup();
    assertRefused(
      await send(s, header('bad topic')),
      ResponseCode.SYSTEM_ERROR,
      'The specified topic contains illegal characters, allowing only ^[%|a-zA-Z0-9_-]+$',
    );
    assertRefused(
      await send(s, header('T'.repeat(128))),
      ResponseCode.SYSTEM_ERROR,
      'The specified topic is longer than topic max length.',
    );
    assertRefused(await send(s, header(' ')), ResponseCode.SYSTEM_ERROR, 'The specified topic is blank.');
    for (const topic of ['SCHEDULE_TOPIC_XXXX', 'RMQ_SYS_TRANS_HALF_TOPIC', 'OFFSET_MOVED_EVENT']) {
      assertRefused(
        await send(s, header(topic)),
        ResponseCode.NO_PERMISSION,
        `Sending message to topic[${topic}] is forbidden.`,
      );
    }
    assert.equal(s.broker.messageStore.getMaxPhyOffset(), 0n);
  });

  test('a broker without write permission refuses order topics only, as upstream', LIMIT, async () => {
    const s = await setup({ brokerPermission: PermName.PERM_READ });
    addTopic(s.broker, 'Ordered', { order: true });
    addTopic(s.broker, 'Plain');
    assertRefused(
      await send(s, header('Ordered')),
      ResponseCode.NO_PERMISSION,
      'the broker[10.0.0.7] sending message is forbidden',
    );
    // Routes show the broker read-only, so clients do not send here; the broker does not check.
    assert.equal((await send(s, header('Plain'))).code, ResponseCode.SUCCESS);
  });

  test('a queueId at or above the queue count is a SYSTEM_ERROR naming the topic config', LIMIT, async () => {
    const s = await setup();
    addTopic(s.broker, 'TopicQ', { readQueueNums: 4, writeQueueNums: 2 });
    assert.equal((await send(s, header('TopicQ', { queueId: 3 }))).code, ResponseCode.SUCCESS);
    assertRefused(
      await send(s, header('TopicQ', { queueId: 4 })),
      ResponseCode.SYSTEM_ERROR,
      'request queueId[4] is illegal, TopicConfig [topicName=TopicQ, readQueueNums=4, writeQueueNums=2, ' +
        `perm=RW-, topicFilterType=SINGLE_TAG, topicSysFlag=0, order=false] Producer: ${PRODUCER}`,
    );
    addTopic(s.broker, 'NoQueues', { readQueueNums: 0, writeQueueNums: 0 });
    assertRefused(
      await send(s, header('NoQueues', { queueId: -1 })),
      ResponseCode.SYSTEM_ERROR,
      'topic[NoQueues] has no write queue',
    );
  });
});

describe('what the store refuses', () => {
  test(
    'a body above maxMessageSize or properties above 32767 characters are MESSAGE_ILLEGAL',
    LIMIT,
    async () => {
      const s = await setup();
      addTopic(s.broker, 'TopicA');
      const remark =
        'the message is illegal, maybe msg body or properties length not matched. ' +
        `msg body length limit ${MAX_MESSAGE_SIZE}B, msg properties length limit 32KB.`;
      assertRefused(
        await send(s, header('TopicA'), Buffer.alloc(MAX_MESSAGE_SIZE + 1)),
        ResponseCode.MESSAGE_ILLEGAL,
        remark,
      );
      assertRefused(
        await send(s, header('TopicA', { properties: props({ big: 'v'.repeat(40_000) }) })),
        ResponseCode.MESSAGE_ILLEGAL,
        remark,
      );
      assert.equal(s.broker.messageStore.getMaxPhyOffset(), 0n);
      assert.equal(
        (await send(s, header('TopicA'), Buffer.alloc(MAX_MESSAGE_SIZE))).code,
        ResponseCode.SUCCESS,
      );
    },
  );

  test('a SLAVE broker answers SERVICE_NOT_AVAILABLE with the disk use', LIMIT, async () => {
    const s = await setup({ brokerRole: 'SLAVE', brokerId: 1 });
    addTopic(s.broker, 'TopicA');
    const response = await send(s, header('TopicA'));
    assertRefused(
      response,
      ResponseCode.SERVICE_NOT_AVAILABLE,
      /^service not available now\. It may be caused by one of the following reasons: the broker's disk is full \[CL: [ -]\d\.\d\d CQ: [ -]\d\.\d\d INDEX: [ -]\d\.\d\d\], messages are put to the slave, message store has been shut down, etc\.$/,
    );
    assert.equal(s.broker.messageStore.getMaxPhyOffset(), 0n);
  });

  test(
    'SYNC_FLUSH: a late fdatasync gives FLUSH_DISK_TIMEOUT with the result; WAIT=false does not wait',
    LIMIT,
    async () => {
      const root = tempRoot();
      const clock = new ManualClock();
      const io = new TestIO();
      const config = settings(root, { flushDiskType: 'SYNC_FLUSH', syncFlushTimeout: 5000 });
      const store = new DefaultMessageStore(toMessageStoreConfig(brokerConfig(config, TEST_ENV)), {
        clock,
        logger: quiet,
        commitLog: { io },
      });
      const s = await setup(config, { messageStore: store, clock });
      addTopic(s.broker, 'TopicS');
      io.holdSyncs = true;
      const pending = send(s, header('TopicS', { properties: props({ WAIT: 'true', k: 'v' }) }));
      await io.nextSync();
      clock.advance(5000);
      const late = await pending;
      assert.equal(late.code, ResponseCode.FLUSH_DISK_TIMEOUT);
      assert.equal(late.remark, undefined);
      assert.equal(late.extFields?.MSG_REGION, 'DefaultRegion');
      assert.deepEqual(result(late), {
        msgId: createOffsetMsgId(STORE_HOST, 0n),
        queueId: 0,
        queueOffset: 0n,
        transactionId: undefined,
      });
      const quick = await send(s, header('TopicS', { properties: props({ WAIT: 'false' }) }));
      assert.equal(quick.code, ResponseCode.SUCCESS, 'answered while the fdatasync is still held');
      assert.equal(result(quick).queueOffset, 1n);
      io.holdSyncs = false;
      io.releaseSyncs();
      assert.equal((await send(s, header('TopicS'))).code, ResponseCode.SUCCESS);
    },
  );
});

/** A store that answers every append with the given status. */
class StatusStore extends FakeMessageStore {
  status: PutMessageStatus = PutMessageStatus.PUT_OK;
  override putMessage(): Promise<PutMessageResult> {
    return Promise.resolve(this.result());
  }
  override putMessages(): Promise<PutMessageResult> {
    return Promise.resolve(this.result());
  }
  private result(): PutMessageResult {
    const ok = new AppendMessageResult(AppendMessageStatus.PUT_OK, 4096n, 120, 1n, 41n, 1, STORE_HOST);
    return new PutMessageResult(this.status, ok);
  }
}

test('every PutMessageStatus maps to upstream code and remark', LIMIT, async () => {
  const store = new StatusStore();
  const s = await setup({}, { messageStore: store });
  addTopic(s.broker, 'TopicA');
  const stored = {
    [PutMessageStatus.PUT_OK]: ResponseCode.SUCCESS,
    [PutMessageStatus.FLUSH_DISK_TIMEOUT]: ResponseCode.FLUSH_DISK_TIMEOUT,
    [PutMessageStatus.FLUSH_SLAVE_TIMEOUT]: ResponseCode.FLUSH_SLAVE_TIMEOUT,
    [PutMessageStatus.SLAVE_NOT_AVAILABLE]: ResponseCode.SLAVE_NOT_AVAILABLE,
  } as const;
  for (const [status, code] of Object.entries(stored)) {
    store.status = status as PutMessageStatus;
    for (const batch of [false, true]) {
      const response = await send(s, header('TopicA', { queueId: 3, batch }));
      assert.equal(response.code, code, status);
      assert.equal(response.remark, undefined);
      assert.deepEqual(result(response), {
        msgId: createOffsetMsgId(STORE_HOST, 4096n),
        queueId: 3,
        queueOffset: 41n,
        transactionId: undefined,
      });
    }
  }
  const refused: Array<[PutMessageStatus, number, string | RegExp]> = [
    [
      PutMessageStatus.CREATE_MAPEDFILE_FAILED,
      ResponseCode.SYSTEM_ERROR,
      'create mapped file failed, server is busy or broken.',
    ],
    [
      PutMessageStatus.MESSAGE_ILLEGAL,
      ResponseCode.MESSAGE_ILLEGAL,
      /msg body length limit 65536B, msg properties length limit 32KB\.$/,
    ],
    [
      PutMessageStatus.PROPERTIES_SIZE_EXCEEDED,
      ResponseCode.MESSAGE_ILLEGAL,
      /^the message is illegal, maybe msg body or properties length not matched/,
    ],
    [
      PutMessageStatus.SERVICE_NOT_AVAILABLE,
      ResponseCode.SERVICE_NOT_AVAILABLE,
      /^service not available now\./,
    ],
    [
      PutMessageStatus.OS_PAGECACHE_BUSY,
      ResponseCode.SYSTEM_ERROR,
      '[PC_SYNCHRONIZED]broker busy, start flow control for a while',
    ],
    [
      PutMessageStatus.LMQ_CONSUME_QUEUE_NUM_EXCEEDED,
      ResponseCode.SYSTEM_ERROR,
      '[LMQ_CONSUME_QUEUE_NUM_EXCEEDED]broker config enableLmq and enableMultiDispatch, lmq consumeQueue num exceed maxLmqConsumeQueueNum config num, default limit 2w.',
    ],
    [PutMessageStatus.UNKNOWN_ERROR, ResponseCode.SYSTEM_ERROR, 'UNKNOWN_ERROR'],
  ];
  for (const [status, code, remark] of refused) {
    store.status = status;
    assertRefused(await send(s, header('TopicA')), code, remark);
  }
});

describe('retry topics and the DLQ', () => {
  test('a retry message below the limit stays; at retryMaxTimes it goes to %DLQ%<group>', LIMIT, async () => {
    const s = await setup();
    const retry = '%RETRY%G1';
    const below = await send(s, header(retry, { reconsumeTimes: 15 }), 'again');
    assert.equal(below.code, ResponseCode.SUCCESS);
    assert.equal((await readQueue(s.broker, retry, 0)).length, 1);
    assert.ok(s.broker.subscriptionGroupManager.findSubscriptionGroupConfig('G1'));

    const dead = await send(s, header(retry, { queueId: 2, reconsumeTimes: 16 }), 'dead');
    assert.equal(dead.code, ResponseCode.SUCCESS);
    assert.equal(result(dead).queueId, 2, 'the queue asked for, as upstream answers');
    assert.equal(result(dead).queueOffset, 0n);
    const dlq = s.broker.topicConfigManager.selectTopicConfig('%DLQ%G1');
    assert.deepEqual(dlq, createTopicConfig('%DLQ%G1', { readQueueNums: 1, writeQueueNums: 1, perm: 6 }));
    const [inDlq] = await readQueue(s.broker, '%DLQ%G1', 0);
    assert.ok(inDlq !== undefined);
    assert.equal(inDlq.msg.body.toString(), 'dead');
    assert.equal(inDlq.msg.reconsumeTimes, 16);
    assert.equal((await readQueue(s.broker, retry, 2)).length, 0);
  });

  test("the header's maxReconsumeTimes counts from client version 3.4.9 (121) on", LIMIT, async () => {
    const s = await setup();
    const retry = '%RETRY%G2';
    const h = header(retry, { reconsumeTimes: 2, maxReconsumeTimes: 2 });
    assert.equal((await send(s, h, 'old', { version: 120 })).code, ResponseCode.SUCCESS);
    assert.equal((await readQueue(s.broker, retry, 0)).length, 1);
    assert.equal((await send(s, h, 'new', { version: 121 })).code, ResponseCode.SUCCESS);
    const [inDlq] = await readQueue(s.broker, '%DLQ%G2', 0);
    assert.equal(inDlq?.msg.body.toString(), 'new');
  });

  test('a DELAY the client sent stays on a message redirected to the DLQ, as upstream', LIMIT, async () => {
    const s = await setup();
    const response = await send(
      s,
      header('%RETRY%G3', { reconsumeTimes: 16, properties: props({ DELAY: '4' }) }),
    );
    assert.equal(response.code, ResponseCode.SUCCESS);
    const [scheduled] = await readQueue(s.broker, 'SCHEDULE_TOPIC_XXXX', 3);
    assert.equal(scheduled?.msg.getProperty('REAL_TOPIC'), '%DLQ%G3');
  });

  test(
    'an unknown group (autoCreateSubscriptionGroup off) is SUBSCRIPTION_GROUP_NOT_EXIST',
    LIMIT,
    async () => {
      const s = await setup({ autoCreateSubscriptionGroup: false });
      assertRefused(
        await send(s, header('%RETRY%Nobody', { reconsumeTimes: 1 })),
        ResponseCode.SUBSCRIPTION_GROUP_NOT_EXIST,
        `subscription group not exist, Nobody ${FAQ}`,
      );
    },
  );

  test('a retry topic is created on its own (one queue) when no template is inheritable', LIMIT, async () => {
    const s = await setup({ autoCreateTopicEnable: false });
    const response = await send(s, header('%RETRY%G4', { unitMode: true }));
    assert.equal(response.code, ResponseCode.SUCCESS);
    assert.deepEqual(
      s.broker.topicConfigManager.selectTopicConfig('%RETRY%G4'),
      createTopicConfig('%RETRY%G4', {
        readQueueNums: 1,
        writeQueueNums: 1,
        perm: 6,
        topicSysFlag: TopicSysFlag.FLAG_UNIT_SUB,
      }),
    );
  });
});

describe('transaction messages', () => {
  test('a prepared message is refused when rejectTransactionMessage is set', LIMIT, async () => {
    const s = await setup({ rejectTransactionMessage: true });
    addTopic(s.broker, 'TopicT');
    assertRefused(
      await send(s, header('TopicT', { properties: props({ TRAN_MSG: 'TRUE' }) })),
      ResponseCode.NO_PERMISSION,
      'the broker[10.0.0.7] sending transaction message is forbidden',
    );
    assert.equal((await send(s, header('TopicT', { properties: props({ TRAN_MSG: 'no' }) }))).code, 0);
  });

  test('a prepared message is stored as a half message', LIMIT, async () => {
    const s = await setup();
    addTopic(s.broker, 'TopicT');
    const response = await send(
      s,
      header('TopicT', {
        queueId: 3,
        sysFlag: MessageSysFlag.TRANSACTION_PREPARED_TYPE,
        properties: props({ TRAN_MSG: 'true', PGROUP: 'PG', WAIT: 'true', UNIQ_KEY: 'U1' }),
      }),
    );
    assert.equal(response.code, ResponseCode.SUCCESS);
    assert.equal(result(response).queueId, 3);
    const [half] = await readQueue(s.broker, 'RMQ_SYS_TRANS_HALF_TOPIC', 0);
    assert.ok(half !== undefined);
    assert.equal(half.msg.sysFlag & MessageSysFlag.TRANSACTION_ROLLBACK_TYPE, 0);
    assert.deepEqual(storedProperties(half.msg), {
      TRAN_MSG: 'true',
      PGROUP: 'PG',
      WAIT: 'true',
      UNIQ_KEY: 'U1',
      CLUSTER: 'DefaultCluster',
      REAL_TOPIC: 'TopicT',
      REAL_QID: '3',
    });
    assert.equal((await readQueue(s.broker, 'TopicT', 3)).length, 0);
  });
});

describe('batches', () => {
  function batchBody(n: number, topic = 'TopicBatch'): Buffer {
    const messages: Message[] = [];
    for (let i = 0; i < n; i++) {
      const m = new Message(topic, Buffer.from(`b${i}`), { tags: `T${i}`, keys: `key${i}`, flag: i });
      m.putProperty('UNIQ_KEY', `U${i}`);
      messages.push(m);
    }
    return encodeBatch(messages);
  }

  test(
    'SEND_BATCH_MESSAGE stores every message with the batch properties and answers all ids',
    LIMIT,
    async () => {
      const s = await setup();
      addTopic(s.broker, 'TopicBatch');
      const response = await send(
        s,
        header('TopicBatch', { batch: true, queueId: 1, properties: props({ WAIT: 'true' }) }),
        batchBody(3),
        { code: RequestCode.SEND_BATCH_MESSAGE },
      );
      assert.equal(response.code, ResponseCode.SUCCESS);
      const r = result(response);
      assert.equal(r.queueId, 1);
      assert.equal(r.queueOffset, 0n);
      const stored = await readQueue(s.broker, 'TopicBatch', 1);
      assert.equal(stored.length, 3);
      assert.equal(r.msgId, stored.map((x) => x.msg.offsetMsgId).join(','));
      stored.forEach(({ msg, tagsCode }, i) => {
        assert.equal(msg.body.toString(), `b${i}`);
        assert.equal(msg.flag, i);
        assert.equal(msg.queueOffset, BigInt(i));
        assert.deepEqual(msg.bornHost, { address: '10.0.0.9', port: 50000 });
        assert.deepEqual(storedProperties(msg), {
          TAGS: `T${i}`,
          KEYS: `key${i}`,
          WAIT: 'true',
          UNIQ_KEY: `U${i}`,
          CLUSTER: 'DefaultCluster',
        });
        assert.equal(tagsCode, tagsString2tagsCode(`T${i}`));
      });
    },
  );

  test('the batch flag, not the code, picks the path', LIMIT, async () => {
    const s = await setup();
    addTopic(s.broker, 'TopicBatch');
    const viaV1 = await send(s, header('TopicBatch', { batch: true }), batchBody(2), {
      code: RequestCode.SEND_MESSAGE,
    });
    assert.equal(viaV1.code, ResponseCode.SUCCESS);
    assert.equal(result(viaV1).msgId.split(',').length, 2);
    const single = await send(s, header('TopicBatch', { batch: false }), 'plain', {
      code: RequestCode.SEND_BATCH_MESSAGE,
    });
    assert.equal(single.code, ResponseCode.SUCCESS);
    const stored = await readQueue(s.broker, 'TopicBatch', 0);
    assert.deepEqual(
      stored.map((x) => x.msg.body.toString()),
      ['b0', 'b1', 'plain'],
    );
  });

  test('batch refusals: retry topic, bad queueId, malformed body, delay level', LIMIT, async () => {
    const s = await setup();
    addTopic(s.broker, 'TopicBatch');
    const code = { code: RequestCode.SEND_BATCH_MESSAGE };
    assertRefused(
      await send(s, header('%RETRY%G', { batch: true }), batchBody(1), code),
      ResponseCode.MESSAGE_ILLEGAL,
      'batch request does not support retry group %RETRY%G',
    );
    assertRefused(
      await send(s, header('TopicBatch', { batch: true, queueId: 9 }), batchBody(1), code),
      ResponseCode.SYSTEM_ERROR,
      /^request queueId\[9\] is illegal, TopicConfig \[topicName=TopicBatch/,
    );
    const illegal = /^the message is illegal/;
    assertRefused(
      await send(s, header('TopicBatch', { batch: true }), batchBody(2).subarray(0, 30), code),
      ResponseCode.MESSAGE_ILLEGAL,
      illegal,
    );
    assertRefused(
      await send(
        s,
        header('TopicBatch', { batch: true, properties: props({ DELAY: '2' }) }),
        batchBody(1),
        code,
      ),
      ResponseCode.MESSAGE_ILLEGAL,
      illegal,
    );
    assert.equal(s.broker.messageStore.getMaxPhyOffset(), 0n);
    const random = await send(s, header('TopicBatch', { batch: true, queueId: -1 }), batchBody(2), code);
    assert.equal(random.code, ResponseCode.SUCCESS);
    assert.equal((await readQueue(s.broker, 'TopicBatch', result(random).queueId)).length, 2);
  });
});

describe('rewriteProperties', () => {
  const S = '\u0002';
  const N = '\u0001';
  const drop = ['WAIT', 'CLUSTER'];
  const add = `CLUSTER${N}c`;

  test('drops named entries wherever they are and appends', () => {
    assert.equal(rewriteProperties('', drop, add), add);
    assert.equal(rewriteProperties(`a${N}1`, drop, add), `a${N}1${S}${add}`);
    assert.equal(rewriteProperties(`WAIT${N}true`, drop, add), add);
    assert.equal(rewriteProperties(`WAIT${N}true${S}a${N}1`, drop, add), `a${N}1${S}${add}`);
    assert.equal(rewriteProperties(`a${N}1${S}WAIT${N}true`, drop, add), `a${N}1${S}${add}`);
    assert.equal(
      rewriteProperties(`a${N}1${S}CLUSTER${N}x${S}b${N}2${S}WAIT${N}false${S}c${N}3`, drop, add),
      `a${N}1${S}b${N}2${S}c${N}3${S}${add}`,
    );
  });

  test('only whole names count, and entries the parser skips stay as sent', () => {
    assert.equal(
      rewriteProperties(`WAITING${N}1${S}XWAIT${N}2`, drop, add),
      `WAITING${N}1${S}XWAIT${N}2${S}${add}`,
    );
    assert.equal(rewriteProperties(`WAIT${S}x${N}${S}WAIT${N}`, drop, add), `WAIT${S}x${N}${S}${add}`);
    assert.equal(rewriteProperties(`${S}a${N}1`, drop, add), `${S}a${N}1${S}${add}`);
  });
});
