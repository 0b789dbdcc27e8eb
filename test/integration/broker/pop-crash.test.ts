/**
 * Checkpoints survive a SIGKILL of the broker: a child broker (pop-crash-child.ts) pops 100
 * messages, some checkpoints expire and are revived before the kill, half of the others are acked,
 * and more acks race the SIGKILL. A broker restarted on the same directory replays its revive queues
 * from the committed revive offsets and, once every invisible time is over, every popped message that
 * was not acked is in the retry topic and no acked one is. Copies beyond one are duplicates: counted
 * and printed (the revive marker keeps a replay from reviving a checkpoint again; what is left is a
 * re-put whose marker did not make it before the kill).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createBroker } from '../../../src/broker/broker-controller.js';
import { ManualClock } from '../../../src/common/clock.js';
import { createLogger } from '../../../src/common/logger.js';
import { buildPopRetryTopic } from '../../../src/common/pop/index.js';
import { POP_CRASH_GROUP, POP_CRASH_MESSAGES, POP_CRASH_TOPIC, popCrashConfig } from './pop-crash-child.js';
import { readQueue } from './pop-revive-support.js';

const CHILD = join(dirname(fileURLToPath(import.meta.url)), 'pop-crash-child.js');
const dir = mkdtempSync(join(tmpdir(), 'rmq-pop-crash-'));
after(() => rmSync(dir, { recursive: true, force: true }));

interface ChildRun {
  popped: Map<string, 'short' | 'long'>;
  sent: Set<string>;
  acked: Set<string>;
}

/** Runs the child until it has revived the short ones and confirmed `racing` acks after that, then SIGKILLs it. */
function runChildUntilKilled(racing: number): Promise<ChildRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CHILD, '--pop-crash-child', dir], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const run: ChildRun = { popped: new Map(), sent: new Set(), acked: new Set() };
    let buffered = '';
    let stderr = '';
    let revived = false;
    let after = 0;
    const watchdog = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`child did not get there in time; stderr: ${stderr}`));
    }, 60_000);
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      stderr += d;
    });
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      buffered += chunk;
      for (let nl = buffered.indexOf('\n'); nl >= 0; nl = buffered.indexOf('\n')) {
        const [kind, id, what] = buffered.slice(0, nl).split(' ');
        buffered = buffered.slice(nl + 1);
        if (kind === 'P' && id !== undefined) run.popped.set(id, what === 'short' ? 'short' : 'long');
        else if (kind === 'S' && id !== undefined) run.sent.add(id);
        else if (kind === 'A' && id !== undefined) {
          run.acked.add(id);
          if (revived) after++;
        } else if (kind === 'R') revived = true;
        if ((revived && after >= racing) || kind === 'D') child.kill('SIGKILL');
      }
    });
    child.on('exit', (code, signal) => {
      clearTimeout(watchdog);
      if (signal === 'SIGKILL') resolve(run);
      else reject(new Error(`child exited ${code}; stderr: ${stderr}`));
    });
  });
}

test('after a SIGKILL every popped, un-acked message comes back and no acked one does', {
  timeout: 120_000,
}, async () => {
  const run = await runChildUntilKilled(3);
  assert.equal(run.popped.size, POP_CRASH_MESSAGES);

  const clock = new ManualClock(Date.now());
  const broker = createBroker({
    config: popCrashConfig(dir),
    clock,
    logger: createLogger('restart', { level: 'error' }),
  });
  await broker.start();
  try {
    // Every invisible time (10 min at most) is over.
    clock.advance(20 * 60_000);
    await broker.popRevive.reviveNow();
    await broker.popRevive.reviveNow();
    const copies = new Map<string, number>();
    for (const m of await readQueue(broker, buildPopRetryTopic(POP_CRASH_TOPIC, POP_CRASH_GROUP, false))) {
      const id = m.body.toString();
      copies.set(id, (copies.get(id) ?? 0) + 1);
    }
    const missing: string[] = [];
    const ackedBack: string[] = [];
    let duplicates = 0;
    let racedAndLanded = 0;
    for (const id of run.popped.keys()) {
      const n = copies.get(id) ?? 0;
      if (n > 1) duplicates += n - 1;
      if (run.acked.has(id)) {
        if (n > 0) ackedBack.push(id);
      } else if (run.sent.has(id)) {
        // The ack raced the kill: either outcome is right.
        if (n === 0) racedAndLanded++;
      } else if (n === 0) {
        missing.push(id);
      }
    }
    console.log(
      `pop crash: popped ${run.popped.size}, acked ${run.acked.size} (confirmed), ` +
        `acks racing the kill that landed ${racedAndLanded}, back ${copies.size}, duplicates ${duplicates}`,
    );
    assert.deepEqual(ackedBack, [], 'acked messages came back');
    assert.deepEqual(missing, [], 'popped, un-acked messages were lost');
    assert.equal(duplicates, 0, 'a replay revived a checkpoint again');
  } finally {
    await broker.shutdown();
  }
});
