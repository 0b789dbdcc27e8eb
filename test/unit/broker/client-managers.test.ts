/**
 * Producer and consumer bookkeeping: members from heartbeats, subscriptions keeping the newer
 * version, who is told when a group changes, expiry after channelExpiredTimeout without heartbeat
 * (driven by a manual clock) and removal when a connection closes.
 */
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { describe, test } from 'node:test';
import type { ClientChannel, ClientChannelInfo } from '../../../src/broker/client/client-channel-info.js';
import { ClientHousekeepingService } from '../../../src/broker/client/client-housekeeping-service.js';
import { ConsumerGroupHeartbeatTable } from '../../../src/broker/client/consumer-group-heartbeat-table.js';
import type { ConsumerGroupEvent } from '../../../src/broker/client/consumer-ids-change-listener.js';
import { ConsumerManager } from '../../../src/broker/client/consumer-manager.js';
import { DefaultConsumerIdsChangeListener } from '../../../src/broker/client/default-consumer-ids-change-listener.js';
import { ProducerManager } from '../../../src/broker/client/producer-manager.js';
import type { SubscriptionData } from '../../../src/common/protocol/subscription-data.js';
import type { RemotingCommand } from '../../../src/remoting/protocol/command.js';
import { RequestCode } from '../../../src/remoting/protocol/request-code.js';
import { ManualClock, quiet } from './helpers.js';

class FakeChannel extends EventEmitter implements ClientChannel {
  isOpen = true;
  readonly sent: RemotingCommand[] = [];
  failSends = false;

  constructor(readonly remoteAddress: string) {
    super();
  }

  close(): void {
    if (!this.isOpen) return;
    this.isOpen = false;
    this.emit('close');
  }

  invokeOneway(request: RemotingCommand): Promise<void> {
    if (this.failSends) return Promise.reject(new Error('connection closed'));
    this.sent.push(request);
    return Promise.resolve();
  }

  invoke(): Promise<RemotingCommand> {
    return Promise.reject(new Error('FakeChannel: invoke is not part of these tests'));
  }
}

const EXPIRED = 120_000;

function info(channel: ClientChannel, clientId: string, clock: ManualClock): ClientChannelInfo {
  return { channel, clientId, language: 'JAVA', version: 409, lastUpdateTimestamp: clock.now() };
}

function sub(topic: string, subVersion = 1n, subString = '*'): SubscriptionData {
  return {
    topic,
    subString,
    tagsSet: [],
    codeSet: [],
    subVersion,
    expressionType: 'TAG',
    classFilterMode: false,
  };
}

function consumers() {
  const clock = new ManualClock();
  const events: ConsumerGroupEvent[] = [];
  const cm = new ConsumerManager({
    listener: { handle: (e) => events.push(e) },
    clock,
    logger: quiet,
    channelExpiredTimeout: EXPIRED,
  });
  const register = (ch: ClientChannel, id: string, subs: SubscriptionData[], notify = true, group = 'g') =>
    cm.registerConsumer(
      group,
      info(ch, id, clock),
      'CONSUME_PASSIVELY',
      'CLUSTERING',
      'CONSUME_FROM_LAST_OFFSET',
      subs,
      notify,
    );
  const changes = () =>
    events.filter((e) => e.type === 'CHANGE').map((e) => (e.type === 'CHANGE' ? e.channels.length : -1));
  return { clock, events, cm, register, changes };
}

describe('ConsumerGroupHeartbeatTable (5.x heartbeat V2)', () => {
  test('a changed fingerprint is a change, a first one is not; markStale asks the marked connection only', () => {
    const t = new ConsumerGroupHeartbeatTable();
    const a = {};
    const b = {};
    assert.equal(t.update('g', 7, a), false, 'first fingerprint');
    assert.equal(t.update('g', 7, b), false);
    assert.equal(t.update('g', 8, a), true);
    t.markStale('g', b);
    assert.equal(t.update('g', 8, a), false, 'another member is not asked');
    assert.equal(t.update('g', 8, b), true, 'the stale member is asked for the full heartbeat');
    assert.equal(t.update('g', 8, b), false, 'once');
    t.update('v1', 0, a);
    t.markStale('v1', a);
    assert.equal(t.update('v1', 0, a), false, 'a 4.x-style group is not marked');
    t.markStale('unknown', a);
    assert.equal(t.update('unknown', 5, a), false);
  });
});

describe('ConsumerManager', () => {
  test('members join once; CHANGE carries every member', () => {
    const { cm, register, changes, events } = consumers();
    const a = new FakeChannel('10.0.0.1:1');
    const b = new FakeChannel('10.0.0.2:1');
    assert.equal(register(a, 'A', [sub('T')]), true);
    assert.equal(register(a, 'A', [sub('T')]), false, 'a repeated heartbeat changes nothing');
    assert.equal(register(b, 'B', [sub('T')]), true);
    assert.deepEqual(changes(), [1, 2]);
    assert.equal(events.filter((e) => e.type === 'REGISTER').length, 3, 'REGISTER on every heartbeat');
    const g = cm.getConsumerGroupInfo('g');
    assert.deepEqual(g?.getAllClientId(), ['A', 'B']);
    assert.equal(g?.consumeType, 'CONSUME_PASSIVELY');
    assert.equal(g?.messageModel, 'CLUSTERING');
    assert.equal(g?.consumeFromWhere, 'CONSUME_FROM_LAST_OFFSET');
    assert.equal(cm.findChannel('g', 'B')?.channel, b);
    assert.equal(cm.findSubscriptionDataCount('g'), 1);
  });

  test('subscriptions: a newer version replaces, an older one does not; a dropped topic is a change', () => {
    const { cm, register, changes } = consumers();
    const a = new FakeChannel('a:1');
    register(a, 'A', [sub('T', 5n, 'TagA')]);
    assert.equal(register(a, 'A', [sub('T', 4n, 'old')]), false);
    assert.equal(cm.findSubscriptionData('g', 'T')?.subString, 'TagA');
    assert.equal(
      register(a, 'A', [sub('T', 6n, 'TagB')]),
      false,
      'a newer version alone is no member change',
    );
    assert.equal(cm.findSubscriptionData('g', 'T')?.subString, 'TagB');
    assert.equal(register(a, 'A', [sub('T', 6n), sub('U')]), true);
    assert.equal(register(a, 'A', [sub('U')]), true);
    assert.equal(cm.findSubscriptionData('g', 'T'), undefined);
    assert.deepEqual(changes(), [1, 1, 1]);
    assert.deepEqual([...cm.queryTopicConsumeByWho('U')], ['g']);
    assert.deepEqual([...cm.queryTopicConsumeByWho('T')], []);
  });

  test('registerConsumerWithoutSub (5.x heartbeat V2): members change, subscriptions stay', () => {
    const { cm, clock, register, changes, events } = consumers();
    const a = new FakeChannel('a:1');
    const b = new FakeChannel('b:1');
    const c = new FakeChannel('c:1');
    register(a, 'A', [sub('T', 5n, 'TagA')]);
    const without = (
      ch: ClientChannel,
      id: string,
      group = 'g',
      model: 'CLUSTERING' | 'BROADCASTING' = 'CLUSTERING',
    ) =>
      cm.registerConsumerWithoutSub(
        group,
        info(ch, id, clock),
        'CONSUME_PASSIVELY',
        model,
        'CONSUME_FROM_FIRST_OFFSET',
        true,
      );
    assert.equal(without(a, 'A'), false, 'a known member is no change');
    assert.equal(cm.findSubscriptionData('g', 'T')?.subString, 'TagA');
    assert.equal(without(b, 'B'), true);
    assert.deepEqual(cm.getConsumerGroupInfo('g')?.getAllClientId(), ['A', 'B']);
    assert.equal(cm.getConsumerGroupInfo('g')?.consumeFromWhere, 'CONSUME_FROM_FIRST_OFFSET');
    assert.equal(cm.findSubscriptionDataCount('g'), 1);
    assert.deepEqual(changes(), [1, 2]);
    assert.equal(events.filter((e) => e.type === 'REGISTER').length, 1, 'no REGISTER: no subscriptions came');
    // As upstream 5.x: a broadcasting group's members are not told.
    assert.equal(without(c, 'C', 'bg', 'BROADCASTING'), true);
    assert.equal(cm.findSubscriptionDataCount('bg'), 0);
    assert.deepEqual(changes(), [1, 2]);
  });

  test('a group that opted out is not told on heartbeat', () => {
    const { register, changes } = consumers();
    register(new FakeChannel('a:1'), 'A', [sub('T')], false);
    assert.deepEqual(changes(), []);
  });

  test('unregister: the others are told, the last one removes the group', () => {
    const { cm, register, events } = consumers();
    const a = new FakeChannel('a:1');
    const b = new FakeChannel('b:1');
    register(a, 'A', [sub('T')]);
    register(b, 'B', [sub('T')]);
    events.length = 0;
    cm.unregisterConsumer('g', a, true);
    assert.deepEqual(events, [{ type: 'CHANGE', group: 'g', channels: [b] }]);
    events.length = 0;
    cm.unregisterConsumer('g', b, false);
    assert.deepEqual(events, [{ type: 'UNREGISTER', group: 'g' }]);
    assert.equal(cm.getConsumerGroupInfo('g'), undefined);
    cm.unregisterConsumer('nobody', a, true);
  });

  test('a closed connection leaves every group and the others are told', () => {
    const { cm, register, events } = consumers();
    const a = new FakeChannel('a:1');
    const b = new FakeChannel('b:1');
    register(a, 'A', [sub('T')], true, 'g1');
    register(b, 'B', [sub('T')], true, 'g1');
    register(a, 'A', [sub('T')], true, 'g2');
    events.length = 0;
    cm.doChannelCloseEvent('a:1', a);
    assert.deepEqual(events, [
      { type: 'CHANGE', group: 'g1', channels: [b] },
      { type: 'UNREGISTER', group: 'g2' },
      { type: 'CHANGE', group: 'g2', channels: [] },
    ]);
    assert.equal(cm.getConsumerGroupInfo('g2'), undefined);
  });

  test('expiry: 120 s without heartbeat, the connection is closed, no member is told', () => {
    const { cm, register, clock, events } = consumers();
    const a = new FakeChannel('a:1');
    const b = new FakeChannel('b:1');
    register(a, 'A', [sub('T')]);
    register(b, 'B', [sub('T')]);
    clock.advance(60_000);
    register(b, 'B', [sub('T')]);
    events.length = 0;
    clock.advance(EXPIRED);
    cm.scanNotActiveChannel();
    assert.equal(a.isOpen, false);
    assert.equal(b.isOpen, true);
    assert.deepEqual(cm.getConsumerGroupInfo('g')?.getAllClientId(), ['B']);
    assert.deepEqual(events, []);
    clock.advance(60_001);
    cm.scanNotActiveChannel();
    assert.equal(cm.getConsumerGroupInfo('g'), undefined);
    // The emptied group is unregistered (its filter data is then marked dead), nobody is told.
    assert.deepEqual(events, [{ type: 'UNREGISTER', group: 'g' }]);
  });
});

describe('ProducerManager', () => {
  function producers() {
    const clock = new ManualClock();
    return { clock, pm: new ProducerManager({ clock, logger: quiet, channelExpiredTimeout: EXPIRED }) };
  }

  test('register, heartbeat, unregister', () => {
    const { pm, clock } = producers();
    const a = new FakeChannel('a:1');
    pm.registerProducer('pg', info(a, 'A', clock));
    clock.advance(1000);
    pm.registerProducer('pg', info(a, 'A', clock));
    assert.equal(pm.groupChannelTable.get('pg')?.get(a)?.lastUpdateTimestamp, clock.now());
    assert.equal(pm.findChannel('A'), a);
    assert.equal(pm.getAvailableChannel('pg'), a);
    assert.equal(pm.getAvailableChannel('other'), undefined);
    assert.equal(pm.getAvailableChannel(undefined), undefined);
    pm.unregisterProducer('pg', a, 'A');
    assert.equal(pm.groupChannelTable.has('pg'), false);
    assert.equal(pm.findChannel('A'), undefined);
  });

  test('closed connections leave; silent ones expire and are closed', () => {
    const { pm, clock } = producers();
    const a = new FakeChannel('a:1');
    const b = new FakeChannel('b:1');
    pm.registerProducer('pg', info(a, 'A', clock));
    pm.registerProducer('pg2', info(a, 'A', clock));
    pm.registerProducer('pg', info(b, 'B', clock));
    pm.doChannelCloseEvent('a:1', a);
    assert.deepEqual([...(pm.groupChannelTable.get('pg')?.keys() ?? [])], [b]);
    assert.equal(pm.groupChannelTable.has('pg2'), false);
    clock.advance(EXPIRED + 1);
    pm.scanNotActiveChannel();
    assert.equal(b.isOpen, false);
    assert.equal(pm.groupChannelTable.size, 0);
  });

  test('getAvailableChannel skips closed connections', () => {
    const { pm, clock } = producers();
    const a = new FakeChannel('a:1');
    const b = new FakeChannel('b:1');
    pm.registerProducer('pg', info(a, 'A', clock));
    pm.registerProducer('pg', info(b, 'B', clock));
    a.isOpen = false;
    for (let i = 0; i < 4; i++) assert.equal(pm.getAvailableChannel('pg'), b);
    b.isOpen = false;
    assert.equal(pm.getAvailableChannel('pg'), undefined);
  });
});

describe('DefaultConsumerIdsChangeListener', () => {
  test('CHANGE sends NOTIFY_CONSUMER_IDS_CHANGED oneway to each member, when enabled', async () => {
    const config = { notifyConsumerIdsChangedEnable: true };
    const registered: string[] = [];
    const listener = new DefaultConsumerIdsChangeListener(config, quiet, {
      register: (g, subs) => registered.push(`${g}:${subs.length}`),
      unregister: (g) => registered.push(`-${g}`),
    });
    const a = new FakeChannel('a:1');
    const b = new FakeChannel('b:1');
    b.failSends = true;
    listener.handle({ type: 'CHANGE', group: 'g', channels: [a, b] });
    await Promise.resolve();
    assert.equal(a.sent.length, 1);
    assert.equal(a.sent[0]?.code, RequestCode.NOTIFY_CONSUMER_IDS_CHANGED);
    assert.deepEqual(a.sent[0]?.extFields, { consumerGroup: 'g' });
    config.notifyConsumerIdsChangedEnable = false;
    listener.handle({ type: 'CHANGE', group: 'g', channels: [a] });
    assert.equal(a.sent.length, 1);
    listener.handle({ type: 'REGISTER', group: 'g', subscriptions: [sub('T')] });
    listener.handle({ type: 'UNREGISTER', group: 'g' });
    assert.deepEqual(registered, ['g:1', '-g']);
  });
});

describe('ClientHousekeepingService', () => {
  test('scans every interval; a closing connection leaves at once', () => {
    const clock = new ManualClock();
    const events: ConsumerGroupEvent[] = [];
    const cm = new ConsumerManager({
      listener: { handle: (e) => events.push(e) },
      clock,
      logger: quiet,
      channelExpiredTimeout: EXPIRED,
    });
    const pm = new ProducerManager({ clock, logger: quiet, channelExpiredTimeout: EXPIRED });
    const hk = new ClientHousekeepingService({
      producerManager: pm,
      consumerManager: cm,
      clock,
      logger: quiet,
      interval: 10_000,
    });
    const a = new FakeChannel('a:1');
    const b = new FakeChannel('b:1');
    hk.onChannelConnect(a);
    hk.onChannelConnect(b);
    cm.registerConsumer('g', info(a, 'A', clock), 'CONSUME_PASSIVELY', 'CLUSTERING', undefined, [], true);
    pm.registerProducer('pg', info(b, 'B', clock));
    a.close();
    assert.equal(cm.getConsumerGroupInfo('g'), undefined);
    hk.start();
    clock.advance(EXPIRED);
    assert.equal(b.isOpen, true, 'not yet expired at exactly 120 s');
    clock.advance(10_000);
    assert.equal(b.isOpen, false);
    assert.equal(pm.groupChannelTable.size, 0);
    hk.shutdown();
    assert.equal(clock.pending, 0);
  });
});
