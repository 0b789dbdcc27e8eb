/** Requests the attack classes send as a hostile peer would: raw frames, no client library. */
import { MQVersion } from '../../src/common/constants.js';
import { messageBodyCrc } from '../../src/common/message/crc32.js';
import { messageProperties2String } from '../../src/common/message/properties.js';
import { encodeRegisterBrokerBody } from '../../src/common/protocol/register-broker-body.js';
import { createTopicConfig } from '../../src/common/protocol/topic-config.js';
import { createRequest, type RemotingCommand } from '../../src/remoting/protocol/command.js';
import { encodeHeader } from '../../src/remoting/protocol/header-schema.js';
import {
  GetRouteInfoRequestHeader,
  PutKVConfigRequestHeader,
  RegisterBrokerRequestHeader,
  SendMessageRequestHeader,
} from '../../src/remoting/protocol/headers/index.js';
import { RequestCode } from '../../src/remoting/protocol/request-code.js';

/**
 * SEND_MESSAGE of `body` to `topic` on queue 0, auto-creating it from TBW102 as a producer does, with
 * the properties as given, system ones included (a hostile producer is not bound by our client's
 * refusal to set UNIQ_KEY).
 */
export function sendToTopic(
  topic: string,
  body: string | Buffer = 'x',
  properties: ReadonlyMap<string, string> = new Map([['WAIT', 'true']]),
): RemotingCommand {
  return createRequest(RequestCode.SEND_MESSAGE, {
    extFields: encodeHeader(SendMessageRequestHeader, {
      producerGroup: 'attack_pg',
      topic,
      defaultTopic: 'TBW102',
      defaultTopicQueueNums: 4,
      queueId: 0,
      sysFlag: 0,
      bornTimestamp: BigInt(Date.now()),
      flag: 0,
      properties: messageProperties2String(properties),
      reconsumeTimes: 0,
      unitMode: false,
      batch: false,
    }),
    body: Buffer.from(body),
  });
}

/** PULL_MESSAGE of queue 0 from offset 0 for `consumerGroup`, answered at once (no suspension). */
export function pullQueue0(topic: string, consumerGroup: string): RemotingCommand {
  return createRequest(RequestCode.PULL_MESSAGE, {
    extFields: {
      consumerGroup,
      topic,
      queueId: '0',
      queueOffset: '0',
      maxMsgNums: '32',
      sysFlag: '0',
      commitOffset: '0',
      suspendTimeoutMillis: '0',
      subscription: '*',
      subVersion: '0',
    },
  });
}

/** PUT_KV_CONFIG, unsigned. */
export function putKVConfig(namespace: string, key: string, value: string): RemotingCommand {
  return createRequest(RequestCode.PUT_KV_CONFIG, {
    extFields: encodeHeader(PutKVConfigRequestHeader, { namespace, key, value }),
  });
}

/** GET_ROUTEINFO_BY_TOPIC. */
export function routeOf(topic: string): RemotingCommand {
  return createRequest(RequestCode.GET_ROUTEINFO_BY_TOPIC, {
    extFields: encodeHeader(GetRouteInfoRequestHeader, { topic }),
  });
}

/**
 * An unsigned REGISTER_BROKER as a 4.9.x master sends it, under any name, id and address, its topics
 * with `perm` (0: a route nobody may write to).
 */
export function registerBroker(p: {
  clusterName: string;
  brokerName: string;
  brokerId: bigint;
  brokerAddr: string;
  topics: readonly string[];
  perm?: number;
}): RemotingCommand {
  const table = new Map(
    p.topics.map((t) => [
      t,
      createTopicConfig(t, { readQueueNums: 4, writeQueueNums: 4, perm: p.perm ?? 6 }),
    ]),
  );
  const body = encodeRegisterBrokerBody(
    {
      topicConfigSerializeWrapper: {
        topicConfigTable: table,
        dataVersion: { timestamp: BigInt(Date.now()), counter: 1n },
      },
      filterServerList: [],
    },
    false,
  );
  return createRequest(RequestCode.REGISTER_BROKER, {
    version: MQVersion.V4_9_4,
    extFields: encodeHeader(RegisterBrokerRequestHeader, {
      brokerName: p.brokerName,
      brokerAddr: p.brokerAddr,
      clusterName: p.clusterName,
      haServerAddr: p.brokerAddr,
      brokerId: p.brokerId,
      compressed: false,
      bodyCrc32: messageBodyCrc(body),
    }),
    body,
  });
}
