/**
 * acl-read-paths: with ACL on, an account with DENY on a topic (and on a group) tries every request
 * that returns or copies stored messages: VIEW_MESSAGE_BY_ID at the secret's offset,
 * CONSUMER_SEND_MSG_BACK of that offset into its own group then a pull of its retry topic,
 * QUERY_MESSAGE by the secret's key, LOCK_BATCH_MQ on the denied group, a pull of the denied
 * group's retry topic. Held when each is refused and the secret body never comes back.
 */
import { MessageQueue } from '../../src/common/message/message-queue.js';
import { encodeLockBatchRequestBody } from '../../src/common/protocol/lock-batch-body.js';
import { createTopicConfig } from '../../src/common/protocol/topic-config.js';
import { createRequest, type RemotingCommand } from '../../src/remoting/protocol/command.js';
import { encodeHeader } from '../../src/remoting/protocol/header-schema.js';
import {
  ConsumerSendMsgBackRequestHeader,
  ViewMessageRequestHeader,
} from '../../src/remoting/protocol/headers/index.js';
import { RequestCode } from '../../src/remoting/protocol/request-code.js';
import { rawClient, rawSend, startTarget, verdict } from './acl-attack-support.js';
import type { AttackClass, AttackVerdict } from './attack-class.js';
import { pullQueue0 } from './raw-requests.js';

const NAME = 'acl-read-paths';
const SECRET = 'TopicSecret';
const SECRET_BODY = 'the secret body only admins may read';
const ACL_FILE = `accounts:
  - accessKey: attackAdmin
    secretKey: attackAdminSecret
    admin: true
  - accessKey: attackReader
    secretKey: attackReaderSecret
    defaultTopicPerm: PUB|SUB
    defaultGroupPerm: SUB
    topicPerms:
      - ${SECRET}=DENY
    groupPerms:
      - GroupDenied=DENY
`;
const DENIED = 'org.apache.rocketmq.acl.common.AclException';

export const aclReadPaths: AttackClass = {
  name: NAME,
  async run() {
    const target = await startTarget(NAME, {}, ACL_FILE);
    const admin = rawClient({ accessKey: 'attackAdmin', secretKey: 'attackAdminSecret' });
    const reader = rawClient({ accessKey: 'attackReader', secretKey: 'attackReaderSecret' });
    const rows: AttackVerdict[] = [];
    try {
      const addr = target.brokerAddr;
      for (const topic of [SECRET, 'TopicOpen']) {
        target.broker.topicConfigManager.updateTopicConfig(
          createTopicConfig(topic, { readQueueNums: 1, writeQueueNums: 1 }),
        );
      }
      const secret = await rawSend(admin, addr, SECRET, Buffer.from(SECRET_BODY), new Map([['KEYS', 'K1']]));
      // Reads by offset are checked against the consume queue: wait for the dispatch.
      const deadline = Date.now() + 5000;
      while (target.broker.messageStore.getMaxOffsetInQueue(SECRET, 0) < 1n && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 10));
      }
      const attempt = async (name: string, requests: RemotingCommand[]): Promise<void> => {
        const answers: RemotingCommand[] = [];
        for (const r of requests) answers.push(await reader.invoke(addr, r));
        const leaked = answers.some((a) => a.body?.includes(SECRET_BODY) === true);
        const first = answers[0];
        const refused = first !== undefined && first.code !== 0 && (first.remark ?? '').includes(DENIED);
        rows.push(
          verdict(
            NAME,
            name,
            refused && !leaked,
            `code ${first?.code}${refused ? ' (AclException)' : ''}${leaked ? ', SECRET BODY RETURNED' : ''}`,
          ),
        );
      };
      await attempt('VIEW_MESSAGE_BY_ID of a DENY topic', [
        createRequest(RequestCode.VIEW_MESSAGE_BY_ID, {
          extFields: encodeHeader(ViewMessageRequestHeader, { offset: secret.commitLogOffset }),
        }),
      ]);
      await attempt('CONSUMER_SEND_MSG_BACK into own group, pull retry', [
        createRequest(RequestCode.CONSUMER_SEND_MSG_BACK, {
          extFields: encodeHeader(ConsumerSendMsgBackRequestHeader, {
            offset: secret.commitLogOffset,
            group: 'ReaderGroup',
            delayLevel: -1,
            originMsgId: undefined,
            originTopic: undefined,
            unitMode: false,
            maxReconsumeTimes: undefined,
          }),
        }),
        pullQueue0('%DLQ%ReaderGroup', 'ReaderGroup'),
        pullQueue0('%RETRY%ReaderGroup', 'ReaderGroup'),
      ]);
      await attempt('QUERY_MESSAGE by key on a DENY topic', [
        createRequest(RequestCode.QUERY_MESSAGE, {
          extFields: {
            topic: SECRET,
            key: 'K1',
            maxNum: '32',
            beginTimestamp: '0',
            endTimestamp: String(Date.now() + 60_000),
          },
        }),
      ]);
      await attempt('LOCK_BATCH_MQ on a DENY group', [
        createRequest(RequestCode.LOCK_BATCH_MQ, {
          body: encodeLockBatchRequestBody({
            consumerGroup: 'GroupDenied',
            clientId: '127.0.0.1@attack',
            mqSet: [new MessageQueue('TopicOpen', target.broker.config.brokerName, 0)],
          }),
        }),
      ]);
      await attempt('pull of a DENY group %RETRY% topic', [pullQueue0('%RETRY%GroupDenied', 'ReaderGroup')]);
    } finally {
      await admin.close();
      await reader.close();
      await target.close();
    }
    return rows;
  },
};
