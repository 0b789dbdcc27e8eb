/**
 * Tables that grow with what clients send stay bounded: broker statistics drop their oldest-created
 * key beyond maxStatsItemsPerSet, expired rebalance locks are swept, the filter data of a group whose
 * clients vanished is cleaned after filterDataCleanTimeSpan, and the broker.conf keys of the bounds
 * (and of the other limits of issue 14) parse and validate.
 */
import assert from 'node:assert/strict';
import { afterEach, describe, test } from 'node:test';
import { brokerConfig, loadBrokerConfig } from '../../../src/broker/broker-config.js';
import { RebalanceLockManager } from '../../../src/broker/client/rebalance-lock-manager.js';
import {
  BrokerStatsManager,
  DEFAULT_MAX_STATS_ITEMS_PER_SET,
} from '../../../src/broker/stats/broker-stats-manager.js';
import { Stats } from '../../../src/broker/stats/stats-names.js';
import { ValidationError } from '../../../src/common/errors.js';
import { MessageQueue } from '../../../src/common/message/message-queue.js';
import { StatsItemSet } from '../../../src/common/stats/stats-item-set.js';
import { heartbeatRequest, ManualClock, TEST_ENV } from './helpers.js';
import { cleanUp, startBroker } from './store-broker.js';

describe('bounded statistics', () => {
  test('a set drops its oldest-created key beyond maxKeys and counts it', () => {
    const set = new StatsItemSet('TEST', 3);
    for (const key of ['a', 'b', 'c']) set.addValue(key, 1, 1);
    set.addValue('a', 1, 1);
    set.addValue('d', 5, 1);
    assert.deepEqual(set.keys(), ['b', 'c', 'd']);
    assert.equal(set.evictedCount, 1);
    assert.equal(set.getStatsItem('d')?.value, 5);
  });

  test('the broker stats manager bounds every set, 100000 keys by default', () => {
    const clock = new ManualClock();
    assert.equal(DEFAULT_MAX_STATS_ITEMS_PER_SET, 100_000);
    assert.equal(
      new BrokerStatsManager({ clusterName: 'c', clock }).getStatsItemSet(Stats.TOPIC_PUT_NUMS)?.maxKeys,
      100_000,
    );
    const stats = new BrokerStatsManager({ clusterName: 'c', clock, maxStatsItemsPerSet: 10 });
    for (let i = 0; i < 50; i++) {
      stats.getStatsItemSet(Stats.GROUP_GET_NUMS)?.addValue(`topic-${i}@group`, 1, 1);
      stats.momentStatsItemSetFallSize.setValue(`0@topic-${i}@group`, i);
    }
    assert.equal(stats.getStatsItemSet(Stats.GROUP_GET_NUMS)?.size, 10);
    assert.equal(stats.momentStatsItemSetFallSize.statsItemTable.size, 10);
    assert.ok(stats.getStatsItem(Stats.GROUP_GET_NUMS, 'topic-49@group'));
    assert.equal(stats.getStatsItem(Stats.GROUP_GET_NUMS, 'topic-0@group'), undefined);
  });
});

describe('rebalance locks', () => {
  test('expired locks on queues never named again are swept; live ones stay', () => {
    const clock = new ManualClock();
    const manager = new RebalanceLockManager({ clock });
    const live = new MessageQueue('Live', 'broker-a', 0);
    manager.tryLockBatch('g', [live], 'A');
    // A client naming 20000 made-up queues once each, in batches of 500 every 30 s: at most three
    // batches (61 s of them) are live at once, so the table must stay near twice that, not grow.
    for (let batch = 0; batch < 40; batch++) {
      const mqs = [];
      for (let i = 0; i < 500; i++) mqs.push(new MessageQueue(`Junk${batch}`, 'broker-a', i));
      manager.tryLockBatch(`junk-${batch}`, mqs, 'X');
      clock.advance(30_000);
      manager.tryLockBatch('g', [live], 'A');
    }
    assert.ok(manager.size <= 2 * (3 * 500 + 1), `table holds ${manager.size} locks`);
    assert.equal(manager.lockHolder('g', live), 'A');
    // What a sweep removed meant no lock: another client gets such a queue.
    const junk = new MessageQueue('Junk0', 'broker-a', 1);
    assert.equal(manager.lockHolder('junk-0', junk), undefined);
    assert.deepEqual(manager.tryLockBatch('junk-0', [junk], 'Y'), [junk]);
  });
});

afterEach(cleanUp);

describe('consumer filter data of vanished clients', () => {
  test('a group expired by the housekeeping scan has its SQL92 filter marked dead, then cleaned', async () => {
    const timeSpan = 60_000;
    const { broker, clock, client } = await startBroker({
      config: { enablePropertyFilter: true, filterDataCleanTimeSpan: timeSpan },
    });
    const r = await client.call(
      heartbeatRequest({
        clientID: 'vanishing',
        producerDataSet: [],
        consumerDataSet: [
          {
            groupName: 'cg-sql',
            consumeType: 'CONSUME_PASSIVELY',
            messageModel: 'CLUSTERING',
            consumeFromWhere: 'CONSUME_FROM_LAST_OFFSET',
            unitMode: false,
            subscriptionDataSet: [
              {
                topic: 'TopicSql',
                subString: 'a > 1',
                tagsSet: [],
                codeSet: [],
                subVersion: 1n,
                expressionType: 'SQL92',
                classFilterMode: false,
              },
            ],
          },
        ],
      }),
    );
    assert.equal(r.code, 0, r.remark);
    const data = () => broker.consumerFilterManager.get('TopicSql', 'cg-sql');
    assert.equal(data()?.isDead(), false);
    // The client goes silent without closing: the scan expires it (channelExpiredTimeout 120 s).
    clock.advance(broker.config.channelExpiredTimeout + broker.config.clientHousekeepingInterval * 2);
    assert.equal(broker.consumerManager.getConsumerGroupInfo('cg-sql'), undefined);
    assert.equal(data()?.isDead(), true);
    clock.advance(timeSpan + 20_000);
    assert.equal(data(), undefined);
  });
});

describe('issue 14 limits in broker.conf', () => {
  test('defaults and keys', () => {
    const c = brokerConfig({}, TEST_ENV);
    assert.deepEqual(
      [
        c.requestBodyMaxSize,
        c.namedFilterTimeoutMillis,
        c.namedFilterMaxTimeouts,
        c.filterExpressionCacheSize,
        c.maxStatsItemsPerSet,
      ],
      [1_048_576, 100, 3, 256, 100_000],
    );
    const loaded = loadBrokerConfig(
      'requestBodyMaxSize=4096\nnamedFilterTimeoutMillis=0\nnamedFilterMaxTimeouts=5\nfilterExpressionCacheSize=0\nmaxStatsItemsPerSet=7\n',
      { env: TEST_ENV },
    );
    assert.deepEqual(loaded.unknownKeys, []);
    assert.deepEqual(
      [
        loaded.config.requestBodyMaxSize,
        loaded.config.namedFilterTimeoutMillis,
        loaded.config.namedFilterMaxTimeouts,
        loaded.config.filterExpressionCacheSize,
        loaded.config.maxStatsItemsPerSet,
      ],
      [4096, 0, 5, 0, 7],
    );
  });

  test('out-of-range values are refused', () => {
    for (const bad of [
      { requestBodyMaxSize: 0 },
      { maxStatsItemsPerSet: 0 },
      { namedFilterMaxTimeouts: -1 },
      { filterExpressionCacheSize: -1 },
    ]) {
      assert.throws(() => brokerConfig(bad, TEST_ENV), ValidationError, JSON.stringify(bad));
    }
  });
});
