/**
 * Fuzz target for the typed body decoders (heartbeat, lock batch, topic config wrapper, subscription
 * group, consume stats, routes, offsets...). The first byte of an input picks the decoder, the rest
 * is the body, so a mutation of the first byte feeds one decoder's body to another. Seeds are the
 * official bodies (test/fixtures/golden/bodies, written by fastjson 1.2.69 through the 4.9.8 beans).
 *
 * Oracle, for decoders with an encoder: encoding what was decoded is a fixed point, i.e.
 * encode(decode(encode(decode(input)))) equals encode(decode(input)) byte for byte (a plain
 * decode-encode-decode equality would trip over maps our encoders write in Java's hash order).
 */
import { RocketMQError } from '../../src/common/errors.js';
import { decodeBrokerStatsData, encodeBrokerStatsData } from '../../src/common/protocol/broker-stats-data.js';
import {
  decodeCheckClientRequestBody,
  encodeCheckClientRequestBody,
} from '../../src/common/protocol/check-client-request-body.js';
import {
  decodeConsumeMessageDirectlyResult,
  encodeConsumeMessageDirectlyResult,
} from '../../src/common/protocol/consume-message-directly-result.js';
import { decodeConsumeStats } from '../../src/common/protocol/consume-stats.js';
import { decodeConsumeStatsList } from '../../src/common/protocol/consume-stats-list.js';
import {
  decodeConsumerConnection,
  encodeConsumerConnection,
} from '../../src/common/protocol/consumer-connection.js';
import {
  decodeConsumerIdList,
  encodeConsumerIdList,
} from '../../src/common/protocol/consumer-list-by-group.js';
import {
  decodeConsumerOffsetTable,
  encodeConsumerOffsetTable,
} from '../../src/common/protocol/consumer-offset-wrapper.js';
import { decodeConsumerRunningInfo } from '../../src/common/protocol/consumer-running-info.js';
import { decodeDataVersion, encodeDataVersion } from '../../src/common/protocol/data-version.js';
import {
  decodeGetConsumerStatusBody,
  encodeGetConsumerStatusBody,
} from '../../src/common/protocol/get-consumer-status-body.js';
import { decodeGroupList, encodeGroupList } from '../../src/common/protocol/group-list.js';
import { decodeHeartbeatData, encodeHeartbeatData } from '../../src/common/protocol/heartbeat-data.js';
import { decodeKVTable, encodeKVTable } from '../../src/common/protocol/kv-table.js';
import {
  decodeLockBatchRequestBody,
  decodeLockBatchResponseBody,
  decodeUnlockBatchRequestBody,
  encodeLockBatchRequestBody,
  encodeLockBatchResponseBody,
  encodeUnlockBatchRequestBody,
} from '../../src/common/protocol/lock-batch-body.js';
import {
  decodeOffsetSerializeWrapper,
  encodeOffsetSerializeWrapper,
} from '../../src/common/protocol/offset-serialize-wrapper.js';
import {
  decodeProducerConnection,
  encodeProducerConnection,
} from '../../src/common/protocol/producer-connection.js';
import {
  decodeQueryAssignmentRequestBody,
  encodeQueryAssignmentRequestBody,
} from '../../src/common/protocol/query-assignment-body.js';
import {
  decodeQueryConsumeQueueResponseBody,
  encodeQueryConsumeQueueResponseBody,
} from '../../src/common/protocol/query-consume-queue-body.js';
import {
  decodeRegisterBrokerBody,
  decodeTopicConfigSerializeWrapper,
  encodeRegisterBrokerBody,
  encodeTopicConfigSerializeWrapper,
} from '../../src/common/protocol/register-broker-body.js';
import {
  decodeResetOffsetBody,
  decodeResetOffsetBodyForC,
  encodeResetOffsetBody,
  encodeResetOffsetBodyForC,
} from '../../src/common/protocol/reset-offset-body.js';
import {
  decodeClusterInfo,
  decodeTopicRouteData,
  encodeClusterInfo,
  encodeTopicRouteData,
} from '../../src/common/protocol/route.js';
import {
  decodeSubscriptionGroupConfig,
  decodeSubscriptionGroupWrapper,
  encodeSubscriptionGroupConfig,
  encodeSubscriptionGroupWrapper,
} from '../../src/common/protocol/subscription-group-config.js';
import { decodeTopicConfigAndQueueMapping } from '../../src/common/protocol/topic-config-and-queue-mapping.js';
import { decodeTopicList, encodeTopicList } from '../../src/common/protocol/topic-list.js';
import { decodeTopicStatsTable, encodeTopicStatsTable } from '../../src/common/protocol/topic-stats-table.js';
import { goldenFile } from '../golden-fixtures.js';
import type { FuzzTarget } from './engine.js';

interface BodyCodec {
  name: string;
  /** Golden files (under bodies/) and extra seed texts. */
  seeds: Array<string | Buffer>;
  decode(body: Buffer): unknown;
  /** decode then encode; undefined when the body has no encoder here. */
  mirror?(body: Buffer): Buffer;
}

function codec<T>(
  name: string,
  seeds: Array<string | Buffer>,
  decode: (body: Buffer) => T,
  encode?: (value: T) => Buffer | string,
): BodyCodec {
  const c: BodyCodec = { name, seeds, decode };
  if (encode !== undefined) {
    c.mirror = (body) => {
      const out = encode(decode(body));
      return typeof out === 'string' ? Buffer.from(out, 'utf8') : out;
    };
  }
  return c;
}

const versionDefaults = { timestamp: 1_700_000_000_000n };
/** Small, so an inflate bomb in a compressed register body costs little. */
const MAX_INFLATED = 256 * 1024;

const codecs: BodyCodec[] = [
  codec('HeartbeatData', ['heartbeat.json'], decodeHeartbeatData, encodeHeartbeatData),
  codec(
    'LockBatchRequestBody',
    ['lock-batch-request.json'],
    decodeLockBatchRequestBody,
    encodeLockBatchRequestBody,
  ),
  codec(
    'UnlockBatchRequestBody',
    ['lock-batch-request.json', Buffer.from('{"clientId":"c","consumerGroup":"g","mqSet":[]}')],
    decodeUnlockBatchRequestBody,
    encodeUnlockBatchRequestBody,
  ),
  codec(
    'LockBatchResponseBody',
    [Buffer.from('{"lockOKMQSet":[{"brokerName":"broker-a","queueId":1,"topic":"TopicTest"}]}')],
    decodeLockBatchResponseBody,
    encodeLockBatchResponseBody,
  ),
  codec(
    'TopicConfigSerializeWrapper',
    ['topic-config-wrapper.json'],
    (b) => decodeTopicConfigSerializeWrapper(b, versionDefaults),
    encodeTopicConfigSerializeWrapper,
  ),
  codec(
    'RegisterBrokerBody',
    ['register-broker-body.json'],
    (b) => decodeRegisterBrokerBody(b, false, { ...versionDefaults, maxInflatedSize: MAX_INFLATED }),
    (v) => encodeRegisterBrokerBody(v, false),
  ),
  codec(
    'RegisterBrokerBody (compressed)',
    ['register-broker-body.compressed.bin'],
    (b) => decodeRegisterBrokerBody(b, true, { ...versionDefaults, maxInflatedSize: MAX_INFLATED }),
    (v) => encodeRegisterBrokerBody(v, true),
  ),
  codec(
    'SubscriptionGroupConfig',
    ['subscription-group-config.custom.json', 'subscription-group-config.defaults.json'],
    decodeSubscriptionGroupConfig,
    encodeSubscriptionGroupConfig,
  ),
  codec(
    'SubscriptionGroupWrapper',
    [
      Buffer.from(
        '{"dataVersion":{"counter":2,"timestamp":1700000000000},"subscriptionGroupTable":{"g":{"brokerId":0,"consumeBroadcastEnable":true,"consumeEnable":true,"consumeFromMinEnable":true,"groupName":"g","notifyConsumerIdsChangedEnable":true,"retryMaxTimes":16,"retryQueueNums":1,"whichBrokerWhenConsumeSlowly":1}}}',
      ),
    ],
    (b) => decodeSubscriptionGroupWrapper(b, versionDefaults),
    encodeSubscriptionGroupWrapper,
  ),
  codec('ConsumeStats', ['consume-stats.json', 'consume-stats.many.json'], decodeConsumeStats),
  codec('ConsumeStatsList', ['consume-stats-list.json'], decodeConsumeStatsList),
  codec(
    'ConsumerConnection',
    ['consumer-connection.json'],
    decodeConsumerConnection,
    encodeConsumerConnection,
  ),
  codec(
    'ProducerConnection',
    [
      Buffer.from(
        '{"connectionSet":[{"clientAddr":"127.0.0.1:5000","clientId":"c","language":"JAVA","version":409}]}',
      ),
    ],
    decodeProducerConnection,
    encodeProducerConnection,
  ),
  codec(
    'ConsumerRunningInfo',
    ['consumer-running-info.json', 'consumer-running-info.jstack.json'],
    decodeConsumerRunningInfo,
  ),
  codec(
    'ConsumeMessageDirectlyResult',
    ['consume-message-directly-result.json', 'consume-message-directly-result.thrown.json'],
    decodeConsumeMessageDirectlyResult,
    encodeConsumeMessageDirectlyResult,
  ),
  codec('KVTable', ['kv-table.json', 'kv-table.runtime-info.json'], decodeKVTable, encodeKVTable),
  codec('GroupList', ['group-list.json'], decodeGroupList, encodeGroupList),
  codec(
    'ConsumerIdList',
    [Buffer.from('{"consumerIdList":["a@1","b@2"]}')],
    decodeConsumerIdList,
    encodeConsumerIdList,
  ),
  codec(
    'TopicList',
    ['topic-list.json', 'topic-list.with-broker-addr.json'],
    decodeTopicList,
    encodeTopicList,
  ),
  codec(
    'TopicRouteData',
    ['topic-route.default.json', 'topic-route.standard.json'],
    decodeTopicRouteData,
    (v) => encodeTopicRouteData(v),
  ),
  codec('ClusterInfo', ['cluster-info.json'], decodeClusterInfo, (v) => encodeClusterInfo(v)),
  codec('BrokerStatsData', ['broker-stats-data.json'], decodeBrokerStatsData, encodeBrokerStatsData),
  codec(
    'OffsetSerializeWrapper',
    ['offset-serialize-wrapper.json', 'offset-serialize-wrapper.pretty.json'],
    (b) => decodeOffsetSerializeWrapper(b),
    encodeOffsetSerializeWrapper,
  ),
  codec(
    'ConsumerOffsetSerializeWrapper',
    ['consumerOffset.compact.json', 'consumerOffset.pretty.json'],
    (b) => decodeConsumerOffsetTable(b),
    encodeConsumerOffsetTable,
  ),
  codec('ResetOffsetBody', ['reset-offset-body.json'], decodeResetOffsetBody, encodeResetOffsetBody),
  codec('ResetOffsetBodyForC', ['reset-offset-body-for-c.json'], decodeResetOffsetBodyForC, (v) =>
    encodeResetOffsetBodyForC(v.offsetTable),
  ),
  codec(
    'GetConsumerStatusBody',
    ['get-consumer-status-body.broker.json', 'get-consumer-status-body.client.json'],
    decodeGetConsumerStatusBody,
    encodeGetConsumerStatusBody,
  ),
  codec('TopicStatsTable', ['topic-stats-table.json'], decodeTopicStatsTable, encodeTopicStatsTable),
  codec(
    'DataVersion',
    [Buffer.from('{"counter":7,"timestamp":1700000000000}')],
    (b) => decodeDataVersion(b, versionDefaults),
    encodeDataVersion,
  ),
  codec(
    'CheckClientRequestBody',
    [
      Buffer.from(
        '{"clientId":"c","group":"g","subscriptionData":{"classFilterMode":false,"codeSet":[],"expressionType":"SQL92","subString":"a > 1","subVersion":1,"tagsSet":[],"topic":"T"}}',
      ),
    ],
    decodeCheckClientRequestBody,
    encodeCheckClientRequestBody,
  ),
  codec(
    'QueryConsumeQueueResponseBody',
    [
      Buffer.from(
        '{"maxQueueIndex":10,"minQueueIndex":0,"queueData":[{"bitMap":"","msg":"","physicOffset":0,"physicSize":120,"tagsCode":0}],"subscriptionData":{"classFilterMode":false,"codeSet":[],"expressionType":"TAG","subString":"*","subVersion":1,"tagsSet":[],"topic":"T"}}',
      ),
    ],
    decodeQueryConsumeQueueResponseBody,
    encodeQueryConsumeQueueResponseBody,
  ),
  codec('TopicConfigAndQueueMapping', ['topic-config-wrapper.json'], decodeTopicConfigAndQueueMapping),
  // QUERY_ASSIGNMENT's request (a member's body, read by the broker). The mode-carrying bodies are
  // left out: like Java, an unknown mode reads as null and is written back as the default PULL.
  codec(
    'QueryAssignmentRequestBody',
    [
      Buffer.from(
        '{"clientId":"127.0.0.1@1","consumerGroup":"cg","messageModel":"CLUSTERING","strategyName":"AVG","topic":"T"}',
      ),
    ],
    decodeQueryAssignmentRequestBody,
    encodeQueryAssignmentRequestBody,
  ),
];

function seedBytes(seed: string | Buffer): Buffer {
  return typeof seed === 'string' ? goldenFile(`bodies/${seed}`) : seed;
}

const seeds: Buffer[] = [];
for (const [i, c] of codecs.entries()) {
  for (const s of c.seeds) seeds.push(Buffer.concat([Buffer.from([i]), seedBytes(s)]));
}

const isTyped = (err: unknown): boolean => err instanceof RocketMQError;

export const bodyTarget: FuzzTarget = {
  id: 'bodies',
  name: `body decoders (${codecs.length})`,
  seeds,
  run(input) {
    if (input.length === 0) return;
    const c = codecs[(input[0] as number) % codecs.length] as BodyCodec;
    const body = input.subarray(1);
    if (c.mirror === undefined) {
      c.decode(body);
      return;
    }
    const once = c.mirror(body);
    let twice: Buffer;
    try {
      twice = c.mirror(once);
    } catch (err) {
      throw new Error(`${c.name}: our own encoding does not decode: ${String(err)}`);
    }
    if (!once.equals(twice)) {
      throw new Error(
        `${c.name}: encoding is not a fixed point: ${once.toString('utf8', 0, 300)} then ${twice.toString('utf8', 0, 300)}`,
      );
    }
  },
  isExpected: isTyped,
};
