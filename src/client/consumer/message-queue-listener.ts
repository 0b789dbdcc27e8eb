/** What the pull and lite pull consumers tell the application when rebalancing moves queues. */
import type { MessageQueue } from '../../common/message/message-queue.js';

/** Called with a subscribed topic's queues and those this member holds (upstream MessageQueueListener). */
export type MessageQueueListener = (topic: string, mqAll: MessageQueue[], mqDivided: MessageQueue[]) => void;
