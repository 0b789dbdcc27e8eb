/**
 * The ScheduleMessageService inside a started broker over a real store in a temp dir, time driven by
 * a ManualClock: delayed messages reach their real topic and queue exactly when due and in queue
 * order, far-future times are corrected, failed puts are retried without loss or skip, progress
 * survives a restart through delayOffset.json (also one in the official broker's format), and
 * GET_BROKER_RUNTIME_INFO reports it.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, test } from 'node:test';
import type { BrokerController } from '../../../src/broker/broker-controller.js';
import { Stats } from '../../../src/broker/stats/stats-names.js';
import { tagsString2tagsCode } from '../../../src/common/message/tag-hash.js';
import { decodeKVTable } from '../../../src/common/protocol/kv-table.js';
import { createRequest } from '../../../src/remoting/protocol/command.js';
import { RequestCode } from '../../../src/remoting/protocol/request-code.js';
import { ResponseCode } from '../../../src/remoting/protocol/response-code.js';
import { DefaultMessageStore } from '../../../src/store/default-message-store.js';
import { PutMessageResult, PutMessageStatus } from '../../../src/store/put-message-result.js';
import {
  decodeDelayOffsetTable,
  delayOffsetStorePath,
  encodeDelayOffsetTable,
} from '../../../src/store/schedule/delay-offset-table.js';
import type { ScheduleMessageService } from '../../../src/store/schedule/schedule-message-service.js';
import type { MessageExtBrokerInner } from '../../../src/store/stored-record-writer.js';
import { type MsgInit, msg } from '../store/default-message-store-support.js';
import { ManualClock, MemoryFileIO } from './helpers.js';
import {
  cleanUp,
  putMessage,
  quiesce,
  type RunningBroker,
  readQueue,
  SCHEDULE_TOPIC,
  startBroker,
  stopBroker,
  T0,
  tempRoot,
  until,
  untilQueueHas,
} from './schedule-support.js';

const LIMIT = { timeout: 20_000 };
const TOPIC = 'TopicTest';

afterEach(cleanUp);

/** Message `i` for TopicTest/`queueId` with DELAY=`level`. */
function delayed(i: number, level: number, init: MsgInit = {}): MessageExtBrokerInner {
  return msg(i, { topic: TOPIC, queueId: 1, ...init, extra: { DELAY: String(level), ...init.extra } });
}

function service(b: RunningBroker): ScheduleMessageService {
  const s = b.broker.scheduleMessageService;
  assert.ok(s);
  return s;
}

async function idxOf(broker: BrokerController, topic: string, queueId: number): Promise<string[]> {
  return (await readQueue(broker, topic, queueId)).map((e) => e.msg.properties.get('idx') ?? '?');
}

function officialFile(entries: string): string {
  // fastjson 1.2.69 PrettyFormat of DelayOffsetSerializeWrapper, as the Java broker writes it.
  return `{\n\t"offsetTable":{${entries}\n\t}\n}`;
}

describe('delivery', () => {
  test('each level delivers exactly at the deliver time, in queue order', LIMIT, async () => {
    const b = await startBroker();
    await putMessage(b.broker, delayed(0, 2)); // due T0 + 5 s
    b.clock.advance(1000);
    await putMessage(b.broker, delayed(1, 2)); // due T0 + 6 s
    await putMessage(b.broker, delayed(2, 1)); // due T0 + 2 s
    b.clock.advance(1000);
    await putMessage(b.broker, delayed(3, 2)); // due T0 + 7 s
    assert.equal(b.broker.messageStore.getMaxOffsetInQueue(SCHEDULE_TOPIC, 1), 3n);
    assert.equal(b.broker.messageStore.getMaxOffsetInQueue(SCHEDULE_TOPIC, 0), 1n);

    await untilQueueHas(b.broker, TOPIC, 1, 1);
    assert.deepEqual(await idxOf(b.broker, TOPIC, 1), ['2'], 'level 1 is due at T0 + 2 s');

    b.clock.advance(2_999); // T0 + 4999
    await quiesce();
    assert.deepEqual(await idxOf(b.broker, TOPIC, 1), ['2']);
    b.clock.advance(1); // T0 + 5 s
    await untilQueueHas(b.broker, TOPIC, 1, 2);
    b.clock.advance(999);
    await quiesce();
    assert.deepEqual(await idxOf(b.broker, TOPIC, 1), ['2', '0']);
    b.clock.advance(1); // T0 + 6 s
    await untilQueueHas(b.broker, TOPIC, 1, 3);
    b.clock.advance(1000); // T0 + 7 s
    await untilQueueHas(b.broker, TOPIC, 1, 4);
    assert.deepEqual(await idxOf(b.broker, TOPIC, 1), ['2', '0', '1', '3']);
    assert.deepEqual(
      service(b).offsets(),
      new Map([
        [1, 1n],
        [2, 3n],
      ]),
    );
  });

  test(
    'the delivered message is the stored one in its real topic and queue, DELAY kept as upstream keeps it',
    LIMIT,
    async () => {
      const b = await startBroker();
      const m = delayed(5, 1, { tag: 'TagX', queueId: 3, extra: { a: 'b' } });
      m.flag = 9;
      m.reconsumeTimes = 2;
      await putMessage(b.broker, m);
      const stored = (await readQueue(b.broker, SCHEDULE_TOPIC, 0))[0];
      assert.ok(stored);
      b.clock.advance(1000);
      await untilQueueHas(b.broker, TOPIC, 3, 1);
      const got = (await readQueue(b.broker, TOPIC, 3))[0];
      assert.ok(got);
      assert.equal(got.msg.queueId, 3);
      assert.equal(got.msg.flag, 9);
      assert.equal(got.msg.reconsumeTimes, 2);
      assert.equal(got.msg.body.toString(), 'body-5');
      assert.equal(got.msg.bornTimestamp, stored.msg.bornTimestamp);
      assert.deepEqual(got.msg.bornHost, stored.msg.bornHost);
      assert.deepEqual(got.msg.storeHost, stored.msg.storeHost);
      assert.equal(got.tagsCode, tagsString2tagsCode('TagX'));
      assert.deepEqual(Object.fromEntries(got.msg.properties), Object.fromEntries(stored.msg.properties));
      assert.equal(got.msg.delayTimeLevel, 1);
      assert.equal(got.msg.properties.get('REAL_TOPIC'), TOPIC);
      assert.equal(got.msg.properties.get('REAL_QID'), '3');
      // Counted as upstream's enableScheduleMessageStats does.
      const stats = b.broker.brokerStatsManager;
      assert.equal(stats.getStatsItem(Stats.TOPIC_PUT_NUMS, TOPIC)?.value, 1);
      assert.equal(stats.getStatsItem(Stats.GROUP_GET_NUMS, `${SCHEDULE_TOPIC}@SCHEDULE_CONSUMER`)?.value, 1);
      assert.equal(
        stats.getStatsItem(Stats.QUEUE_GET_NUMS, `${SCHEDULE_TOPIC}@0@SCHEDULE_CONSUMER`)?.value,
        1,
      );
    },
  );

  test('more due messages than one batch all go, in order', LIMIT, async () => {
    const b = await startBroker();
    const puts: Array<Promise<bigint>> = [];
    for (let i = 0; i < 100; i++) puts.push(putMessage(b.broker, delayed(i, 1)));
    await Promise.all(puts);
    b.clock.advance(1000);
    await untilQueueHas(b.broker, TOPIC, 1, 100);
    const idx = await idxOf(b.broker, TOPIC, 1);
    assert.deepEqual(
      idx,
      Array.from({ length: 100 }, (_, i) => String(i)),
    );
    assert.equal(service(b).offsets().get(1), 100n);
    await quiesce();
    assert.equal(b.broker.messageStore.getMaxOffsetInQueue(TOPIC, 1), 100n, 'none twice');
  });

  test('a deliver time further ahead than the level delay is corrected to now', LIMIT, async () => {
    const root = tempRoot();
    const io = new MemoryFileIO();
    // Written while the clock was an hour ahead: due at T0 + 1 h + 1 s.
    const a = await startBroker({ root, io, clock: new ManualClock(T0 + 3_600_000) });
    await putMessage(a.broker, delayed(0, 1));
    await stopBroker(a);

    const b = await startBroker({ root, io, clock: new ManualClock(T0) });
    // A message within the level's delay keeps its time.
    await putMessage(b.broker, delayed(1, 2)); // due T0 + 5 s
    b.clock.advance(1000); // the first look, 1 s after start
    await untilQueueHas(b.broker, TOPIC, 1, 1);
    assert.deepEqual(await idxOf(b.broker, TOPIC, 1), ['0']);
    b.clock.advance(3_999);
    await quiesce();
    assert.deepEqual(await idxOf(b.broker, TOPIC, 1), ['0']);
    b.clock.advance(1);
    await untilQueueHas(b.broker, TOPIC, 1, 2);
  });

  test('a failed put is retried DELAY_FOR_A_WHILE later; nothing is lost or skipped', LIMIT, async () => {
    const b = await startBroker();
    await putMessage(b.broker, delayed(0, 1));
    await putMessage(b.broker, delayed(1, 1));
    const store = b.broker.messageStore;
    assert.ok(store instanceof DefaultMessageStore);
    const real = store.putMessage.bind(store);
    let refusals = 2;
    let attempts = 0;
    store.putMessage = (m) => {
      if (m.topic !== TOPIC) return real(m);
      attempts++;
      if (refusals > 0) {
        refusals--;
        return Promise.resolve(new PutMessageResult(PutMessageStatus.OS_PAGECACHE_BUSY));
      }
      return real(m);
    };
    b.clock.advance(1000);
    await until(() => attempts >= 2, 'the first batch');
    await quiesce();
    assert.equal(b.broker.messageStore.getMaxOffsetInQueue(TOPIC, 1), 0n);
    assert.equal(service(b).offsets().get(1), undefined, 'the offset waits for the put');
    b.clock.advance(99);
    await quiesce();
    assert.equal(attempts, 2, 'not before DELAY_FOR_A_WHILE');
    b.clock.advance(1);
    await untilQueueHas(b.broker, TOPIC, 1, 2);
    assert.deepEqual(await idxOf(b.broker, TOPIC, 1), ['0', '1']);
    assert.equal(attempts, 4);
    assert.equal(service(b).offsets().get(1), 2n);
  });

  test('a message that cannot be delivered is passed over, the next one is not', LIMIT, async () => {
    const b = await startBroker();
    // Straight into the schedule queue, without REAL_TOPIC; its tag code (deliver time) is now.
    const broken: MessageExtBrokerInner = {
      ...msg(0, { topic: SCHEDULE_TOPIC, queueId: 0 }),
      tagsCode: BigInt(T0),
    };
    await putMessage(b.broker, broken);
    // The commit log takes the half topic as any other; its delayed message must not go there.
    await putMessage(b.broker, msg(1, { topic: 'RMQ_SYS_TRANS_HALF_TOPIC', extra: { DELAY: '1' } }));
    await putMessage(b.broker, delayed(2, 1));
    assert.equal(b.broker.messageStore.getMaxOffsetInQueue(SCHEDULE_TOPIC, 0), 3n);
    b.clock.advance(1000);
    await untilQueueHas(b.broker, TOPIC, 1, 1);
    assert.deepEqual(await idxOf(b.broker, TOPIC, 1), ['2']);
    assert.equal(b.broker.messageStore.getMaxOffsetInQueue('RMQ_SYS_TRANS_HALF_TOPIC', 0), 0n);
    assert.equal(service(b).offsets().get(1), 3n);
  });

  test(
    'a message arriving in an idle level is delivered at its time, not at the next poll',
    LIMIT,
    async () => {
      const b = await startBroker();
      b.clock.advance(1000); // every level looked once and found nothing
      b.clock.advance(2000);
      await putMessage(b.broker, delayed(0, 1)); // due T0 + 4 s, the idle poll is at T0 + 11 s
      b.clock.advance(999);
      await quiesce();
      assert.equal(b.broker.messageStore.getMaxOffsetInQueue(TOPIC, 1), 0n);
      b.clock.advance(1);
      await untilQueueHas(b.broker, TOPIC, 1, 1);
    },
  );
});

describe('delayOffset.json', () => {
  test('written every flushDelayOffsetInterval in fastjson pretty form', LIMIT, async () => {
    const b = await startBroker();
    const file = delayOffsetStorePath(b.root);
    assert.equal(file, join(b.root, 'config', 'delayOffset.json'));
    await putMessage(b.broker, delayed(0, 2));
    await putMessage(b.broker, delayed(1, 1));
    b.clock.advance(5000);
    await untilQueueHas(b.broker, TOPIC, 1, 2);
    assert.equal(existsSync(file), false, 'the first write comes 10 s after start');
    b.clock.advance(5000);
    await service(b).flushed();
    assert.equal(readFileSync(file, 'utf8'), officialFile('1:1,2:1'));
    assert.equal(service(b).encode(), '{"offsetTable":{1:1,2:1}}');
  });

  test('a restart resumes where the last one stopped: no loss, no duplicate', LIMIT, async () => {
    const root = tempRoot();
    const io = new MemoryFileIO();
    const a = await startBroker({ root, io });
    await putMessage(a.broker, delayed(0, 2)); // due T0 + 5 s
    a.clock.advance(3000);
    await putMessage(a.broker, delayed(1, 2)); // due T0 + 8 s
    a.clock.advance(3000); // T0 + 6 s
    await untilQueueHas(a.broker, TOPIC, 1, 1);
    await stopBroker(a);
    assert.equal(readFileSync(delayOffsetStorePath(root), 'utf8'), officialFile('2:1'));

    const b = await startBroker({ root, io, clock: new ManualClock(T0 + 6000) });
    assert.deepEqual(service(b).offsets(), new Map([[2, 1n]]));
    b.clock.advance(1999);
    await quiesce();
    assert.deepEqual(await idxOf(b.broker, TOPIC, 1), ['0']);
    b.clock.advance(1);
    await untilQueueHas(b.broker, TOPIC, 1, 2);
    await quiesce();
    assert.deepEqual(await idxOf(b.broker, TOPIC, 1), ['0', '1']);
  });

  test(
    'a file written by the official broker loads; offsets past the queue are corrected',
    LIMIT,
    async () => {
      const root = tempRoot();
      const io = new MemoryFileIO();
      const a = await startBroker({ root, io });
      for (let i = 0; i < 3; i++) await putMessage(a.broker, delayed(i, 2));
      await putMessage(a.broker, delayed(3, 1));
      await stopBroker(a);

      // Level 2 resumes after two messages, level 1 is past its end, level 7 has no queue at all.
      writeFileSync(delayOffsetStorePath(root), officialFile('1:5,2:2,7:0'));
      const b = await startBroker({ root, io });
      assert.deepEqual(
        service(b).offsets(),
        new Map([
          [1, 1n],
          [2, 2n],
          [7, 0n],
        ]),
      );
      b.clock.advance(5000);
      await untilQueueHas(b.broker, TOPIC, 1, 1);
      await quiesce();
      assert.deepEqual(await idxOf(b.broker, TOPIC, 1), ['2']);
      await stopBroker(b);
      assert.equal(readFileSync(delayOffsetStorePath(root), 'utf8'), officialFile('1:1,2:3,7:0'));
    },
  );

  test(
    'an unreadable file falls back to its .bak; without one the start fails naming it',
    LIMIT,
    async () => {
      const root = tempRoot();
      const file = delayOffsetStorePath(root);
      mkdirSync(join(root, 'config'), { recursive: true });
      writeFileSync(file, '{"offsetTable":{1:');
      writeFileSync(`${file}.bak`, '{"offsetTable":{1:0}}');
      const a = await startBroker({ root });
      assert.deepEqual(service(a).offsets(), new Map([[1, 0n]]));
      await stopBroker(a);

      const root2 = tempRoot();
      const file2 = delayOffsetStorePath(root2);
      mkdirSync(join(root2, 'config'), { recursive: true });
      writeFileSync(file2, '{"offsetTable":{"x":1}}');
      await assert.rejects(startBroker({ root: root2 }), (err: Error) => err.message.includes(file2));
    },
  );

  test('the codec reads bare and quoted keys and refuses a level that is not an int', () => {
    assert.deepEqual(
      decodeDelayOffsetTable('{"offsetTable":{"3":7,18:9007199254740993}}'),
      new Map([
        [3, 7n],
        [18, 9007199254740993n],
      ]),
    );
    assert.deepEqual(decodeDelayOffsetTable('{}'), new Map());
    assert.throws(
      () => decodeDelayOffsetTable('{"offsetTable":{"1.5":1}}'),
      /delay level "1.5" is not an int/,
    );
    assert.throws(() => decodeDelayOffsetTable('{"offsetTable":{1:"x"}}'), /not a long/);
    assert.equal(
      encodeDelayOffsetTable(
        new Map([
          [12, 1n],
          [2, 0n],
        ]),
        { pretty: true },
      ),
      officialFile('2:0,12:1'),
    );
  });
});

describe('broker wiring', () => {
  test(
    'GET_BROKER_RUNTIME_INFO reports scheduleMessageOffset_<level> once a level delivered',
    LIMIT,
    async () => {
      const b = await startBroker();
      await putMessage(b.broker, delayed(0, 3));
      await putMessage(b.broker, delayed(1, 3));
      const request = () => createRequest(RequestCode.GET_BROKER_RUNTIME_INFO);
      const before = decodeKVTable((await b.client.call(request())).body);
      assert.equal([...before.keys()].filter((k) => k.startsWith('scheduleMessageOffset_')).length, 0);

      b.clock.advance(10_000);
      await untilQueueHas(b.broker, TOPIC, 1, 2);
      const response = await b.client.call(request());
      assert.equal(response.code, ResponseCode.SUCCESS);
      const info = decodeKVTable(response.body);
      assert.equal(info.get('scheduleMessageOffset_3'), '2,2');
      assert.equal([...info.keys()].filter((k) => k.startsWith('scheduleMessageOffset_')).length, 1);
      assert.ok(info.has('commitLogMaxOffset'));
    },
  );

  test('a slave loads the offsets but does not deliver', LIMIT, async () => {
    const root = tempRoot();
    mkdirSync(join(root, 'config'), { recursive: true });
    writeFileSync(delayOffsetStorePath(root), officialFile('4:0'));
    const b = await startBroker({ root, config: { brokerRole: 'SLAVE', brokerId: 1 } });
    assert.equal(service(b).isStarted(), false);
    assert.deepEqual(service(b).offsets(), new Map([[4, 0n]]));
    const before = readFileSync(delayOffsetStorePath(root), 'utf8');
    await stopBroker(b);
    assert.equal(readFileSync(delayOffsetStorePath(root), 'utf8'), before, 'a slave writes nothing');
  });

  test('the broker shuts the service down before the store, writing the offsets', LIMIT, async () => {
    const b = await startBroker();
    await putMessage(b.broker, delayed(0, 1));
    b.clock.advance(1000);
    await untilQueueHas(b.broker, TOPIC, 1, 1);
    await stopBroker(b);
    assert.equal(service(b).isStarted(), false);
    assert.equal(readFileSync(delayOffsetStorePath(b.root), 'utf8'), officialFile('1:1'));
  });
});
