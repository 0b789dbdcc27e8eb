/**
 * CLONE_GROUP_OFFSET (314) on our broker, as upstream 4.9.8's AdminBrokerProcessor answers it: the
 * destination group takes the source's offsets in the topic; unknown topics, topics the source's
 * online consumers do not subscribe to (unless offline) and a request without a topic copy nothing
 * and still succeed.
 */
import assert from 'node:assert/strict';
import { afterEach, describe, test } from 'node:test';
import type { BrokerController } from '../../../src/broker/broker-controller.js';
import { createTopicConfig } from '../../../src/common/protocol/topic-config.js';
import { createRequest } from '../../../src/remoting/protocol/command.js';
import { encodeHeader } from '../../../src/remoting/protocol/header-schema.js';
import { CloneGroupOffsetRequestHeader } from '../../../src/remoting/protocol/headers/clone-group-offset-request-header.js';
import { RequestCode } from '../../../src/remoting/protocol/request-code.js';
import { ResponseCode } from '../../../src/remoting/protocol/response-code.js';
import {
  connectInMemory,
  consumerHeartbeat,
  heartbeatRequest,
  type TestClient,
  testBroker,
} from './helpers.js';
import { cleanUp, track } from './store-broker.js';

const LIMIT = { timeout: 5_000 };
afterEach(cleanUp);

async function setup(): Promise<{ broker: BrokerController; client: TestClient }> {
  const { broker } = await testBroker();
  track(broker);
  for (const topic of ['T', 'U']) broker.topicConfigManager.updateTopicConfig(createTopicConfig(topic));
  for (const [queueId, offset] of [
    [0, 5n],
    [1, 7n],
  ] as const) {
    broker.consumerOffsetManager.commitOffset('h', 'src', 'T', queueId, offset);
    broker.consumerOffsetManager.commitOffset('h', 'src', 'U', queueId, offset + 100n);
  }
  return { broker, client: connectInMemory(broker) };
}

async function clone(
  client: TestClient,
  fields: { srcGroup: string; destGroup: string; topic?: string; offline: boolean },
): Promise<void> {
  const r = await client.call(
    createRequest(RequestCode.CLONE_GROUP_OFFSET, {
      extFields: encodeHeader(CloneGroupOffsetRequestHeader, fields),
    }),
  );
  assert.equal(r.code, ResponseCode.SUCCESS, r.remark);
  assert.equal(r.remark, undefined);
}

const offsets = (broker: BrokerController, group: string, topic: string) => [
  ...(broker.consumerOffsetManager.queryOffsets(group, topic) ?? new Map()),
];

describe('CLONE_GROUP_OFFSET', () => {
  test('copies the source group offsets in the topic, replacing the destination ones', LIMIT, async () => {
    const { broker, client } = await setup();
    broker.consumerOffsetManager.commitOffset('h', 'dest', 'T', 3, 1n);
    await broker.consumerOffsetManager.persist();
    assert.equal(broker.consumerOffsetManager.hasChanges, false);
    await clone(client, { srcGroup: 'src', destGroup: 'dest', topic: 'T', offline: false });
    assert.deepEqual(offsets(broker, 'dest', 'T'), [
      [0, 5n],
      [1, 7n],
    ]);
    assert.deepEqual(offsets(broker, 'dest', 'U'), [], 'only the named topic');
    assert.ok(broker.consumerOffsetManager.hasChanges, 'the next offset flush writes the copy');
    // A later commit by the source does not reach the copy.
    broker.consumerOffsetManager.commitOffset('h', 'src', 'T', 0, 9n);
    assert.equal(broker.consumerOffsetManager.queryOffset('dest', 'T', 0), 5n);
  });

  test('copies nothing for a topic the broker does not have or without a topic', LIMIT, async () => {
    const { broker, client } = await setup();
    broker.consumerOffsetManager.commitOffset('h', 'src', 'Gone', 0, 4n);
    await clone(client, { srcGroup: 'src', destGroup: 'dest', topic: 'Gone', offline: true });
    await clone(client, { srcGroup: 'src', destGroup: 'dest', offline: true });
    await clone(client, { srcGroup: 'src', destGroup: 'dest', topic: ' ', offline: true });
    assert.deepEqual(broker.consumerOffsetManager.whichTopicByConsumer('dest'), new Set());
  });

  test(
    'an online source group must subscribe to the topic unless the request says offline',
    LIMIT,
    async () => {
      const { broker, client } = await setup();
      await client.call(heartbeatRequest(consumerHeartbeat('c1', 'src', ['U'])));
      await clone(client, { srcGroup: 'src', destGroup: 'dest', topic: 'T', offline: false });
      assert.deepEqual(offsets(broker, 'dest', 'T'), []);
      await clone(client, { srcGroup: 'src', destGroup: 'dest', topic: 'U', offline: false });
      assert.deepEqual(offsets(broker, 'dest', 'U'), [
        [0, 105n],
        [1, 107n],
      ]);
      await clone(client, { srcGroup: 'src', destGroup: 'dest', topic: 'T', offline: true });
      assert.deepEqual(offsets(broker, 'dest', 'T'), [
        [0, 5n],
        [1, 7n],
      ]);
    },
  );

  test('a source without offsets in the topic leaves the destination as it was', LIMIT, async () => {
    const { broker, client } = await setup();
    broker.consumerOffsetManager.commitOffset('h', 'dest', 'T', 0, 2n);
    await clone(client, { srcGroup: 'nobody', destGroup: 'dest', topic: 'T', offline: true });
    assert.deepEqual(offsets(broker, 'dest', 'T'), [[0, 2n]]);
  });
});
