/**
 * The property rebalancing relies on: when every member of a group computes its share from the same
 * sorted lists, the shares of AVG, AVG_BY_CIRCLE and CONSISTENT_HASH cover every queue exactly once.
 * Inputs are random but reproducible from the seed.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  AllocateMessageQueueAveragely,
  AllocateMessageQueueAveragelyByCircle,
  AllocateMessageQueueConsistentHash,
  type AllocateMessageQueueStrategy,
} from '../../../../src/client/consumer/rebalance/allocate/index.js';
import { javaStringCompare } from '../../../../src/common/message/java-lang.js';
import { MessageQueue } from '../../../../src/common/message/message-queue.js';
import { seededRandom } from '../../../helpers/chunks.js';
import { CUSTOM_HASHES } from './golden-allocate.js';

const SEED = 20240611;
const ROUNDS = 150;

function randomInputs(rnd: () => number): { mqAll: MessageQueue[]; cidAll: string[] } {
  const int = (n: number) => Math.floor(rnd() * n);
  const topic = ['TopicTest', '订单', `T${int(1000)}`][int(3)] as string;
  const brokers = 1 + int(5);
  const mqs = new Map<string, MessageQueue>();
  const wanted = 1 + int(rnd() < 0.1 ? 200 : 40);
  while (mqs.size < wanted) {
    const mq = new MessageQueue(topic, `broker-${int(brokers)}`, int(wanted * 2));
    mqs.set(mq.key, mq);
  }
  const ids = new Set<string>();
  const members = 1 + int(rnd() < 0.1 ? 30 : 12);
  while (ids.size < members) ids.add(`10.${int(4)}.${int(256)}.${int(256)}@${int(100000)}`);
  return {
    mqAll: [...mqs.values()].sort(MessageQueue.compare),
    cidAll: [...ids].sort(javaStringCompare),
  };
}

function strategies(rnd: () => number): AllocateMessageQueueStrategy[] {
  const hashes = [undefined, ...Object.values(CUSTOM_HASHES)];
  return [
    new AllocateMessageQueueAveragely(),
    new AllocateMessageQueueAveragelyByCircle(),
    new AllocateMessageQueueConsistentHash(),
    new AllocateMessageQueueConsistentHash({
      virtualNodeCnt: 1 + Math.floor(rnd() * 40),
      customHashFunction: hashes[Math.floor(rnd() * hashes.length)],
    }),
  ];
}

test('every queue goes to exactly one member (AVG, AVG_BY_CIRCLE, CONSISTENT_HASH)', () => {
  const rnd = seededRandom(SEED);
  for (let round = 0; round < ROUNDS; round++) {
    const { mqAll, cidAll } = randomInputs(rnd);
    for (const strategy of strategies(rnd)) {
      const owners = new Map<string, string[]>();
      for (const cid of cidAll) {
        for (const mq of strategy.allocate('cg', cid, mqAll, cidAll)) {
          owners.set(mq.key, [...(owners.get(mq.key) ?? []), cid]);
        }
      }
      const where = `seed ${SEED} round ${round} ${strategy.name}: ${mqAll.length} queues, ${cidAll.length} members`;
      for (const mq of mqAll) {
        assert.equal(
          owners.get(mq.key)?.length,
          1,
          `${where}: ${mq.toString()} owned by ${owners.get(mq.key)}`,
        );
      }
      assert.equal(owners.size, mqAll.length, where);
    }
  }
});

test('AVG shares differ by at most one queue and keep their blocks contiguous', () => {
  const rnd = seededRandom(SEED + 1);
  const avg = new AllocateMessageQueueAveragely();
  for (let round = 0; round < ROUNDS; round++) {
    const { mqAll, cidAll } = randomInputs(rnd);
    const shares = cidAll.map((cid) => avg.allocate('cg', cid, mqAll, cidAll));
    const sizes = shares.map((s) => s.length);
    assert.ok(Math.max(...sizes) - Math.min(...sizes) <= 1, `round ${round}: ${sizes}`);
    assert.deepEqual(shares.flat(), mqAll, `round ${round}`);
  }
});
