/**
 * ConsumeExecutor (upstream's consumeExecutor pool): at most `concurrency` tasks at once, the rest
 * in submission order; setConcurrency up and down while running; shutdown drops what waits and
 * resolves once what runs has ended; a failing task neither stalls the pool nor escapes it.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  ConsumeExecutor,
  type ConsumeTask,
} from '../../../../src/client/consumer/consume/consume-executor.js';
import { captureLogger, deferred, drain, until } from './consumer-fakes.js';

/** Tasks that start, record it, and end when told. */
function gatedTasks(n: number) {
  const started: number[] = [];
  const ended: number[] = [];
  const gates = Array.from({ length: n }, () => deferred());
  const tasks: ConsumeTask[] = gates.map((gate, i) => async () => {
    started.push(i);
    await gate.promise;
    ended.push(i);
  });
  return { started, ended, gates, tasks };
}

describe('ConsumeExecutor', () => {
  test('runs at most `concurrency` tasks, the others in submission order', async () => {
    const { logger } = captureLogger();
    const pool = new ConsumeExecutor(2, logger);
    const { started, gates, tasks } = gatedTasks(6);
    for (const t of tasks) assert.equal(pool.submit(t), true);
    assert.deepEqual(started, [0, 1]);
    assert.equal(pool.activeCount, 2);
    assert.equal(pool.queueSize, 4);
    gates[1]?.resolve();
    await until(() => started.length === 3, 'task 2 to start');
    assert.deepEqual(started, [0, 1, 2]);
    assert.equal(pool.activeCount, 2);
    gates[0]?.resolve();
    gates[2]?.resolve();
    await until(() => started.length === 5, 'tasks 3 and 4');
    assert.deepEqual(started, [0, 1, 2, 3, 4]);
    for (const g of gates) g.resolve();
    await until(() => pool.activeCount === 0, 'idle');
    assert.deepEqual(started, [0, 1, 2, 3, 4, 5]);
    assert.equal(pool.queueSize, 0);
  });

  test('keeps FIFO order over thousands of queued tasks', async () => {
    const { logger } = captureLogger();
    const pool = new ConsumeExecutor(1, logger);
    const order: number[] = [];
    for (let i = 0; i < 3000; i++) pool.submit(async () => void order.push(i));
    await until(() => order.length === 3000, 'every task');
    assert.deepEqual(
      order,
      Array.from({ length: 3000 }, (_, i) => i),
    );
    assert.equal(pool.queueSize, 0);
  });

  test('setConcurrency up starts waiting tasks at once; down lets running ones finish first', async () => {
    const { logger } = captureLogger();
    const pool = new ConsumeExecutor(1, logger);
    const { started, gates, tasks } = gatedTasks(8);
    for (const t of tasks) pool.submit(t);
    assert.deepEqual(started, [0]);
    pool.setConcurrency(4);
    assert.equal(pool.corePoolSize, 4);
    assert.deepEqual(started, [0, 1, 2, 3]);
    pool.setConcurrency(2);
    assert.equal(pool.activeCount, 4, 'running tasks are not interrupted');
    gates[0]?.resolve();
    gates[1]?.resolve();
    await until(() => pool.activeCount === 2, 'two ended');
    await drain();
    assert.deepEqual(started, [0, 1, 2, 3], 'still 2 running, so none started');
    gates[2]?.resolve();
    await until(() => started.length === 5, 'one slot under the new limit');
    assert.equal(pool.activeCount, 2);
    for (const g of gates) g.resolve();
    await until(() => started.length === 8 && pool.activeCount === 0, 'all');
  });

  test('shutdown drops the waiting tasks and resolves once the running ones ended', async () => {
    const { logger } = captureLogger();
    const pool = new ConsumeExecutor(2, logger);
    const { started, ended, gates, tasks } = gatedTasks(5);
    for (const t of tasks) pool.submit(t);
    let done: number | undefined;
    const stopping = pool.shutdown().then((dropped) => {
      done = dropped;
    });
    assert.equal(pool.isShutdown, true);
    assert.equal(
      pool.submit(async () => assert.fail('runs after shutdown')),
      false,
    );
    gates[0]?.resolve();
    await until(() => ended.length === 1, 'task 0 to end');
    await drain();
    assert.equal(done, undefined, 'task 1 still runs');
    gates[1]?.resolve();
    await stopping;
    assert.equal(done, 3);
    assert.deepEqual(started, [0, 1]);
  });

  test('shutdown of an idle pool resolves at once with nothing dropped', async () => {
    const { logger } = captureLogger();
    const pool = new ConsumeExecutor(3, logger);
    assert.equal(await pool.shutdown(), 0);
  });

  test('a task that rejects or throws is logged and its slot freed', async () => {
    const { logger, lines } = captureLogger();
    const pool = new ConsumeExecutor(1, logger);
    const ran: string[] = [];
    pool.submit(async () => {
      throw new Error('listener blew up');
    });
    pool.submit((() => {
      throw new Error('thrown before any promise');
    }) as ConsumeTask);
    pool.submit(async () => void ran.push('after'));
    await until(() => ran.length === 1, 'the task after the failures');
    await until(() => pool.activeCount === 0, 'idle');
    const errors = lines('error').map((r) => String(r.fields.error));
    assert.equal(errors.length, 2);
    assert.match(errors[0] ?? '', /listener blew up/);
    assert.match(errors[1] ?? '', /thrown before any promise/);
  });
});

describe('ConsumeExecutor with calls that never settle', () => {
  test('a call running for stuckAfterMs gives its slot to the next task; the others keep theirs', async () => {
    const { logger, lines } = captureLogger();
    let now = 0;
    const pool = new ConsumeExecutor(2, logger, { now: () => now, stuckAfterMs: 1000 });
    const { started, gates, tasks } = gatedTasks(4);
    pool.submit(tasks[0] as ConsumeTask);
    now = 500;
    pool.submit(tasks[1] as ConsumeTask);
    now = 999;
    pool.submit(tasks[2] as ConsumeTask);
    assert.deepEqual(started, [0, 1], 'nothing has run for 1000 ms yet');
    now = 1000;
    pool.submit(tasks[3] as ConsumeTask);
    assert.deepEqual(started, [0, 1, 2], 'task 0 (1000 ms) gave its slot up, task 1 (500 ms) kept its');
    assert.equal(pool.activeCount, 2);
    assert.ok(lines('warn').some((l) => l.msg.includes('outlived consumeTimeout')));
    gates[0]?.resolve();
    await drain();
    assert.deepEqual(started, [0, 1, 2], 'a released call ending frees no second slot');
    gates[1]?.resolve();
    await until(() => started.length === 4, 'task 3 once task 1 ended');
    for (const g of gates) g.resolve();
    await until(() => pool.activeCount === 0, 'idle');
    assert.equal(await pool.shutdown(), 0);
  });
});
