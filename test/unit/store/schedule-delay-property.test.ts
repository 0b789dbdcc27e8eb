/**
 * A delayed message delivered into its real topic keeps DELAY=<level>, REAL_TOPIC and REAL_QID in its
 * stored properties, as upstream's messageTimeup writes them (it serializes the properties before it
 * clears DELAY from the map its store reads), and is not scheduled again: not when it is put, and not
 * when an abnormal restart re-dispatches it from the commit log. Also the store's delay decision:
 * the explicit `delayTimeLevel` of a MessageExtBrokerInner wins over the DELAY property.
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, test } from 'node:test';
import { ManualClock } from '../../../src/common/clock.js';
import {
  javaPropertiesOrder,
  messageProperties2String,
  string2messageProperties,
} from '../../../src/common/message/properties.js';
import { decodeMessage, readStoredRecordHeader } from '../../../src/common/message/stored-format.js';
import { tagsString2tagsCode } from '../../../src/common/message/tag-hash.js';
import { abortFileExists, createAbortFile } from '../../../src/store/abort-file.js';
import { type ConsumeQueueEntry, cqEntryAt } from '../../../src/store/consume-queue-entry.js';
import type { DefaultMessageStore } from '../../../src/store/default-message-store.js';
import { DelayLevelTable } from '../../../src/store/delay-level.js';
import { ScheduleMessageService } from '../../../src/store/schedule/schedule-message-service.js';
import {
  isRefusal,
  type MessageExtBrokerInner,
  type PreparedMessage,
  prepareMessage,
} from '../../../src/store/stored-record-writer.js';
import { msg, openStore, put, quiet, removeTempDirs, tempDir } from './default-message-store-support.js';

const T0 = 1_700_000_000_000;
const SCHEDULE_TOPIC = 'SCHEDULE_TOPIC_XXXX';
const TOPIC = 'TopicTest';
const LEVEL = 3; // 10 s with the default levels
const LEVEL_DELAY = 10_000;

const open: Array<{ close(): Promise<void> }> = [];

afterEach(async () => {
  for (const o of open.splice(0).reverse()) await o.close();
  removeTempDirs();
});

interface Running {
  store: DefaultMessageStore;
  schedule: ScheduleMessageService;
  /** Shuts the service and the store down cleanly (once; afterEach calls it too). */
  close(): Promise<void>;
}

async function start(root: string, clock: ManualClock): Promise<Running> {
  const store = await openStore(root, {}, { clock });
  const schedule = new ScheduleMessageService(store, { clock, logger: quiet });
  await schedule.load();
  schedule.start();
  let closed = false;
  const close = async (): Promise<void> => {
    if (closed) return;
    closed = true;
    await schedule.shutdown();
    await store.shutdown();
  };
  open.push({ close });
  return { store, schedule, close };
}

/** Turns the event loop until `condition` holds (appends, dispatch and deliveries take later turns). */
async function until(condition: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 5000; i++) {
    if (condition()) return;
    await new Promise((resolve) => setImmediate(resolve));
  }
  assert.fail(`never happened: ${what}`);
}

/** Lets pending work finish, so an absence checked afterwards is real. */
async function quiesce(): Promise<void> {
  for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
}

function entries(store: DefaultMessageStore, topic: string, queueId: number): ConsumeQueueEntry[] {
  const cq = store.getConsumeQueue(topic, queueId);
  if (cq === undefined) return [];
  const count = Number(cq.getMaxOffsetInQueue() - cq.getMinOffsetInQueue());
  const buf = count === 0 ? undefined : cq.getIndexBuffer(cq.getMinOffsetInQueue(), count);
  if (buf === undefined) return [];
  return Array.from({ length: count }, (_, i) => cqEntryAt(buf, i));
}

interface DecodedRecord {
  topic: string;
  queueId: number;
  /** What a consumer's getDelayTimeLevel() returns. */
  delayTimeLevel: number;
  /** The properties string exactly as stored. */
  properties: string;
}

function recordOf(store: DefaultMessageStore, entry: ConsumeQueueEntry): DecodedRecord {
  const record = store.selectOneMessageByOffset(entry.commitLogOffset, entry.size);
  assert.ok(record, `record at ${entry.commitLogOffset}`);
  const h = readStoredRecordHeader(record);
  assert.ok(h.kind === 'message');
  const ext = decodeMessage(record);
  return {
    topic: ext.topic,
    queueId: ext.queueId,
    delayTimeLevel: ext.delayTimeLevel,
    properties: record.toString('utf8', h.propertiesOffset, h.propertiesOffset + h.propertiesLength),
  };
}

function delayed(level: number): MessageExtBrokerInner {
  return msg(7, { topic: TOPIC, queueId: 2, tag: 'TagD', extra: { DELAY: String(level), user: 'u' } });
}

/** Puts a DELAY=3 message and lets it be delivered (FIRST_DELAY_TIME, then the level's 10 s). */
async function deliverOne(r: Running, clock: ManualClock): Promise<void> {
  await put(r.store, delayed(LEVEL));
  await until(() => r.store.getMaxOffsetInQueue(SCHEDULE_TOPIC, LEVEL - 1) === 1n, 'scheduled');
  clock.advance(1000);
  await quiesce();
  assert.equal(r.store.getMaxOffsetInQueue(TOPIC, 2), 0n, 'not due yet');
  clock.advance(LEVEL_DELAY - 1000);
  await until(() => r.store.getMaxOffsetInQueue(TOPIC, 2) === 1n, 'delivered');
}

describe('a delivered delay message', () => {
  test('keeps DELAY, REAL_TOPIC and REAL_QID as upstream stores them, in its real queue', async () => {
    const clock = new ManualClock(T0);
    const r = await start(tempDir(), clock);
    await deliverOne(r, clock);

    const [scheduledEntry] = entries(r.store, SCHEDULE_TOPIC, LEVEL - 1);
    assert.ok(scheduledEntry);
    assert.equal(
      scheduledEntry.tagsCode,
      BigInt(T0 + LEVEL_DELAY),
      'the schedule entry holds the deliver time',
    );
    const scheduled = recordOf(r.store, scheduledEntry);

    const got = entries(r.store, TOPIC, 2);
    assert.equal(got.length, 1);
    const [deliveredEntry] = got;
    assert.ok(deliveredEntry);
    assert.equal(deliveredEntry.tagsCode, tagsString2tagsCode('TagD'), 'a tag hash, not a deliver time');
    const delivered = recordOf(r.store, deliveredEntry);
    assert.equal(delivered.topic, TOPIC);
    assert.equal(delivered.queueId, 2);
    // Upstream: messageProperties2String(msgExt.getProperties()) of the scheduled record, DELAY kept.
    assert.equal(
      delivered.properties,
      messageProperties2String(javaPropertiesOrder(string2messageProperties(scheduled.properties))),
    );
    const props = string2messageProperties(delivered.properties);
    assert.equal(props.get('DELAY'), String(LEVEL));
    assert.equal(props.get('REAL_TOPIC'), TOPIC);
    assert.equal(props.get('REAL_QID'), '2');
    assert.equal(props.get('user'), 'u');
    assert.equal(delivered.delayTimeLevel, LEVEL);
  });

  test('is not scheduled again, neither when put nor later', async () => {
    const clock = new ManualClock(T0);
    const r = await start(tempDir(), clock);
    await deliverOne(r, clock);
    for (let i = 0; i < 6; i++) {
      clock.advance(LEVEL_DELAY * 2);
      await quiesce();
    }
    assert.equal(r.store.getMaxOffsetInQueue(SCHEDULE_TOPIC, LEVEL - 1), 1n, 'no second schedule record');
    assert.equal(r.store.getMaxOffsetInQueue(TOPIC, 2), 1n, 'delivered once');
    assert.equal(r.schedule.offsets().get(LEVEL), 1n);
  });

  test('an abnormal restart re-dispatches it into its real queue with its tag hash, once', async () => {
    const root = tempDir();
    const clock = new ManualClock(T0);
    const first = await start(root, clock);
    await deliverOne(first, clock);
    const before = entries(first.store, TOPIC, 2);
    await first.close();
    // A crash: the abort marker stays and every consume queue is rebuilt from the commit log.
    createAbortFile(root);
    rmSync(join(root, 'consumequeue'), { recursive: true, force: true });

    const second = await start(root, clock);
    assert.ok(abortFileExists(root));
    const after = entries(second.store, TOPIC, 2);
    assert.deepEqual(after, before);
    assert.equal(after[0]?.tagsCode, tagsString2tagsCode('TagD'));
    const scheduled = entries(second.store, SCHEDULE_TOPIC, LEVEL - 1);
    assert.equal(scheduled.length, 1);
    assert.equal(
      scheduled[0]?.tagsCode,
      BigInt(T0 + LEVEL_DELAY),
      'the schedule record keeps its deliver time',
    );

    for (let i = 0; i < 6; i++) {
      clock.advance(LEVEL_DELAY * 2);
      await quiesce();
    }
    assert.equal(second.store.getMaxOffsetInQueue(SCHEDULE_TOPIC, LEVEL - 1), 1n);
    assert.equal(second.store.getMaxOffsetInQueue(TOPIC, 2), 1n, 'not delivered again');
  });
});

describe('prepareMessage: the delay level the store acts on', () => {
  const limits = { maxMessageSize: 4096, mappedFileSize: 1 << 20, delayLevels: new DelayLevelTable() };

  function prepared(inner: MessageExtBrokerInner): PreparedMessage {
    const p = prepareMessage(inner, limits);
    assert.ok(!isRefusal(p), isRefusal(p) ? p.reason : '');
    return p;
  }

  test('delayTimeLevel 0 stores the message as it is, whatever DELAY it carries', () => {
    const inner = { ...delayed(LEVEL), delayTimeLevel: 0 };
    const p = prepared(inner);
    assert.equal(p.topic, TOPIC);
    assert.equal(p.queueId, 2);
    assert.equal(p.delayLevel, 0);
    assert.equal(p.propertiesString, inner.propertiesString);
  });

  test('delayTimeLevel 0 does not parse DELAY, so one that is not an int is stored too', () => {
    const p = prepared({ ...msg(1, { extra: { DELAY: 'soon' } }), delayTimeLevel: 0 });
    assert.equal(p.delayLevel, 0);
    assert.equal(isRefusal(prepareMessage(msg(1, { extra: { DELAY: 'soon' } }), limits)), true);
  });

  test('delayTimeLevel > 0 schedules, clamped, with DELAY written as the level used', () => {
    const p = prepared({ ...msg(1, { topic: TOPIC, queueId: 4 }), delayTimeLevel: 99 });
    assert.equal(p.topic, SCHEDULE_TOPIC);
    assert.equal(p.delayLevel, 18);
    assert.equal(p.queueId, 17);
    const props = string2messageProperties(p.propertiesString);
    assert.equal(props.get('DELAY'), '18');
    assert.equal(props.get('REAL_TOPIC'), TOPIC);
    assert.equal(props.get('REAL_QID'), '4');
  });

  test('without delayTimeLevel the DELAY property decides, as before', () => {
    const p = prepared(delayed(2));
    assert.equal(p.topic, SCHEDULE_TOPIC);
    assert.equal(p.delayLevel, 2);
    assert.equal(prepared(msg(1, { extra: { DELAY: '0' } })).topic, 'TopicTest');
    assert.equal(prepared(msg(1)).delayLevel, 0);
  });
});
