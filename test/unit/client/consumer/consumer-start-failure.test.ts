/**
 * A consumer start that fails leaves nothing behind, the same for the push, pull and lite pull
 * consumers (ConsumerCore.start): an offset store that cannot load takes the group out of the client
 * instance and shuts the instance down unless another client uses it, the state stays START_FAILED
 * (upstream's ServiceState: no second start) and shutdown() still works; a group already in the
 * instance is refused with the state back at CREATE_JUST and the first member left running.
 * No server is needed: the name server address is a closed port and the clock never moves.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { buildMQClientId, type ClientConfig } from '../../../../src/client/client-config.js';
import type { ConsumerCore, OffsetStoreFactory } from '../../../../src/client/consumer/consumer-core.js';
import { DefaultLitePullConsumerImpl } from '../../../../src/client/consumer/lite/default-lite-pull-consumer-impl.js';
import type { OffsetStore } from '../../../../src/client/consumer/offset/offset-store.js';
import { DefaultMQPullConsumerImpl } from '../../../../src/client/consumer/pull-consumer/default-mq-pull-consumer-impl.js';
import { DefaultMQPushConsumerImpl } from '../../../../src/client/consumer/push/default-mq-push-consumer-impl.js';
import { ConsumerStatsManager } from '../../../../src/client/consumer/stats/consumer-stats-manager.js';
import { MQClientError } from '../../../../src/client/errors.js';
import { activeClientIds } from '../../../../src/client/instance/mq-client-manager.js';
import { ManualClock } from '../../../../src/common/clock.js';
import { createLogger } from '../../../../src/common/logger.js';

const quiet = createLogger('test', { level: 'silent' });
let seq = 0;

/** An offset store that keeps nothing; `load` fails when told to. */
function fakeStore(loadError: Error | undefined): OffsetStore {
  return {
    load: async () => {
      if (loadError !== undefined) throw loadError;
    },
    updateOffset: () => {},
    updateAndFreezeOffset: () => {},
    readOffsetInMemory: () => -1n,
    readOffset: async () => -1n,
    persistAll: async () => {},
    persist: async () => {},
    removeOffset: () => {},
    cloneOffsetTable: () => [],
    updateConsumeOffsetToBroker: async () => {},
  };
}

function storeFactory(loadError?: Error): OffsetStoreFactory {
  return () => fakeStore(loadError);
}

type AnyConsumer = ConsumerCore<{
  readonly consumerGroup: string;
  readonly messageModel: 'CLUSTERING' | 'BROADCASTING';
  readonly allocateMessageQueueStrategy: undefined;
  readonly localOffsetStoreDir: string | undefined;
}>;

interface Kind {
  name: string;
  make(group: string, instanceName: string, factory: OffsetStoreFactory): AnyConsumer;
}

function base(group: string, instanceName: string) {
  return {
    namesrvAddr: '127.0.0.1:1',
    clientIP: '127.0.0.1',
    instanceName,
    consumerGroup: group,
    clock: new ManualClock(),
    logger: quiet,
  };
}

const kinds: Kind[] = [
  {
    name: 'push',
    make(group, instanceName, factory) {
      const c = new DefaultMQPushConsumerImpl(
        base(group, instanceName),
        factory,
        (clock) => new ConsumerStatsManager(clock),
      );
      c.registerMessageListener({ type: 'concurrently', consumeMessage: async () => 'CONSUME_SUCCESS' });
      return c as unknown as AnyConsumer;
    },
  },
  {
    name: 'pull',
    make: (group, instanceName, factory) =>
      new DefaultMQPullConsumerImpl(base(group, instanceName), factory) as unknown as AnyConsumer,
  },
  {
    name: 'lite pull',
    make: (group, instanceName, factory) =>
      new DefaultLitePullConsumerImpl(base(group, instanceName), factory) as unknown as AnyConsumer,
  },
];

function clientIdOf(consumer: AnyConsumer): string {
  return buildMQClientId(consumer.clientConfig as ClientConfig);
}

for (const kind of kinds) {
  describe(`${kind.name} consumer start failure`, () => {
    test('an offset store that cannot load: the instance is gone, the state START_FAILED, shutdown still works', async () => {
      seq++;
      const failure = new Error('offset file unreadable');
      const consumer = kind.make(`cg-fail-${seq}`, `inst-fail-${seq}`, storeFactory(failure));
      await assert.rejects(consumer.start(), (error) => error === failure);
      assert.equal(consumer.serviceState, 'START_FAILED');
      assert.ok(
        !activeClientIds().includes(clientIdOf(consumer)),
        'the failed start left its client instance',
      );
      await assert.rejects(consumer.start(), /maybe started once/);
      await consumer.shutdown();
      assert.equal(consumer.serviceState, 'SHUTDOWN_ALREADY');
    });

    test('an instance another consumer uses stays running; the failed group is not in it', async () => {
      seq++;
      const instanceName = `inst-shared-${seq}`;
      const running = kind.make(`cg-ok-${seq}`, instanceName, storeFactory());
      await running.start();
      try {
        const failing = kind.make(`cg-bad-${seq}`, instanceName, storeFactory(new Error('no file')));
        await assert.rejects(failing.start(), /no file/);
        assert.ok(activeClientIds().includes(clientIdOf(running)), 'the shared instance was shut down');
        assert.equal(running.instance.serviceState, 'RUNNING');
        assert.equal(running.instance.selectConsumer(failing.consumerGroup), undefined);
      } finally {
        await running.shutdown();
      }
      assert.ok(!activeClientIds().includes(clientIdOf(running)));
    });

    test('a group already in the instance is refused: CREATE_JUST, the first member keeps running', async () => {
      seq++;
      const instanceName = `inst-dup-${seq}`;
      const group = `cg-dup-${seq}`;
      const first = kind.make(group, instanceName, storeFactory());
      await first.start();
      try {
        const twin = kind.make(group, instanceName, storeFactory());
        await assert.rejects(twin.start(), (error: unknown) => {
          assert.ok(error instanceof MQClientError);
          assert.match(error.message, /has been created before/);
          return true;
        });
        assert.equal(twin.serviceState, 'CREATE_JUST');
        assert.equal(first.instance.selectConsumer(group), first);
        assert.equal(first.instance.serviceState, 'RUNNING');
        await twin.shutdown();
        assert.equal(
          first.instance.serviceState,
          'RUNNING',
          "the twin's shutdown stopped the shared instance",
        );
      } finally {
        await first.shutdown();
      }
    });
  });
}
