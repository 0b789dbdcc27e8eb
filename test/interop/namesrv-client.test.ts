/**
 * Our RemotingClient against the official name server (4.9.8, and the newest 5.x from interop/server5): cluster info and topic routes decode in
 * both header serializations and both body forms (standard JSON for version >= 401, fastjson bare keys
 * below), and error replies carry upstream's codes.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { decodeClusterInfo, decodeTopicRouteData } from '../../src/common/protocol/route.js';
import { createRequest, SerializeType } from '../../src/remoting/protocol/command.js';
import { encodeHeader } from '../../src/remoting/protocol/header-schema.js';
import { GetRouteInfoRequestHeader } from '../../src/remoting/protocol/headers/index.js';
import { RequestCode } from '../../src/remoting/protocol/request-code.js';
import { ResponseCode } from '../../src/remoting/protocol/response-code.js';
import { RemotingClient } from '../../src/remoting/transport/index.js';
import {
  type BrokerHandle,
  type NamesrvHandle,
  startBroker,
  startNamesrv,
  UPSTREAM_LINES,
} from './harness.js';

for (const { upstream, name: lineName } of UPSTREAM_LINES)
  describe(`our RemotingClient -> official name server ${lineName}`, { timeout: 300_000 }, () => {
    let namesrv: NamesrvHandle | undefined;
    let broker: BrokerHandle | undefined;
    const client = new RemotingClient({ connectTimeoutMs: 3000 });

    before(
      async () => {
        namesrv = await startNamesrv({ upstream });
        broker = await startBroker({ namesrvAddr: namesrv.addr, brokerName: 'broker-ts-client', upstream });
      },
      { timeout: 180_000 },
    );

    after(
      async () => {
        await client.close();
        await broker?.close();
        await namesrv?.close();
      },
      { timeout: 60_000 },
    );

    for (const serializeType of [SerializeType.JSON, SerializeType.ROCKETMQ]) {
      const kind = serializeType === SerializeType.JSON ? 'JSON' : 'ROCKETMQ';
      // 4.9.x answers in the request's serialization (NettyRemotingAbstract copies it to the
      // response); 5.x dropped that copy and answers in its default, JSON.
      const replyType = upstream === 4 ? serializeType : SerializeType.JSON;

      test(`GET_BROKER_CLUSTER_INFO (${kind}) lists the official broker`, { timeout: 20_000 }, async () => {
        assert.ok(namesrv && broker);
        const reply = await client.invoke(
          namesrv.addr,
          createRequest(RequestCode.GET_BROKER_CLUSTER_INFO, { serializeType }),
          { timeoutMs: 5000 },
        );
        assert.equal(reply.code, ResponseCode.SUCCESS);
        assert.equal(reply.serializeType, replyType);
        const info = decodeClusterInfo(reply.body);
        const data = info.brokerAddrTable.get(broker.brokerName);
        assert.ok(
          data,
          `broker ${broker.brokerName} missing from ${[...info.brokerAddrTable.keys()].join(',')}`,
        );
        assert.equal(data.brokerAddrs.get(0), broker.addr);
        assert.ok(info.clusterAddrTable.get(broker.clusterName)?.includes(broker.brokerName));
      });

      for (const version of [409, 317]) {
        test(`GET_ROUTEINFO_BY_TOPIC TBW102 (${kind}, version ${version}) decodes`, {
          timeout: 20_000,
        }, async () => {
          assert.ok(namesrv && broker);
          const request = createRequest(RequestCode.GET_ROUTEINFO_BY_TOPIC, {
            serializeType,
            version,
            extFields: encodeHeader(GetRouteInfoRequestHeader, { topic: 'TBW102' }),
          });
          const reply = await client.invoke(namesrv.addr, request, { timeoutMs: 5000 });
          assert.equal(reply.code, ResponseCode.SUCCESS, reply.remark);
          // 4.9.4+ name servers answer standard JSON from version 401 (V4_9_4) on, bare keys below.
          assert.equal(reply.body?.toString('utf8').includes('"brokerAddrs":{"0"'), version >= 401);
          const route = decodeTopicRouteData(reply.body);
          const data = route.brokerDatas.find((b) => b.brokerName === broker?.brokerName);
          assert.equal(data?.brokerAddrs.get(0), broker.addr);
          const queues = route.queueDatas.find((q) => q.brokerName === broker?.brokerName);
          assert.ok(queues && queues.writeQueueNums > 0 && (queues.perm & 0x2) !== 0, JSON.stringify(queues));
        });
      }

      test(`GET_ROUTEINFO_BY_TOPIC of an unknown topic (${kind}) is TOPIC_NOT_EXIST`, {
        timeout: 20_000,
      }, async () => {
        assert.ok(namesrv);
        const reply = await client.invoke(
          namesrv.addr,
          createRequest(RequestCode.GET_ROUTEINFO_BY_TOPIC, {
            serializeType,
            extFields: encodeHeader(GetRouteInfoRequestHeader, { topic: 'NoSuchTopic_ts' }),
          }),
          { timeoutMs: 5000 },
        );
        assert.equal(reply.code, ResponseCode.TOPIC_NOT_EXIST);
        assert.match(reply.remark ?? '', /No topic route info in name server for the topic: NoSuchTopic_ts/);
      });

      test(`an unknown request code (${kind}): the broker answers REQUEST_CODE_NOT_SUPPORTED`, {
        timeout: 20_000,
      }, async () => {
        assert.ok(broker);
        const reply = await client.invoke(broker.addr, createRequest(9999, { serializeType }), {
          timeoutMs: 5000,
        });
        assert.equal(reply.code, ResponseCode.REQUEST_CODE_NOT_SUPPORTED);
        assert.equal(reply.remark, ' request type 9999 not supported');
        // The broker's default AdminBrokerProcessor answers on the normal path.
        assert.equal(reply.serializeType, replyType);
      });

      if (upstream === 4) {
        test(`an unknown request code (${kind}): the name server does not answer at all`, {
          timeout: 20_000,
        }, async () => {
          // 4.9.x routes every code to DefaultRequestProcessor, whose switch returns null for codes it
          // does not know, so no response is written (the spec's §1.7 says otherwise).
          assert.ok(namesrv);
          await assert.rejects(
            client.invoke(namesrv.addr, createRequest(9999, { serializeType }), { timeoutMs: 1500 }),
            { name: 'RemotingTimeoutError' },
          );
        });
      } else {
        test(`an unknown request code (${kind}): the name server answers REQUEST_CODE_NOT_SUPPORTED`, {
          timeout: 20_000,
        }, async () => {
          // 5.x's DefaultRequestProcessor answers codes it does not know, as ours does.
          assert.ok(namesrv);
          const reply = await client.invoke(namesrv.addr, createRequest(9999, { serializeType }), {
            timeoutMs: 5000,
          });
          assert.equal(reply.code, ResponseCode.REQUEST_CODE_NOT_SUPPORTED);
          assert.equal(reply.remark, ' request type 9999 not supported');
        });
      }
    }
  });
