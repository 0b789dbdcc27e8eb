/**
 * Our producer follows a route change made on the official 4.9.x broker: after `mqadmin updateTopic`
 * raises a topic's queues from 4 to 8, the producer (pollNameServerInterval 2000 ms) sends to the new
 * queues within one poll interval of the name server knowing them.
 */
import assert from 'node:assert/strict';
import diagnosticsChannel from 'node:diagnostics_channel';
import { after, before, describe, test } from 'node:test';
import { decodeTopicRouteData } from '../../src/common/protocol/route.js';
import { CHANNEL_NAMES, createProducer, type RouteChangeEvent } from '../../src/index.js';
import { createRequest } from '../../src/remoting/protocol/command.js';
import { encodeHeader } from '../../src/remoting/protocol/header-schema.js';
import { GetRouteInfoRequestHeader } from '../../src/remoting/protocol/headers/index.js';
import { RequestCode } from '../../src/remoting/protocol/request-code.js';
import { ResponseCode } from '../../src/remoting/protocol/response-code.js';
import { RemotingClient } from '../../src/remoting/transport/index.js';
import { type BrokerHandle, mqadmin, type NamesrvHandle, startBroker, startNamesrv } from './harness.js';

const TOPIC = 'RouteChangeTopic';
const POLL_MS = 2000;
/** Time a poll's route request, the next send and a busy 2-core machine's timer lag may add. */
const SLACK_MS = 1000;

describe('our producer follows a route change on the official 4.9.x broker', { timeout: 300_000 }, () => {
  let namesrv: NamesrvHandle | undefined;
  let broker: BrokerHandle | undefined;
  let failed = false;
  const client = new RemotingClient({ connectTimeoutMs: 3000 });

  before(
    async () => {
      namesrv = await startNamesrv();
      broker = await startBroker({ namesrvAddr: namesrv.addr, brokerName: 'broker-route' });
    },
    { timeout: 180_000 },
  );

  after(
    async () => {
      if (failed) process.stderr.write(`${namesrv?.logTail(40)}\n${broker?.logTail(40)}\n`);
      await client.close();
      await broker?.close();
      await namesrv?.close();
    },
    { timeout: 60_000 },
  );

  /** The write queue count the name server hands out for TOPIC now. */
  async function namesrvWriteQueues(addr: string): Promise<number> {
    const reply = await client.invoke(
      addr,
      createRequest(RequestCode.GET_ROUTEINFO_BY_TOPIC, {
        extFields: encodeHeader(GetRouteInfoRequestHeader, { topic: TOPIC }),
      }),
      { timeoutMs: 3000 },
    );
    if (reply.code !== ResponseCode.SUCCESS) return 0;
    return decodeTopicRouteData(reply.body).queueDatas.reduce((n, q) => n + q.writeQueueNums, 0);
  }

  test(`mqadmin updateTopic 4 → 8 queues: our sends reach the new queues within ${POLL_MS} ms (one poll)`, {
    timeout: 180_000,
  }, async (t) => {
    assert.ok(namesrv !== undefined && broker !== undefined);
    const ns = namesrv;
    const producer = createProducer({
      namesrvAddr: ns.addr,
      producerGroup: 'pg_route_change',
      pollNameServerInterval: POLL_MS,
    });
    const routeEvents: { at: number; writeQueues: number }[] = [];
    const onRoute = (message: unknown): void => {
      const event = message as RouteChangeEvent;
      if (event.topic !== TOPIC) return;
      const writeQueues = event.route?.queueDatas.reduce((n, q) => n + q.writeQueueNums, 0) ?? 0;
      routeEvents.push({ at: Date.now(), writeQueues });
    };
    diagnosticsChannel.subscribe(CHANNEL_NAMES.routeChange, onRoute);
    try {
      await producer.start();
      // Created by the first send from TBW102, with the producer's defaultTopicQueueNums (4).
      const sends: { at: number; queueId: number }[] = [];
      const sendOne = async (i: number): Promise<void> => {
        const r = await producer.send({ topic: TOPIC, body: `route-${i}`, keys: `route-${i}` });
        assert.equal(r.sendStatus, 'SEND_OK');
        sends.push({ at: Date.now(), queueId: r.messageQueue.queueId });
      };
      for (let i = 0; i < 16; i++) await sendOne(i);
      assert.deepEqual([...new Set(sends.map((s) => s.queueId))].sort(), [0, 1, 2, 3]);
      assert.equal(await namesrvWriteQueues(ns.addr), 4);

      // Sends keep going while mqadmin runs; the name server is asked as often, to know when it changed.
      let stop = false;
      let i = sends.length;
      const sending = (async () => {
        while (!stop) {
          await sendOne(i++);
          await new Promise((r) => setTimeout(r, 10));
        }
      })();
      let changedAt: number | undefined;
      const watching = (async () => {
        while (!stop && changedAt === undefined) {
          if ((await namesrvWriteQueues(ns.addr)) === 8) changedAt = Date.now();
          else await new Promise((r) => setTimeout(r, 20));
        }
      })();
      try {
        const r = await mqadmin(ns.addr, [
          'updateTopic',
          '-b',
          broker.addr,
          '-t',
          TOPIC,
          '-r',
          '8',
          '-w',
          '8',
        ]);
        assert.equal(r.exitCode, 0, r.stdout + r.stderr);
        assert.match(r.stdout, /create topic to .* success/, r.stdout + r.stderr);
        const deadline = Date.now() + POLL_MS + SLACK_MS * 3;
        while (!sends.some((s) => s.queueId >= 4) && Date.now() < deadline) {
          await new Promise((r) => setTimeout(r, 20));
        }
      } finally {
        stop = true;
        await Promise.all([sending, watching]);
      }
      assert.ok(changedAt !== undefined, 'the name server never listed 8 write queues');
      const firstNew = sends.find((s) => s.queueId >= 4);
      assert.ok(firstNew !== undefined, `no send reached queues 4..7: ${JSON.stringify(sends.slice(-10))}`);
      const seenAt = routeEvents.find((e) => e.writeQueues === 8)?.at;
      assert.ok(seenAt !== undefined, `no route-change event with 8 queues: ${JSON.stringify(routeEvents)}`);
      assert.ok(
        seenAt - changedAt <= POLL_MS + SLACK_MS,
        `route seen ${seenAt - changedAt} ms after the name server had it`,
      );
      assert.ok(
        firstNew.at - changedAt <= POLL_MS + SLACK_MS,
        `first send to a new queue ${firstNew.at - changedAt} ms after the name server had it`,
      );
      t.diagnostic(
        `after the name server changed: route seen in ${seenAt - changedAt} ms, ` +
          `first send to a new queue in ${firstNew.at - changedAt} ms`,
      );
      // Before the change was seen, only the old queues; round robin over all 8 after it.
      assert.ok(sends.filter((s) => s.at < seenAt).every((s) => s.queueId < 4));
      const later: number[] = [];
      for (let j = 0; j < 16; j++) {
        const r = await producer.send({ topic: TOPIC, body: `after-${j}` });
        later.push(r.messageQueue.queueId);
      }
      assert.deepEqual(
        [...new Set(later)].sort((a, b) => a - b),
        [0, 1, 2, 3, 4, 5, 6, 7],
      );
    } catch (error) {
      failed = true;
      throw error;
    } finally {
      diagnosticsChannel.unsubscribe(CHANNEL_NAMES.routeChange, onRoute);
      await producer.shutdown();
    }
  });
});
