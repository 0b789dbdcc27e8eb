/**
 * TopicRouteInfoManager, the part QUERY_ASSIGNMENT uses (upstream getTopicSubscribeInfo): a topic's
 * readable queues on EVERY broker of its route, from the name servers, so that a member asking any
 * one broker is assigned queues of all of them. Routes are cached and refreshed in the background
 * once older than loadBalancePollNameServerInterval (upstream polls every topic on that period);
 * without a name server, or when none answers and nothing is cached, this broker's own queues.
 */
import { PermName } from '../../common/constants.js';
import type { Logger } from '../../common/logger.js';
import { MessageQueue } from '../../common/message/message-queue.js';
import type { TopicRouteData } from '../../common/protocol/route.js';

/** Upstream TopicRouteInfoManager.GET_TOPIC_ROUTE_TIMEOUT, ms. */
const GET_TOPIC_ROUTE_TIMEOUT_MS = 3000;

export interface TopicRouteSource {
  readonly nameServerAddressList: readonly string[];
  getTopicRouteInfoFromNameServer(topic: string, timeoutMs: number): Promise<TopicRouteData | undefined>;
}

interface Cached {
  readonly queues: MessageQueue[] | undefined;
  readonly at: number;
}

/** MQClientInstance.topicRouteData2TopicSubscribeInfo: the readable queues of each broker. */
export function topicRouteData2TopicSubscribeInfo(topic: string, route: TopicRouteData): MessageQueue[] {
  const out: MessageQueue[] = [];
  for (const qd of route.queueDatas) {
    if (!PermName.isReadable(qd.perm)) continue;
    for (let i = 0; i < qd.readQueueNums; i++) out.push(new MessageQueue(topic, qd.brokerName, i));
  }
  return out;
}

export class TopicRouteInfoManager {
  private readonly cache = new Map<string, Cached>();
  private readonly refreshing = new Set<string>();

  constructor(
    private readonly source: TopicRouteSource,
    private readonly settings: { readonly loadBalancePollNameServerInterval: number },
    private readonly now: () => number,
    private readonly logger: Logger,
  ) {}

  /**
   * The topic's readable queues across the cluster; undefined when the name servers do not know the
   * topic. `local` answers when no name server is configured or none could be asked.
   */
  async getTopicSubscribeInfo(
    topic: string,
    local: () => MessageQueue[] | undefined,
  ): Promise<MessageQueue[] | undefined> {
    if (this.source.nameServerAddressList.length === 0) return local();
    const cached = this.cache.get(topic);
    if (cached !== undefined && cached.queues !== undefined && cached.queues.length > 0) {
      if (this.now() - cached.at > this.settings.loadBalancePollNameServerInterval) void this.refresh(topic);
      return cached.queues;
    }
    await this.refresh(topic);
    const fresh = this.cache.get(topic);
    if (fresh === undefined) return local();
    // A route the name server does not have yet (a topic just created here): our own queues.
    return fresh.queues === undefined || fresh.queues.length === 0 ? local() : fresh.queues;
  }

  private async refresh(topic: string): Promise<void> {
    if (this.refreshing.has(topic)) return;
    this.refreshing.add(topic);
    try {
      const route = await this.source.getTopicRouteInfoFromNameServer(topic, GET_TOPIC_ROUTE_TIMEOUT_MS);
      this.cache.set(topic, {
        queues: route === undefined ? undefined : topicRouteData2TopicSubscribeInfo(topic, route),
        at: this.now(),
      });
    } catch (error) {
      this.logger.warn('TopicRouteInfoManager: getTopicRouteInfoFromNameServer failed', {
        topic,
        error: (error as Error).message,
      });
    } finally {
      this.refreshing.delete(topic);
    }
  }

  /** Forgets a topic (deleted here). */
  remove(topic: string): void {
    this.cache.delete(topic);
  }
}
