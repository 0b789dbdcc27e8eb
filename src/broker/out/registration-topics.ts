/**
 * The topic table as registrations carry it (upstream registerBrokerAll): each topic's perm
 * replaced by brokerPermission while the broker is not both readable and writable.
 */
import { PermName } from '../../common/constants.js';
import type { TopicConfigSerializeWrapper } from '../../common/protocol/register-broker-body.js';
import { createTopicConfig, type TopicConfig } from '../../common/protocol/topic-config.js';

export function registrationTopics(
  wrapper: TopicConfigSerializeWrapper,
  brokerPermission: number,
): TopicConfigSerializeWrapper {
  const perm = brokerPermission;
  if (PermName.isWriteable(perm) && PermName.isReadable(perm)) return wrapper;
  const table = new Map<string, TopicConfig>();
  for (const [name, tc] of wrapper.topicConfigTable) {
    table.set(
      name,
      createTopicConfig(tc.topicName, {
        readQueueNums: tc.readQueueNums,
        writeQueueNums: tc.writeQueueNums,
        perm,
      }),
    );
  }
  return { topicConfigTable: table, dataVersion: wrapper.dataVersion };
}
