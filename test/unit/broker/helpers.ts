/** Shared pieces of the broker tests: a hand-driven clock, in-memory config files and connections, fakes. */
import { type Duplex, duplexPair } from 'node:stream';
import type { BrokerConfig, BrokerConfigEnvironment } from '../../../src/broker/broker-config.js';
import {
  type BrokerController,
  type CreateBrokerOptions,
  createBroker,
} from '../../../src/broker/broker-controller.js';
import type { ConfigFileIO } from '../../../src/broker/config-manager.js';
import type { BrokerMessageStore } from '../../../src/broker/message-store.js';
import { ManualClock } from '../../../src/common/clock.js';
import { createLogger, type Logger, type LogRecord } from '../../../src/common/logger.js';
import { encodeHeartbeatData, type HeartbeatData } from '../../../src/common/protocol/heartbeat-data.js';
import { createRequest, isOneway, type RemotingCommand } from '../../../src/remoting/protocol/command.js';
import { RequestCode } from '../../../src/remoting/protocol/request-code.js';
import {
  Connection,
  clientConnectionSettings,
  clientSettings,
} from '../../../src/remoting/transport/index.js';
import type {
  ConsumeQueueView,
  GetMessageResult,
  QueryMessageResult,
} from '../../../src/store/message-store.js';
import type { PutMessageResult } from '../../../src/store/put-message-result.js';

export { ManualClock };

export const quiet: Logger = createLogger('test', { level: 'silent' });

/** A logger that keeps every record (level debug and up). */
export function capturingLogger(): { logger: Logger; records: LogRecord[] } {
  const records: LogRecord[] = [];
  return { logger: createLogger('test', { level: 'debug', sink: (r) => records.push(r) }), records };
}

export const TEST_ENV: BrokerConfigEnvironment = {
  hostName: 'test-host',
  localAddress: '10.0.0.7',
  homeDir: '/home/tester',
  namesrvAddr: undefined,
};

/** Config files in memory: writeAtomic keeps the previous content as `.bak`, like writeFileAtomic. */
export class MemoryFileIO implements ConfigFileIO {
  readonly files = new Map<string, string>();
  readonly writes: string[] = [];
  failWrites = false;

  async read(file: string): Promise<string | undefined> {
    return this.files.get(file);
  }

  async writeAtomic(file: string, content: string): Promise<void> {
    if (this.failWrites) throw new Error('disk full');
    const old = this.files.get(file);
    if (old !== undefined) this.files.set(`${file}.bak`, old);
    this.files.set(file, content);
    this.writes.push(file);
  }
}

/** A message store whose queues hold what the test says. */
export class FakeMessageStore implements BrokerMessageStore {
  readonly min = new Map<string, bigint>();
  readonly max = new Map<string, bigint>();
  readonly inDisk = new Set<string>();
  readonly cleaned: Array<ReadonlySet<string>> = [];
  readonly calls: string[] = [];

  getMaxOffsetInQueue(topic: string, queueId: number): bigint {
    return this.max.get(`${topic}/${queueId}`) ?? 0n;
  }

  getMinOffsetInQueue(topic: string, queueId: number): bigint {
    return this.min.get(`${topic}/${queueId}`) ?? 0n;
  }

  checkInDiskByConsumeOffset(topic: string, queueId: number, consumeOffset: bigint): boolean {
    return this.inDisk.has(`${topic}/${queueId}/${consumeOffset}`);
  }

  getOffsetInQueueByTime(topic: string, queueId: number, timestamp: bigint): bigint {
    this.calls.push(`byTime ${topic}/${queueId}/${timestamp}`);
    return 42n;
  }

  getEarliestMessageTime(topic: string, queueId: number): bigint {
    this.calls.push(`earliest ${topic}/${queueId}`);
    return 1700000000999n;
  }

  cleanUnusedTopic(keepTopics: ReadonlySet<string>): void {
    this.cleaned.push(keepTopics);
  }

  cleanExpiredConsumerQueue(): void {
    this.calls.push('cleanExpiredConsumerQueue');
  }

  executeDeleteFilesManually(): void {
    this.calls.push('executeDeleteFilesManually');
  }

  async load(): Promise<void> {}
  async start(): Promise<void> {}
  async shutdown(): Promise<void> {}
  putMessage(): Promise<PutMessageResult> {
    throw new Error('FakeMessageStore: putMessage is not part of these tests');
  }
  putMessages(): Promise<PutMessageResult> {
    throw new Error('FakeMessageStore: putMessages is not part of these tests');
  }
  getMessage(): Promise<GetMessageResult> {
    throw new Error('FakeMessageStore: getMessage is not part of these tests');
  }
  queryMessage(): Promise<QueryMessageResult> {
    throw new Error('FakeMessageStore: queryMessage is not part of these tests');
  }
  getCommitLogOffsetInQueue(): bigint {
    return -1n;
  }
  getMessageStoreTimeStamp(): bigint {
    return -1n;
  }
  selectOneMessageByOffset(): Buffer | undefined {
    return undefined;
  }
  getMinPhyOffset(): bigint {
    return 0n;
  }
  getMaxPhyOffset(): bigint {
    return 0n;
  }
  queryConsumeQueue(): ConsumeQueueView | undefined {
    return undefined;
  }
  onMessageArrived(): void {}
}

/** duplexPair ends that, like a socket pair, close each other. */
export function linkedPair(): [Duplex, Duplex] {
  const [a, b] = duplexPair();
  a.on('close', () => b.destroy());
  b.on('close', () => a.destroy());
  return [a, b];
}

export interface TestClient {
  client: Connection;
  server: Connection;
  /** Requests the broker sent to this client (NOTIFY_CONSUMER_IDS_CHANGED...). */
  received: RemotingCommand[];
  /** Resolves with the next request the broker sends to this client. */
  nextRequest(): Promise<RemotingCommand>;
  call(request: RemotingCommand): Promise<RemotingCommand>;
  /** When set, answers each request the broker sends (not oneway ones) with what it returns, if anything. */
  respond?: ((request: RemotingCommand) => RemotingCommand | undefined) | undefined;
}

/** A client-side Connection talking to the broker's main server over an in-memory pair. */
export function connectInMemory(
  broker: BrokerController,
  remoteAddress = '10.0.0.9:50000',
  vip = false,
): TestClient {
  const [near, far] = linkedPair();
  const server = (vip ? broker.fastRemotingServer : broker.remotingServer).handle(near, { remoteAddress });
  const received: RemotingCommand[] = [];
  const waiters: Array<(r: RemotingCommand) => void> = [];
  let respond: TestClient['respond'];
  const client = new Connection(far, {
    settings: clientConnectionSettings(clientSettings({ clientChannelMaxIdleTimeSeconds: 0 })),
    handler: {
      handleRequest: (_c, request) => {
        received.push(request);
        waiters.shift()?.(request);
        const answer = respond?.(request);
        if (answer !== undefined && !isOneway(request)) {
          answer.opaque = request.opaque;
          client.writeResponse(answer);
        }
      },
    },
    logger: quiet,
    remoteAddress: 'broker',
  });
  return {
    client,
    server,
    received,
    nextRequest: () => new Promise((resolve) => waiters.push(resolve)),
    call: (request) => client.invoke(request, { timeoutMs: 2000 }),
    get respond() {
      return respond;
    },
    set respond(handler) {
      respond = handler;
    },
  };
}

export interface TestBroker {
  broker: BrokerController;
  clock: ManualClock;
  io: MemoryFileIO;
  store: FakeMessageStore;
}

/** A broker, not started, with a manual clock, in-memory files and a fake store. */
export async function testBroker(
  config: Partial<BrokerConfig> = {},
  options: Partial<CreateBrokerOptions> = {},
): Promise<TestBroker> {
  const clock = new ManualClock();
  const io = new MemoryFileIO();
  const store = new FakeMessageStore();
  const broker = createBroker({
    config: { storePathRootDir: '/mem/store', brokerName: 'broker-a', ...config },
    env: TEST_ENV,
    clock,
    logger: quiet,
    messageStore: store,
    configFileIO: io,
    ...options,
  });
  return { broker, clock, io, store };
}

export function heartbeatRequest(h: HeartbeatData, version = 409, language = 'JAVA'): RemotingCommand {
  return createRequest(RequestCode.HEART_BEAT, { body: encodeHeartbeatData(h), version, language });
}

/** A push consumer's heartbeat for `group`, subscribing to the given topics with `*`. */
export function consumerHeartbeat(
  clientID: string,
  group: string,
  topics: string[],
  subVersion = 1700000000000n,
): HeartbeatData {
  return {
    clientID,
    producerDataSet: [],
    consumerDataSet: [
      {
        groupName: group,
        consumeType: 'CONSUME_PASSIVELY',
        messageModel: 'CLUSTERING',
        consumeFromWhere: 'CONSUME_FROM_LAST_OFFSET',
        unitMode: false,
        subscriptionDataSet: topics.map((topic) => ({
          topic,
          subString: '*',
          tagsSet: [],
          codeSet: [],
          subVersion,
          expressionType: 'TAG',
          classFilterMode: false,
        })),
      },
    ],
  };
}

/** Waits until every promise queued so far (and the microtasks they spawn) has settled. */
export function settle(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
