/**
 * The admin's request modules where they hold logic: what a typed input puts in a header or body,
 * and how an answer (or a failure, or a SUCCESS without its body) is read.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseAddWritePermOfBrokerResponse } from '../../../src/admin/requests/add-write-perm-of-broker.js';
import {
  buildGetBrokerClusterAclInfoRequest,
  parseGetBrokerClusterAclInfoResponse,
} from '../../../src/admin/requests/get-broker-cluster-acl-info.js';
import {
  buildGetBrokerConfigRequest,
  parseGetBrokerConfigResponse,
} from '../../../src/admin/requests/get-broker-config.js';
import {
  buildGetKVConfigRequest,
  parseGetKVConfigResponse,
} from '../../../src/admin/requests/get-kv-config.js';
import {
  buildGetTopicStatsInfoRequest,
  parseGetTopicStatsInfoResponse,
} from '../../../src/admin/requests/get-topic-stats-info.js';
import { buildInvokeBrokerToResetOffsetRequest } from '../../../src/admin/requests/invoke-broker-to-reset-offset.js';
import { buildQueryConsumeQueueRequest } from '../../../src/admin/requests/query-consume-queue.js';
import { buildUpdateAndCreateAclConfigRequest } from '../../../src/admin/requests/update-and-create-acl-config.js';
import { buildUpdateAndCreateSubscriptionGroupRequest } from '../../../src/admin/requests/update-and-create-subscription-group.js';
import { buildUpdateAndCreateTopicRequest } from '../../../src/admin/requests/update-and-create-topic.js';
import { buildUpdateBrokerConfigRequest } from '../../../src/admin/requests/update-broker-config.js';
import { buildUpdateGlobalWhiteAddrsConfigRequest } from '../../../src/admin/requests/update-global-white-addrs-config.js';
import { buildUpdateNamesrvConfigRequest } from '../../../src/admin/requests/update-namesrv-config.js';
import { parseWipeWritePermOfBrokerResponse } from '../../../src/admin/requests/wipe-write-perm-of-broker.js';
import { MQBrokerError } from '../../../src/client/errors.js';
import { MessageQueue } from '../../../src/common/message/message-queue.js';
import {
  createSubscriptionGroupConfig,
  decodeSubscriptionGroupConfig,
} from '../../../src/common/protocol/subscription-group-config.js';
import { createTopicConfig } from '../../../src/common/protocol/topic-config.js';
import { encodeTopicStatsTable } from '../../../src/common/protocol/topic-stats-table.js';
import {
  createRequest,
  createResponse,
  type RemotingCommand,
} from '../../../src/remoting/protocol/command.js';
import { RequestCode } from '../../../src/remoting/protocol/request-code.js';
import { ResponseCode } from '../../../src/remoting/protocol/response-code.js';

const peer = { brokerAddr: '10.0.0.1:10911' };
const probe = createRequest(RequestCode.GET_BROKER_CONFIG);

function answer(
  code: number,
  options: { extFields?: Record<string, string>; body?: Buffer; remark?: string } = {},
): RemotingCommand {
  return createResponse(probe, code, options);
}

describe('topics and groups', () => {
  test('a topic config fills every header field, the template topic included', () => {
    const r = buildUpdateAndCreateTopicRequest(
      createTopicConfig('T1', {
        readQueueNums: 3,
        writeQueueNums: 2,
        order: true,
        topicFilterType: 'MULTI_TAG',
      }),
      'TBW102',
    );
    assert.equal(r.code, RequestCode.UPDATE_AND_CREATE_TOPIC);
    assert.deepEqual(r.extFields, {
      topic: 'T1',
      defaultTopic: 'TBW102',
      readQueueNums: '3',
      writeQueueNums: '2',
      perm: '6',
      topicFilterType: 'MULTI_TAG',
      topicSysFlag: '0',
      order: 'true',
    });
  });

  test('a subscription group travels as its fastjson body, with Java defaults for what is not given', () => {
    const r = buildUpdateAndCreateSubscriptionGroupRequest(
      createSubscriptionGroupConfig('G1', { retryMaxTimes: 3 }),
    );
    assert.equal(r.code, RequestCode.UPDATE_AND_CREATE_SUBSCRIPTIONGROUP);
    const back = decodeSubscriptionGroupConfig(r.body);
    assert.equal(back.groupName, 'G1');
    assert.equal(back.retryMaxTimes, 3);
    assert.equal(back.whichBrokerWhenConsumeSlowly, 1n);
  });

  test('topic stats are read from the body; SUCCESS without a body is a SYSTEM_ERROR naming the peer', () => {
    assert.equal(buildGetTopicStatsInfoRequest('T1').extFields?.topic, 'T1');
    const mq = new MessageQueue('T1', 'broker-a', 2);
    const body = encodeTopicStatsTable({
      offsetTable: [[mq, { minOffset: 1n, maxOffset: 2n ** 40n, lastUpdateTimestamp: 1700000000000n }]],
    });
    const table = parseGetTopicStatsInfoResponse(answer(ResponseCode.SUCCESS, { body }), peer);
    assert.equal(table.length, 1);
    const [got, offset] = table[0] as (typeof table)[number];
    assert.equal(got.queueId, 2);
    assert.equal(offset.maxOffset, 2n ** 40n);
    assert.throws(
      () => parseGetTopicStatsInfoResponse(answer(ResponseCode.SUCCESS), peer),
      (e: unknown) =>
        e instanceof MQBrokerError &&
        e.responseCode === ResponseCode.SYSTEM_ERROR &&
        e.brokerAddr === peer.brokerAddr,
    );
    assert.throws(
      () =>
        parseGetTopicStatsInfoResponse(answer(ResponseCode.TOPIC_NOT_EXIST, { remark: 'no topic' }), {
          ...peer,
          topic: 'T1',
        }),
      (e: unknown) =>
        e instanceof MQBrokerError && e.remark === 'no topic' && e.topic === 'T1' && e.retriable,
    );
  });

  test('reset offset and queryCq carry Java longs and the isForce key upstream uses', () => {
    const reset = buildInvokeBrokerToResetOffsetRequest('T1', 'G1', 2n ** 53n + 1n, true);
    assert.equal(reset.extFields?.timestamp, '9007199254740993');
    assert.equal(reset.extFields?.isForce, 'true');
    const cq = buildQueryConsumeQueueRequest({ topic: 'T1', queueId: 1, index: 2n ** 40n, count: 10 });
    assert.deepEqual(cq.extFields, { topic: 'T1', queueId: '1', index: '1099511627776', count: '10' });
  });
});

describe('configs', () => {
  test('broker and name server config updates are properties text; nothing to send is no request', () => {
    const r = buildUpdateBrokerConfigRequest([
      ['brokerPermission', '4'],
      ['autoCreateTopicEnable', 'false'],
    ]);
    assert.equal(r?.code, RequestCode.UPDATE_BROKER_CONFIG);
    assert.equal(r?.body?.toString('utf8'), 'brokerPermission=4\nautoCreateTopicEnable=false\n');
    assert.equal(buildUpdateBrokerConfigRequest([]), undefined);
    assert.equal(buildUpdateNamesrvConfigRequest([]), undefined);
    assert.equal(
      buildUpdateNamesrvConfigRequest([['productEnvName', 'x']])?.code,
      RequestCode.UPDATE_NAMESRV_CONFIG,
    );
  });

  test('a broker config body is read as Java properties; an empty body is no settings', () => {
    assert.equal(buildGetBrokerConfigRequest().extFields, undefined);
    const body = Buffer.from(
      'brokerName=broker-a\nbrokerIP1=10.0.0.1\nmsgTraceTopicName=RMQ_SYS_TRACE_TOPIC\n',
    );
    const config = parseGetBrokerConfigResponse(answer(ResponseCode.SUCCESS, { body }), peer);
    assert.equal(config.get('brokerName'), 'broker-a');
    assert.equal(config.size, 3);
    assert.equal(parseGetBrokerConfigResponse(answer(ResponseCode.SUCCESS), peer).size, 0);
  });

  test('kv values and write-perm counts come from the answer header', () => {
    assert.deepEqual(buildGetKVConfigRequest('NS', 'k').extFields, { namespace: 'NS', key: 'k' });
    assert.equal(
      parseGetKVConfigResponse(answer(ResponseCode.SUCCESS, { extFields: { value: 'v' } }), peer),
      'v',
    );
    assert.equal(
      parseWipeWritePermOfBrokerResponse(
        answer(ResponseCode.SUCCESS, { extFields: { wipeTopicCount: '7' } }),
        peer,
      ),
      7,
    );
    assert.equal(
      parseAddWritePermOfBrokerResponse(
        answer(ResponseCode.SUCCESS, { extFields: { addTopicCount: '2' } }),
        peer,
      ),
      2,
    );
  });
});

describe('ACL', () => {
  test('an account: permission lists comma-joined, admin false unless given, absent fields left out', () => {
    const r = buildUpdateAndCreateAclConfigRequest({
      accessKey: 'RocketMQ7',
      secretKey: '12345678',
      topicPerms: ['TopicA=PUB|SUB', 'TopicB=DENY'],
      groupPerms: ['GroupA=SUB'],
    });
    assert.equal(r.code, RequestCode.UPDATE_AND_CREATE_ACL_CONFIG);
    assert.deepEqual(r.extFields, {
      accessKey: 'RocketMQ7',
      secretKey: '12345678',
      admin: 'false',
      topicPerms: 'TopicA=PUB|SUB,TopicB=DENY',
      groupPerms: 'GroupA=SUB',
    });
    const empty = buildUpdateAndCreateAclConfigRequest({
      accessKey: 'RocketMQ7',
      admin: true,
      topicPerms: [],
    });
    assert.deepEqual(empty.extFields, { accessKey: 'RocketMQ7', admin: 'true', topicPerms: '' });
  });

  test('the global white list names the default file with an empty path', () => {
    assert.deepEqual(buildUpdateGlobalWhiteAddrsConfigRequest('10.10.*.*', undefined).extFields, {
      globalWhiteAddrs: '10.10.*.*',
      aclFileFullPath: '',
    });
    assert.equal(
      buildUpdateGlobalWhiteAddrsConfigRequest('', '/etc/acl/a.yml').extFields?.aclFileFullPath,
      '/etc/acl/a.yml',
    );
  });

  test('ACL version info is read from the answer header, every file version included', () => {
    assert.equal(buildGetBrokerClusterAclInfoRequest().code, RequestCode.GET_BROKER_CLUSTER_ACL_INFO);
    const extFields = {
      version: '{"counter":3,"timestamp":1700000000001}',
      allAclFileVersion:
        '{"/home/conf/plain_acl.yml":{"counter":3,"timestamp":1700000000001},"/home/conf/acl/b.yml":{"counter":1}}',
      brokerName: 'broker-a',
      brokerAddr: '10.0.0.1:10911',
      clusterName: 'DefaultCluster',
    };
    const info = parseGetBrokerClusterAclInfoResponse(answer(ResponseCode.SUCCESS, { extFields }), peer, 42n);
    assert.deepEqual(info.aclConfigDataVersion, { counter: 3n, timestamp: 1700000000001n });
    assert.deepEqual(
      [...info.allAclConfigDataVersion.keys()],
      ['/home/conf/plain_acl.yml', '/home/conf/acl/b.yml'],
    );
    assert.deepEqual(info.allAclConfigDataVersion.get('/home/conf/acl/b.yml'), {
      counter: 1n,
      timestamp: 42n,
    });
    assert.equal(info.clusterName, 'DefaultCluster');
    const without = parseGetBrokerClusterAclInfoResponse(
      answer(ResponseCode.SUCCESS, { extFields: { ...extFields, allAclFileVersion: '' } }),
      peer,
      42n,
    );
    assert.equal(without.allAclConfigDataVersion.size, 0);
  });
});
