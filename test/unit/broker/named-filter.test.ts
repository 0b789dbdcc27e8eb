/**
 * Named filters on a started broker with its own DefaultMessageStore in a temp dir and a filter module
 * written next to it (broker.conf `namedFilterModule`), talked to over in-memory connections: NAMED
 * pulls and upstream's class-filter subscriptions get exactly what the operator's filter accepts, the
 * filter sees a read-only view of each message, an unknown name or an unconfigured broker gives
 * SUBSCRIPTION_PARSE_FAILED on every path, a failing filter matches nothing and is logged once, retried
 * and held pulls obey the filter, a bad module stops the start, and no remote request can change it.
 */
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterEach, describe, test } from 'node:test';
import { loadBrokerConfig } from '../../../src/broker/broker-config.js';
import { UPDATABLE_BROKER_CONFIG } from '../../../src/broker/broker-configuration.js';
import { type BrokerController, createBroker } from '../../../src/broker/broker-controller.js';
import { PullSysFlag } from '../../../src/common/constants.js';
import type { LogRecord } from '../../../src/common/logger.js';
import { decodeMessages } from '../../../src/common/message/stored-format.js';
import { encodeCheckClientRequestBody } from '../../../src/common/protocol/check-client-request-body.js';
import type { HeartbeatData } from '../../../src/common/protocol/heartbeat-data.js';
import type { SubscriptionData } from '../../../src/common/protocol/subscription-data.js';
import { createTopicConfig } from '../../../src/common/protocol/topic-config.js';
import { buildSubscriptionData } from '../../../src/filter/filter-api.js';
import { UPDATABLE_NAMESRV_CONFIG } from '../../../src/namesrv/index.js';
import { createRequest, type RemotingCommand } from '../../../src/remoting/protocol/command.js';
import {
  decodeHeader,
  encodeHeader,
  type HeaderInputOf,
} from '../../../src/remoting/protocol/header-schema.js';
import {
  PullMessageRequestHeader,
  PullMessageResponseHeader,
} from '../../../src/remoting/protocol/headers/index.js';
import { RequestCode } from '../../../src/remoting/protocol/request-code.js';
import { ResponseCode } from '../../../src/remoting/protocol/response-code.js';
import { type MsgInit, msg } from '../store/default-message-store-support.js';
import {
  capturingLogger,
  connectInMemory,
  heartbeatRequest,
  ManualClock,
  MemoryFileIO,
  settle,
  TEST_ENV,
  type TestClient,
} from './helpers.js';
import { cleanUp, TEST_BROKER_CONFIG, tempRoot, track, until } from './store-broker.js';

const LIMIT = { timeout: 10_000 };
const TOPIC = 'TopicTest';
const GROUP = 'cg-named';
const SUB_VERSION = 1700000000000n;
const SUB = PullSysFlag.buildSysFlag(false, false, true, false);
const SUB_CLASS = PullSysFlag.buildSysFlag(false, false, true, true);
const SUSPEND_CLASS = PullSysFlag.buildSysFlag(false, true, false, true);
const SEEN = 'rocketmq-ts.test.namedFilterSeen';
const NOT_CONFIGURED =
  'named filters are not configured on this broker (broker.conf namedFilterModule is empty)';

/** The operator's module: a `filters` export (the default export is ignored when it exists). */
const FILTER_MODULE = `
const seen = (globalThis[Symbol.for(${JSON.stringify(SEEN)})] ??= []);
export const filters = {
  red: (m) => m.properties.get('color') === 'red',
  onlyTopicTest: (m) => m.topic === ${JSON.stringify(TOPIC)},
  view: (m) => {
    seen.push({
      frozen: Object.isFrozen(m),
      topic: m.topic,
      tags: m.tags,
      keys: m.keys,
      idx: m.properties.get('idx'),
      body: m.body.toString(),
      queueId: m.queueId,
      queueOffset: m.queueOffset,
      bornTimestamp: m.bornTimestamp,
      storeTimestamp: m.storeTimestamp,
      reconsumeTimes: m.reconsumeTimes,
    });
    m.body.fill(0x21);
    return m.queueOffset === 1n;
  },
  boom: () => {
    throw new Error('kaput');
  },
  notBool: () => 'yes',
};
export default { ignored: () => true };
`;

interface Seen {
  frozen: boolean;
  topic: string;
  tags: string | undefined;
  keys: string | undefined;
  idx: string | undefined;
  body: string;
  queueId: number;
  queueOffset: bigint;
  bornTimestamp: number;
  storeTimestamp: number;
  reconsumeTimes: number;
}

function seen(): Seen[] {
  const g = globalThis as unknown as Record<symbol, Seen[] | undefined>;
  const list = g[Symbol.for(SEEN)] ?? [];
  g[Symbol.for(SEEN)] = list;
  return list;
}

afterEach(cleanUp);

interface NamedBroker {
  broker: BrokerController;
  clock: ManualClock;
  c: TestClient;
  logs: LogRecord[];
}

/** A broker over a fresh store, unstarted, with `namedFilterModule` as given. */
function namedBrokerUnstarted(root: string, namedFilterModule: string | undefined, extra = {}) {
  const clock = new ManualClock();
  const { logger, records } = capturingLogger();
  const broker = createBroker({
    config: { ...TEST_BROKER_CONFIG, storePathRootDir: join(root, 'store'), namedFilterModule, ...extra },
    env: TEST_ENV,
    clock,
    logger,
    configFileIO: new MemoryFileIO(),
  });
  track(broker);
  return { broker, clock, logs: records };
}

/** A started broker whose namedFilterModule is FILTER_MODULE (or none), TopicTest with 4 queues. */
async function namedBroker(options: { configured?: boolean; config?: object } = {}): Promise<NamedBroker> {
  const root = tempRoot();
  let module: string | undefined;
  if (options.configured !== false) {
    module = join(root, 'filters.mjs');
    writeFileSync(module, FILTER_MODULE);
  }
  const { broker, clock, logs } = namedBrokerUnstarted(root, module, options.config);
  await broker.start();
  broker.topicConfigManager.updateTopicConfig(
    createTopicConfig(TOPIC, { readQueueNums: 4, writeQueueNums: 4 }),
  );
  return { broker, clock, c: connectInMemory(broker), logs };
}

type PullInit = Partial<HeaderInputOf<typeof PullMessageRequestHeader>>;

function pullRequest(init: PullInit = {}): RemotingCommand {
  return createRequest(RequestCode.PULL_MESSAGE, {
    extFields: encodeHeader(PullMessageRequestHeader, {
      consumerGroup: GROUP,
      topic: TOPIC,
      queueId: 0,
      queueOffset: 0n,
      maxMsgNums: 32,
      sysFlag: 0,
      commitOffset: 0n,
      suspendTimeoutMillis: 15_000n,
      subVersion: 0n,
      ...init,
    }),
  });
}

function pulledIdx(response: RemotingCommand): string[] {
  assert.equal(response.code, ResponseCode.SUCCESS, response.remark);
  assert.ok(response.body);
  return decodeMessages(response.body).map((m) => m.getProperty('idx') ?? '?');
}

/** Message i: TagA/TagB/TagC in turn, color red for even i and blue for odd. */
async function put(broker: BrokerController, i: number, init: MsgInit = {}): Promise<void> {
  const result = await broker.messageStore.putMessage(
    msg(i, { topic: TOPIC, extra: { color: i % 2 === 0 ? 'red' : 'blue' }, ...init }),
  );
  assert.equal(result.putMessageStatus, 'PUT_OK');
}

function named(topic: string, name: string): SubscriptionData {
  return {
    topic,
    subString: name,
    tagsSet: [],
    codeSet: [],
    subVersion: SUB_VERSION,
    expressionType: 'NAMED',
    classFilterMode: false,
  };
}

/** What upstream's subscribe(topic, fullClassName, filterClassSource) puts in a heartbeat. */
function classFilter(topic: string, name: string): SubscriptionData {
  return {
    ...buildSubscriptionData(topic, '*', { subVersion: SUB_VERSION }),
    subString: name,
    classFilterMode: true,
  };
}

function heartbeat(subscriptions: SubscriptionData[]): HeartbeatData {
  return {
    clientID: 'client-1',
    producerDataSet: [],
    consumerDataSet: [
      {
        groupName: GROUP,
        consumeType: 'CONSUME_PASSIVELY',
        messageModel: 'CLUSTERING',
        consumeFromWhere: 'CONSUME_FROM_LAST_OFFSET',
        unitMode: false,
        subscriptionDataSet: subscriptions,
      },
    ],
  };
}

async function sendHeartbeat(c: TestClient, subscriptions: SubscriptionData[]): Promise<void> {
  const r = await c.call(heartbeatRequest(heartbeat(subscriptions)));
  assert.equal(r.code, ResponseCode.SUCCESS, r.remark);
}

function checkClientConfig(subscriptionData: SubscriptionData): RemotingCommand {
  return createRequest(RequestCode.CHECK_CLIENT_CONFIG, {
    body: encodeCheckClientRequestBody({ clientId: 'client-1', group: GROUP, subscriptionData }),
  });
}

function expectParseFailed(r: RemotingCommand, remark: string, what: string): void {
  assert.deepEqual([r.code, r.remark], [ResponseCode.SUBSCRIPTION_PARSE_FAILED, remark], what);
}

describe('named filters: pulls get what the filter accepts', () => {
  test('NAMED in the pull request, without enablePropertyFilter', LIMIT, async () => {
    const { broker, c } = await namedBroker();
    assert.equal(broker.config.enablePropertyFilter, false);
    assert.deepEqual(broker.namedFilters.names, ['red', 'onlyTopicTest', 'view', 'boom', 'notBool']);
    for (let i = 0; i < 6; i++) await put(broker, i);
    const r = await c.call(pullRequest({ sysFlag: SUB, subscription: 'red', expressionType: 'NAMED' }));
    assert.deepEqual(pulledIdx(r), ['0', '2', '4']);
    assert.equal(decodeHeader(PullMessageResponseHeader, r.extFields).nextBeginOffset, 6n);
    const all = await c.call(
      pullRequest({ sysFlag: SUB, subscription: 'onlyTopicTest', expressionType: 'NAMED' }),
    );
    assert.equal(pulledIdx(all).length, 6);
    // The module's default export is not used when it has a `filters` export.
    const ignored = await c.call(
      pullRequest({ sysFlag: SUB, subscription: 'ignored', expressionType: 'NAMED' }),
    );
    assert.equal(ignored.code, ResponseCode.SUBSCRIPTION_PARSE_FAILED);
  });

  test('the class-filter flag with the subscription flag names a filter too', LIMIT, async () => {
    const { broker, c } = await namedBroker();
    for (let i = 0; i < 4; i++) await put(broker, i);
    // Whatever expression type comes with it.
    for (const expressionType of [undefined, 'TAG', 'SQL92']) {
      const init: PullInit = { sysFlag: SUB_CLASS, subscription: 'red' };
      if (expressionType !== undefined) init.expressionType = expressionType;
      assert.deepEqual(pulledIdx(await c.call(pullRequest(init))), ['0', '2'], expressionType);
    }
  });

  test("a heartbeat's NAMED subscription and upstream's class-filter subscription", LIMIT, async () => {
    const { broker, c } = await namedBroker();
    broker.topicConfigManager.updateTopicConfig(
      createTopicConfig('TopicB', { readQueueNums: 1, writeQueueNums: 1 }),
    );
    for (let i = 0; i < 6; i++) await put(broker, i);
    for (let i = 0; i < 4; i++) await put(broker, i, { topic: 'TopicB' });
    await sendHeartbeat(c, [named(TOPIC, 'red'), classFilter('TopicB', 'red')]);
    assert.equal(broker.consumerFilterManager.get(TOPIC, GROUP)?.expressionType, 'NAMED');
    assert.equal(broker.consumerFilterManager.get('TopicB', GROUP)?.expressionType, 'NAMED');
    // The consumer's view of its subscriptions is kept as sent.
    const info = broker.consumerManager.getConsumerGroupInfo(GROUP);
    assert.equal(info?.findSubscriptionData('TopicB')?.classFilterMode, true);
    assert.equal(info?.findSubscriptionData('TopicB')?.expressionType, 'TAG');

    assert.deepEqual(pulledIdx(await c.call(pullRequest({ subVersion: SUB_VERSION }))), ['0', '2', '4']);
    const b = await c.call(
      pullRequest({
        topic: 'TopicB',
        subVersion: SUB_VERSION,
        sysFlag: PullSysFlag.buildSysFlag(false, false, false, true),
      }),
    );
    assert.deepEqual(pulledIdx(b), ['0', '2']);
    // The filter data's version is checked as for SQL92.
    const newer = await c.call(pullRequest({ subVersion: SUB_VERSION + 1n }));
    assert.equal(newer.code, ResponseCode.SUBSCRIPTION_NOT_LATEST);
  });

  test('the filter sees a frozen view of each stored message and cannot change it', LIMIT, async () => {
    const { broker, c } = await namedBroker();
    seen().length = 0;
    for (let i = 0; i < 3; i++) await put(broker, i, { body: `body-${i}` });
    const r = await c.call(pullRequest({ sysFlag: SUB, subscription: 'view', expressionType: 'NAMED' }));
    assert.equal(r.code, ResponseCode.SUCCESS);
    assert.ok(r.body);
    const [only] = decodeMessages(r.body);
    assert.equal(only?.body.toString(), 'body-1');
    const views = seen();
    assert.deepEqual(
      views.map((v) => [
        v.frozen,
        v.topic,
        v.tags,
        v.keys,
        v.idx,
        v.body,
        v.queueId,
        v.queueOffset,
        v.reconsumeTimes,
      ]),
      [
        [true, TOPIC, 'TagA', 'key-0 k2-0', '0', 'body-0', 0, 0n, 0],
        [true, TOPIC, 'TagB', 'key-1 k2-1', '1', 'body-1', 0, 1n, 0],
        [true, TOPIC, 'TagC', 'key-2 k2-2', '2', 'body-2', 0, 2n, 0],
      ],
    );
    assert.deepEqual(
      views.map((v) => v.bornTimestamp),
      [1_700_000_000_000, 1_700_000_000_001, 1_700_000_000_002],
    );
    assert.ok(views.every((v) => typeof v.storeTimestamp === 'number' && v.storeTimestamp > 0));
    // The filter filled its body copies with '!': the store's records are untouched.
    const stored = await broker.messageStore.getMessage(GROUP, TOPIC, 0, 0n, 32);
    assert.deepEqual(
      stored.messages.flatMap((m) => decodeMessages(m).map((x) => x.body.toString())),
      ['body-0', 'body-1', 'body-2'],
    );
  });
});

describe('named filters: refusals', () => {
  test('an unknown name: SUBSCRIPTION_PARSE_FAILED naming it, on every path', LIMIT, async () => {
    const { broker, c } = await namedBroker();
    await put(broker, 0);
    const remark = 'named filter "green" does not exist on this broker';
    expectParseFailed(
      await c.call(pullRequest({ sysFlag: SUB, subscription: 'green', expressionType: 'NAMED' })),
      remark,
      'pull with the subscription flag',
    );
    expectParseFailed(
      await c.call(pullRequest({ sysFlag: SUB_CLASS, subscription: 'green' })),
      remark,
      'pull with the class-filter flag',
    );
    await sendHeartbeat(c, [named(TOPIC, 'green')]);
    assert.equal(broker.consumerFilterManager.get(TOPIC, GROUP), undefined);
    expectParseFailed(await c.call(pullRequest({ subVersion: SUB_VERSION })), remark, 'heartbeat NAMED');
    await sendHeartbeat(c, [{ ...classFilter(TOPIC, 'green'), subVersion: SUB_VERSION + 1n }]);
    expectParseFailed(
      await c.call(pullRequest({ subVersion: SUB_VERSION + 1n })),
      remark,
      'heartbeat class filter',
    );
    expectParseFailed(await c.call(checkClientConfig(named(TOPIC, 'green'))), remark, 'CHECK_CLIENT_CONFIG');
    expectParseFailed(
      await c.call(checkClientConfig(classFilter(TOPIC, 'green'))),
      remark,
      'CHECK_CLIENT_CONFIG class filter',
    );
    // A client-supplied name is cut short in the remark.
    const long = await c.call(
      pullRequest({ sysFlag: SUB, subscription: 'g'.repeat(5000), expressionType: 'NAMED' }),
    );
    expectParseFailed(long, `named filter "${'g'.repeat(64)}..." does not exist on this broker`, 'long name');
  });

  test('CHECK_CLIENT_CONFIG accepts a known name without enablePropertyFilter', LIMIT, async () => {
    const { c } = await namedBroker();
    assert.equal((await c.call(checkClientConfig(named(TOPIC, 'red')))).code, ResponseCode.SUCCESS);
    assert.equal((await c.call(checkClientConfig(classFilter(TOPIC, 'red')))).code, ResponseCode.SUCCESS);
    // SQL92 still needs it.
    const sql = await c.call(checkClientConfig({ ...named(TOPIC, 'a > 1'), expressionType: 'SQL92' }));
    assert.equal(sql.code, ResponseCode.SYSTEM_ERROR);
  });

  test('no module configured: SUBSCRIPTION_PARSE_FAILED saying so, on every path', LIMIT, async () => {
    const { broker, c } = await namedBroker({ configured: false });
    assert.equal(broker.config.namedFilterModule, '');
    assert.equal(broker.namedFilters.configured, false);
    await put(broker, 0);
    expectParseFailed(
      await c.call(pullRequest({ sysFlag: SUB, subscription: 'red', expressionType: 'NAMED' })),
      NOT_CONFIGURED,
      'pull with the subscription flag',
    );
    await sendHeartbeat(c, [classFilter(TOPIC, 'com.example.RedFilter')]);
    expectParseFailed(await c.call(pullRequest({ subVersion: SUB_VERSION })), NOT_CONFIGURED, 'heartbeat');
    expectParseFailed(
      await c.call(checkClientConfig(named(TOPIC, 'red'))),
      NOT_CONFIGURED,
      'CHECK_CLIENT_CONFIG',
    );
    // Tag pulls are not affected.
    const tag = await c.call(pullRequest({ sysFlag: SUB, subscription: 'TagA', expressionType: 'TAG' }));
    assert.deepEqual(pulledIdx(tag), ['0']);
  });

  test(
    'a filter that throws or answers a non-boolean matches nothing; one warning per filter and reason',
    LIMIT,
    async () => {
      const { broker, c, logs } = await namedBroker();
      for (let i = 0; i < 6; i++) await put(broker, i);
      for (const name of ['boom', 'notBool']) {
        for (let round = 0; round < 3; round++) {
          const r = await c.call(pullRequest({ sysFlag: SUB, subscription: name, expressionType: 'NAMED' }));
          assert.deepEqual(
            [r.code, r.remark],
            [ResponseCode.PULL_RETRY_IMMEDIATELY, 'NO_MATCHED_MESSAGE'],
            name,
          );
          assert.equal(decodeHeader(PullMessageResponseHeader, r.extFields).nextBeginOffset, 6n);
        }
      }
      const warnings = logs.filter((l) => l.level === 'warn' && l.fields.filter !== undefined);
      assert.deepEqual(
        warnings.map((w) => [w.component, w.fields.filter, w.fields.reason, w.fields.detail]),
        [
          ['test.namedFilter', 'boom', 'threw', 'kaput'],
          ['test.namedFilter', 'notBool', 'returned a non-boolean', 'a string'],
        ],
      );
    },
  );
});

describe('named filters: retried and held pulls', () => {
  test(
    'retried messages obey the named filter of their original topic (filterSupportRetry)',
    LIMIT,
    async () => {
      const { broker, c } = await namedBroker({ config: { filterSupportRetry: true } });
      const retryTopic = `%RETRY%${GROUP}`;
      await sendHeartbeat(c, [
        classFilter(TOPIC, 'red'),
        buildSubscriptionData(retryTopic, '*', { subVersion: SUB_VERSION }),
      ]);
      assert.ok(broker.topicConfigManager.selectTopicConfig(retryTopic));
      for (let i = 0; i < 4; i++) {
        await put(broker, i, {
          topic: retryTopic,
          extra: { color: i < 2 ? 'red' : 'blue', RETRY_TOPIC: TOPIC },
        });
      }
      const r = await c.call(pullRequest({ topic: retryTopic, subVersion: SUB_VERSION }));
      assert.deepEqual(pulledIdx(r), ['0', '1']);
    },
  );

  test('a held class-filter pull wakes only for a message its filter accepts', LIMIT, async () => {
    const { broker, c } = await namedBroker();
    await sendHeartbeat(c, [classFilter(TOPIC, 'red')]);
    let answer: RemotingCommand | undefined;
    const held = c.call(pullRequest({ sysFlag: SUSPEND_CLASS, subVersion: SUB_VERSION }));
    void held.then((r) => {
      answer = r;
    });
    await until(() => broker.pullRequestHoldService.heldCount === 1, 'the pull is held');
    await put(broker, 1); // blue
    await settle();
    assert.equal(answer, undefined);
    assert.equal(broker.pullRequestHoldService.heldCount, 1);
    await put(broker, 2); // red
    assert.deepEqual(pulledIdx(await held), ['2']);
  });
});

describe('named filters: the module', () => {
  async function startFails(root: string, module: string, expected: RegExp): Promise<void> {
    const { broker } = namedBrokerUnstarted(root, module);
    await assert.rejects(broker.start(), (e: unknown) => {
      assert.ok(e instanceof Error && e.name === 'ValidationError', String(e));
      assert.match(e.message, expected);
      return true;
    });
    assert.equal(broker.address, undefined);
    await assert.rejects(broker.start(), /broker cannot start: it is stopped/);
  }

  test(
    'a module that is missing, does not load or exports no map of functions stops the start',
    LIMIT,
    async () => {
      const root = tempRoot();
      const file = (name: string, text: string): string => {
        const path = join(root, name);
        writeFileSync(path, text);
        return path;
      };
      const where = (path: string) =>
        `^named filter module ${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\(namedFilterModule\\): `;
      const missing = join(root, 'nope.mjs');
      await startFails(root, missing, new RegExp(`${where(missing)}the file does not exist$`));
      const dir = join(root, 'dir.mjs');
      mkdirSync(dir);
      await startFails(root, dir, new RegExp(`${where(dir)}not a file$`));
      const throws = file('throws.mjs', "throw new Error('no database');\n");
      await startFails(root, throws, new RegExp(`${where(throws)}importing it failed: no database$`));
      const syntax = file('syntax.mjs', 'export const filters = {\n');
      await startFails(root, syntax, new RegExp(`${where(syntax)}importing it failed: `));
      const dependency = file('dep.mjs', "import 'rocketmq-ts-no-such-package';\nexport default {};\n");
      await startFails(
        root,
        dependency,
        new RegExp(`${where(dependency)}importing it failed: .*rocketmq-ts-no-such-package`),
      );
      const nothing = file('nothing.mjs', 'export const other = 1;\n');
      await startFails(
        root,
        nothing,
        new RegExp(`${where(nothing)}it exports neither \`filters\` nor a default export`),
      );
      const fn = file('fn.mjs', 'export default (m) => true;\n');
      await startFails(root, fn, new RegExp(`${where(fn)}its default export is a function, not a Map`));
      const values = file(
        'values.mjs',
        "export const filters = { ok: () => true, bad: 'x', later: async () => true };\n",
      );
      await startFails(
        root,
        values,
        new RegExp(
          `${where(values)}its filters export: filter "bad" is a string, not a function; filter "later" is an async function`,
        ),
      );
    },
  );

  test('a relative path is read from the working directory; a CommonJS module works too', LIMIT, async () => {
    const root = tempRoot();
    const cjs = join(root, 'filters.cjs');
    writeFileSync(cjs, "module.exports = { tagB: (m) => m.tags === 'TagB' };\n");
    const { broker } = namedBrokerUnstarted(root, relative(process.cwd(), cjs));
    await broker.start();
    broker.topicConfigManager.updateTopicConfig(
      createTopicConfig(TOPIC, { readQueueNums: 1, writeQueueNums: 1 }),
    );
    for (let i = 0; i < 4; i++) await put(broker, i);
    const c = connectInMemory(broker);
    assert.deepEqual(
      pulledIdx(await c.call(pullRequest({ sysFlag: SUB, subscription: 'tagB', expressionType: 'NAMED' }))),
      ['1'],
    );
  });

  test('namedFilterModule comes from broker.conf and no remote request can change it', LIMIT, async () => {
    const loaded = loadBrokerConfig('namedFilterModule=/etc/rocketmq/filters.mjs\n', { env: TEST_ENV });
    assert.equal(loaded.config.namedFilterModule, '/etc/rocketmq/filters.mjs');
    assert.equal(loaded.unknownKeys.length, 0);
    assert.equal(UPDATABLE_BROKER_CONFIG.has('namedFilterModule'), false);
    assert.equal(UPDATABLE_NAMESRV_CONFIG.has('namedFilterModule'), false);

    const { broker, c } = await namedBroker();
    const before = broker.config.namedFilterModule;
    for (const body of ['namedFilterModule=/tmp/evil.mjs', 'traceOn=false\nnamedFilterModule=']) {
      const r = await c.call(createRequest(RequestCode.UPDATE_BROKER_CONFIG, { body: Buffer.from(body) }));
      assert.equal(r.code, ResponseCode.NO_PERMISSION, body);
      assert.equal(
        r.remark,
        'Can not update config in black list. Not updatable remotely: namedFilterModule',
      );
    }
    assert.equal(broker.config.namedFilterModule, before);
    assert.equal(broker.config.traceOn, true);
    // Reported like every other setting.
    const got = await c.call(createRequest(RequestCode.GET_BROKER_CONFIG));
    assert.match(got.body?.toString('utf8') ?? '', /^namedFilterModule=.*filters\.mjs$/m);
  });
});
