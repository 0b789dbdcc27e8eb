/**
 * CheckRequestExecutor: upstream's ThreadPoolExecutor admission (core slots, then the queue, then
 * extra slots up to the maximum, then rejection), a finished slot taking the next queued check, and
 * shutdown dropping the queue while the running checks finish.
 */
import assert from 'node:assert/strict';
import { afterEach, describe, test } from 'node:test';
import {
  CheckRequestExecutor,
  DEFAULT_CHECK_EXECUTOR_LIMITS,
  resolveCheckExecutorLimits,
} from '../../../src/client/producer/check-request-executor.js';
import { ValidationError } from '../../../src/common/errors.js';

interface Gate {
  readonly promise: Promise<void>;
  open(): void;
}

function gate(): Gate {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}

/** onError of executors whose checks must not fail; afterEach wants it empty (the executor swallows throws). */
const failures: unknown[] = [];
function unexpected(error: unknown): void {
  failures.push(error);
}
afterEach(() => {
  assert.deepEqual(failures.splice(0), []);
});

/** Lets every settled promise run its continuations. */
async function settleAll(): Promise<void> {
  await new Promise((resolve) => setImmediate(resolve));
}

/** A task that records its start and waits for its gate. */
function tasks(n: number): { gates: Gate[]; started: number[]; make(i: number): () => Promise<void> } {
  const gates = Array.from({ length: n }, gate);
  const started: number[] = [];
  return {
    gates,
    started,
    make: (i) => async () => {
      started.push(i);
      await gates[i]?.promise;
    },
  };
}

describe('resolveCheckExecutorLimits', () => {
  test("upstream's defaults: one check at a time, 2000 waiting", () => {
    assert.deepEqual(resolveCheckExecutorLimits({}), {
      checkThreadPoolMinSize: 1,
      checkThreadPoolMaxSize: 1,
      checkRequestHoldMax: 2000,
    });
    assert.deepEqual(resolveCheckExecutorLimits({}), DEFAULT_CHECK_EXECUTOR_LIMITS);
  });

  test('bad values are refused by name', () => {
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ checkThreadPoolMinSize: -1 }, /checkThreadPoolMinSize/],
      [{ checkThreadPoolMinSize: 1.5 }, /checkThreadPoolMinSize/],
      [{ checkThreadPoolMaxSize: 0 }, /checkThreadPoolMaxSize/],
      [{ checkThreadPoolMaxSize: '2' }, /checkThreadPoolMaxSize/],
      [
        { checkThreadPoolMinSize: 3, checkThreadPoolMaxSize: 2 },
        /checkThreadPoolMaxSize \(2\).*checkThreadPoolMinSize \(3\)/,
      ],
      [{ checkRequestHoldMax: 0 }, /checkRequestHoldMax/],
    ];
    for (const [given, name] of cases) {
      assert.throws(
        () => resolveCheckExecutorLimits(given),
        (e: unknown) => e instanceof ValidationError && name.test(e.message),
        JSON.stringify(given),
      );
    }
  });
});

describe('CheckRequestExecutor', () => {
  test('defaults run one check at a time, in the order they came', async () => {
    const t = tasks(3);
    const executor = new CheckRequestExecutor(DEFAULT_CHECK_EXECUTOR_LIMITS, unexpected);
    assert.deepEqual(
      [0, 1, 2].map((i) => executor.submit(t.make(i))),
      ['started', 'queued', 'queued'],
    );
    await settleAll();
    assert.deepEqual(t.started, [0]);
    t.gates[0]?.open();
    await settleAll();
    assert.deepEqual(t.started, [0, 1]);
    assert.equal(executor.queueSize, 1);
    t.gates[1]?.open();
    t.gates[2]?.open();
    await settleAll();
    assert.deepEqual(t.started, [0, 1, 2]);
    assert.equal(executor.activeCount, 0);
    assert.equal(executor.queueSize, 0);
  });

  test('core slots, then the queue, then extra slots up to the maximum, then rejection', async () => {
    const t = tasks(6);
    const executor = new CheckRequestExecutor(
      { checkThreadPoolMinSize: 1, checkThreadPoolMaxSize: 3, checkRequestHoldMax: 2 },
      unexpected,
    );
    const admissions = [0, 1, 2, 3, 4, 5].map((i) => executor.submit(t.make(i)));
    assert.deepEqual(admissions, ['started', 'queued', 'queued', 'started', 'started', 'rejected']);
    await settleAll();
    assert.deepEqual(t.started, [0, 3, 4]);
    assert.equal(executor.activeCount, 3);
    // A slot that finishes takes the oldest queued check.
    t.gates[3]?.open();
    await settleAll();
    assert.deepEqual(t.started, [0, 3, 4, 1]);
    for (const g of t.gates) g.open();
    await settleAll();
    assert.deepEqual(t.started, [0, 3, 4, 1, 2]);
  });

  test('without core slots a check still starts when nothing runs', async () => {
    const t = tasks(3);
    const executor = new CheckRequestExecutor(
      { checkThreadPoolMinSize: 0, checkThreadPoolMaxSize: 1, checkRequestHoldMax: 5 },
      unexpected,
    );
    assert.equal(executor.submit(t.make(0)), 'started');
    assert.equal(executor.submit(t.make(1)), 'queued');
    await settleAll();
    assert.deepEqual(t.started, [0]);
    t.gates[0]?.open();
    await settleAll();
    assert.deepEqual(t.started, [0, 1]);
    t.gates[1]?.open();
    await settleAll();
    assert.equal(executor.submit(t.make(2)), 'started');
    t.gates[2]?.open();
  });

  test('a failing check goes to onError and the slot takes the next one', async () => {
    const errors: unknown[] = [];
    const executor = new CheckRequestExecutor(DEFAULT_CHECK_EXECUTOR_LIMITS, (e) => errors.push(e));
    const boom = new Error('boom');
    let ran = false;
    executor.submit(() => Promise.reject(boom));
    executor.submit(() => {
      throw new Error('sync');
    });
    executor.submit(async () => {
      ran = true;
    });
    await settleAll();
    assert.equal(errors.length, 2);
    assert.equal(errors[0], boom);
    assert.match(String(errors[1]), /sync/);
    assert.ok(ran);
  });

  test('an onError that throws does not stop the next check', async () => {
    const executor = new CheckRequestExecutor(DEFAULT_CHECK_EXECUTOR_LIMITS, () => {
      throw new Error('handler broke');
    });
    let ran = false;
    executor.submit(() => Promise.reject(new Error('x')));
    executor.submit(async () => {
      ran = true;
    });
    await settleAll();
    assert.ok(ran);
    assert.equal(await executor.shutdown(), 0);
  });

  test('shutdown drops the queue, waits for the running checks and takes no more', async () => {
    const t = tasks(4);
    const executor = new CheckRequestExecutor(DEFAULT_CHECK_EXECUTOR_LIMITS, unexpected);
    for (let i = 0; i < 3; i++) executor.submit(t.make(i));
    await settleAll();
    let done: number | undefined;
    const stopping = executor.shutdown().then((dropped) => {
      done = dropped;
    });
    assert.ok(executor.isShutdown);
    assert.equal(executor.submit(t.make(3)), 'rejected');
    await settleAll();
    assert.equal(done, undefined, 'shutdown waits for the running check');
    t.gates[0]?.open();
    await stopping;
    assert.equal(done, 2);
    assert.deepEqual(t.started, [0], 'queued and later checks never ran');
    assert.equal(executor.activeCount, 0);
    assert.equal(await executor.shutdown(), 0, 'a second shutdown has nothing left');
  });
});
