/**
 * Clock jump: the broker's wall clock jumps forward and backward while delayed messages wait and old
 * commit-log files age. The broker runs in this process with an injected clock whose `now()` is the
 * wall clock plus an offset the scenario moves, while its timers stay on Node's monotonic timers, as a
 * real wall-clock step (NTP, a VM resume) behaves.
 *
 * Expected, as upstream 4.9.8 behaves (ScheduleMessageService compares each entry's deliver time,
 * store time + level delay, with now; correctDeliverTimestamp treats a deliver time more than the
 * level's delay ahead of now as now, so a clock that went back cannot hold messages for the jump's
 * length; CleanCommitLogService deletes a file when its mtime + fileReservedTime <= now):
 * - forward jump shorter than a level's delay: nothing of that level is delivered early;
 * - forward jump past a level's delay: its messages are due by the broker's clock and are delivered,
 *   no later than their own due time in real time (the level's timer is monotonic);
 * - backward jump: delayed messages are delivered by their level's delay after the jump at the
 *   latest (never stuck for the jump's length) and never more than their level's delay early;
 * - retention: a forward jump within fileReservedTime deletes nothing, a backward jump deletes
 *   nothing and breaks nothing, a jump past fileReservedTime deletes (the control that the check sees).
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { type BrokerController, createBroker } from '../../../src/broker/broker-controller.js';
import { createProducer } from '../../../src/client/index.js';
import type { Clock, TimerHandle } from '../../../src/common/clock.js';
import { createLogger } from '../../../src/common/logger.js';
import { createNamesrv } from '../../../src/namesrv/index.js';
import type { DefaultMessageStore } from '../../../src/store/default-message-store.js';
import { quietClientLogger, resourceVerdict } from '../solo-broker.js';
import type { Scenario, ScenarioContext, Verdict } from '../types.js';

const NAME = 'clock-jump';
const HOUR = 3_600_000;
/** Levels 1..3 of this broker. */
const LEVELS = '2s 5s 1h';
const LEVEL_DELAY = [0, 2_000, 5_000, HOUR] as const;
/** What a delivery may lag behind its due time (the level timer, the re-put, our 50 ms sampling). */
const DELIVERY_SLACK_MS = 3_000;
const SAMPLE_MS = 50;
/** Retention: files live this many hours (upstream fileReservedTime is in hours). */
const FILE_RESERVED_HOURS = 2;
/** How often retention runs here (cleanResourceInterval); rounds are counted in these. */
const CLEAN_INTERVAL_MS = 200;
/** Retention rounds a jump is given to (wrongly) delete something. */
const CLEAN_ROUNDS = 5;
const COMMIT_LOG_FILE_BYTES = 256 * 1024;

/** The wall clock plus an offset the scenario moves; timers stay monotonic. */
class JumpingClock implements Clock {
  offset = 0;
  now(): number {
    return Date.now() + this.offset;
  }
  setTimeout(fn: () => void, ms: number): TimerHandle {
    const t = setTimeout(fn, ms);
    t.unref?.();
    return { cancel: () => clearTimeout(t) };
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

function delivered(store: DefaultMessageStore, topic: string): number {
  let n = 0;
  for (let q = 0; q < 16; q++) n += Number(store.getMaxOffsetInQueue(topic, q));
  return n;
}

/** Samples how many messages of `topic` are delivered until `count` or the deadline; real times of the first and last. */
async function watch(
  store: DefaultMessageStore,
  topic: string,
  count: number,
  deadline: number,
  signal: AbortSignal,
): Promise<{ n: number; first: number; last: number }> {
  let first = 0;
  let last = 0;
  let n = 0;
  while (Date.now() < deadline && !signal.aborted) {
    const now = delivered(store, topic);
    if (now > n) {
      if (n === 0) first = Date.now();
      last = Date.now();
      n = now;
    }
    if (n >= count) break;
    await sleep(SAMPLE_MS);
  }
  return { n, first, last };
}

export const scenario: Scenario = {
  name: NAME,
  description:
    'the broker clock jumps forward and back: delay levels neither deliver early en masse nor stick, retention deletes nothing early',
  needsJava: false,
  async run(ctx: ScenarioContext): Promise<Verdict[]> {
    const perGroup = ctx.long ? 500 : 20;
    const dataDir = join(ctx.workDir, NAME);
    mkdirSync(dataDir, { recursive: true });
    const clock = new JumpingClock();
    const logger = createLogger('rmq', { level: 'error' });
    const namesrv = createNamesrv({
      listenPort: 0,
      kvConfigPath: join(dataDir, 'namesrv', 'kvConfig.json'),
      settings: { listenHost: '127.0.0.1' },
      logger: logger.child('namesrv'),
    });
    const nsPort = (await namesrv.start()).port;
    const namesrvAddr = `127.0.0.1:${nsPort}`;
    let broker: BrokerController | undefined;
    const delayFailures: string[] = [];
    const retentionFailures: string[] = [];
    const delayFigures: Record<string, number | string> = {};
    const retentionFigures: Record<string, number | string> = {};
    let sendAttempts = 0;
    let acknowledged = 0;
    const jump = (ms: number): void => {
      clock.offset += ms;
      ctx.log(`${NAME}: clock ${ms > 0 ? '+' : ''}${ms / 1000} s (offset ${clock.offset / 1000} s)`);
    };
    try {
      broker = createBroker({
        clock,
        logger: logger.child('broker'),
        config: {
          storePathRootDir: dataDir,
          namesrvAddr,
          listenPort: 0,
          listenHost: '127.0.0.1',
          brokerIP1: '127.0.0.1',
          brokerIP2: '127.0.0.1',
          autoCreateTopicEnable: true,
          messageDelayLevel: LEVELS,
          mappedFileSizeCommitLog: COMMIT_LOG_FILE_BYTES,
          fileReservedTime: FILE_RESERVED_HOURS,
          // Every hour is the deletion hour, so that only the files' age decides.
          deleteWhen: Array.from({ length: 24 }, (_, h) => String(h).padStart(2, '0')).join(';'),
          cleanResourceInterval: CLEAN_INTERVAL_MS,
        },
      });
      await broker.start();
      const store = broker.messageStore as DefaultMessageStore;
      const producer = createProducer({
        logger: quietClientLogger(),
        namesrvAddr,
        producerGroup: 'chaos-clock-jump',
      });
      await producer.start();
      const sendGroup = async (topic: string, level: number, n: number, body = 'x'): Promise<number> => {
        const sentAt = Date.now();
        await Promise.all(
          Array.from({ length: n }, async (_, i) => {
            sendAttempts++;
            await producer.send({
              topic,
              body,
              keys: `${topic}-${i}`,
              ...(level > 0 ? { delayTimeLevel: level } : {}),
            });
            acknowledged++;
          }),
        );
        return sentAt;
      };
      try {
        // ---- retention: old files, then jumps within, below and past fileReservedTime
        const fill = 'r'.repeat(4_000);
        for (let i = 0; i < 4; i++) await sendGroup('ChaosClockRetention', 0, 64, fill);
        const files = store.commitLog.mappedFileQueue.getMappedFiles().length;
        retentionFigures.commitLogFiles = files;
        if (files < 3) retentionFailures.push(`only ${files} commit-log files to age`);
        const minBefore = store.getMinPhyOffset();
        const roundsPass = (): Promise<void> => sleep(CLEAN_INTERVAL_MS * CLEAN_ROUNDS);
        jump(FILE_RESERVED_HOURS * HOUR - 10 * 60_000);
        await roundsPass();
        const afterForward = store.getMinPhyOffset();
        retentionFigures.deletedOnForwardWithinReserve = Number(afterForward - minBefore);
        if (afterForward !== minBefore)
          retentionFailures.push(
            `a forward jump within fileReservedTime deleted up to offset ${afterForward}`,
          );
        jump(-(FILE_RESERVED_HOURS * HOUR - 10 * 60_000) - 24 * HOUR);
        await roundsPass();
        const afterBackward = store.getMinPhyOffset();
        retentionFigures.deletedOnBackward = Number(afterBackward - minBefore);
        if (afterBackward !== minBefore)
          retentionFailures.push(`a backward jump deleted up to offset ${afterBackward}`);
        await sendGroup('ChaosClockRetention', 0, 1);
        jump(24 * HOUR + FILE_RESERVED_HOURS * HOUR + 10 * 60_000);
        const controlDeadline = Date.now() + CLEAN_INTERVAL_MS * CLEAN_ROUNDS + files * 1_000;
        while (store.getMinPhyOffset() === minBefore && Date.now() < controlDeadline) await sleep(SAMPLE_MS);
        retentionFigures.filesDeletedPastReserve = Math.round(
          Number(store.getMinPhyOffset() - minBefore) / COMMIT_LOG_FILE_BYTES,
        );
        if (store.getMinPhyOffset() === minBefore)
          retentionFailures.push(
            'a jump past fileReservedTime deleted nothing: the check cannot see deletion',
          );
        jump(-(FILE_RESERVED_HOURS * HOUR + 10 * 60_000));

        // ---- delay levels, forward: a jump past level 2's delay, short of level 3's
        const fwd2 = await sendGroup('ChaosClockFwd5s', 2, perGroup);
        const fwd3 = await sendGroup('ChaosClockFwd1h', 3, perGroup);
        const forwardAt = Date.now();
        jump(60_000);
        const f2 = await watch(
          store,
          'ChaosClockFwd5s',
          perGroup,
          fwd2 + LEVEL_DELAY[2] + DELIVERY_SLACK_MS,
          ctx.signal,
        );
        delayFigures.fwd5sDelivered = `${f2.n}/${perGroup}`;
        delayFigures.fwd5sLastAfterDueMs = f2.n > 0 ? f2.last - (fwd2 + LEVEL_DELAY[2]) : -1;
        if (f2.n < perGroup)
          delayFailures.push(
            `forward +60 s: ${perGroup - f2.n} level-2 (5 s) messages not delivered by their due time`,
          );
        delayFigures.fwd5sFirstAfterJumpMs = f2.n > 0 ? f2.first - forwardAt : -1;

        // ---- delay levels, backward: a jump back of an hour, level 2 waiting
        const back2 = await sendGroup('ChaosClockBack5s', 2, perGroup);
        const backAt = Date.now();
        jump(-HOUR);
        const b2 = await watch(
          store,
          'ChaosClockBack5s',
          perGroup,
          backAt + LEVEL_DELAY[2] + DELIVERY_SLACK_MS,
          ctx.signal,
        );
        delayFigures.back5sDelivered = `${b2.n}/${perGroup}`;
        delayFigures.back5sLastAfterJumpMs = b2.n > 0 ? b2.last - backAt : -1;
        delayFigures.back5sEarlyMs = b2.n > 0 ? Math.max(0, back2 + LEVEL_DELAY[2] - b2.first) : 0;
        if (b2.n < perGroup)
          delayFailures.push(
            `backward -1 h: ${perGroup - b2.n} level-2 (5 s) messages stuck past their level's delay after the jump`,
          );
        if (b2.n > 0 && b2.first < back2)
          delayFailures.push('backward -1 h: a level-2 message was delivered before it was sent');

        // The hour level saw both jumps and must still be waiting.
        const f3 = delivered(store, 'ChaosClockFwd1h');
        delayFigures.hourLevelDeliveredEarly = f3;
        if (f3 > 0)
          delayFailures.push(
            `${f3} level-3 (1 h) messages delivered within ${Math.round((Date.now() - fwd3) / 1000)} s`,
          );
        // Still a working broker after the jumps.
        await sendGroup('ChaosClockAfter', 0, 1);
      } finally {
        await producer.shutdown();
      }
    } finally {
      await broker?.shutdown();
      await namesrv.shutdown();
    }
    return [
      resourceVerdict({
        scenario: NAME,
        mode: 'delay levels, ours',
        sendAttempts,
        acknowledged,
        figures: delayFigures,
        failures: delayFailures,
      }),
      resourceVerdict({
        scenario: NAME,
        mode: 'retention, ours',
        figures: retentionFigures,
        failures: retentionFailures,
      }),
    ];
  },
};
