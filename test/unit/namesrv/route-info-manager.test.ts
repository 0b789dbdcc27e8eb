/**
 * RouteInfoManager on its own, with a hand-driven clock: registration (master, slave, switch, data
 * versions, filter servers), removal (unregister, channel destroyed, expiry), and every query.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ValidationError } from '../../../src/common/errors.js';
import type { DataVersion } from '../../../src/common/protocol/data-version.js';
import type { TopicConfigSerializeWrapper } from '../../../src/common/protocol/register-broker-body.js';
import { createTopicConfig, type TopicConfig } from '../../../src/common/protocol/topic-config.js';
import {
  type BrokerChannel,
  type BrokerRemovedReason,
  type RegisterBrokerParams,
  RouteInfoManager,
} from '../../../src/namesrv/routeinfo/route-info-manager.js';
import { ManualClock, quiet, topics } from './helpers.js';

class FakeChannel implements BrokerChannel {
  closed: string | undefined;
  close(reason = 'closed'): void {
    this.closed = reason;
  }
}

function wrapper(
  configs: TopicConfig[],
  version: DataVersion = { counter: 1n, timestamp: 1n },
): TopicConfigSerializeWrapper {
  return { topicConfigTable: new Map(configs.map((c) => [c.topicName, c])), dataVersion: version };
}

function setup(expiredMs = 120_000) {
  const clock = new ManualClock();
  const rim = new RouteInfoManager({ clock, logger: quiet, brokerChannelExpiredTime: expiredMs });
  const removed: Array<[string, BrokerRemovedReason]> = [];
  const registered: string[] = [];
  rim.on('brokerRemoved', (addr, reason) => removed.push([addr, reason]));
  rim.on('brokerRegistered', (addr) => registered.push(addr));
  const register = (p: Partial<RegisterBrokerParams> & { configs?: TopicConfig[]; version?: DataVersion }) =>
    rim.registerBroker({
      clusterName: p.clusterName ?? 'DefaultCluster',
      brokerAddr: p.brokerAddr ?? '10.0.0.1:10911',
      brokerName: p.brokerName ?? 'broker-a',
      brokerId: p.brokerId ?? 0n,
      haServerAddr: p.haServerAddr ?? '10.0.0.1:10912',
      topicConfigWrapper: p.topicConfigWrapper ?? wrapper(p.configs ?? topics('TBW102'), p.version),
      filterServerList: p.filterServerList,
      channel: p.channel,
    });
  return { clock, rim, removed, registered, register };
}

function addrsOf(rim: RouteInfoManager, brokerName: string): Array<[number, string]> {
  return [...(rim.getAllClusterInfo().brokerAddrTable.get(brokerName)?.brokerAddrs ?? [])];
}

describe('RouteInfoManager registration', () => {
  test('a master fills every table and its topics get routes', () => {
    const { rim, register, registered, clock } = setup();
    const result = register({ configs: topics('TBW102', 'T1') });
    assert.deepEqual(result, {});
    assert.deepEqual(registered, ['10.0.0.1:10911']);
    const info = rim.getAllClusterInfo();
    assert.deepEqual([...info.clusterAddrTable], [['DefaultCluster', ['broker-a']]]);
    assert.deepEqual(addrsOf(rim, 'broker-a'), [[0, '10.0.0.1:10911']]);
    const route = rim.pickupTopicRouteData('T1');
    assert.ok(route);
    assert.deepEqual(route.queueDatas, [
      { brokerName: 'broker-a', readQueueNums: 4, writeQueueNums: 4, perm: 6, topicSysFlag: 0 },
    ]);
    assert.deepEqual(
      route.brokerDatas.map((b) => [b.cluster, b.brokerName, [...b.brokerAddrs]]),
      [['DefaultCluster', 'broker-a', [[0, '10.0.0.1:10911']]]],
    );
    assert.equal(route.filterServerTable.size, 0);
    assert.equal(rim.getBrokerLiveInfo('10.0.0.1:10911')?.lastUpdateTimestamp, clock.now());
    assert.equal(rim.pickupTopicRouteData('T2'), undefined);
  });

  test('a slave gets the live master address and HA address; its own topics are ignored', () => {
    const { rim, register } = setup();
    assert.deepEqual(
      register({ brokerId: 1n, brokerAddr: '10.0.0.2:10911', configs: topics('OnlySlave') }),
      {},
    );
    assert.equal(rim.pickupTopicRouteData('OnlySlave'), undefined, 'a slave never creates queue data');
    register({ haServerAddr: '10.0.0.1:10912' });
    const result = register({ brokerId: 1n, brokerAddr: '10.0.0.2:10911', haServerAddr: '10.0.0.2:10912' });
    assert.deepEqual(result, { haServerAddr: '10.0.0.1:10912', masterAddr: '10.0.0.1:10911' });
    assert.deepEqual(addrsOf(rim, 'broker-a'), [
      [0, '10.0.0.1:10911'],
      [1, '10.0.0.2:10911'],
    ]);
  });

  test('a slave registering after its master went away gets no master', () => {
    const { rim, register } = setup();
    register({});
    rim.onChannelDestroy('10.0.0.1:10911', undefined);
    register({ brokerId: 1n, brokerAddr: '10.0.0.2:10911' });
    // The master's address was dropped with its channel, so there is nothing to report.
    assert.deepEqual(register({ brokerId: 1n, brokerAddr: '10.0.0.2:10911' }), {});
  });

  test('slave promoted to master: the address keeps one id only', () => {
    const { rim, register } = setup();
    register({ brokerId: 1n, brokerAddr: '10.0.0.2:10911' });
    register({ brokerId: 0n, brokerAddr: '10.0.0.2:10911', configs: topics('T') });
    assert.deepEqual(addrsOf(rim, 'broker-a'), [[0, '10.0.0.2:10911']]);
    assert.ok(rim.pickupTopicRouteData('T'), 'the new master registers its topics');
  });

  test('topics change only with a new data version (or a first registration)', () => {
    const { rim, register } = setup();
    const v1 = { counter: 1n, timestamp: 100n };
    register({ configs: topics('A'), version: v1 });
    assert.equal(rim.isBrokerTopicConfigChanged('10.0.0.1:10911', { ...v1 }), false);
    assert.equal(rim.isBrokerTopicConfigChanged('10.0.0.1:10911', { counter: 2n, timestamp: 100n }), true);
    assert.equal(rim.isBrokerTopicConfigChanged('10.0.0.9:10911', v1), true, 'unknown broker');

    register({ configs: topics('A', 'B'), version: { ...v1 } });
    assert.equal(rim.pickupTopicRouteData('B'), undefined, 'same version: configs not read again');

    register({ configs: topics('A', 'B'), version: { counter: 2n, timestamp: 100n } });
    assert.ok(rim.pickupTopicRouteData('B'));
    assert.deepEqual(rim.queryBrokerTopicConfig('10.0.0.1:10911'), { counter: 2n, timestamp: 100n });

    // A topic the broker stops reporting stays (upstream 4.9.8 never removes on registration).
    register({ configs: topics('A'), version: { counter: 3n, timestamp: 100n } });
    assert.ok(rim.pickupTopicRouteData('B'));

    // A changed queue count with a new version replaces the queue data.
    register({
      configs: [createTopicConfig('A', { readQueueNums: 8, writeQueueNums: 2, perm: 4, topicSysFlag: 1 })],
      version: { counter: 4n, timestamp: 100n },
    });
    assert.deepEqual(rim.pickupTopicRouteData('A')?.queueDatas, [
      { brokerName: 'broker-a', readQueueNums: 8, writeQueueNums: 2, perm: 4, topicSysFlag: 1 },
    ]);
  });

  test('a new master address reads the configs even at an unchanged version', () => {
    const { rim, register } = setup();
    const v = { counter: 5n, timestamp: 5n };
    register({ configs: topics('A'), version: v });
    rim.unregisterBroker('DefaultCluster', '10.0.0.1:10911', 'broker-a', 0n);
    assert.equal(rim.pickupTopicRouteData('A'), undefined);
    register({ configs: topics('A'), version: { ...v } });
    assert.ok(rim.pickupTopicRouteData('A'), 'registerFirst overrides the version check');
  });

  test('filter servers: a list replaces, an empty list removes, undefined leaves them', () => {
    const { rim, register } = setup();
    register({ configs: topics('T'), filterServerList: ['10.0.0.1:30000'] });
    assert.deepEqual(
      [...(rim.pickupTopicRouteData('T')?.filterServerTable ?? [])],
      [['10.0.0.1:10911', ['10.0.0.1:30000']]],
    );
    register({ configs: topics('T'), filterServerList: undefined });
    assert.equal(rim.pickupTopicRouteData('T')?.filterServerTable.size, 1);
    register({ configs: topics('T'), filterServerList: [] });
    assert.equal(rim.pickupTopicRouteData('T')?.filterServerTable.size, 0);
  });

  test('brokerIds beyond 2^53 are refused', () => {
    const { register } = setup();
    assert.throws(() => register({ brokerId: 2n ** 60n }), ValidationError);
  });

  test('registration copies the data version it was given', () => {
    const { rim, register } = setup();
    const version = { counter: 1n, timestamp: 1n };
    register({ version });
    version.counter = 99n;
    assert.deepEqual(rim.queryBrokerTopicConfig('10.0.0.1:10911'), { counter: 1n, timestamp: 1n });
  });
});

describe('RouteInfoManager removal', () => {
  test('unregistering the last address removes broker name, cluster and topics', () => {
    const { rim, register, removed } = setup();
    register({ configs: topics('T') });
    register({ brokerId: 1n, brokerAddr: '10.0.0.2:10911' });
    rim.unregisterBroker('DefaultCluster', '10.0.0.1:10911', 'broker-a', 0n);
    assert.deepEqual(removed, [['10.0.0.1:10911', 'unregistered']]);
    assert.ok(rim.pickupTopicRouteData('T'), 'the slave keeps the broker name and its routes');
    assert.deepEqual(addrsOf(rim, 'broker-a'), [[1, '10.0.0.2:10911']]);
    rim.unregisterBroker('DefaultCluster', '10.0.0.2:10911', 'broker-a', 1n);
    assert.equal(rim.pickupTopicRouteData('T'), undefined);
    assert.equal(rim.getAllClusterInfo().clusterAddrTable.size, 0);
    assert.equal(rim.getAllClusterInfo().brokerAddrTable.size, 0);
    // Unknown brokers are a no-op.
    rim.unregisterBroker('Nope', '1.1.1.1:1', 'nope', 0n);
    assert.equal(removed.length, 2);
  });

  test('a topic on two brokers keeps the other broker when one goes', () => {
    const { rim, register } = setup();
    register({ configs: topics('T') });
    register({ brokerName: 'broker-b', brokerAddr: '10.0.0.3:10911', configs: topics('T') });
    rim.unregisterBroker('DefaultCluster', '10.0.0.1:10911', 'broker-a', 0n);
    assert.deepEqual(
      rim.pickupTopicRouteData('T')?.queueDatas.map((q) => q.brokerName),
      ['broker-b'],
    );
    assert.deepEqual(rim.getAllClusterInfo().clusterAddrTable.get('DefaultCluster'), ['broker-b']);
  });

  test('a destroyed channel removes the broker registered on it at once', () => {
    const { rim, register, removed } = setup();
    const channel = new FakeChannel();
    register({ configs: topics('T'), channel });
    rim.onChannelDestroy('10.0.0.1:53333', channel);
    assert.deepEqual(removed, [['10.0.0.1:10911', 'channelDestroyed']]);
    assert.equal(rim.pickupTopicRouteData('T'), undefined);
    assert.equal(rim.getAllClusterInfo().brokerAddrTable.size, 0);
    assert.equal(channel.closed, undefined, 'the channel was already gone; nothing closes it again');
  });

  test('a channel the broker no longer uses removes nothing', () => {
    const { rim, register, removed } = setup();
    const oldChannel = new FakeChannel();
    register({ channel: oldChannel });
    register({ channel: new FakeChannel() });
    rim.onChannelDestroy('10.0.0.1:53333', oldChannel);
    rim.onChannelDestroy('', undefined);
    assert.deepEqual(removed, []);
    assert.equal(addrsOf(rim, 'broker-a').length, 1);
  });

  test('without a channel the remote address names the broker', () => {
    const { rim, register, removed } = setup();
    register({});
    rim.onChannelDestroy('10.0.0.1:10911', undefined);
    assert.deepEqual(removed, [['10.0.0.1:10911', 'channelDestroyed']]);
  });

  test('expiry: dropped only after brokerChannelExpiredTime without registration', () => {
    const { rim, register, removed, clock } = setup(120_000);
    const channel = new FakeChannel();
    register({ configs: topics('T'), channel });
    register({ brokerName: 'broker-b', brokerAddr: '10.0.0.3:10911' });
    clock.advance(60_000);
    register({ brokerName: 'broker-b', brokerAddr: '10.0.0.3:10911' });
    clock.advance(60_000);
    assert.equal(rim.scanNotActiveBroker(), 0, 'exactly 120 s is not yet expired');
    clock.advance(1);
    assert.equal(rim.scanNotActiveBroker(), 1);
    assert.deepEqual(removed, [['10.0.0.1:10911', 'expired']]);
    assert.equal(channel.closed, 'broker channel expired');
    assert.equal(rim.pickupTopicRouteData('T'), undefined);
    assert.deepEqual([...rim.getAllClusterInfo().brokerAddrTable.keys()], ['broker-b']);
    clock.advance(60_000);
    assert.equal(rim.scanNotActiveBroker(), 1);
    assert.equal(rim.getAllClusterInfo().clusterAddrTable.size, 0);
  });

  test('an unchanged QUERY_DATA_VERSION keeps a broker alive', () => {
    const { rim, register, clock } = setup(1000);
    register({});
    clock.advance(900);
    rim.updateBrokerInfoUpdateTimestamp('10.0.0.1:10911', clock.now());
    rim.updateBrokerInfoUpdateTimestamp('10.9.9.9:1', clock.now());
    clock.advance(900);
    assert.equal(rim.scanNotActiveBroker(), 0);
  });
});

describe('RouteInfoManager queries', () => {
  test('wipe and add write permission count the broker topics', () => {
    const { rim, register } = setup();
    register({ configs: topics('A', 'B') });
    register({ brokerName: 'broker-b', brokerAddr: '10.0.0.3:10911', configs: topics('A') });
    assert.equal(rim.wipeWritePermOfBroker('broker-a'), 2);
    const perms = () =>
      Object.fromEntries(
        ['A', 'B'].flatMap((t) =>
          (rim.pickupTopicRouteData(t)?.queueDatas ?? []).map((q) => [`${t}@${q.brokerName}`, q.perm]),
        ),
      );
    assert.deepEqual(perms(), { 'A@broker-a': 4, 'A@broker-b': 6, 'B@broker-a': 4 });
    assert.equal(rim.addWritePermOfBroker('broker-a'), 2);
    assert.deepEqual(perms(), { 'A@broker-a': 6, 'A@broker-b': 6, 'B@broker-a': 6 });
    assert.equal(rim.wipeWritePermOfBroker('nope'), 0);
  });

  test('delete a topic everywhere or on one cluster', () => {
    const { rim, register } = setup();
    register({ configs: topics('T', 'U') });
    register({
      clusterName: 'C2',
      brokerName: 'broker-b',
      brokerAddr: '10.0.0.3:10911',
      configs: topics('T'),
    });
    rim.deleteTopic('T', 'C2');
    assert.deepEqual(
      rim.pickupTopicRouteData('T')?.queueDatas.map((q) => q.brokerName),
      ['broker-a'],
    );
    rim.deleteTopic('T', 'NoSuchCluster');
    rim.deleteTopic('T', 'DefaultCluster');
    assert.equal(rim.pickupTopicRouteData('T'), undefined);
    rim.deleteTopic('U');
    assert.equal(rim.pickupTopicRouteData('U'), undefined);
    assert.deepEqual(rim.getAllTopicList().topicList, []);
  });

  test('topic lists: all, by cluster, system, unit flags', () => {
    const { rim, register } = setup();
    register({
      configs: [
        createTopicConfig('Plain'),
        createTopicConfig('Unit', { topicSysFlag: 1 }),
        createTopicConfig('UnitSub', { topicSysFlag: 2 }),
        createTopicConfig('Both', { topicSysFlag: 3 }),
      ],
    });
    register({
      clusterName: 'C2',
      brokerName: 'broker-b',
      brokerAddr: '10.0.0.3:10911',
      configs: topics('Other'),
    });
    assert.deepEqual(rim.getAllTopicList().topicList.sort(), ['Both', 'Other', 'Plain', 'Unit', 'UnitSub']);
    assert.deepEqual(rim.getTopicsByCluster('C2').topicList, ['Other']);
    assert.deepEqual(rim.getTopicsByCluster('DefaultCluster').topicList.sort(), [
      'Both',
      'Plain',
      'Unit',
      'UnitSub',
    ]);
    assert.deepEqual(rim.getTopicsByCluster('Unknown').topicList, []);
    assert.deepEqual(rim.getUnitTopics().topicList.sort(), ['Both', 'Unit']);
    assert.deepEqual(rim.getHasUnitSubTopicList().topicList.sort(), ['Both', 'UnitSub']);
    assert.deepEqual(rim.getHasUnitSubUnUnitTopicList().topicList, ['UnitSub']);
    const system = rim.getSystemTopicList();
    assert.deepEqual(system.topicList.sort(), ['C2', 'DefaultCluster', 'broker-a', 'broker-b']);
    assert.ok(['10.0.0.1:10911', '10.0.0.3:10911'].includes(system.brokerAddr ?? ''));
  });

  test('an empty name server answers empty lists', () => {
    const { rim } = setup();
    assert.deepEqual(rim.getAllTopicList(), { topicList: [] });
    assert.deepEqual(rim.getSystemTopicList(), { topicList: [] });
    assert.equal(rim.getAllClusterInfo().brokerAddrTable.size, 0);
  });

  test('routes are copies: changing one changes nothing inside', () => {
    const { rim, register } = setup();
    register({ configs: topics('T') });
    const route = rim.pickupTopicRouteData('T');
    assert.ok(route);
    (route.queueDatas[0] as { perm: number }).perm = 0;
    route.brokerDatas[0]?.brokerAddrs.set(7, 'x');
    const again = rim.pickupTopicRouteData('T');
    assert.equal(again?.queueDatas[0]?.perm, 6);
    assert.equal(again?.brokerDatas[0]?.brokerAddrs.size, 1);
  });
});
