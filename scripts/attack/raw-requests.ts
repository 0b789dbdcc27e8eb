/** Requests the attack classes send as a hostile peer would: raw frames, no client library. */
import { messageProperties2String } from '../../src/common/message/properties.js';
import { createRequest, type RemotingCommand } from '../../src/remoting/protocol/command.js';
import { encodeHeader } from '../../src/remoting/protocol/header-schema.js';
import {
  PutKVConfigRequestHeader,
  SendMessageRequestHeader,
} from '../../src/remoting/protocol/headers/index.js';
import { RequestCode } from '../../src/remoting/protocol/request-code.js';

/** SEND_MESSAGE of a small body to `topic` on queue 0, auto-creating it from TBW102 as a producer does. */
export function sendToTopic(topic: string, body = 'x'): RemotingCommand {
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
      properties: messageProperties2String(new Map([['WAIT', 'true']])),
      reconsumeTimes: 0,
      unitMode: false,
      batch: false,
    }),
    body: Buffer.from(body),
  });
}

/** PUT_KV_CONFIG, unsigned. */
export function putKVConfig(namespace: string, key: string, value: string): RemotingCommand {
  return createRequest(RequestCode.PUT_KV_CONFIG, {
    extFields: encodeHeader(PutKVConfigRequestHeader, { namespace, key, value }),
  });
}
