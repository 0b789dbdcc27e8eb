/**
 * Every allocation strategy against the vectors the official 4.9.8 classes produced: the same
 * queues in the same order for every member of every case, the same exception message where Java
 * threw, and the info line where the member is missing from cidAll.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { AllocateMessageQueueConsistentHash } from '../../../../src/client/consumer/rebalance/allocate/index.js';
import { ValidationError } from '../../../../src/common/errors.js';
import { createLogger, type LogRecord } from '../../../../src/common/logger.js';
import type { MessageQueue } from '../../../../src/common/message/message-queue.js';
import type { GoldenAllocateCase, GoldenAllocation } from '../../../golden-fixtures.js';
import { goldenManifest } from '../../../golden-fixtures.js';
import { allocateCases, buildStrategy, expandRuns } from './golden-allocate.js';

const cases = allocateCases();
const manifest = goldenManifest().allocate;

function describeCase(c: GoldenAllocateCase, a: GoldenAllocation): string {
  return `${c.name} [${c.label}] cidAll=${JSON.stringify(c.cidAll)} mqAll=${JSON.stringify(c.mqAll)} currentCID=${JSON.stringify(a.currentCID)}`;
}

/** Runs one case; returns a line per member whose outcome differs from Java's. */
function runCase(c: GoldenAllocateCase): string[] {
  const problems: string[] = [];
  const lines: LogRecord[] = [];
  const logger = createLogger('allocate', { level: 'debug', sink: (r) => lines.push(r) });
  const strategy = buildStrategy(c.strategy, c.topic, logger);
  if (strategy.name !== c.name) problems.push(`name ${strategy.name} != ${c.name}`);
  const mqAll = expandRuns(c.topic, c.mqAll);

  for (const a of c.allocations) {
    const where = describeCase(c, a);
    lines.length = 0;
    const mqCopy = [...mqAll];
    const cidCopy = [...c.cidAll];
    let got: MessageQueue[];
    try {
      got = strategy.allocate(c.consumerGroup, a.currentCID, mqCopy, cidCopy);
    } catch (e) {
      if (a.error === undefined) {
        problems.push(`${where}: threw ${String(e)}`);
      } else if (!(e instanceof ValidationError) || e.message !== a.error.message) {
        problems.push(`${where}: threw ${String(e)}, Java threw ${a.error.class}: ${a.error.message}`);
      }
      continue;
    }
    if (a.error !== undefined) {
      problems.push(`${where}: returned, Java threw ${a.error.message}`);
      continue;
    }
    if (a.result !== undefined) {
      const indexes = got.map((mq) => mqAll.findIndex((x) => x.equals(mq)));
      if (JSON.stringify(indexes) !== JSON.stringify(a.result)) {
        problems.push(`${where}: got ${JSON.stringify(indexes)}, Java ${JSON.stringify(a.result)}`);
      }
    } else {
      const pairs = got.map((mq) => [mq.brokerName, mq.queueId]);
      if (
        got.some((mq) => mq.topic !== c.topic) ||
        JSON.stringify(pairs) !== JSON.stringify(a.resultQueues)
      ) {
        problems.push(`${where}: got ${JSON.stringify(pairs)}, Java ${JSON.stringify(a.resultQueues)}`);
      }
    }
    // Upstream's check() logs the missing member; CONFIG never checks.
    const missing = a.currentCID !== '' && !c.cidAll.includes(a.currentCID) && c.strategy.type !== 'CONFIG';
    const logged = lines.some((r) => r.level === 'info' && r.fields.consumerId === a.currentCID);
    if (missing && !logged) problems.push(`${where}: no info line for the missing member`);
    if (
      JSON.stringify(mqCopy) !== JSON.stringify(mqAll) ||
      JSON.stringify(cidCopy) !== JSON.stringify(c.cidAll)
    ) {
      problems.push(`${where}: allocate changed its input lists`);
    }
  }
  return problems;
}

describe('allocation strategies give what the official 4.9.8 classes give', () => {
  test('the vectors are all there', () => {
    assert.equal(cases.length, manifest.cases);
    const types = [
      'AVG',
      'AVG_BY_CIRCLE',
      'CONFIG',
      'MACHINE_ROOM',
      'CONSISTENT_HASH',
      'MACHINE_ROOM_NEARBY',
    ];
    assert.deepEqual(Object.keys(manifest.casesPerStrategy).sort(), [...types].sort());
    for (const t of types) {
      assert.equal(cases.filter((c) => c.strategy.type === t).length, manifest.casesPerStrategy[t]);
    }
  });

  for (const type of Object.keys(manifest.casesPerStrategy)) {
    test(`${type}: every member of every case`, () => {
      const mine = cases.filter((c) => c.strategy.type === type);
      assert.ok(mine.length > 0);
      const problems = mine.flatMap(runCase);
      assert.deepEqual(problems.slice(0, 10), [], `${problems.length} differences`);
    });
  }

  test('CONSISTENT_HASH rejects a negative virtualNodeCnt as Java does', () => {
    for (const e of manifest.constructorErrors) {
      assert.ok(e.error !== null);
      assert.throws(
        () => new AllocateMessageQueueConsistentHash({ virtualNodeCnt: e.virtualNodeCnt }),
        (err: unknown) => err instanceof ValidationError && err.message === e.error?.message,
      );
    }
  });
});
