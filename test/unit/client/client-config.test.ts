/**
 * ClientConfig: upstream's defaults, the namesrvAddr syntax (option or NAMESRV_ADDR), the client id
 * `ip@instanceName[@unitName]`, DEFAULT turned into `pid#nanotime`, and bad values refused by name.
 */
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, test } from 'node:test';
import {
  buildMQClientId,
  type ClientOptions,
  DEFAULT_CLIENT_CONFIG,
  DEFAULT_INSTANCE_NAME,
  instanceNameFor,
  parseNamesrvAddr,
  resolveClientConfig,
  withNamespaceOf,
  withoutNamespaceOf,
} from '../../../src/client/client-config.js';
import { ManualClock, systemClock } from '../../../src/common/clock.js';
import { ValidationError } from '../../../src/common/errors.js';

function failsNaming(fn: () => unknown, name: string): void {
  assert.throws(fn, (e: unknown) => {
    assert.ok(e instanceof ValidationError, String(e));
    assert.match(e.message, new RegExp(name));
    assert.equal(e.retriable, false);
    return true;
  });
}

let savedEnv: string | undefined;
beforeEach(() => {
  savedEnv = process.env.NAMESRV_ADDR;
  delete process.env.NAMESRV_ADDR;
});
afterEach(() => {
  if (savedEnv === undefined) delete process.env.NAMESRV_ADDR;
  else process.env.NAMESRV_ADDR = savedEnv;
});

describe('defaults', () => {
  test('equal upstream ClientConfig 4.9.8', () => {
    assert.deepEqual(
      { ...DEFAULT_CLIENT_CONFIG },
      {
        pollNameServerInterval: 30_000,
        heartbeatBrokerInterval: 30_000,
        persistConsumerOffsetInterval: 5_000,
        pullTimeDelayMillsWhenException: 1_000,
        rebalanceWaitInterval: 20_000,
        vipChannelEnabled: false,
        mqClientApiTimeout: 3_000,
        unitMode: false,
        useHeartbeatV2: false,
        serializeType: 'JSON',
      },
    );
    const c = resolveClientConfig({ clientIP: '10.1.2.3' });
    assert.equal(c.pollNameServerInterval, 30_000);
    assert.equal(c.heartbeatBrokerInterval, 30_000);
    assert.equal(c.persistConsumerOffsetInterval, 5_000);
    assert.equal(c.pullTimeDelayMillsWhenException, 1_000);
    assert.equal(c.mqClientApiTimeout, 3_000);
    assert.equal(c.vipChannelEnabled, false);
    assert.equal(c.unitMode, false);
    assert.equal(c.useHeartbeatV2, false);
    assert.equal(c.unitName, undefined);
    assert.equal(c.namespace, undefined);
    assert.deepEqual(c.namesrvAddrList, []);
    assert.equal(c.clock, systemClock);
  });

  test('given values are kept', () => {
    const clock = new ManualClock();
    const c = resolveClientConfig({
      namesrvAddr: '127.0.0.1:9876',
      clientIP: '10.0.0.9',
      instanceName: 'inst',
      unitName: 'unit',
      unitMode: true,
      namespace: 'ns',
      pollNameServerInterval: 1000,
      heartbeatBrokerInterval: 2000,
      persistConsumerOffsetInterval: 3000,
      pullTimeDelayMillsWhenException: 0,
      vipChannelEnabled: true,
      mqClientApiTimeout: 500,
      useHeartbeatV2: true,
      clock,
    });
    assert.deepEqual(c.namesrvAddrList, ['127.0.0.1:9876']);
    assert.equal(c.clientIP, '10.0.0.9');
    assert.equal(c.instanceName, 'inst');
    assert.equal(c.unitName, 'unit');
    assert.equal(c.unitMode, true);
    assert.equal(c.namespace, 'ns');
    assert.equal(c.pollNameServerInterval, 1000);
    assert.equal(c.heartbeatBrokerInterval, 2000);
    assert.equal(c.persistConsumerOffsetInterval, 3000);
    assert.equal(c.pullTimeDelayMillsWhenException, 0);
    assert.equal(c.vipChannelEnabled, true);
    assert.equal(c.mqClientApiTimeout, 500);
    assert.equal(c.useHeartbeatV2, true);
    assert.equal(c.clock, clock);
    assert.equal(withNamespaceOf(c, 'T'), 'ns%T');
    assert.equal(withoutNamespaceOf(c, 'ns%T'), 'T');
  });

  test('empty namespace and unitName mean none', () => {
    const c = resolveClientConfig({ clientIP: '1.2.3.4', namespace: '', unitName: '' });
    assert.equal(c.namespace, undefined);
    assert.equal(c.unitName, undefined);
    assert.equal(withNamespaceOf(c, 'T'), 'T');
  });
});

describe('namesrvAddr', () => {
  test("upstream's `a:9876;b:9876`, blanks ignored, or a list", () => {
    assert.deepEqual(parseNamesrvAddr('a:9876;b:9876'), ['a:9876', 'b:9876']);
    assert.deepEqual(parseNamesrvAddr(' a:9876 ; ;b:9876; '), ['a:9876', 'b:9876']);
    assert.deepEqual(parseNamesrvAddr(['10.0.0.1:9876', ' [::1]:9876 ']), ['10.0.0.1:9876', '[::1]:9876']);
    assert.deepEqual(parseNamesrvAddr(''), []);
    assert.deepEqual(parseNamesrvAddr(undefined), []);
  });

  test('bad addresses fail at creation, naming namesrvAddr', () => {
    for (const bad of [
      'localhost',
      'a:',
      ':9876',
      'a:98x6',
      'a:65536',
      'a:9876;b',
      'a:9876,b:9876',
      'a :9876',
      '[::1:9876',
    ]) {
      failsNaming(() => parseNamesrvAddr(bad), 'namesrvAddr');
      failsNaming(() => resolveClientConfig({ namesrvAddr: bad }), 'namesrvAddr');
    }
  });

  test('NAMESRV_ADDR is the default; the option wins; an empty variable means none', () => {
    process.env.NAMESRV_ADDR = 'env1:9876;env2:9876';
    assert.deepEqual(resolveClientConfig({ clientIP: '1.1.1.1' }).namesrvAddrList, [
      'env1:9876',
      'env2:9876',
    ]);
    assert.deepEqual(resolveClientConfig({ clientIP: '1.1.1.1', namesrvAddr: 'opt:1' }).namesrvAddrList, [
      'opt:1',
    ]);
    process.env.NAMESRV_ADDR = '';
    assert.deepEqual(resolveClientConfig({ clientIP: '1.1.1.1' }).namesrvAddrList, []);
    process.env.NAMESRV_ADDR = 'oops';
    failsNaming(() => resolveClientConfig({ clientIP: '1.1.1.1' }), 'namesrvAddr');
  });
});

describe('serializeType', () => {
  test('JSON by default; ROCKETMQ_SERIALIZE_TYPE next; the option wins; unknown names refused', () => {
    const saved = process.env.ROCKETMQ_SERIALIZE_TYPE;
    try {
      delete process.env.ROCKETMQ_SERIALIZE_TYPE;
      assert.equal(resolveClientConfig({ clientIP: '1.1.1.1' }).serializeType, 'JSON');
      process.env.ROCKETMQ_SERIALIZE_TYPE = 'ROCKETMQ';
      assert.equal(resolveClientConfig({ clientIP: '1.1.1.1' }).serializeType, 'ROCKETMQ');
      assert.equal(resolveClientConfig({ clientIP: '1.1.1.1', serializeType: 'JSON' }).serializeType, 'JSON');
      process.env.ROCKETMQ_SERIALIZE_TYPE = '';
      assert.equal(resolveClientConfig({ clientIP: '1.1.1.1' }).serializeType, 'JSON');
      process.env.ROCKETMQ_SERIALIZE_TYPE = 'rocketmq';
      failsNaming(() => resolveClientConfig({ clientIP: '1.1.1.1' }), 'ROCKETMQ_SERIALIZE_TYPE');
      delete process.env.ROCKETMQ_SERIALIZE_TYPE;
      const bad = { clientIP: '1.1.1.1', serializeType: 'BINARY' } as unknown as ClientOptions;
      failsNaming(() => resolveClientConfig(bad), 'serializeType');
    } finally {
      if (saved === undefined) delete process.env.ROCKETMQ_SERIALIZE_TYPE;
      else process.env.ROCKETMQ_SERIALIZE_TYPE = saved;
    }
  });
});

describe('client id', () => {
  test('ip@instanceName, then @unitName when set', () => {
    assert.equal(
      buildMQClientId({ clientIP: '10.0.0.1', instanceName: 'i1', unitName: undefined }),
      '10.0.0.1@i1',
    );
    assert.equal(
      buildMQClientId({ clientIP: '10.0.0.1', instanceName: 'i1', unitName: 'u' }),
      '10.0.0.1@i1@u',
    );
    // Upstream appends the unit name only when it is not blank.
    assert.equal(
      buildMQClientId({ clientIP: '10.0.0.1', instanceName: 'i1', unitName: ' \t' }),
      '10.0.0.1@i1',
    );
    const c = resolveClientConfig({ clientIP: '192.168.7.7', instanceName: 'app', unitName: 'u1' });
    assert.equal(buildMQClientId(c), '192.168.7.7@app@u1');
  });

  test('DEFAULT becomes pid#nanotime, unique per client', () => {
    assert.equal(DEFAULT_INSTANCE_NAME, 'DEFAULT');
    const names = new Set<string>();
    for (let i = 0; i < 500; i++) {
      const name = resolveClientConfig({ clientIP: '1.1.1.1' }).instanceName;
      assert.match(name, new RegExp(`^${process.pid}#\\d+$`));
      names.add(name);
    }
    assert.equal(names.size, 500);
    assert.match(instanceNameFor('DEFAULT'), new RegExp(`^${process.pid}#\\d+$`));
    assert.equal(instanceNameFor('mine'), 'mine');
    assert.equal(resolveClientConfig({ clientIP: '1.1.1.1', instanceName: 'mine' }).instanceName, 'mine');
  });

  test('the client-inner producer keeps DEFAULT', () => {
    assert.equal(resolveClientConfig({ clientIP: '1.1.1.1' }, false).instanceName, 'DEFAULT');
  });

  test('clientIP defaults to a local address', () => {
    const ip = resolveClientConfig({}).clientIP;
    assert.ok(ip.length > 0);
  });
});

describe('bad values name the option', () => {
  const base: ClientOptions = { clientIP: '1.1.1.1' };
  const cases: Array<[string, ClientOptions]> = [
    ['pollNameServerInterval', { pollNameServerInterval: 0 }],
    ['pollNameServerInterval', { pollNameServerInterval: Number.NaN }],
    ['heartbeatBrokerInterval', { heartbeatBrokerInterval: -1 }],
    ['heartbeatBrokerInterval', { heartbeatBrokerInterval: Number.POSITIVE_INFINITY }],
    ['persistConsumerOffsetInterval', { persistConsumerOffsetInterval: 0 }],
    ['pullTimeDelayMillsWhenException', { pullTimeDelayMillsWhenException: -5 }],
    ['mqClientApiTimeout', { mqClientApiTimeout: 0 }],
    ['mqClientApiTimeout', { mqClientApiTimeout: '3000' as unknown as number }],
    ['instanceName', { instanceName: '' }],
    ['instanceName', { instanceName: 42 as unknown as string }],
    ['clientIP', { clientIP: '' }],
    ['unitName', { unitName: 7 as unknown as string }],
    ['namespace', { namespace: {} as unknown as string }],
    ['vipChannelEnabled', { vipChannelEnabled: 'false' as unknown as boolean }],
    ['unitMode', { unitMode: 1 as unknown as boolean }],
    ['useHeartbeatV2', { useHeartbeatV2: 'yes' as unknown as boolean }],
  ];
  for (const [name, bad] of cases) {
    test(`${name}: ${JSON.stringify(Object.values(bad)[0]) ?? String(Object.values(bad)[0])}`, () => {
      failsNaming(() => resolveClientConfig({ ...base, ...bad }), name);
    });
  }
});
