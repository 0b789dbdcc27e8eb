/**
 * ConsumerOrderInfoManager against 5.5.0's QueueLevelConsumerManager: the orderCountInfo items,
 * commitAndNext results and the file were printed by running the 5.5.0 class on the same calls.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  CLEAN_SPAN_FROM_LAST_MS,
  COMMIT_ILLEGAL,
  COMMIT_NOT_NEEDED,
  ConsumerOrderInfoManager,
} from '../../../../src/broker/pop/consumer-order-info-manager.js';
import { joinInfo } from '../../../../src/common/pop/extra-info.js';
import { ManualClock, MemoryFileIO, quiet } from '../helpers.js';

const FILE = '/mem/store/config/consumerOrderInfo.json';
const T0 = 1_700_000_000_000;

function setup(extra: Partial<ConstructorParameters<typeof ConsumerOrderInfoManager>[0]> = {}) {
  const clock = new ManualClock(T0);
  const io = new MemoryFileIO();
  const woken: string[] = [];
  const m = new ConsumerOrderInfoManager({
    storePathRootDir: '/mem/store',
    logger: quiet,
    io,
    clock,
    onLockFree: (t, g, q) => woken.push(`${t}@${g}@${q}`),
    ...extra,
  });
  return { m, io, clock, woken };
}

function pop(m: ConsumerOrderInfoManager, attempt: string, popTime: number, offsets: bigint[]): string {
  const items: string[] = [];
  m.update(attempt, false, 'TopicA', 'GroupA', 1, BigInt(popTime), 30_000n, offsets, items);
  return joinInfo(items);
}

describe('ConsumerOrderInfoManager', () => {
  test('update / commitAndNext / updateNextVisibleTime as 5.5.0, and the file', async () => {
    const { m, io } = setup();
    assert.equal(pop(m, 'att1', T0, [10n, 11n, 13n]), '0 1 0');
    assert.equal(pop(m, 'att2', T0 + 1000, [10n, 11n, 13n, 14n]), '0 qo1%10 1;0 qo1%11 1;0 qo1%13 1;0 1 0');
    // Same attempt again: counts are kept, not incremented.
    assert.equal(pop(m, 'att2', T0 + 2000, [10n, 11n, 13n, 14n]), '0 qo1%10 1;0 qo1%11 1;0 qo1%13 1;0 1 0');
    const pt = BigInt(T0 + 2000);
    m.updateNextVisibleTime('TopicA', 'GroupA', 1, 11n, pt, 1_700_000_099_000n);
    assert.equal(m.commitAndNext('TopicA', 'GroupA', 1, 10n, pt), 11n);
    assert.equal(m.commitAndNext('TopicA', 'GroupA', 1, 13n, pt), 11n);
    assert.equal(m.commitAndNext('TopicA', 'GroupA', 1, 12n, pt), COMMIT_ILLEGAL);
    assert.equal(m.commitAndNext('TopicA', 'GroupA', 1, 11n, 1n), COMMIT_NOT_NEEDED);
    assert.equal(m.commitAndNext('TopicA', 'GroupA', 7, 11n, pt), 12n, 'no state: offset + 1');
    assert.equal(m.commitAndNext('Other', 'GroupA', 1, 5n, pt), 6n);
    const java =
      '{"orderInfoCount":1,"orderedConsumptionLevel":"QUEUE","table":{"TopicA@GroupA":{1:{"a":"att2","cm":5,"i":30000,' +
      `"l":${T0},"o":[10,1,3,4],"oc":{10:1,11:1,13:1},"ot":{11:1700000099000},"popTime":1700000002000}}}}`;
    assert.equal(m.encode(), java);
    await m.persist();
    const reloaded = setup({ io }).m;
    await reloaded.load();
    assert.equal(reloaded.encode(), java);
    assert.ok(io.files.get(FILE)?.includes('\t"orderedConsumptionLevel":"QUEUE"'));
  });

  test('checkBlock: blocked while un-acked and invisible; same attempt passes; acks and time free it', () => {
    const { m, clock, woken } = setup();
    assert.equal(m.checkBlock('a1', 'TopicA', 'GroupA', 1, 30_000n), false);
    pop(m, 'a1', T0, [10n, 11n]);
    assert.equal(m.checkBlock('a2', 'TopicA', 'GroupA', 1, 30_000n), true);
    assert.equal(m.checkBlock(undefined, 'TopicA', 'GroupA', 1, 30_000n), true);
    assert.equal(m.checkBlock('a1', 'TopicA', 'GroupA', 1, 30_000n), false, 'same attemptId re-receives');
    assert.equal(m.commitAndNext('TopicA', 'GroupA', 1, 10n, BigInt(T0)), 11n);
    assert.equal(m.checkBlock('a2', 'TopicA', 'GroupA', 1, 30_000n), true);
    assert.deepEqual(woken, []);
    assert.equal(m.commitAndNext('TopicA', 'GroupA', 1, 11n, BigInt(T0)), 12n);
    assert.equal(m.checkBlock('a2', 'TopicA', 'GroupA', 1, 30_000n), false);
    assert.deepEqual(woken, ['TopicA@GroupA@1'], 'all acked: lock free now');

    pop(m, 'a3', T0, [12n]);
    assert.equal(m.checkBlock('a4', 'TopicA', 'GroupA', 1, 30_000n), true);
    // Changing the invisible time moves the unblock time.
    m.updateNextVisibleTime('TopicA', 'GroupA', 1, 12n, BigInt(T0), BigInt(T0 + 5_000));
    clock.advance(4_999);
    assert.equal(m.checkBlock('a4', 'TopicA', 'GroupA', 1, 30_000n), true);
    assert.equal(woken.length, 1);
    clock.advance(1);
    assert.equal(m.checkBlock('a4', 'TopicA', 'GroupA', 1, 30_000n), false);
    assert.equal(woken.length, 2, 'timer fired at the lock-free time');
    m.shutdown();
  });

  test('clearBlock and remove forget state', () => {
    const { m } = setup();
    pop(m, 'a1', T0, [1n]);
    m.clearBlock('TopicA', 'GroupA', 1);
    assert.equal(m.checkBlock('x', 'TopicA', 'GroupA', 1, 1000n), false);
    pop(m, 'a1', T0, [1n]);
    m.remove('TopicA', 'GroupA');
    assert.equal(m.orderInfoTable.size, 0);
  });

  test('autoClean drops removed topics and groups, queues beyond readQueueNums, idle queues', () => {
    const topics = new Map([
      ['TopicA', 2],
      ['TopicB', 4],
    ]);
    const groups = new Set(['GroupA']);
    const { m, clock } = setup({
      topicReadQueueNums: (t) => topics.get(t),
      groupExists: (g) => groups.has(g),
    });
    const upd = (t: string, g: string, q: number) =>
      m.update(undefined, false, t, g, q, BigInt(T0), 1000n, [1n], []);
    upd('TopicA', 'GroupA', 0);
    upd('TopicA', 'GroupA', 1);
    upd('TopicA', 'GroupGone', 0);
    upd('TopicGone', 'GroupA', 0);
    upd('TopicB', 'GroupA', 0);
    topics.set('TopicA', 1);
    m.autoClean();
    assert.deepEqual([...m.orderInfoTable.keys()], ['TopicA@GroupA', 'TopicB@GroupA']);
    assert.deepEqual([...(m.orderInfoTable.get('TopicA@GroupA')?.keys() ?? [])], [0]);
    clock.advance(CLEAN_SPAN_FROM_LAST_MS + 1);
    upd('TopicB', 'GroupA', 1);
    m.autoClean();
    assert.deepEqual([...(m.orderInfoTable.get('TopicB@GroupA')?.keys() ?? [])], [1]);
    assert.equal(m.orderInfoTable.get('TopicA@GroupA')?.size, 0);
    m.autoClean();
    assert.deepEqual([...m.orderInfoTable.keys()], ['TopicB@GroupA']);
  });

  test('a corrupt file is an error naming it; old-format fields load', async () => {
    const io = new MemoryFileIO();
    io.files.set(FILE, '{"table":{"T@G":{"x":{}}}}');
    await assert.rejects(setup({ io }).m.load(), /consumerOrderInfo\.json/);
    io.files.set(FILE, '{"table":{"T@G":{"0":{"popTime":5,"o":[3],"cm":0}}}}');
    const { m } = setup({ io });
    await m.load();
    assert.equal(m.commitAndNext('T', 'G', 0, 3n, 5n), 4n);
  });
});
