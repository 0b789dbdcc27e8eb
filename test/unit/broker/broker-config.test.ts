/**
 * broker.conf as BrokerStartup reads it: upstream key names (setter names of the four config classes)
 * and 4.9.8 defaults, typed values with errors naming the key, unknown keys warned about, the
 * haListenPort and brokerId rules, and the properties GET_BROKER_CONFIG reports.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import {
  BROKER_CONFIG_KEYS,
  brokerConfig,
  brokerConfigProperties,
  defaultBrokerConfig,
  loadBrokerConfig,
  namesrvAddressList,
  toMessageStoreConfig,
  UPSTREAM_IGNORED_KEYS,
} from '../../../src/broker/broker-config.js';
import { haListenerNeeded } from '../../../src/broker/broker-config-ha.js';
import { BrokerController } from '../../../src/broker/broker-controller.js';
import { ValidationError } from '../../../src/common/errors.js';
import { localAddress } from '../../../src/common/platform/local-address.js';
import { DEFAULT_MESSAGE_STORE_CONFIG } from '../../../src/store/config.js';
import { capturingLogger, TEST_ENV } from './helpers.js';

const load = (text: string) => loadBrokerConfig(text, { env: TEST_ENV });

describe('defaults', () => {
  test('4.9.8 values', () => {
    const c = defaultBrokerConfig(TEST_ENV);
    assert.equal(c.brokerName, 'test-host');
    assert.equal(c.brokerIP1, '10.0.0.7');
    assert.equal(c.brokerIP2, '10.0.0.7');
    assert.equal(c.namesrvAddr, undefined);
    assert.equal(c.storePathRootDir, '/home/tester/store');
    assert.equal(c.brokerClusterName, 'DefaultCluster');
    assert.equal(c.brokerId, 0);
    assert.equal(c.listenPort, 10911);
    assert.equal(c.haListenPort, 10912);
    assert.equal(c.brokerPermission, 6);
    assert.equal(c.defaultTopicQueueNums, 8);
    assert.equal(c.autoCreateTopicEnable, true);
    assert.equal(c.autoCreateSubscriptionGroup, true);
    assert.equal(c.flushConsumerOffsetInterval, 5000);
    assert.equal(c.registerNameServerPeriod, 30_000);
    assert.equal(c.registerBrokerTimeoutMills, 6000);
    assert.equal(c.forceRegister, true);
    assert.equal(c.compressedRegister, false);
    assert.equal(c.longPollingEnable, true);
    assert.equal(c.shortPollingTimeMills, 1000);
    assert.equal(c.notifyConsumerIdsChangedEnable, true);
    assert.equal(c.enablePropertyFilter, false);
    assert.equal(c.flushDiskType, 'ASYNC_FLUSH');
    assert.equal(c.brokerRole, 'ASYNC_MASTER');
    assert.equal(c.maxMessageSize, 4 * 1024 * 1024);
    assert.equal(c.fileReservedTime, 72);
    assert.equal(c.deleteWhen, '04');
    assert.equal(c.mappedFileSizeCommitLog, 1024 * 1024 * 1024);
    assert.equal(c.mappedFileSizeConsumeQueue, 6_000_000);
    assert.equal(c.messageDelayLevel, '1s 5s 10s 30s 1m 2m 3m 4m 5m 6m 7m 8m 9m 10m 20m 30m 1h 2h');
    assert.equal(c.serverChannelMaxIdleTimeSeconds, 120);
    assert.equal(c.clientHousekeepingInterval, 10_000);
    assert.equal(c.channelExpiredTimeout, 120_000);
    assert.equal(c.registerNameServerDelay, 10_000);
    assert.equal(c.flushConsumerOffsetDelay, 10_000);
  });

  test('each key parses the type of its default', () => {
    const c = defaultBrokerConfig(TEST_ENV) as unknown as Record<string, unknown>;
    for (const [key, spec] of Object.entries(BROKER_CONFIG_KEYS)) {
      const v = c[key];
      const kind = spec.kind;
      if (kind.type === 'string' && kind.optional === true) {
        assert.ok(v === undefined || typeof v === 'string', key);
      } else if (kind.type === 'string' || kind.type === 'enum') {
        assert.equal(typeof v, 'string', key);
        if (kind.type === 'enum') assert.ok(kind.values.includes(v as string), key);
      } else {
        assert.equal(typeof v, kind.type === 'boolean' ? 'boolean' : 'number', key);
      }
      assert.ok(!UPSTREAM_IGNORED_KEYS.has(key), `${key} is both used and ignored`);
    }
  });

  test('the store config carries the same values', () => {
    const s = toMessageStoreConfig(defaultBrokerConfig(TEST_ENV));
    assert.deepEqual(s, { ...DEFAULT_MESSAGE_STORE_CONFIG, storePathRootDir: '/home/tester/store' });
  });

  test('localAddress gives an address', () => {
    assert.match(localAddress(), /^[0-9a-f.:]+$/i);
  });
});

describe('loadBrokerConfig', () => {
  test('a typical broker.conf', () => {
    const { config, unknownKeys, ignoredKeys, properties } = load(
      [
        'brokerClusterName = DefaultCluster',
        'brokerName = broker-a',
        'brokerId = 0',
        'deleteWhen = 04',
        'fileReservedTime = 48',
        'brokerRole = SYNC_MASTER',
        'flushDiskType = SYNC_FLUSH',
        'namesrvAddr=127.0.0.1:9876;10.0.0.2:9876',
        'listenPort=20911',
        'storePathRootDir=/data/rmq',
        'autoCreateTopicEnable=false',
        'shortPollingTimeMills=2500',
        'mappedFileSizeCommitLog=10485760',
        'sendMessageThreadPoolNums=16',
      ].join('\n'),
    );
    assert.equal(config.brokerName, 'broker-a');
    assert.equal(config.fileReservedTime, 48);
    assert.equal(config.brokerRole, 'SYNC_MASTER');
    assert.equal(config.flushDiskType, 'SYNC_FLUSH');
    assert.deepEqual(namesrvAddressList(config.namesrvAddr), ['127.0.0.1:9876', '10.0.0.2:9876']);
    assert.equal(config.listenPort, 20911);
    assert.equal(config.haListenPort, 20912, 'BrokerStartup: haListenPort = listenPort + 1');
    assert.equal(config.storePathRootDir, '/data/rmq');
    assert.equal(config.autoCreateTopicEnable, false);
    assert.equal(config.shortPollingTimeMills, 2500);
    assert.equal(config.mappedFileSizeCommitLog, 10485760);
    assert.deepEqual(unknownKeys, []);
    assert.deepEqual(ignoredKeys, ['sendMessageThreadPoolNums']);
    assert.equal(properties.get('sendMessageThreadPoolNums'), '16');
  });

  test('an unknown key gives a warning naming it; the pre-4.5 map file name points to the new one', () => {
    const { logger, records } = capturingLogger();
    const { unknownKeys } = loadBrokerConfig('brokerNmae=x\nmapedFileSizeCommitLog=1024\n', {
      env: TEST_ENV,
      logger,
      source: '/etc/broker.conf',
    });
    assert.deepEqual(unknownKeys, ['brokerNmae', 'mapedFileSizeCommitLog']);
    const warnings = records.filter((r) => r.level === 'warn');
    assert.deepEqual(
      warnings.map((w) => [w.fields.key, w.fields.source]),
      [
        ['brokerNmae', '/etc/broker.conf'],
        ['mapedFileSizeCommitLog', '/etc/broker.conf'],
      ],
    );
    assert.match(warnings[1]?.msg ?? '', /mappedFileSizeCommitLog/);
  });

  test('store and filter settings upstream reads from broker.conf reach their parts', () => {
    const defaults = load('').config;
    assert.equal(defaults.filterDataCleanTimeSpan, 24 * 3600 * 1000);
    assert.equal(defaults.maxMsgsNumBatch, 64);
    assert.equal(defaults.osPageCacheBusyTimeOutMills, 1000);
    const c = load(
      'filterDataCleanTimeSpan=60000\nmaxMsgsNumBatch=7\nosPageCacheBusyTimeOutMills=250\n',
    ).config;
    assert.equal(c.filterDataCleanTimeSpan, 60_000);
    const store = toMessageStoreConfig(c);
    assert.equal(store.maxMsgsNumBatch, 7);
    assert.equal(store.osPageCacheBusyTimeOutMills, 250);
    const root = mkdtempSync(join(tmpdir(), 'rmq-conf-'));
    try {
      const broker = new BrokerController({
        config: { filterDataCleanTimeSpan: 60_000, storePathRootDir: root },
      });
      assert.equal(broker.consumerFilterManager.cleanTimeSpan, 60_000);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
    assert.throws(
      () => load('filterDataCleanTimeSpan=-1\nmaxMsgsNumBatch=0\nosPageCacheBusyTimeOutMills=0\n'),
      (e: unknown) =>
        e instanceof ValidationError &&
        /filterDataCleanTimeSpan must be >= 0/.test(e.message) &&
        /maxMsgsNumBatch must be > 0/.test(e.message) &&
        /osPageCacheBusyTimeOutMills must be > 0/.test(e.message),
    );
  });

  test('bad values: one error naming every key', () => {
    assert.throws(
      () =>
        load(
          'listenPort=10911x\nautoCreateTopicEnable=yes\nbrokerRole=master\nbrokerId=9223372036854775807\nflushDiskType=async_flush\n',
        ),
      (e: unknown) =>
        e instanceof ValidationError &&
        /listenPort: not an int: "10911x"/.test(e.message) &&
        /autoCreateTopicEnable: not true or false: "yes"/.test(e.message) &&
        /brokerRole: not one of ASYNC_MASTER, SYNC_MASTER, SLAVE: "master"/.test(e.message) &&
        /brokerId: out of range/.test(e.message) &&
        /flushDiskType: not one of ASYNC_FLUSH, SYNC_FLUSH/.test(e.message),
    );
  });

  test('Java number syntax: leading +, zeros; booleans case-insensitive', () => {
    const { config } = load('defaultTopicQueueNums=+0016\ntraceOn=FALSE\nregisterNameServerPeriod=-5\n');
    assert.equal(config.defaultTopicQueueNums, 16);
    assert.equal(config.traceOn, false);
    assert.equal(config.registerNameServerPeriod, -5, 'clamped when used, as upstream');
  });

  test('a master is always broker 0; a slave needs an id > 0', () => {
    assert.equal(load('brokerId=3').config.brokerId, 0);
    assert.equal(load('brokerRole=SLAVE\nbrokerId=1').config.brokerId, 1);
    assert.throws(() => load('brokerRole=SLAVE\nbrokerId=0'), /Slave's brokerId must be > 0/);
  });

  test('name server addresses must be host:port', () => {
    assert.throws(() => load('namesrvAddr=127.0.0.1'), /The Name Server Address\[127\.0\.0\.1\] illegal/);
    assert.throws(() => load('namesrvAddr=a:1;b:99999'), /illegal/);
    assert.deepEqual(namesrvAddressList(load('namesrvAddr=a:1; ;b:2;').config.namesrvAddr), ['a:1', 'b:2']);
  });

  test('ports and names that would make bad paths', () => {
    assert.throws(() => load('listenPort=2'), /listenPort must be 0/);
    assert.throws(() => load('listenPort=70000'), /listenPort/);
    assert.throws(() => load('brokerName=../x'), /brokerName/);
    assert.throws(() => load('brokerClusterName=a/b'), /brokerClusterName/);
    assert.throws(() => load('brokerName=  '), /brokerName must not be blank/);
    assert.equal(load('listenPort=0').config.haListenPort, 0);
  });

  test('overrides apply after the file', () => {
    const { config } = loadBrokerConfig('listenPort=20911', {
      env: TEST_ENV,
      overrides: { listenPort: 30911 },
    });
    assert.equal(config.listenPort, 30911);
    assert.equal(config.haListenPort, 30912);
  });

  test('NAMESRV_ADDR from the environment is the default', () => {
    const { config } = loadBrokerConfig('', { env: { ...TEST_ENV, namesrvAddr: '10.1.1.1:9876' } });
    assert.equal(config.namesrvAddr, '10.1.1.1:9876');
  });

  test('malformed properties syntax', () => {
    assert.throws(() => load('a=\\uZZZZ'), /Malformed \\uxxxx encoding/);
  });
});

describe('brokerConfig (programmatic)', () => {
  test('undefined overrides keep defaults; problems are listed', () => {
    assert.equal(brokerConfig({ brokerName: undefined }, TEST_ENV).brokerName, 'test-host');
    assert.throws(
      () => brokerConfig({ flushConsumerOffsetInterval: 0, channelExpiredTimeout: -1 }, TEST_ENV),
      /flushConsumerOffsetInterval must be > 0, got 0; channelExpiredTimeout must be > 0, got -1/,
    );
  });
});

describe('brokerConfigProperties', () => {
  test('Java toString of each value, nulls left out, extra file keys kept', () => {
    const c = brokerConfig({ namesrvAddr: undefined }, TEST_ENV);
    const props = new Map(brokerConfigProperties(c, new Map([['sendMessageThreadPoolNums', '16']])));
    assert.equal(props.get('brokerName'), 'test-host');
    assert.equal(props.get('autoCreateTopicEnable'), 'true');
    assert.equal(props.get('listenPort'), '10911');
    assert.equal(props.get('brokerRole'), 'ASYNC_MASTER');
    assert.equal(props.has('namesrvAddr'), false);
    assert.equal(props.has('clientHousekeepingInterval'), false, 'code-only settings are not config keys');
    assert.equal(props.get('sendMessageThreadPoolNums'), '16');
  });
});

describe('haListenPort', () => {
  test('is always listenPort + 1, as BrokerStartup forces it', () => {
    assert.equal(brokerConfig({ listenPort: 20911 }, TEST_ENV).haListenPort, 20912);
    assert.equal(brokerConfig({ listenPort: 0 }, TEST_ENV).haListenPort, 0);
    // Two brokers on one host with their own listen ports never share an HA port.
    assert.equal(brokerConfig({ listenPort: 20911, haListenPort: 5 }, TEST_ENV).haListenPort, 20912);
    assert.equal(brokerConfig({ listenPort: 30911, haListenPort: 10912 }, TEST_ENV).haListenPort, 30912);
  });
});

describe('HA settings', () => {
  test("upstream's defaults, read from broker.conf, and a frame size the slaves can take", () => {
    const c = brokerConfig({}, TEST_ENV);
    assert.deepEqual(
      [c.haSendHeartbeatInterval, c.haHousekeepingInterval, c.haTransferBatchSize, c.haSlaveFallbehindMax],
      [5000, 20_000, 32 * 1024, 256 * 1024 * 1024],
    );
    assert.equal(c.slaveTimeout, 3000);
    assert.equal(c.haAllowResetSlave, false);
    const loaded = loadBrokerConfig('slaveTimeout=1500\nhaTransferBatchSize=65536\nhaAllowResetSlave=true', {
      env: TEST_ENV,
    });
    assert.equal(loaded.config.slaveTimeout, 1500);
    assert.equal(loaded.config.haTransferBatchSize, 65536);
    assert.equal(loaded.config.haAllowResetSlave, true);
    assert.deepEqual(loaded.unknownKeys, []);
    assert.deepEqual(loaded.ignoredKeys, []);
    assert.throws(
      () => brokerConfig({ haTransferBatchSize: 8 * 1024 * 1024 }, TEST_ENV),
      /haTransferBatchSize/,
    );
    assert.throws(() => brokerConfig({ slaveTimeout: 0 }, TEST_ENV), /slaveTimeout must be > 0/);
  });

  test('who opens the HA port, where, and how a slave proves it may follow', () => {
    const c = brokerConfig({}, TEST_ENV);
    assert.deepEqual(
      [c.totalReplicas, c.haListenHost, c.haAuthMode, c.haAuthMaxSkewMillis],
      [1, undefined, 'acl', 60_000],
    );
    assert.equal(haListenerNeeded(c), false, "upstream's default role expects no slave");
    assert.equal(haListenerNeeded({ ...c, totalReplicas: 2 }), true);
    assert.equal(haListenerNeeded({ ...c, brokerRole: 'SYNC_MASTER' }), true);
    assert.equal(haListenerNeeded({ ...c, brokerRole: 'SLAVE' }), true);
    const loaded = loadBrokerConfig('totalReplicas=2\nhaListenHost=10.0.0.9\nhaAuthMode=plain\n', {
      env: TEST_ENV,
    });
    assert.deepEqual(
      [loaded.config.totalReplicas, loaded.config.haListenHost, loaded.config.haAuthMode],
      [2, '10.0.0.9', 'plain'],
    );
    assert.deepEqual(loaded.unknownKeys, []);
    assert.throws(() => loadBrokerConfig('haAuthMode=none', { env: TEST_ENV }), /haAuthMode/);
    assert.throws(() => brokerConfig({ totalReplicas: 0 }, TEST_ENV), /totalReplicas/);
    const slave = { brokerRole: 'SLAVE' as const, brokerId: 1, aclEnable: true };
    assert.throws(() => brokerConfig(slave, TEST_ENV), /innerClientAuthenticationCredentials/);
    assert.equal(brokerConfig({ ...slave, haAuthMode: 'plain' }, TEST_ENV).haAuthMode, 'plain');
    const credentials = JSON.stringify({ accessKey: 'haAdmin01', secretKey: 'haAdminSecret01' });
    brokerConfig({ ...slave, innerClientAuthenticationCredentials: credentials }, TEST_ENV);
  });
});
