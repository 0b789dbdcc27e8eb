/** UPDATE_AND_CREATE_TOPIC (17) to a broker: a topic's queues, permissions and flags. */
import type { TopicConfig } from '../../common/protocol/topic-config.js';
import type { RemotingCommand } from '../../remoting/protocol/command.js';
import { CreateTopicRequestHeader } from '../../remoting/protocol/headers/create-topic-request-header.js';
import { RequestCode } from '../../remoting/protocol/request-code.js';
import { expectSuccess, type Peer, requestWithHeader } from './support.js';

/** `defaultTopic` is the admin's createTopicKey, as upstream's MQClientAPIImpl.createTopic sends it. */
export function buildUpdateAndCreateTopicRequest(config: TopicConfig, defaultTopic: string): RemotingCommand {
  return requestWithHeader(RequestCode.UPDATE_AND_CREATE_TOPIC, CreateTopicRequestHeader, {
    topic: config.topicName,
    defaultTopic,
    readQueueNums: config.readQueueNums,
    writeQueueNums: config.writeQueueNums,
    perm: config.perm,
    topicFilterType: config.topicFilterType,
    topicSysFlag: config.topicSysFlag,
    order: config.order,
  });
}

export function parseUpdateAndCreateTopicResponse(response: RemotingCommand, peer: Peer): void {
  expectSuccess(response, peer);
}
