/**
 * What upstream's ScheduleMessageService counts for each delayed message it puts back into its real
 * topic (PutResultProcess.onSuccess with enableScheduleMessageStats, true by default): a get of the
 * level's SCHEDULE_TOPIC_XXXX queue by the SCHEDULE_CONSUMER group, and a put into the real topic.
 */
import { MixAll } from '../../common/constants.js';
import { TopicValidator } from '../../common/validators.js';
import type { AppendMessageResult } from '../../store/put-message-result.js';
import type { BrokerStatsManager } from './broker-stats-manager.js';

export function countScheduleDelivery(
  stats: BrokerStatsManager,
  delayLevel: number,
  topic: string,
  result: AppendMessageResult,
): void {
  const group = MixAll.SCHEDULE_CONSUMER_GROUP;
  const schedule = TopicValidator.RMQ_SYS_SCHEDULE_TOPIC;
  stats.incQueueGetNums(group, schedule, delayLevel - 1, result.msgNum);
  stats.incQueueGetSize(group, schedule, delayLevel - 1, result.wroteBytes);
  stats.incGroupGetNums(group, schedule, result.msgNum);
  stats.incGroupGetSize(group, schedule, result.wroteBytes);
  stats.incTopicPutNums(topic, result.msgNum, 1);
  stats.incTopicPutSize(topic, result.wroteBytes);
  stats.incBrokerPutNums(result.msgNum);
}

/** What upstream's TimerMessageStore.doPut counts for each timer message it puts into its real topic. */
export function countTimerDelivery(
  stats: BrokerStatsManager,
  topic: string,
  result: AppendMessageResult,
): void {
  stats.incTopicPutNums(topic, result.msgNum, 1);
  stats.incTopicPutSize(topic, result.wroteBytes);
  stats.incBrokerPutNums(result.msgNum);
}
