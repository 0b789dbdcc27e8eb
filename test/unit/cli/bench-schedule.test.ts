import assert from 'node:assert/strict';
import { once } from 'node:events';
import { performance } from 'node:perf_hooks';
import { test } from 'node:test';
import { scheduleRun } from '../../../src/cli/bench/run-schedule.js';

test('--duration stops the run no earlier than the measured window is long, by performance.now()', async () => {
  // Node's timers may fire up to a millisecond early; over many short windows one of them does.
  for (let round = 0; round < 40; round++) {
    let measureFrom = Number.NaN;
    const schedule = scheduleRun({
      signal: new AbortController().signal,
      warmupS: 0,
      durationS: 0.007,
      reportIntervalS: 60,
      showProgress: false,
      onMeasureStart: (at) => {
        measureFrom = at;
      },
      onReport: () => {},
      onProgress: () => {},
    });
    await once(schedule.stopped, 'abort');
    const measured = performance.now() - measureFrom;
    schedule.dispose();
    assert.ok(measured >= 7, `round ${round}: stopped after ${measured} ms of 7`);
  }
});
