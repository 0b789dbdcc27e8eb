/**
 * Pieces of the slave tests shared with the interop suite: a free port triple (VIP, main, HA) on
 * 127.0.0.1, since a slave asks for the master's topics on the master's port - 2; our name server on
 * 127.0.0.1; the admin requests
 * that give a master its metadata; and the requests a slave refuses, built as the official client
 * sends them, with what upstream 4.9.8 answers.
 */
import { createServer } from 'node:net';
import { join } from 'node:path';
import { messageProperties2String } from '../../../src/common/message/properties.js';
import { MessageSysFlag } from '../../../src/common/message/sysflag.js';
import {
  createSubscriptionGroupConfig,
  encodeSubscriptionGroupConfig,
  type SubscriptionGroupConfigFields,
} from '../../../src/common/protocol/subscription-group-config.js';
import { createNamesrv, type NamesrvController } from '../../../src/namesrv/namesrv-controller.js';
import { createRequest, type RemotingCommand } from '../../../src/remoting/protocol/command.js';
import { encodeHeader } from '../../../src/remoting/protocol/header-schema.js';
import {
  CreateTopicRequestHeader,
  DeleteSubscriptionGroupRequestHeader,
  DeleteTopicRequestHeader,
  EndTransactionRequestHeader,
  SendMessageRequestHeader,
  UpdateConsumerOffsetRequestHeader,
} from '../../../src/remoting/protocol/headers/index.js';
import { RequestCode } from '../../../src/remoting/protocol/request-code.js';
import { ResponseCode } from '../../../src/remoting/protocol/response-code.js';
import { quiet } from '../../unit/broker/helpers.js';

function canBind(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen({ port, host: '127.0.0.1', exclusive: true }, () => server.close(() => resolve(true)));
  });
}

/** A port whose port - 2 and port + 1 are free too (a broker's VIP channel and HA port). */
export async function freeBrokerPort(): Promise<number> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const port = 20_002 + Math.floor(Math.random() * 11_990);
    if ((await canBind(port - 2)) && (await canBind(port)) && (await canBind(port + 1))) return port;
  }
  throw new Error('no free broker port triple found');
}

/** Our name server in this process on a free loopback port, its kvConfig.json under `dir`. */
export async function startLoopbackNamesrv(
  dir: string,
): Promise<{ namesrv: NamesrvController; addr: string }> {
  const namesrv = createNamesrv({
    listenPort: 0,
    kvConfigPath: join(dir, 'kvConfig.json'),
    logger: quiet,
    settings: { listenHost: '127.0.0.1' },
  });
  const bound = await namesrv.start();
  return { namesrv, addr: `127.0.0.1:${bound.port}` };
}

/** UPDATE_AND_CREATE_TOPIC of `topic`: 4 read and 4 write queues, readable and writable. */
export function createTopic(topic: string): RemotingCommand {
  return createRequest(RequestCode.UPDATE_AND_CREATE_TOPIC, {
    extFields: encodeHeader(CreateTopicRequestHeader, {
      topic,
      defaultTopic: 'TBW102',
      readQueueNums: 4,
      writeQueueNums: 4,
      perm: 6,
      topicFilterType: 'SINGLE_TAG',
      order: false,
    }),
  });
}

/** UPDATE_AND_CREATE_SUBSCRIPTIONGROUP of `group`. */
export function createGroup(group: string, fields: SubscriptionGroupConfigFields = {}): RemotingCommand {
  return createRequest(RequestCode.UPDATE_AND_CREATE_SUBSCRIPTIONGROUP, {
    body: encodeSubscriptionGroupConfig(createSubscriptionGroupConfig(group, fields)),
  });
}

/** UPDATE_CONSUMER_OFFSET: `group` has consumed `topic`'s queue `queueId` up to `offset`. */
export function commitOffset(group: string, topic: string, queueId: number, offset: bigint): RemotingCommand {
  return createRequest(RequestCode.UPDATE_CONSUMER_OFFSET, {
    extFields: encodeHeader(UpdateConsumerOffsetRequestHeader, {
      consumerGroup: group,
      topic,
      queueId,
      commitOffset: offset,
    }),
  });
}

/** Upstream AdminBrokerProcessor.validateSlave's remark. */
export const VALIDATE_SLAVE_REMARK =
  "Can't modify topic or subscription group from slave broker, please execute it from master broker.";

/** SendMessageProcessor's remark for SERVICE_NOT_AVAILABLE, the disk ratio left open. */
export const SLAVE_SEND_REMARK =
  /^service not available now\. It may be caused by one of the following reasons: the broker's disk is full \[[^\]]*\], messages are put to the slave, message store has been shut down, etc\.$/;

export interface Refusal {
  what: string;
  request: () => RemotingCommand;
  code: number;
  /** The exact remark, a pattern, or null for none. */
  remark: string | RegExp | null;
}

/** The requests a slave refuses, for a topic and a group it has (from its master). */
export function slaveRefusals(topic: string, group: string): Refusal[] {
  return [
    {
      what: 'SEND_MESSAGE',
      request: () =>
        createRequest(RequestCode.SEND_MESSAGE, {
          extFields: encodeHeader(SendMessageRequestHeader, {
            producerGroup: 'slave-test-pg',
            topic,
            defaultTopic: 'TBW102',
            defaultTopicQueueNums: 4,
            queueId: 0,
            sysFlag: 0,
            bornTimestamp: 1_700_000_000_000n,
            flag: 0,
            properties: messageProperties2String(new Map([['WAIT', 'true']])),
            reconsumeTimes: 0,
            unitMode: false,
            batch: false,
          }),
          body: Buffer.from('refused on a slave'),
        }),
      code: ResponseCode.SERVICE_NOT_AVAILABLE,
      remark: SLAVE_SEND_REMARK,
    },
    {
      what: 'END_TRANSACTION',
      request: () =>
        createRequest(RequestCode.END_TRANSACTION, {
          extFields: encodeHeader(EndTransactionRequestHeader, {
            producerGroup: 'slave-test-pg',
            tranStateTableOffset: 0n,
            commitLogOffset: 0n,
            commitOrRollback: MessageSysFlag.TRANSACTION_COMMIT_TYPE,
            fromTransactionCheck: false,
            msgId: '7F00000100002A9F0000000000000000',
            transactionId: 'tx-1',
          }),
        }),
      code: ResponseCode.SLAVE_NOT_AVAILABLE,
      // Upstream sets the code only: createResponseCommand's default remark stays.
      remark: 'not set any response code',
    },
    {
      what: 'UPDATE_AND_CREATE_TOPIC',
      request: () => createTopic(`${topic}_new`),
      code: ResponseCode.SYSTEM_ERROR,
      remark: VALIDATE_SLAVE_REMARK,
    },
    {
      what: 'DELETE_TOPIC_IN_BROKER',
      request: () =>
        createRequest(RequestCode.DELETE_TOPIC_IN_BROKER, {
          extFields: encodeHeader(DeleteTopicRequestHeader, { topic }),
        }),
      code: ResponseCode.SYSTEM_ERROR,
      remark: VALIDATE_SLAVE_REMARK,
    },
    {
      what: 'UPDATE_AND_CREATE_SUBSCRIPTIONGROUP',
      request: () => createGroup(`${group}_new`),
      code: ResponseCode.SYSTEM_ERROR,
      remark: VALIDATE_SLAVE_REMARK,
    },
    {
      what: 'DELETE_SUBSCRIPTIONGROUP',
      request: () =>
        createRequest(RequestCode.DELETE_SUBSCRIPTIONGROUP, {
          extFields: encodeHeader(DeleteSubscriptionGroupRequestHeader, {
            groupName: group,
            removeOffset: false,
          }),
        }),
      code: ResponseCode.SYSTEM_ERROR,
      remark: VALIDATE_SLAVE_REMARK,
    },
  ];
}
