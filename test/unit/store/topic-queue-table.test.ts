import assert from 'node:assert/strict';
import { test } from 'node:test';
import { TopicQueueTable } from '../../../src/store/topic-queue-table.js';

test('take reserves consecutive offsets per queue; raise never lowers; keys round-trip as topic-queueId', () => {
  const table = new TopicQueueTable();
  assert.equal(table.take('T', 0, 1), 0);
  assert.equal(table.take('T', 0, 3), 1);
  assert.equal(table.take('T', 1, 1), 0);
  assert.equal(table.get('T', 0), 4);
  table.raise('T', 0, 2);
  assert.equal(table.get('T', 0), 4);
  table.raise('T', 0, 9);
  assert.equal(table.get('T', 0), 9);
  // Topic names may contain '-': the queue id is after the last one.
  table.set('a-b', 7, 5n);
  const copy = new TopicQueueTable();
  copy.replace(new Map([...table.toMap(), ['nodash', 1], ['x-notanumber', 2]]));
  assert.deepEqual([...copy.toMap()].sort(), [
    ['T-0', 9],
    ['T-1', 1],
    ['a-b-7', 5],
  ]);
  copy.remove('a-b', 7);
  assert.equal(copy.get('a-b', 7), 0);
});
