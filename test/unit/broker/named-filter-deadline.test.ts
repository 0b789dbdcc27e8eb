/**
 * Named filters under their deadline (namedFilterTimeoutMillis / namedFilterMaxTimeouts) on a started
 * broker over a real store: a filter that loops is stopped, its messages do not match, the breach is
 * logged, the filter is disabled after the set number of breaches, and the pull that ran it answers.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, test } from 'node:test';
import { createBroker } from '../../../src/broker/broker-controller.js';
import { PullSysFlag } from '../../../src/common/constants.js';
import { decodeMessages } from '../../../src/common/message/stored-format.js';
import { createTopicConfig } from '../../../src/common/protocol/topic-config.js';
import { createRequest, type RemotingCommand } from '../../../src/remoting/protocol/command.js';
import { encodeHeader, type HeaderInputOf } from '../../../src/remoting/protocol/header-schema.js';
import { PullMessageRequestHeader } from '../../../src/remoting/protocol/headers/index.js';
import { RequestCode } from '../../../src/remoting/protocol/request-code.js';
import { ResponseCode } from '../../../src/remoting/protocol/response-code.js';
import { msg } from '../store/default-message-store-support.js';
import { capturingLogger, connectInMemory, ManualClock, MemoryFileIO, TEST_ENV } from './helpers.js';
import { cleanUp, TEST_BROKER_CONFIG, tempRoot, track } from './store-broker.js';

const LIMIT = { timeout: 20_000 };
const TOPIC = 'TopicTest';
const SUB = PullSysFlag.buildSysFlag(false, false, true, false);

const FILTER_MODULE = `
export const filters = {
  loops: () => { for (;;) {} },
  red: (m) => m.properties.get('color') === 'red',
};
`;

afterEach(cleanUp);

async function brokerWithFilters(config: object) {
  const root = tempRoot();
  const module = join(root, 'filters.mjs');
  writeFileSync(module, FILTER_MODULE);
  const { logger, records } = capturingLogger();
  const broker = track(
    createBroker({
      config: {
        ...TEST_BROKER_CONFIG,
        storePathRootDir: join(root, 'store'),
        namedFilterModule: module,
        ...config,
      },
      env: TEST_ENV,
      clock: new ManualClock(),
      logger,
      configFileIO: new MemoryFileIO(),
    }),
  );
  await broker.start();
  broker.topicConfigManager.updateTopicConfig(
    createTopicConfig(TOPIC, { readQueueNums: 1, writeQueueNums: 1 }),
  );
  for (let i = 0; i < 6; i++) {
    const r = await broker.messageStore.putMessage(
      msg(i, { topic: TOPIC, queueId: 0, extra: { color: i % 2 === 0 ? 'red' : 'blue' } }),
    );
    assert.equal(r.putMessageStatus, 'PUT_OK');
  }
  return { broker, c: connectInMemory(broker), logs: records };
}

function pull(subscription: string, init: Partial<HeaderInputOf<typeof PullMessageRequestHeader>> = {}) {
  return createRequest(RequestCode.PULL_MESSAGE, {
    extFields: encodeHeader(PullMessageRequestHeader, {
      consumerGroup: 'cg-deadline',
      topic: TOPIC,
      queueId: 0,
      queueOffset: 0n,
      maxMsgNums: 32,
      sysFlag: SUB,
      commitOffset: 0n,
      suspendTimeoutMillis: 0n,
      subVersion: 0n,
      subscription,
      expressionType: 'NAMED',
      ...init,
    }),
  });
}

function idx(r: RemotingCommand): string[] {
  assert.equal(r.code, ResponseCode.SUCCESS, r.remark);
  assert.ok(r.body);
  return decodeMessages(r.body).map((m) => m.getProperty('idx') ?? '?');
}

describe('named filter deadline', () => {
  test(
    'a looping filter is stopped, disabled after namedFilterMaxTimeouts, and the pull answers',
    LIMIT,
    async () => {
      const { broker, c, logs } = await brokerWithFilters({
        namedFilterTimeoutMillis: 200,
        namedFilterMaxTimeouts: 2,
      });
      const started = performance.now();
      const r = await c.call(pull('loops'));
      const took = performance.now() - started;
      // Six messages, none delivered: two stopped calls, then the disabled filter is not called. (The
      // deadline is wall-clock time, so a loaded machine must not stop the quick filter used below.)
      assert.equal(r.code, ResponseCode.PULL_RETRY_IMMEDIATELY);
      assert.ok(took < 5_000, `the pull took ${took} ms`);
      assert.equal(broker.namedFilters.timeoutCount('loops'), 2);
      assert.equal(broker.namedFilters.isDisabled('loops'), true);
      const breaches = logs.filter((l) => l.fields.filter === 'loops' && l.msg.includes('deadline'));
      assert.deepEqual(
        breaches.map((l) => [l.level, l.fields.timeouts, l.fields.timeoutMillis]),
        [
          ['warn', 1, 200],
          ['error', 2, 200],
        ],
      );
      // The broker goes on serving: another pull of the same filter answers at once, and others filter.
      const again = await c.call(pull('loops'));
      assert.notEqual(again.code, ResponseCode.SUCCESS);
      assert.equal(broker.namedFilters.timeoutCount('loops'), 2);
      assert.deepEqual(idx(await c.call(pull('red'))), ['0', '2', '4']);
    },
  );

  test('namedFilterMaxTimeouts 0 never disables: every call is stopped at its deadline', LIMIT, async () => {
    const { broker, c } = await brokerWithFilters({ namedFilterTimeoutMillis: 5, namedFilterMaxTimeouts: 0 });
    const r = await c.call(pull('loops', { maxMsgNums: 3 }));
    assert.notEqual(r.code, ResponseCode.SUCCESS);
    assert.equal(broker.namedFilters.timeoutCount('loops'), 6);
    assert.equal(broker.namedFilters.isDisabled('loops'), false);
  });

  test('the settings are read from broker.conf keys and validated', async () => {
    const root = tempRoot();
    assert.throws(
      () =>
        createBroker({
          config: { ...TEST_BROKER_CONFIG, storePathRootDir: root, namedFilterTimeoutMillis: -1 },
          env: TEST_ENV,
          configFileIO: new MemoryFileIO(),
        }),
      /namedFilterTimeoutMillis must be >= 0/,
    );
  });
});
