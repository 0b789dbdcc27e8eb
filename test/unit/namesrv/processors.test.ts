/**
 * The name server's request handlers over in-memory connections (server.handle on a duplexPair): each
 * code's answer, upstream's error codes and remarks for bad input, and the route JSON form chosen by
 * version. KV requests that write kvConfig.json are in test/integration/namesrv.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { afterEach, describe, test } from 'node:test';
import { encodeDataVersion } from '../../../src/common/protocol/data-version.js';
import { encodeTopicConfigSerializeWrapper } from '../../../src/common/protocol/register-broker-body.js';
import { decodeClusterInfo, decodeTopicRouteData } from '../../../src/common/protocol/route.js';
import { createTopicConfig } from '../../../src/common/protocol/topic-config.js';
import { decodeTopicList } from '../../../src/common/protocol/topic-list.js';
import { createNamesrv, type NamesrvController } from '../../../src/namesrv/namesrv-controller.js';
import { NAMESRV_REQUEST_HANDLERS } from '../../../src/namesrv/processor/processor-table.js';
import {
  createRequest,
  type RemotingCommand,
  SerializeType,
} from '../../../src/remoting/protocol/command.js';
import { encodeHeader } from '../../../src/remoting/protocol/header-schema.js';
import {
  GetRouteInfoRequestHeader,
  QueryDataVersionRequestHeader,
  RegisterBrokerRequestHeader,
} from '../../../src/remoting/protocol/headers/index.js';
import { RequestCode } from '../../../src/remoting/protocol/request-code.js';
import { ResponseCode } from '../../../src/remoting/protocol/response-code.js';
import type { Connection } from '../../../src/remoting/transport/index.js';
import { seededRandom } from '../../helpers/chunks.js';
import { connectInMemory, ManualClock, quiet, registerRequest, topics } from './helpers.js';

const LIMIT = { timeout: 5_000 };
const controllers: NamesrvController[] = [];

afterEach(async () => {
  await Promise.all(controllers.splice(0).map((c) => c.shutdown()));
});

function setup() {
  const clock = new ManualClock();
  // Nothing here writes the KV file; the path only has to be unused.
  const namesrv = createNamesrv({
    kvConfigPath: '/nonexistent/rocketmq-ts-test/kvConfig.json',
    clock,
    logger: quiet,
  });
  controllers.push(namesrv);
  const { client, server } = connectInMemory(namesrv);
  const call = (cmd: RemotingCommand) => client.invoke(cmd, { timeoutMs: 2000 });
  return { namesrv, clock, client, server, call };
}

function req(
  code: number,
  extFields?: Record<string, string>,
  body?: Buffer,
  version = 409,
): RemotingCommand {
  return createRequest(code, { extFields, body, version });
}

function routeRequest(topic: string, version = 409, acceptStandardJsonOnly?: boolean): RemotingCommand {
  return req(
    RequestCode.GET_ROUTEINFO_BY_TOPIC,
    encodeHeader(GetRouteInfoRequestHeader, { topic, acceptStandardJsonOnly }),
    undefined,
    version,
  );
}

describe('REGISTER_BROKER / UNREGISTER_BROKER', () => {
  test('a master registers; the reply has no master fields and no order-topic body', LIMIT, async () => {
    const { call, namesrv } = setup();
    const reply = await call(registerRequest({ topics: topics('TBW102', 'T1') }));
    assert.equal(reply.code, ResponseCode.SUCCESS, reply.remark);
    assert.deepEqual(reply.extFields, {});
    assert.equal(reply.body, undefined);
    assert.ok(namesrv.routeInfoManager.pickupTopicRouteData('T1'));
  });

  test('compressed bodies, crc checked bodies and bodiless registrations', LIMIT, async () => {
    const { call, namesrv } = setup();
    const rim = namesrv.routeInfoManager;
    assert.equal((await call(registerRequest({ compressed: true, topics: topics('Z') }))).code, 0);
    assert.ok(rim.pickupTopicRouteData('Z'));
    assert.equal(
      (await call(registerRequest({ withCrc: false, brokerName: 'b2', brokerAddr: 'h:2' }))).code,
      0,
    );
    const bare = req(
      RequestCode.REGISTER_BROKER,
      encodeHeader(RegisterBrokerRequestHeader, {
        brokerName: 'b3',
        brokerAddr: 'h:3',
        clusterName: 'C',
        haServerAddr: 'h:4',
        brokerId: 0n,
        bodyCrc32: 0,
      }),
    );
    assert.equal((await call(bare)).code, ResponseCode.SUCCESS);
    assert.deepEqual(rim.queryBrokerTopicConfig('h:3'), { timestamp: 0n, counter: 0n });
  });

  test('a CRC that does not match the body is SYSTEM_ERROR "crc32 not match"', LIMIT, async () => {
    const { call, namesrv } = setup();
    const cmd = registerRequest();
    cmd.extFields = { ...cmd.extFields, bodyCrc32: '12345' };
    const reply = await call(cmd);
    assert.equal(reply.code, ResponseCode.SYSTEM_ERROR);
    assert.equal(reply.remark, 'crc32 not match');
    assert.equal(namesrv.routeInfoManager.getAllClusterInfo().brokerAddrTable.size, 0);
  });

  test('brokers older than V3_0_11 send a bare TopicConfigSerializeWrapper', LIMIT, async () => {
    const { call, namesrv } = setup();
    const body = encodeTopicConfigSerializeWrapper({
      topicConfigTable: new Map([['Old', createTopicConfig('Old')]]),
      dataVersion: { counter: 1n, timestamp: 1n },
    });
    const cmd = registerRequest({ withCrc: false, version: 36 });
    cmd.body = body;
    assert.equal((await call(cmd)).code, ResponseCode.SUCCESS);
    assert.equal(namesrv.routeInfoManager.pickupTopicRouteData('Old')?.queueDatas[0]?.readQueueNums, 16);
  });

  test('a slave learns its master; UNREGISTER_BROKER removes brokers', LIMIT, async () => {
    const { call, namesrv } = setup();
    await call(registerRequest({ haServerAddr: 'm:10912' }));
    const slave = await call(
      registerRequest({ brokerId: 1n, brokerAddr: 's:10911', haServerAddr: 's:10912' }),
    );
    assert.deepEqual(slave.extFields, { haServerAddr: 'm:10912', masterAddr: '10.0.0.1:10911' });
    const unregister = req(RequestCode.UNREGISTER_BROKER, {
      brokerName: 'broker-a',
      brokerAddr: '10.0.0.1:10911',
      clusterName: 'DefaultCluster',
      brokerId: '0',
    });
    assert.equal((await call(unregister)).code, ResponseCode.SUCCESS);
    const info = namesrv.routeInfoManager.getAllClusterInfo();
    assert.deepEqual([...(info.brokerAddrTable.get('broker-a')?.brokerAddrs ?? [])], [[1, 's:10911']]);
  });

  test(
    'bad bodies and headers: SYSTEM_ERROR with the reason, in JSON, nothing registered',
    LIMIT,
    async () => {
      const { call, namesrv } = setup();
      const garbage = registerRequest({ withCrc: false });
      garbage.body = Buffer.from('{"topicConfigSerializeWrapper":');
      const r1 = await call(garbage);
      assert.equal(r1.code, ResponseCode.SYSTEM_ERROR);
      assert.match(r1.remark ?? '', /Failed to decode RegisterBrokerBody/);

      const notZlib = registerRequest({ withCrc: false, compressed: true });
      notZlib.body = Buffer.from('plain text');
      assert.match((await call(notZlib)).remark ?? '', /Failed to decode RegisterBrokerBody.*corrupt zlib/);

      const missing = registerRequest();
      delete missing.extFields?.brokerName;
      missing.serializeType = SerializeType.ROCKETMQ;
      const r2 = await call(missing);
      assert.equal(r2.code, ResponseCode.SYSTEM_ERROR);
      assert.equal(r2.remark, 'the custom field <brokerName> is null');
      assert.equal(r2.serializeType, SerializeType.JSON, 'exceptions answer in the default serialization');

      const badId = registerRequest();
      if (badId.extFields) badId.extFields.brokerId = 'zero';
      assert.match((await call(badId)).remark ?? '', /brokerId.*not a valid long/);
      assert.equal(namesrv.routeInfoManager.getAllClusterInfo().brokerAddrTable.size, 0);
    },
  );
});

describe('GET_ROUTEINFO_BY_TOPIC', () => {
  test('standard JSON from V4_9_4 (401) or acceptStandardJsonOnly, bare keys below', LIMIT, async () => {
    const { call } = setup();
    await call(registerRequest({ topics: topics('T') }));
    await call(registerRequest({ brokerId: 1n, brokerAddr: '10.0.0.2:10911' }));
    const forms: Array<[number, boolean | undefined, string]> = [
      [409, undefined, '"brokerAddrs":{"0":"10.0.0.1:10911","1":"10.0.0.2:10911"}'],
      [401, undefined, '"brokerAddrs":{"0":'],
      [400, undefined, '"brokerAddrs":{0:"10.0.0.1:10911",1:"10.0.0.2:10911"}'],
      [317, false, '"brokerAddrs":{0:'],
      [317, true, '"brokerAddrs":{"0":'],
    ];
    for (const [version, standardOnly, expected] of forms) {
      const reply = await call(routeRequest('T', version, standardOnly));
      assert.equal(reply.code, ResponseCode.SUCCESS);
      const text = reply.body?.toString('utf8') ?? '';
      assert.ok(text.includes(expected), `${version}/${standardOnly}: ${text}`);
      const route = decodeTopicRouteData(reply.body);
      assert.equal(route.orderTopicConf, undefined, 'orderMessageEnable is off by default');
      assert.deepEqual(
        route.queueDatas.map((q) => q.brokerName),
        ['broker-a'],
      );
    }
  });

  test('an unknown topic is TOPIC_NOT_EXIST with upstream remark', LIMIT, async () => {
    const { call } = setup();
    const reply = await call(routeRequest('Nope'));
    assert.equal(reply.code, ResponseCode.TOPIC_NOT_EXIST);
    assert.equal(
      reply.remark,
      'No topic route info in name server for the topic: Nope\nSee http://rocketmq.apache.org/docs/faq/ for further details.',
    );
    assert.equal(reply.body, undefined);
  });

  test('a missing topic field is SYSTEM_ERROR', LIMIT, async () => {
    const { call } = setup();
    const reply = await call(req(RequestCode.GET_ROUTEINFO_BY_TOPIC));
    assert.equal(reply.code, ResponseCode.SYSTEM_ERROR);
    assert.equal(reply.remark, 'the custom field <topic> is null');
  });
});

describe('cluster, topic lists and permissions', () => {
  test('cluster info is always the bare-key form', LIMIT, async () => {
    const { call } = setup();
    await call(registerRequest());
    const reply = await call(req(RequestCode.GET_BROKER_CLUSTER_INFO));
    assert.equal(
      reply.body?.toString(),
      '{"brokerAddrTable":{"broker-a":{"brokerAddrs":{0:"10.0.0.1:10911"},"brokerName":"broker-a",' +
        '"cluster":"DefaultCluster"}},"clusterAddrTable":{"DefaultCluster":["broker-a"]}}',
    );
    assert.equal(decodeClusterInfo(reply.body).brokerAddrTable.size, 1);
  });

  test('topic lists and write permissions', LIMIT, async () => {
    const { call } = setup();
    await call(
      registerRequest({ topics: [createTopicConfig('A'), createTopicConfig('U', { topicSysFlag: 3 })] }),
    );
    await call(
      registerRequest({ clusterName: 'C2', brokerName: 'broker-b', brokerAddr: 'b:1', topics: topics('B') }),
    );
    const list = async (code: number, extFields?: Record<string, string>) => {
      const reply = await call(req(code, extFields));
      assert.equal(reply.code, ResponseCode.SUCCESS);
      return decodeTopicList(reply.body);
    };
    assert.deepEqual((await list(RequestCode.GET_ALL_TOPIC_LIST_FROM_NAMESERVER)).topicList.sort(), [
      'A',
      'B',
      'U',
    ]);
    assert.deepEqual((await list(RequestCode.GET_TOPICS_BY_CLUSTER, { cluster: 'C2' })).topicList, ['B']);
    assert.deepEqual((await list(RequestCode.GET_TOPICS_BY_CLUSTER, { cluster: 'none' })).topicList, []);
    const system = await list(RequestCode.GET_SYSTEM_TOPIC_LIST_FROM_NS);
    assert.deepEqual(system.topicList.sort(), ['C2', 'DefaultCluster', 'broker-a', 'broker-b']);
    assert.ok(system.brokerAddr);
    assert.deepEqual((await list(RequestCode.GET_UNIT_TOPIC_LIST)).topicList, ['U']);
    assert.deepEqual((await list(RequestCode.GET_HAS_UNIT_SUB_TOPIC_LIST)).topicList, ['U']);
    assert.deepEqual((await list(RequestCode.GET_HAS_UNIT_SUB_UNUNIT_TOPIC_LIST)).topicList, []);

    const wipe = await call(req(RequestCode.WIPE_WRITE_PERM_OF_BROKER, { brokerName: 'broker-a' }));
    assert.deepEqual(wipe.extFields, { wipeTopicCount: '2' });
    const route = decodeTopicRouteData((await call(routeRequest('A'))).body);
    assert.equal(route.queueDatas[0]?.perm, 4);
    const add = await call(req(RequestCode.ADD_WRITE_PERM_OF_BROKER, { brokerName: 'broker-a' }));
    assert.deepEqual(add.extFields, { addTopicCount: '2' });
    assert.equal(decodeTopicRouteData((await call(routeRequest('A'))).body).queueDatas[0]?.perm, 6);

    assert.equal(
      (await call(req(RequestCode.DELETE_TOPIC_IN_NAMESRV, { topic: 'A', clusterName: '' }))).code,
      0,
    );
    assert.equal((await call(routeRequest('A'))).code, ResponseCode.TOPIC_NOT_EXIST);
    await call(req(RequestCode.DELETE_TOPIC_IN_NAMESRV, { topic: 'B', clusterName: 'DefaultCluster' }));
    assert.equal((await call(routeRequest('B'))).code, ResponseCode.SUCCESS, 'B lives on C2');
    await call(req(RequestCode.DELETE_TOPIC_IN_NAMESRV, { topic: 'B', clusterName: 'C2' }));
    assert.equal((await call(routeRequest('B'))).code, ResponseCode.TOPIC_NOT_EXIST);
  });
});

describe('QUERY_DATA_VERSION', () => {
  function query(counter: bigint | undefined): RemotingCommand {
    return req(
      RequestCode.QUERY_DATA_VERSION,
      encodeHeader(QueryDataVersionRequestHeader, {
        brokerName: 'broker-a',
        brokerAddr: '10.0.0.1:10911',
        clusterName: 'DefaultCluster',
        brokerId: 0n,
      }),
      counter === undefined ? undefined : encodeDataVersion({ counter, timestamp: 1_700_000_000_000n }),
    );
  }

  test('unchanged refreshes liveness; changed does not; our version comes back', LIMIT, async () => {
    const { call, namesrv, clock } = setup();
    const rim = namesrv.routeInfoManager;
    const unknown = await call(query(1n));
    assert.deepEqual(unknown.extFields, { changed: 'true' });
    assert.equal(unknown.body, undefined);

    await call(registerRequest({ counter: 1n }));
    const registeredAt = clock.now();
    clock.advance(5000);
    const changed = await call(query(2n));
    assert.deepEqual(changed.extFields, { changed: 'true' });
    assert.equal(changed.body?.toString(), '{"counter":1,"timestamp":1700000000000}');
    assert.equal(rim.getBrokerLiveInfo('10.0.0.1:10911')?.lastUpdateTimestamp, registeredAt);

    const same = await call(query(1n));
    assert.deepEqual(same.extFields, { changed: 'false' });
    assert.equal(rim.getBrokerLiveInfo('10.0.0.1:10911')?.lastUpdateTimestamp, clock.now());
  });

  test('a missing or malformed body is SYSTEM_ERROR', LIMIT, async () => {
    const { call } = setup();
    assert.match((await call(query(undefined))).remark ?? '', /DataVersion: the body is empty/);
    const bad = query(1n);
    bad.body = Buffer.from('{"counter":[]}');
    assert.equal((await call(bad)).code, ResponseCode.SYSTEM_ERROR);
  });
});

describe('UPDATE_NAMESRV_CONFIG / GET_NAMESRV_CONFIG', () => {
  const update = (text: string) =>
    req(RequestCode.UPDATE_NAMESRV_CONFIG, undefined, Buffer.from(text, 'latin1'));

  test('allowlisted keys change the live settings', LIMIT, async () => {
    const { call, namesrv } = setup();
    const reply = await call(update('orderMessageEnable=true\nproductEnvName=test-env\n'));
    assert.equal(reply.code, ResponseCode.SUCCESS, reply.remark);
    assert.equal(namesrv.settings.orderMessageEnable, true);
    assert.equal(namesrv.settings.productEnvName, 'test-env');
    assert.equal((await call(update('orderMessageEnable=yes'))).code, ResponseCode.SUCCESS);
    assert.equal(namesrv.settings.orderMessageEnable, false, 'Boolean.parseBoolean');
    assert.equal((await call(req(RequestCode.UPDATE_NAMESRV_CONFIG))).code, ResponseCode.SUCCESS, 'no body');
  });

  test(
    'every other key is NO_PERMISSION and nothing changes (CVE-2023-33246, CVE-2023-37582)',
    LIMIT,
    async () => {
      const { call, namesrv } = setup();
      const before = { ...namesrv.settings };
      for (const text of [
        'configStorePath=/tmp/evil',
        'kvConfigPath=/etc/cron.d/x',
        'rocketmqHome=/tmp',
        'configBlackList=',
        'listenPort=1',
        'brokerChannelExpiredTime=1',
        'noSuchKey=1',
        'orderMessageEnable=true\nkvConfigPath=/tmp/x',
        'kvConfig\\u0050ath=/tmp/escaped',
      ]) {
        const reply = await call(update(text));
        assert.equal(reply.code, ResponseCode.NO_PERMISSION, text);
        assert.match(reply.remark ?? '', /^Can not update config in black list\. Not updatable remotely: /);
      }
      assert.deepEqual(namesrv.settings, before);
    },
  );

  test('a body Properties.load refuses is SYSTEM_ERROR', LIMIT, async () => {
    const { call } = setup();
    const reply = await call(update('orderMessageEnable=\\uZZZZ'));
    assert.equal(reply.code, ResponseCode.SYSTEM_ERROR);
    assert.equal(reply.remark, 'string2Properties error');
  });

  test('GET_NAMESRV_CONFIG lists the settings as properties', LIMIT, async () => {
    const { call } = setup();
    const text = (await call(req(RequestCode.GET_NAMESRV_CONFIG))).body?.toString() ?? '';
    assert.match(text, /^brokerChannelExpiredTime=120000\n/);
    assert.match(text, /\nkvConfigPath=\/nonexistent\/rocketmq-ts-test\/kvConfig.json\n/);
    assert.match(text, /\nscanNotActiveBrokerInterval=10000\n/);
    assert.match(text, /\norderMessageEnable=false\n/);
  });
});

describe('dispatch', () => {
  test('an unknown code is REQUEST_CODE_NOT_SUPPORTED at once', LIMIT, async () => {
    const { call } = setup();
    for (const code of [9999, RequestCode.SEND_MESSAGE, RequestCode.GET_BROKER_CLUSTER_ACL_INFO]) {
      const reply = await call(req(code));
      assert.equal(reply.code, ResponseCode.REQUEST_CODE_NOT_SUPPORTED);
      assert.equal(reply.remark, ` request type ${code} not supported`);
    }
  });

  test('a ROCKETMQ-serialized request gets a ROCKETMQ answer', LIMIT, async () => {
    const { call } = setup();
    const cmd = req(RequestCode.GET_BROKER_CLUSTER_INFO);
    cmd.serializeType = SerializeType.ROCKETMQ;
    const reply = await call(cmd);
    assert.equal(reply.code, ResponseCode.SUCCESS);
    assert.equal(reply.serializeType, SerializeType.ROCKETMQ);
    assert.equal(reply.version, 409);
  });

  test('closing the broker connection removes the broker at once', LIMIT, async () => {
    const { call, client, namesrv } = setup();
    await call(registerRequest({ topics: topics('T') }));
    const removed = once(namesrv.routeInfoManager, 'brokerRemoved');
    client.close('broker died');
    assert.deepEqual(await removed, ['10.0.0.1:10911', 'channelDestroyed']);
    assert.equal(namesrv.routeInfoManager.pickupTopicRouteData('T'), undefined);
  });

  test('another connection closing leaves the broker alone', LIMIT, async () => {
    const { call, namesrv } = setup();
    await call(registerRequest());
    const other: Connection = connectInMemory(namesrv, '10.0.0.5:40000').client;
    const closed = once(other, 'close');
    other.close();
    await closed;
    await call(req(RequestCode.GET_BROKER_CLUSTER_INFO));
    assert.equal(namesrv.routeInfoManager.getAllClusterInfo().brokerAddrTable.size, 1);
  });

  test('random header values on every code never crash and always answer', { timeout: 20_000 }, async () => {
    const { call } = setup();
    const random = seededRandom(4);
    const junk = ['', '-1', 'x', '99999999999999999999', 'true', '\u0000', 'broker-a', '0', '{}'];
    const keys = [
      'topic',
      'brokerName',
      'brokerAddr',
      'clusterName',
      'brokerId',
      'namespace',
      'key',
      'value',
      'cluster',
      'compressed',
      'bodyCrc32',
      'haServerAddr',
      'acceptStandardJsonOnly',
    ];
    const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
    for (const code of NAMESRV_REQUEST_HANDLERS.keys()) {
      if (code === RequestCode.PUT_KV_CONFIG || code === RequestCode.DELETE_KV_CONFIG) continue;
      for (let i = 0; i < 25; i++) {
        const extFields: Record<string, string> = {};
        for (const k of keys) if (random() < 0.6) extFields[k] = pick(junk);
        const body = random() < 0.5 ? Buffer.from(pick(junk)) : undefined;
        const reply = await call(req(code, extFields, body, pick([0, 36, 37, 401, 409, 30000])));
        assert.ok(
          (
            [
              ResponseCode.SUCCESS,
              ResponseCode.SYSTEM_ERROR,
              ResponseCode.TOPIC_NOT_EXIST,
              ResponseCode.QUERY_NOT_FOUND,
              ResponseCode.NO_PERMISSION,
            ] as number[]
          ).includes(reply.code),
          `code ${code}: answered ${reply.code} ${reply.remark}`,
        );
      }
    }
  });
});
