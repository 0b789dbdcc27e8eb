/**
 * The transactional producer against our name server and broker (which implements END_TRANSACTION
 * and the check service): COMMIT is delivered once, ROLLBACK never, UNKNOW is settled by the
 * checkListener either way, throwing listeners give UNKNOW with upstream's remarks, a stored but not
 * SEND_OK half message is rolled back without running the local transaction, and shutdown in the
 * middle of a check lets it answer and drops the queued ones. Every END_TRANSACTION the broker
 * processed is recorded by wrapping its real handler; check passes are started by the test (the
 * broker's own timer is left at its default minute, so it never runs during a test).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { BrokerController } from '../../../src/broker/broker-controller.js';
import {
  createTransactionProducer,
  LocalTransactionState,
  type TransactionCheckListener,
  type TransactionProducer,
  type TransactionProducerOptions,
} from '../../../src/client/index.js';
import type { Logger } from '../../../src/common/logger.js';
import type { MessageExt } from '../../../src/common/message/message.js';
import { MessageConst } from '../../../src/common/message/message-const.js';
import { decodeOffsetMsgId } from '../../../src/common/message/message-id.js';
import { MessageQueue } from '../../../src/common/message/message-queue.js';
import { MessageSysFlag } from '../../../src/common/message/sysflag.js';
import type { RemotingCommand } from '../../../src/remoting/protocol/command.js';
import { decodeHeader, type HeaderOf } from '../../../src/remoting/protocol/header-schema.js';
import { EndTransactionRequestHeader } from '../../../src/remoting/protocol/headers/end-transaction-request-header.js';
import { RequestCode } from '../../../src/remoting/protocol/request-code.js';
import { ResponseCode } from '../../../src/remoting/protocol/response-code.js';
import {
  capturingLogger,
  createTopic,
  queueMessages,
  quiet,
  startCluster,
  storedCount,
  type TestCluster,
  turns,
  uniqueName,
  until,
  wrapHandler,
} from './support.js';

const { TRANSACTION_COMMIT_TYPE, TRANSACTION_ROLLBACK_TYPE, TRANSACTION_NOT_TYPE } = MessageSysFlag;

interface EndSeen {
  readonly header: HeaderOf<typeof EndTransactionRequestHeader>;
  readonly remark: string | undefined;
}

let cluster: TestCluster;
let broker: BrokerController;
/** END_TRANSACTION requests the broker has finished processing, in order. */
const ends: EndSeen[] = [];

before(async () => {
  // Half messages are checked at once when a test starts a pass, as often as the test needs.
  cluster = await startCluster({ transactionTimeOut: 0, transactionCheckMax: 1000 });
  broker = cluster.brokers[0] as BrokerController;
  wrapHandler(broker, RequestCode.END_TRANSACTION, (real) => async (b, ctx, request) => {
    const response = await real(b, ctx, request);
    ends.push({
      header: decodeHeader(EndTransactionRequestHeader, request.extFields),
      remark: request.remark,
    });
    return response;
  });
});

after(async () => {
  await cluster?.close();
});

function endsOf(group: string, fromCheck: boolean): EndSeen[] {
  return ends.filter((e) => e.header.producerGroup === group && e.header.fromTransactionCheck === fromCheck);
}

/** The END_TRANSACTION number `n` (from 1) of `group`, once the broker has processed it. */
function nthEnd(group: string, fromCheck: boolean, n: number): Promise<EndSeen> {
  return until(
    () => endsOf(group, fromCheck)[n - 1],
    `END_TRANSACTION #${n} of ${group} (fromTransactionCheck ${fromCheck})`,
  );
}

interface Harness {
  readonly producer: TransactionProducer;
  readonly group: string;
  readonly topic: string;
  /** Messages the checkListener was asked about, in order. */
  readonly checked: MessageExt[];
  /** CHECK_TRANSACTION_STATE requests the producer's client has dispatched. */
  readonly checksArrived: () => number;
}

/**
 * A started producer of a fresh group (and client instance) with its own topic; `answer` is the
 * checkListener's body.
 */
async function harness(
  answer: (msg: MessageExt) => Promise<LocalTransactionState> | LocalTransactionState,
  extra: Partial<TransactionProducerOptions> & { logger?: Logger } = {},
): Promise<Harness> {
  const group = uniqueName('tx-pg');
  const topic = uniqueName('TopicTx');
  await createTopic(cluster, topic, 4);
  const checked: MessageExt[] = [];
  let arrived = 0;
  const checkListener: TransactionCheckListener = (msg) => {
    checked.push(msg);
    return answer(msg);
  };
  const producer = createTransactionProducer({
    namesrvAddr: cluster.namesrvAddr,
    producerGroup: group,
    instanceName: uniqueName('tx'),
    logger: quiet,
    checkListener,
    rpcHook: {
      doBeforeRequest() {},
      doAfterResponse(_addr: string, request: RemotingCommand) {
        if (request.code === RequestCode.CHECK_TRANSACTION_STATE) arrived += 1;
      },
    },
    ...extra,
  });
  await producer.start();
  return { producer, group, topic, checked, checksArrived: () => arrived };
}

/** The broker can ask `group` once the producer's first heartbeat (a second after start) is in. */
async function brokerKnows(group: string): Promise<void> {
  await until(() => broker.producerManager.getAvailableChannel(group), `a heartbeat of ${group}`);
}

/**
 * Starts check passes until `done()` holds, giving each pass's checks time to be answered before
 * the next (a pass re-checks every half message still open).
 */
async function checkUntil(done: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    await broker.transactionalMessageCheckService.check();
    const passEnds = Date.now() + 300;
    while (Date.now() < passEnds) {
      if (done()) return;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }
  assert.fail(`never happened within 10 s of check passes: ${what}`);
}

/**
 * A round trip to the broker on the producer's connection: a check the broker wrote before it has
 * been read and dispatched by the time this resolves.
 */
async function barrier(h: Harness): Promise<void> {
  await h.producer.maxOffset(new MessageQueue(h.topic, 'broker-a', 0));
}

test('COMMIT: the local transaction sees the half message, END_TRANSACTION names it, consumers get it once', async () => {
  const h = await harness(() => LocalTransactionState.ROLLBACK_MESSAGE);
  try {
    let seen:
      | { arg: unknown; tranMsg: string | undefined; pgroup: string | undefined; delay: string | undefined }
      | undefined;
    const arg = { orderId: 42 };
    const r = await h.producer.sendMessageInTransaction(
      { topic: h.topic, body: 'order 42', tags: 'TagTx', keys: 'order-42', delayTimeLevel: 3 },
      async (msg, a) => {
        seen = {
          arg: a,
          tranMsg: msg.getProperty(MessageConst.PROPERTY_TRANSACTION_PREPARED),
          pgroup: msg.getProperty(MessageConst.PROPERTY_PRODUCER_GROUP),
          delay: msg.getProperty(MessageConst.PROPERTY_DELAY_TIME_LEVEL),
        };
        assert.equal(msg.transactionId, msg.getProperty(MessageConst.PROPERTY_UNIQ_CLIENT_MESSAGE_ID_KEYIDX));
        return LocalTransactionState.COMMIT_MESSAGE;
      },
      arg,
    );
    assert.equal(r.sendStatus, 'SEND_OK');
    assert.equal(r.localTransactionState, 'COMMIT_MESSAGE');
    assert.equal(r.messageQueue.topic, h.topic);
    assert.equal(r.transactionId, r.msgId, 'the broker gives no transaction id: UNIQ_KEY');
    assert.ok(seen);
    assert.equal(seen.arg, arg);
    assert.equal(seen.tranMsg, 'true');
    assert.equal(seen.pgroup, h.group);
    assert.equal(seen.delay, undefined, 'the delay level is ignored');

    const end = await nthEnd(h.group, false, 1);
    assert.deepEqual(end.header, {
      producerGroup: h.group,
      tranStateTableOffset: r.queueOffset,
      commitLogOffset: decodeOffsetMsgId(r.offsetMsgId).offset,
      commitOrRollback: TRANSACTION_COMMIT_TYPE,
      fromTransactionCheck: false,
      msgId: r.msgId,
      transactionId: r.msgId,
      bname: 'broker-a',
    });
    assert.equal(end.remark, undefined);

    const [stored] = await queueMessages(broker, h.topic, r.messageQueue.queueId, 1);
    assert.ok(stored);
    assert.equal(stored.body.toString(), 'order 42');
    assert.equal(stored.keys, 'order-42');
    assert.equal(stored.tags, 'TagTx');
    assert.equal(stored.msgId, r.msgId);
    assert.equal(stored.getProperty(MessageConst.PROPERTY_DELAY_TIME_LEVEL), undefined);

    // A committed transaction is never asked about, nor delivered twice.
    await broker.transactionalMessageCheckService.check();
    await barrier(h);
    await turns();
    assert.equal(h.checksArrived(), 0);
    assert.equal(h.checked.length, 0);
    assert.equal(storedCount(broker, h.topic), 1n);
  } finally {
    await h.producer.shutdown();
  }
});

test('ROLLBACK: END_TRANSACTION rolls the half message back; nothing is delivered or checked', async () => {
  const h = await harness(() => LocalTransactionState.COMMIT_MESSAGE);
  try {
    const r = await h.producer.sendMessageInTransaction(
      { topic: h.topic, body: 'never' },
      () => LocalTransactionState.ROLLBACK_MESSAGE,
    );
    assert.equal(r.localTransactionState, 'ROLLBACK_MESSAGE');
    const end = await nthEnd(h.group, false, 1);
    assert.equal(end.header.commitOrRollback, TRANSACTION_ROLLBACK_TYPE);
    assert.equal(end.header.tranStateTableOffset, r.queueOffset);
    await brokerKnows(h.group);
    await broker.transactionalMessageCheckService.check();
    await barrier(h);
    await turns();
    assert.equal(h.checksArrived(), 0, 'a rolled back transaction is not checked');
    assert.equal(storedCount(broker, h.topic), 0n);
  } finally {
    await h.producer.shutdown();
  }
});

test('UNKNOW, then the checkListener commits: delivered once, answered with fromTransactionCheck', async () => {
  const h = await harness(() => LocalTransactionState.COMMIT_MESSAGE);
  try {
    const r = await h.producer.sendMessageInTransaction(
      { topic: h.topic, body: 'decided later', keys: 'k-later' },
      async () => LocalTransactionState.UNKNOW,
    );
    assert.equal(r.localTransactionState, 'UNKNOW');
    const first = await nthEnd(h.group, false, 1);
    assert.equal(first.header.commitOrRollback, TRANSACTION_NOT_TYPE);
    assert.equal(first.remark, undefined);
    assert.equal(storedCount(broker, h.topic), 0n, 'not visible before the check');

    await brokerKnows(h.group);
    await checkUntil(() => endsOf(h.group, true).length > 0, 'an answer to a check');
    const msg = h.checked[0];
    assert.ok(msg);
    assert.equal(msg.topic, h.topic, 'the listener sees the real topic');
    assert.equal(msg.transactionId, r.msgId);
    assert.equal(msg.msgId, r.msgId);
    assert.equal(msg.keys, 'k-later');
    assert.equal(msg.body.toString(), 'decided later');
    const answer = await nthEnd(h.group, true, 1);
    assert.equal(answer.header.commitOrRollback, TRANSACTION_COMMIT_TYPE);
    assert.equal(answer.header.msgId, r.msgId);
    assert.equal(answer.header.transactionId, r.msgId);
    assert.equal(answer.header.commitLogOffset, msg.commitLogOffset, 'the copy the check named');
    assert.equal(answer.remark, undefined);

    const [stored] = await queueMessages(broker, h.topic, r.messageQueue.queueId, 1);
    assert.equal(stored?.msgId, r.msgId);
    assert.equal(stored?.body.toString(), 'decided later');
    const asked = h.checksArrived();
    await broker.transactionalMessageCheckService.check();
    await barrier(h);
    await turns();
    assert.equal(h.checksArrived(), asked, 'settled: not asked again');
    assert.equal(storedCount(broker, h.topic), 1n);
  } finally {
    await h.producer.shutdown();
  }
});

test('UNKNOW, then the checkListener rolls back: never delivered', async () => {
  const h = await harness(() => LocalTransactionState.ROLLBACK_MESSAGE);
  try {
    const r = await h.producer.sendMessageInTransaction({ topic: h.topic, body: 'undone' }, () => 'UNKNOW');
    assert.equal(r.localTransactionState, 'UNKNOW');
    await brokerKnows(h.group);
    await checkUntil(() => endsOf(h.group, true).length > 0, 'an answer to a check');
    const answer = await nthEnd(h.group, true, 1);
    assert.equal(answer.header.commitOrRollback, TRANSACTION_ROLLBACK_TYPE);
    assert.equal(answer.header.msgId, r.msgId);
    const asked = h.checksArrived();
    await broker.transactionalMessageCheckService.check();
    await barrier(h);
    await turns();
    assert.equal(h.checksArrived(), asked, 'settled: not asked again');
    assert.equal(storedCount(broker, h.topic), 0n);
  } finally {
    await h.producer.shutdown();
  }
});

test("throwing or wrong listeners give UNKNOW with upstream's remarks; a later answer still settles it", async () => {
  const answers: Array<() => LocalTransactionState> = [
    () => {
      throw new Error('still down');
    },
    () => 'yes' as LocalTransactionState,
    () => LocalTransactionState.COMMIT_MESSAGE,
  ];
  const h = await harness(async () => {
    const next = answers.shift() ?? (() => LocalTransactionState.COMMIT_MESSAGE);
    return next();
  });
  try {
    const r = await h.producer.sendMessageInTransaction({ topic: h.topic, body: 'flaky' }, async () => {
      throw new Error('db down');
    });
    assert.equal(r.sendStatus, 'SEND_OK');
    assert.equal(r.localTransactionState, 'UNKNOW');
    const first = await nthEnd(h.group, false, 1);
    assert.equal(first.header.commitOrRollback, TRANSACTION_NOT_TYPE);
    assert.equal(first.remark, 'executeLocalTransactionBranch exception: Error: db down');

    await brokerKnows(h.group);
    await checkUntil(() => endsOf(h.group, true).length >= 1, 'the answer of a throwing listener');
    const thrown = await nthEnd(h.group, true, 1);
    assert.equal(thrown.header.commitOrRollback, TRANSACTION_NOT_TYPE);
    assert.match(thrown.remark ?? '', /^checkLocalTransactionState Exception: Error: still down, \S/);

    await checkUntil(() => endsOf(h.group, true).length >= 2, 'the answer of a listener returning garbage');
    const garbage = await nthEnd(h.group, true, 2);
    assert.equal(garbage.header.commitOrRollback, TRANSACTION_NOT_TYPE);
    assert.match(garbage.remark ?? '', /checkListener returned "yes", not COMMIT_MESSAGE/);
    assert.equal(storedCount(broker, h.topic), 0n, 'UNKNOW keeps it invisible');

    await checkUntil(() => endsOf(h.group, true).length >= 3, 'the committing answer');
    const committed = await nthEnd(h.group, true, 3);
    assert.equal(committed.header.commitOrRollback, TRANSACTION_COMMIT_TYPE);
    const [stored] = await queueMessages(broker, h.topic, r.messageQueue.queueId, 1);
    assert.equal(stored?.msgId, r.msgId);
  } finally {
    await h.producer.shutdown();
  }
});

test('a half message stored without SEND_OK is rolled back without running the local transaction', async () => {
  const h = await harness(() => LocalTransactionState.COMMIT_MESSAGE);
  wrapHandler(broker, RequestCode.SEND_MESSAGE_V2, (real) => async (b, ctx, request) => {
    const response = await real(b, ctx, request);
    if (response.code === ResponseCode.SUCCESS) response.code = ResponseCode.FLUSH_DISK_TIMEOUT;
    return response;
  });
  try {
    let ran = false;
    const r = await h.producer.sendMessageInTransaction({ topic: h.topic, body: 'not flushed' }, () => {
      ran = true;
      return LocalTransactionState.COMMIT_MESSAGE;
    });
    assert.equal(r.sendStatus, 'FLUSH_DISK_TIMEOUT');
    assert.equal(r.localTransactionState, 'ROLLBACK_MESSAGE');
    assert.equal(ran, false);
    const end = await nthEnd(h.group, false, 1);
    assert.equal(end.header.commitOrRollback, TRANSACTION_ROLLBACK_TYPE);
    assert.equal(end.remark, undefined);
    assert.equal(storedCount(broker, h.topic), 0n);
  } finally {
    wrapHandler(broker, RequestCode.SEND_MESSAGE_V2, (real) => real);
    await h.producer.shutdown();
  }
});

test('shutdown during a check: the running check answers, queued checks are dropped, later ones ignored', async () => {
  let release!: (state: LocalTransactionState) => void;
  const held = new Promise<LocalTransactionState>((resolve) => {
    release = resolve;
  });
  const { logger, records } = capturingLogger();
  const h = await harness(() => held, { logger });
  const first = await h.producer.sendMessageInTransaction({ topic: h.topic, body: 'one' }, () => 'UNKNOW');
  const second = await h.producer.sendMessageInTransaction({ topic: h.topic, body: 'two' }, () => 'UNKNOW');
  await brokerKnows(h.group);
  // With one check slot (the default), the first check holds it and every later one waits.
  await checkUntil(() => h.checked.length === 1, 'the first check');
  await checkUntil(() => h.checksArrived() >= 2, 'a check waiting behind the first');
  await barrier(h);
  assert.equal(h.checked.length, 1);
  const waiting = h.checksArrived() - 1;

  let stopped = false;
  const stopping = h.producer.shutdown().then(() => {
    stopped = true;
  });
  // Checks coming in now are turned away: the producer no longer takes any.
  await checkUntil(
    () => records.some((r) => r.msg.startsWith('transaction check ignored: the producer is shutting down')),
    'a check arriving during shutdown',
  );
  await barrier(h);
  await turns();
  assert.equal(stopped, false, 'shutdown waits for the running check');
  release(LocalTransactionState.COMMIT_MESSAGE);
  await stopping;

  assert.equal(h.checked.length, 1, 'queued checks never ran');
  const dropped = records.find((r) => r.msg.startsWith('transaction checks dropped at shutdown'));
  assert.equal(dropped?.fields?.dropped, waiting);
  const answer = await nthEnd(h.group, true, 1);
  assert.equal(answer.header.commitOrRollback, TRANSACTION_COMMIT_TYPE);
  const decided = h.checked[0]?.msgId;
  assert.ok(decided === first.msgId || decided === second.msgId);
  const queueId = decided === first.msgId ? first.messageQueue.queueId : second.messageQueue.queueId;
  const [stored] = await queueMessages(broker, h.topic, queueId, 1);
  assert.equal(stored?.msgId, decided);
  assert.equal(storedCount(broker, h.topic), 1n, 'the other transaction stays open');
  assert.equal(endsOf(h.group, true).length, 1);
});
