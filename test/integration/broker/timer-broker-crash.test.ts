/**
 * Timer messages survive a SIGKILL of the whole broker: a child broker (timer-broker-crash-child.ts)
 * takes 300 timer messages with SEND_MESSAGE, due over about two seconds, and is killed once about a
 * third of them reached their topic. A broker restarted on the same directory gives out the rest:
 * every confirmed message is in its topic, none before its time, and a message is there twice only
 * if it was due at or after the deliveredUpToMs of the checkpoint the killed broker had last written
 * (docs/producer.md: what was given out after the last checkpoint is given out again, as upstream).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createBroker } from '../../../src/broker/broker-controller.js';
import { createLogger } from '../../../src/common/logger.js';
import { MessageConst } from '../../../src/common/message/message-const.js';
import { readTimerCheckpoint, timerCheckpointPath } from '../../../src/store/timer/timer-checkpoint.js';
import { readQueue } from './pop-revive-support.js';
import {
  TIMER_BROKER_CRASH_MESSAGES as COUNT,
  TIMER_BROKER_CRASH_QUEUES,
  TIMER_BROKER_CRASH_TOPIC as TOPIC,
  timerBrokerCrashConfig,
} from './timer-broker-crash-child.js';

const CHILD = join(dirname(fileURLToPath(import.meta.url)), 'timer-broker-crash-child.js');
const dir = mkdtempSync(join(tmpdir(), 'rmq-timer-broker-crash-'));
after(() => rmSync(dir, { recursive: true, force: true }));

interface ChildRun {
  /** Earliest delivery time of each confirmed message. */
  due: Map<number, number>;
  /** In the real topic when the kill was sent. */
  deliveredAtKill: number;
  killedAt: number;
}

/** Runs the child until every send is confirmed and `killAt` messages reached the topic, then SIGKILLs it. */
function runChildUntilKilled(killAt: number): Promise<ChildRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CHILD, '--timer-broker-crash-child', dir], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const run: ChildRun = { due: new Map(), deliveredAtKill: -1, killedAt: 0 };
    let buffered = '';
    let stderr = '';
    let sent = false;
    const watchdog = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`child did not get there in time; stderr: ${stderr}`));
    }, 20_000);
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      stderr += d;
    });
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      buffered += chunk;
      for (let nl = buffered.indexOf('\n'); nl >= 0; nl = buffered.indexOf('\n')) {
        const [kind, a, b] = buffered.slice(0, nl).split(' ');
        buffered = buffered.slice(nl + 1);
        if (kind === 'S') run.due.set(Number(a), Number(b));
        else if (kind === 'D') sent = true;
        else if (kind === 'N' && sent && run.deliveredAtKill < 0 && Number(a) >= killAt) {
          run.deliveredAtKill = Number(a);
          run.killedAt = Date.now();
          child.kill('SIGKILL');
        }
      }
    });
    child.on('exit', (code, signal) => {
      clearTimeout(watchdog);
      if (signal === 'SIGKILL' && run.deliveredAtKill >= 0) resolve(run);
      else reject(new Error(`child exited ${code ?? signal}; stderr: ${stderr}`));
    });
  });
}

test('timer messages survive a broker SIGKILL: none lost or early, duplicates only inside the checkpoint window', {
  timeout: 60_000,
}, async () => {
  const run = await runChildUntilKilled(Math.floor(COUNT / 3));
  assert.equal(run.due.size, COUNT, 'every send was confirmed before the kill');
  assert.ok(run.deliveredAtKill < COUNT, `some were still pending at the kill (${run.deliveredAtKill})`);
  const checkpoint = await readTimerCheckpoint(timerCheckpointPath(dir));
  assert.ok(checkpoint !== undefined, 'the killed broker had written a timer checkpoint');

  const restartAt = Date.now();
  const broker = createBroker({
    config: timerBrokerCrashConfig(dir),
    logger: createLogger('timer-broker-crash-restart', { level: 'error' }),
  });
  await broker.start();
  try {
    const lastDue = Math.max(...run.due.values());
    const deadline = lastDue + 10_000;
    let copies = new Map<number, { n: number; storedAt: number[]; outMs: number }>();
    for (;;) {
      copies = new Map();
      for (let q = 0; q < TIMER_BROKER_CRASH_QUEUES; q++) {
        for (const m of await readQueue(broker, TOPIC, q)) {
          const i = Number(m.body.toString().slice(2));
          const c = copies.get(i) ?? { n: 0, storedAt: [], outMs: 0 };
          c.n++;
          c.storedAt.push(Number(m.storeTimestamp));
          c.outMs = Number(m.getProperty(MessageConst.PROPERTY_TIMER_OUT_MS));
          copies.set(i, c);
        }
      }
      // Past the last due time plus a slot, nothing more may come: stop once all are there.
      if ((copies.size === COUNT && Date.now() > lastDue + 500) || Date.now() > deadline) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const missing = [...run.due.keys()].filter((i) => !copies.has(i));
    const early: string[] = [];
    const duplicated: number[] = [];
    for (const [i, c] of copies) {
      const due = run.due.get(i);
      assert.ok(due !== undefined, `message ${i} was never confirmed`);
      for (const at of c.storedAt) if (at < due) early.push(`${i}: stored ${at} < due ${due}`);
      if (c.n > 1) duplicated.push(i);
    }
    const outside = duplicated.filter((i) => (copies.get(i)?.outMs ?? 0) < checkpoint.deliveredUpToMs);
    // A second copy is one the killed broker gave out after its checkpoint: its first copy was stored
    // before the restart, so at most the messages due between that checkpoint and the restart.
    const afterRestart = duplicated.filter((i) => Math.min(...(copies.get(i)?.storedAt ?? [])) >= restartAt);
    const window = [...run.due.values()].filter(
      (due) => due >= checkpoint.deliveredUpToMs && due < restartAt,
    ).length;
    const extra = duplicated.reduce((s, i) => s + (copies.get(i)?.n ?? 1) - 1, 0);
    console.log(
      `timer broker crash: ${COUNT} confirmed, ${run.deliveredAtKill} in the topic at the kill, ` +
        `checkpoint ${run.killedAt - checkpoint.deliveredUpToMs} ms behind the kill, lost ${missing.length}, ` +
        `duplicates ${extra} (${duplicated.length} messages, ${window} due in the window), early ${early.length}`,
    );
    assert.deepEqual(missing, [], 'confirmed timer messages were lost');
    assert.deepEqual(early, [], 'timer messages were given out before their time');
    assert.deepEqual(outside, [], 'a message the checkpoint proved delivered was given out again');
    assert.deepEqual(afterRestart, [], 'the restarted broker gave a message out twice');
    assert.ok(extra <= window, `duplicates ${extra} beyond the ${window} due inside the checkpoint window`);
  } finally {
    await broker.shutdown();
  }
});
