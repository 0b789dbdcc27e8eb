/**
 * SlaveSynchronize against a master that answers badly (a scripted server on a real port triple: a
 * real broker never sends such answers), the schedule per role, and GET_ALL_DELAY_OFFSET on a broker
 * without a schedule service. The sync against a real master is in
 * test/integration/broker/slave.test.ts.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, afterEach, describe, test } from 'node:test';
import { SlaveSynchronize } from '../../../src/broker/slave/slave-synchronize.js';
import { encodeTopicConfigSerializeWrapper } from '../../../src/common/protocol/register-broker-body.js';
import { createTopicConfig } from '../../../src/common/protocol/topic-config.js';
import {
  createRequest,
  createResponse,
  type RemotingCommand,
} from '../../../src/remoting/protocol/command.js';
import { RequestCode } from '../../../src/remoting/protocol/request-code.js';
import { ResponseCode } from '../../../src/remoting/protocol/response-code.js';
import { RemotingClient, RemotingServer } from '../../../src/remoting/transport/index.js';
import { delayOffsetStorePath } from '../../../src/store/schedule/delay-offset-table.js';
import { freeBrokerPort } from '../../integration/broker/slave-support.js';
import { capturingLogger, connectInMemory, quiet, testBroker } from './helpers.js';

const LIMIT = { timeout: 15_000 };
const dir = mkdtempSync(join(tmpdir(), 'rmq-slave-sync-'));
const cleanups: Array<() => Promise<void>> = [];

after(() => rmSync(dir, { recursive: true, force: true }));
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

type Answer = (request: RemotingCommand) => RemotingCommand;

/** A "master" on port P and P - 2 answering each code with `answers`; returns its address. */
async function scriptedMaster(
  answers: ReadonlyMap<number, Answer>,
): Promise<{ addr: string; asked: number[] }> {
  const port = await freeBrokerPort();
  const asked: number[] = [];
  for (const p of [port, port - 2]) {
    const server = new RemotingServer({}, { logger: quiet });
    for (const [code, answer] of answers) {
      server.registerProcessor(code, {
        processRequest: (_ctx, request) => {
          asked.push(request.code);
          return answer(request);
        },
        rejectRequest: () => false,
      });
    }
    await server.listen({ port: p, host: '127.0.0.1' });
    cleanups.push(() => server.close());
  }
  return { addr: `127.0.0.1:${port}`, asked };
}

let slaves = 0;

async function slaveOf(masterAddr: () => string | undefined) {
  const root = join(dir, `slave-${++slaves}`);
  const { logger, records } = capturingLogger();
  const t = await testBroker({ brokerRole: 'SLAVE', brokerId: 1, storePathRootDir: root });
  const remotingClient = new RemotingClient({ clientChannelMaxIdleTimeSeconds: 0 }, { logger: quiet });
  cleanups.push(() => remotingClient.close());
  const sync = new SlaveSynchronize({
    host: t.broker,
    masterAddr,
    remotingClient,
    clock: t.clock,
    logger,
  });
  cleanups.push(() => sync.shutdown());
  return { ...t, sync, records, root };
}

const ok =
  (body: string): Answer =>
  (request) =>
    createResponse(request, ResponseCode.SUCCESS, { body: Buffer.from(body, 'utf8') });

describe('SlaveSynchronize', () => {
  test(
    'a bad answer fails its own step only, logged; a bad delay table never reaches the file',
    LIMIT,
    async () => {
      const topics = encodeTopicConfigSerializeWrapper({
        topicConfigTable: new Map([
          ['FromMaster', createTopicConfig('FromMaster', { readQueueNums: 2, writeQueueNums: 2 })],
        ]),
        dataVersion: { timestamp: 5n, counter: 9n },
      }).toString('utf8');
      const master = await scriptedMaster(
        new Map<number, Answer>([
          [RequestCode.GET_ALL_TOPIC_CONFIG, ok(topics)],
          [
            RequestCode.GET_ALL_CONSUMER_OFFSET,
            (r) =>
              createResponse(r, ResponseCode.SYSTEM_ERROR, { remark: 'No consumer offset in this broker' }),
          ],
          [RequestCode.GET_ALL_DELAY_OFFSET, ok('{"offsetTable":{"one":1}}')],
          [RequestCode.GET_ALL_SUBSCRIPTIONGROUP_CONFIG, ok('not json')],
        ]),
      );
      const s = await slaveOf(() => master.addr);
      const groupsBefore = s.broker.subscriptionGroupManager.encode();
      await s.sync.syncAll();

      assert.deepEqual([...s.broker.topicConfigManager.topicConfigTable.keys()], ['FromMaster']);
      assert.deepEqual(s.broker.topicConfigManager.dataVersion, { timestamp: 5n, counter: 9n });
      assert.equal(existsSync(delayOffsetStorePath(s.root)), false, 'nothing written');
      assert.equal(s.broker.subscriptionGroupManager.encode(), groupsBefore);
      const failures = s.records.filter((r) => r.level === 'error');
      assert.deepEqual(
        failures.map((r) => r.msg),
        ['SyncConsumerOffset Exception', 'SyncDelayOffset Exception', 'SyncSubscriptionGroup Exception'],
      );
      assert.match(String(failures[0]?.fields.error), /CODE: 1 DESC: No consumer offset in this broker/);
      assert.deepEqual(master.asked, [
        RequestCode.GET_ALL_TOPIC_CONFIG,
        RequestCode.GET_ALL_CONSUMER_OFFSET,
        RequestCode.GET_ALL_DELAY_OFFSET,
        RequestCode.GET_ALL_SUBSCRIPTIONGROUP_CONFIG,
      ]);
    },
  );

  test('no master, or a master address that is this broker: nothing is asked', LIMIT, async () => {
    const none = await slaveOf(() => undefined);
    assert.equal(none.sync.masterAddr, undefined);
    await none.sync.syncAll();
    const itself = await slaveOf(() => itself.broker.brokerAddr);
    assert.equal(itself.sync.masterAddr, undefined);
    await itself.sync.syncAll();
    // Either would have failed to connect (nothing listens on 10911 here) and logged it.
    assert.equal([...none.records, ...itself.records].filter((r) => r.level === 'error').length, 0);
  });

  test('the schedule runs on a slave only: first after 3 s, then every 10 s', LIMIT, async () => {
    const master = await scriptedMaster(new Map([[RequestCode.GET_ALL_TOPIC_CONFIG, ok('{}')]]));
    const s = await slaveOf(() => master.addr);
    s.sync.handleSlaveSynchronize('ASYNC_MASTER');
    assert.equal(s.clock.pending, 0, 'a master schedules nothing');
    s.sync.handleSlaveSynchronize('SLAVE');
    s.clock.advance(2999);
    assert.deepEqual(master.asked, []);
    s.clock.advance(1);
    await s.sync.whenIdle();
    assert.deepEqual(master.asked, [RequestCode.GET_ALL_TOPIC_CONFIG]);
    s.clock.advance(10_000);
    await s.sync.whenIdle();
    assert.equal(master.asked.length, 2);
    s.sync.handleSlaveSynchronize('SYNC_MASTER');
    s.clock.advance(60_000);
    await s.sync.whenIdle();
    assert.equal(master.asked.length, 2, 'stopped when the role is no longer SLAVE');
  });
});

describe('GET_ALL_DELAY_OFFSET', () => {
  test('a broker without a schedule service answers as upstream for a store that is not the default one', async () => {
    const t = await testBroker();
    const response = await connectInMemory(t.broker).call(createRequest(RequestCode.GET_ALL_DELAY_OFFSET));
    assert.equal(response.code, ResponseCode.SYSTEM_ERROR);
    assert.equal(response.remark, 'Delay offset not supported in this messagetore');
    await t.broker.shutdown();
  });
});
