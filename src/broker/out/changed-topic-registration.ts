/**
 * Registration of topics created or changed by sends (auto-create, retry topics, unit flags). Upstream
 * 4.9.x calls registerBrokerAll(false, true, true) for each: the whole topic table, encoded and sent
 * once per new topic, O(topics) per topic, which made 3,000 auto-created topics cost seconds per
 * batch and starved the periodic registration (issue 26). Here the topics changed within
 * registerChangedTopicsDelay (and while an earlier registration is under way) go together in one
 * oneway registration that carries only them, as registerIncrementBrokerData does: the name server
 * merges a master's topics into its route table, so the route of a new topic appears as promptly as
 * before.
 *
 * The increment carries a DataVersion the broker's table never has (see incrementVersion): should a
 * oneway increment be lost, the name server still differs from the broker, and the next periodic
 * registration sends the whole table, which reconciles it.
 */
import type { Clock, TimerHandle } from '../../common/clock.js';
import type { DataVersion } from '../../common/protocol/data-version.js';
import type { TopicConfig } from '../../common/protocol/topic-config.js';

/**
 * A version for the `batch`-th increment (1, 2, ...): the broker's current version with its timestamp
 * moved by `batch` ms. No version of the table equals it (the table's versions differ in counter or
 * in timestamp), and no two increments share one: the name server skips a registration whose version
 * equals the one it holds. With one offset for every batch, retry topics created by concurrent
 * consumers' heartbeats were seen to lose their routes until the next periodic registration
 * (test/integration/client/push-consumer-retry.test.ts, the DLQ case).
 */
export function incrementVersion(version: DataVersion, batch: bigint): DataVersion {
  return { timestamp: version.timestamp + batch, counter: version.counter };
}

export interface ChangedTopicRegistrationOptions {
  clock: Clock;
  /** ms to wait for more changes before registering them [registerChangedTopicsDelay]. */
  delay: () => number;
  /** Registers the given topics (serialized with every other registration of the broker). */
  register: (topics: ReadonlyMap<string, Readonly<TopicConfig>>) => Promise<void>;
}

export class ChangedTopicRegistration {
  private readonly pending = new Map<string, Readonly<TopicConfig>>();
  private timer: TimerHandle | undefined;
  /** A batch on its way: changes wait for it and go together in the next one. */
  private inFlight = false;
  private stopped = false;

  constructor(private readonly options: ChangedTopicRegistrationOptions) {}

  /** A topic was created or changed: register it with the others of its batch. */
  changed(topicConfig: Readonly<TopicConfig>): void {
    if (this.stopped) return;
    this.pending.set(topicConfig.topicName, topicConfig);
    if (!this.inFlight) this.timer ??= this.schedule(this.options.delay());
  }

  /** Delay 0: right after the requests read together (setImmediate), whatever clock drives the rest. */
  private schedule(delay: number): TimerHandle {
    if (delay > 0) return this.options.clock.setTimeout(this.flush, delay);
    const immediate = setImmediate(this.flush);
    return { cancel: () => clearImmediate(immediate) };
  }

  /** Topics waiting for their registration. */
  get size(): number {
    return this.pending.size;
  }

  stop(): void {
    this.stopped = true;
    this.timer?.cancel();
    this.timer = undefined;
    this.pending.clear();
  }

  private readonly flush = (): void => {
    this.timer = undefined;
    if (this.stopped || this.pending.size === 0) return;
    const batch = new Map(this.pending);
    this.pending.clear();
    this.inFlight = true;
    void this.options.register(batch).finally(() => {
      this.inFlight = false;
      if (this.pending.size > 0) this.flush();
    });
  };
}
