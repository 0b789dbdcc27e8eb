/** The send-path transform of timer messages, against upstream HookUtils (5.5.0) case by case. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  handleScheduleMessage,
  requestedDeliverMs,
  type TimerHookContext,
  timerOutMs,
} from '../../../src/broker/processor/handle-schedule-message.js';
import { MessageSysFlag } from '../../../src/common/message/sysflag.js';
import { getProperty } from '../../../src/store/dispatch-request.js';
import { PutMessageStatus } from '../../../src/store/put-message-result.js';
import type { MessageExtBrokerInner } from '../../../src/store/stored-record-writer.js';
import { TIMER_TOPIC } from '../../../src/store/timer/timer-config.js';

const NOW = 1_700_000_000_300;
const HOST = { address: '127.0.0.1', port: 1 };

function ctx(overrides: Partial<TimerHookContext> = {}): TimerHookContext {
  return {
    timerWheelEnable: true,
    timerMaxDelaySec: 259_200,
    timerPrecisionMs: 1000,
    now: () => NOW,
    isReject: () => false,
    ...overrides,
  };
}

function message(props: Record<string, string>, sysFlag = 0): MessageExtBrokerInner {
  return {
    topic: 'T',
    queueId: 3,
    flag: 0,
    body: Buffer.from('x'),
    propertiesString: Object.entries({ UNIQ_KEY: 'U', ...props })
      .map(([k, v]) => `${k}\u0001${v}`)
      .join('\u0002'),
    tagsCode: 0n,
    sysFlag,
    bornTimestamp: 0n,
    bornHost: HOST,
    storeHost: HOST,
    reconsumeTimes: 0,
    preparedTransactionOffset: 0n,
  };
}

const prop = (m: MessageExtBrokerInner, name: string) => getProperty(m.propertiesString, name);

test('rounding: down to the precision; an exact multiple one step earlier (upstream)', () => {
  assert.equal(timerOutMs(12_345n, 1000), 12_000n);
  assert.equal(timerOutMs(12_000n, 1000), 11_000n);
  assert.equal(timerOutMs(12_050n, 100), 12_000n);
  assert.equal(timerOutMs(12_100n, 100), 12_000n);
});

test('which property counts: TIMER_DELAY_SEC, then TIMER_DELAY_MS, then TIMER_DELIVER_MS', () => {
  const p = (o: Record<string, string>) => message(o).propertiesString;
  assert.equal(
    requestedDeliverMs(p({ TIMER_DELAY_SEC: '2', TIMER_DELAY_MS: '5', TIMER_DELIVER_MS: '9' }), NOW),
    BigInt(NOW + 2000),
  );
  assert.equal(requestedDeliverMs(p({ TIMER_DELAY_MS: '5', TIMER_DELIVER_MS: '9' }), NOW), BigInt(NOW + 5));
  assert.equal(requestedDeliverMs(p({ TIMER_DELIVER_MS: '9' }), NOW), 9n);
  assert.equal(requestedDeliverMs(p({ TIMER_DELAY_SEC: ' 2' }), NOW), undefined);
  // Java's long arithmetic wraps: a huge delay becomes a time in the past.
  assert.ok((requestedDeliverMs(p({ TIMER_DELAY_SEC: '9223372036854775807' }), NOW) ?? 0n) < BigInt(NOW));
});

test('a future time: parked in rmq_sys_wheel_timer queue 0 with TIMER_OUT_MS, REAL_TOPIC, REAL_QID', () => {
  const m = message({ TIMER_DELAY_SEC: '10' });
  assert.equal(handleScheduleMessage(ctx(), m), undefined);
  assert.equal(m.topic, TIMER_TOPIC);
  assert.equal(m.queueId, 0);
  assert.equal(prop(m, 'TIMER_OUT_MS'), String(Math.floor((NOW + 10_000) / 1000) * 1000));
  assert.equal(prop(m, 'REAL_TOPIC'), 'T');
  assert.equal(prop(m, 'REAL_QID'), '3');
  assert.equal(prop(m, 'TIMER_DELAY_SEC'), '10', 'the request stays');
  assert.equal(prop(m, 'UNIQ_KEY'), 'U');
});

test('a past time: stored as a normal message; a past delete marker is illegal', () => {
  const m = message({ TIMER_DELIVER_MS: String(NOW - 1) });
  assert.equal(handleScheduleMessage(ctx(), m), undefined);
  assert.equal(m.topic, 'T');
  assert.equal(prop(m, 'TIMER_OUT_MS'), undefined);
  const del = message({ TIMER_DELIVER_MS: String(NOW), TIMER_DEL_UNIQKEY: 'k' });
  assert.equal(handleScheduleMessage(ctx(), del), PutMessageStatus.WHEEL_TIMER_MSG_ILLEGAL);
});

test('refusals: beyond timerMaxDelaySec, not a long, wheel off, flow control', () => {
  assert.equal(
    handleScheduleMessage(ctx(), message({ TIMER_DELAY_SEC: '259201' })),
    PutMessageStatus.WHEEL_TIMER_MSG_ILLEGAL,
  );
  assert.equal(
    handleScheduleMessage(ctx(), message({ TIMER_DELAY_SEC: '259200' })),
    undefined,
    'exactly the max is allowed',
  );
  assert.equal(
    handleScheduleMessage(ctx(), message({ TIMER_DELIVER_MS: 'x' })),
    PutMessageStatus.WHEEL_TIMER_MSG_ILLEGAL,
  );
  assert.equal(
    handleScheduleMessage(ctx({ timerWheelEnable: false }), message({ TIMER_DELAY_MS: '1' })),
    PutMessageStatus.WHEEL_TIMER_NOT_ENABLE,
  );
  // Disabled, even a malformed value gets NOT_ENABLE first (upstream checks the switch first).
  assert.equal(
    handleScheduleMessage(ctx({ timerWheelEnable: false }), message({ TIMER_DELAY_MS: 'x' })),
    PutMessageStatus.WHEEL_TIMER_NOT_ENABLE,
  );
  let asked = 0;
  const reject = ctx({
    isReject: (ms) => {
      asked = ms;
      return true;
    },
  });
  assert.equal(
    handleScheduleMessage(reject, message({ TIMER_DELAY_SEC: '5' })),
    PutMessageStatus.WHEEL_TIMER_FLOW_CONTROL,
  );
  assert.equal(
    asked,
    Math.floor((NOW + 5000) / 1000) * 1000,
    'flow control asks about the rounded slot time',
  );
});

test('left alone: a delay level (TIMER_* removed), prepared half messages, TIMER_OUT_MS already set, the timer topic', () => {
  const level = message({ DELAY: '3', TIMER_DELAY_SEC: '10', TIMER_DELIVER_MS: '1' });
  assert.equal(handleScheduleMessage(ctx(), level), undefined);
  assert.equal(level.topic, 'T');
  assert.equal(prop(level, 'TIMER_DELAY_SEC'), undefined);
  assert.equal(prop(level, 'TIMER_DELIVER_MS'), undefined);
  assert.equal(prop(level, 'DELAY'), '3');
  const half = message({ TIMER_DELAY_SEC: '10' }, MessageSysFlag.TRANSACTION_PREPARED_TYPE);
  assert.equal(handleScheduleMessage(ctx(), half), undefined);
  assert.equal(half.topic, 'T');
  const commit = message({ TIMER_DELAY_SEC: '10' }, MessageSysFlag.TRANSACTION_COMMIT_TYPE);
  assert.equal(handleScheduleMessage(ctx(), commit), undefined);
  assert.equal(commit.topic, TIMER_TOPIC, 'a committed one is transformed');
  const out = message({ TIMER_DELAY_SEC: '10', TIMER_OUT_MS: '5' });
  assert.equal(handleScheduleMessage(ctx({ timerWheelEnable: false }), out), undefined);
  assert.equal(out.topic, 'T');
  const rolled = { ...message({ TIMER_DELAY_SEC: '10' }), topic: TIMER_TOPIC };
  assert.equal(handleScheduleMessage(ctx({ timerWheelEnable: false }), rolled), undefined);
});
