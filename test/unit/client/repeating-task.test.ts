/**
 * RepeatingTask on a ManualClock (upstream's scheduleAtFixedRate): the first run after the initial
 * delay, then one per period counted from the start of the previous run, never two at once, failures
 * logged without stopping the schedule, and stop() waiting for a run in progress.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { RepeatingTask } from '../../../src/client/instance/repeating-task.js';
import { ManualClock } from '../../../src/common/clock.js';
import { createLogger, type LogRecord } from '../../../src/common/logger.js';

/** Lets the promise callbacks of a finished run (and the rescheduling after it) happen. */
async function settle(): Promise<void> {
  await new Promise<void>((resolve) => setImmediate(resolve));
}

/** Advances the clock `step` ms at a time, settling after each step. */
async function run(clock: ManualClock, ms: number, step: number): Promise<void> {
  for (let done = 0; done < ms; done += step) {
    clock.advance(step);
    await settle();
  }
}

function capture(): { records: LogRecord[]; logger: ReturnType<typeof createLogger> } {
  const records: LogRecord[] = [];
  return { records, logger: createLogger('test', { level: 'debug', sink: (r) => records.push(r) }) };
}

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve: () => void = () => {};
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

describe('RepeatingTask', () => {
  test('first run after the initial delay, then every period', async () => {
    const clock = new ManualClock(0);
    const starts: number[] = [];
    const task = new RepeatingTask(clock, 't', 500, () => void starts.push(clock.now()), capture().logger);
    task.start(1000);
    await run(clock, 999, 999);
    assert.deepEqual(starts, []);
    await run(clock, 1, 1);
    assert.deepEqual(starts, [1000]);
    await run(clock, 2000, 100);
    assert.deepEqual(starts, [1000, 1500, 2000, 2500, 3000]);
    await task.stop();
  });

  test('fixed rate: the period counts from the start of a slow run', async () => {
    const clock = new ManualClock(0);
    const starts: number[] = [];
    let current = deferred();
    const task = new RepeatingTask(
      clock,
      't',
      500,
      () => {
        starts.push(clock.now());
        return current.promise;
      },
      capture().logger,
    );
    task.start(0);
    clock.advance(0);
    await settle();
    assert.deepEqual(starts, [0]);
    await run(clock, 200, 100);
    current.resolve();
    current = deferred();
    await settle();
    // Finished at 200: the next run is due at 500, not 700.
    await run(clock, 299, 299);
    assert.deepEqual(starts, [0]);
    await run(clock, 1, 1);
    assert.deepEqual(starts, [0, 500]);
    current.resolve();
    await task.stop();
  });

  test('a run longer than the period delays the next one instead of overlapping it', async () => {
    const clock = new ManualClock(0);
    let running = 0;
    let most = 0;
    let runs = 0;
    let current = deferred();
    const task = new RepeatingTask(
      clock,
      't',
      100,
      async () => {
        runs++;
        running++;
        most = Math.max(most, running);
        await current.promise;
        running--;
      },
      capture().logger,
    );
    task.start(100);
    await run(clock, 1000, 50);
    assert.equal(runs, 1);
    assert.equal(clock.pending, 0);
    current.resolve();
    current = deferred();
    await settle();
    // Overdue: due at once.
    clock.advance(0);
    await settle();
    assert.equal(runs, 2);
    assert.equal(most, 1);
    current.resolve();
    await task.stop();
    assert.equal(most, 1);
  });

  test('failures are logged with the task name and the schedule goes on', async () => {
    const clock = new ManualClock(0);
    const { records, logger } = capture();
    let runs = 0;
    const task = new RepeatingTask(
      clock,
      'updateTopicRouteInfoFromNameServer',
      100,
      async () => {
        runs++;
        if (runs === 1) throw new Error('name server down');
        if (runs === 2) return Promise.reject(new Error('still down'));
      },
      logger,
    );
    task.start(100);
    await run(clock, 300, 50);
    assert.equal(runs, 3);
    const errors = records.filter((r) => r.level === 'error');
    assert.equal(errors.length, 2);
    assert.equal(errors[0]?.fields.task, 'updateTopicRouteInfoFromNameServer');
    assert.equal(errors[0]?.fields.error, 'name server down');
    assert.equal(errors[1]?.fields.error, 'still down');
    await task.stop();
  });

  test('a synchronous throw is caught too', async () => {
    const clock = new ManualClock(0);
    const { records, logger } = capture();
    let runs = 0;
    const task = new RepeatingTask(
      clock,
      'sync',
      10,
      () => {
        runs++;
        throw new Error('sync failure');
      },
      logger,
    );
    task.start(0);
    await run(clock, 30, 10);
    assert.ok(runs >= 3, `runs ${runs}`);
    assert.equal(records.filter((r) => r.level === 'error').length, runs);
    await task.stop();
  });

  test('stop waits for the run in progress and leaves no timer', async () => {
    const clock = new ManualClock(0);
    const gate = deferred();
    let finished = false;
    let runs = 0;
    const task = new RepeatingTask(
      clock,
      't',
      100,
      async () => {
        runs++;
        await gate.promise;
        finished = true;
      },
      capture().logger,
    );
    task.start(100);
    await run(clock, 100, 100);
    assert.equal(runs, 1);
    let stopped = false;
    const stopping = task.stop().then(() => {
      stopped = true;
    });
    await settle();
    assert.equal(stopped, false);
    gate.resolve();
    await stopping;
    assert.equal(finished, true);
    assert.equal(clock.pending, 0);
    await run(clock, 1000, 100);
    assert.equal(runs, 1);
  });

  test('stop before the first run cancels it', async () => {
    const clock = new ManualClock(0);
    let runs = 0;
    const task = new RepeatingTask(clock, 't', 100, () => void runs++, capture().logger);
    task.start(1000);
    assert.equal(clock.pending, 1);
    await task.stop();
    assert.equal(clock.pending, 0);
    await run(clock, 5000, 1000);
    assert.equal(runs, 0);
  });
});
