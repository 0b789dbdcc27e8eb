/**
 * What the pull and consume paths record (upstream ConsumerStatsManager's inc* methods). The
 * ConsumerStatsManager implements it; GET_CONSUMER_RUNNING_INFO reports its figures.
 */
export interface ConsumerStatsRecorder {
  incPullRT(group: string, topic: string, rt: number): void;
  incPullTPS(group: string, topic: string, msgs: number): void;
  incConsumeRT(group: string, topic: string, rt: number): void;
  incConsumeOKTPS(group: string, topic: string, msgs: number): void;
  incConsumeFailedTPS(group: string, topic: string, msgs: number): void;
}
