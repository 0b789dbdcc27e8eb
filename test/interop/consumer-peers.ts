/**
 * The two brokers our push consumer is proven against, our own pair and the official 4.9.x name server
 * and broker, with what the push consumer suites ask of them over a RemotingClient of their own:
 * topics with a given number of queues, a member's running info (GET_CONSUMER_RUNNING_INFO, which the
 * broker forwards to the member: ours or Java), a group's committed offsets. One peer serves every case
 * of a suite; each case uses its own topic and group.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  buildQueryConsumerOffsetRequest,
  parseQueryConsumerOffsetResponse,
} from '../../src/client/instance/requests/consumer-offset.js';
import {
  buildGetRouteInfoRequest,
  parseGetRouteInfoResponse,
} from '../../src/client/instance/requests/get-route-info.js';
import { requestWithHeader } from '../../src/client/instance/requests/support.js';
import { createLogger } from '../../src/common/logger.js';
import { MessageQueue } from '../../src/common/message/message-queue.js';
import {
  type DecodedConsumerRunningInfo,
  decodeConsumerRunningInfo,
} from '../../src/common/protocol/consumer-running-info.js';
import {
  CreateTopicRequestHeader,
  GetConsumerRunningInfoRequestHeader,
} from '../../src/remoting/protocol/headers/index.js';
import { RequestCode } from '../../src/remoting/protocol/request-code.js';
import { ResponseCode } from '../../src/remoting/protocol/response-code.js';
import { RemotingClient } from '../../src/remoting/transport/index.js';
import { type JavaResult, mqadmin, startBroker, startNamesrv } from './harness.js';
import { startLoopbackPair } from './loopback-pair.js';

const CALL_TIMEOUT_MS = 5000;
/** PermName.PERM_READ | PERM_WRITE */
const PERM_READ_WRITE = 6;

export interface ConsumerPeer {
  readonly name: string;
  readonly namesrvAddr: string;
  readonly brokerAddr: string;
  readonly brokerName: string;
  /** A temp dir of the test's own (local offset files), removed on close. */
  readonly dir: string;
  /** Creates `topic` with `queues` read and write queues and waits until the name server routes them. */
  createTopic(topic: string, queues: number): Promise<MessageQueue[]>;
  /** A member's GET_CONSUMER_RUNNING_INFO answer, asked through the broker. */
  runningInfo(group: string, clientId: string): Promise<DecodedConsumerRunningInfo>;
  /** The group's committed offset of a queue on the broker; undefined when it has none. */
  committedOffset(group: string, mq: MessageQueue): Promise<bigint | undefined>;
  /** The official mqadmin; rejects unless it exited 0. */
  admin(...args: string[]): Promise<JavaResult>;
  /** The servers' log tails (empty for our pair, which logs errors to stderr). */
  logTail(lines?: number): string;
  close(): Promise<void>;
}

export interface ConsumerPeerKind {
  readonly name: string;
  start(): Promise<ConsumerPeer>;
}

/** Resolves once `check` returns a value other than undefined; rejects after `timeoutMs` naming `what`. */
export async function until<T>(
  check: () => T | undefined | Promise<T | undefined>,
  what: string | (() => string),
  timeoutMs: number,
  intervalMs = 100,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() >= deadline) {
      throw new Error(`not within ${timeoutMs} ms: ${typeof what === 'string' ? what : what()}`);
    }
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

interface Servers {
  readonly namesrvAddr: string;
  readonly brokerAddr: string;
  readonly brokerName: string;
  readonly dir: string;
  logTail(lines?: number): string;
  close(): Promise<void>;
}

function peerOver(name: string, servers: Servers): ConsumerPeer {
  const client = new RemotingClient({}, { logger: createLogger(`${name}-client`, { level: 'error' }) });
  const { namesrvAddr, brokerAddr, brokerName } = servers;
  const routeQueues = async (topic: string): Promise<MessageQueue[]> => {
    const response = await client.invoke(namesrvAddr, buildGetRouteInfoRequest(topic), {
      timeoutMs: CALL_TIMEOUT_MS,
    });
    const route = parseGetRouteInfoResponse(response, namesrvAddr, topic);
    const data = route?.queueDatas.find((q) => q.brokerName === brokerName);
    return Array.from({ length: data?.readQueueNums ?? 0 }, (_, i) => new MessageQueue(topic, brokerName, i));
  };
  return {
    name,
    namesrvAddr,
    brokerAddr,
    brokerName,
    dir: servers.dir,
    async createTopic(topic, queues) {
      const request = requestWithHeader(RequestCode.UPDATE_AND_CREATE_TOPIC, CreateTopicRequestHeader, {
        topic,
        defaultTopic: 'TBW102',
        readQueueNums: queues,
        writeQueueNums: queues,
        perm: PERM_READ_WRITE,
        topicFilterType: 'SINGLE_TAG',
      });
      const response = await client.invoke(brokerAddr, request, { timeoutMs: CALL_TIMEOUT_MS });
      if (response.code !== ResponseCode.SUCCESS) {
        throw new Error(`UPDATE_AND_CREATE_TOPIC ${topic}: ${response.code} ${String(response.remark)}`);
      }
      return until(
        async () => {
          const mqs = await routeQueues(topic);
          return mqs.length === queues ? mqs : undefined;
        },
        `route of ${topic} with ${queues} queues`,
        15_000,
      );
    },
    async runningInfo(group, clientId) {
      const request = requestWithHeader(
        RequestCode.GET_CONSUMER_RUNNING_INFO,
        GetConsumerRunningInfoRequestHeader,
        { consumerGroup: group, clientId, jstackEnable: false },
      );
      const response = await client.invoke(brokerAddr, request, { timeoutMs: CALL_TIMEOUT_MS });
      if (response.code !== ResponseCode.SUCCESS) {
        throw new Error(
          `GET_CONSUMER_RUNNING_INFO ${group} ${clientId}: ${response.code} ${String(response.remark)}`,
        );
      }
      return decodeConsumerRunningInfo(response.body);
    },
    async committedOffset(group, mq) {
      const response = await client.invoke(brokerAddr, buildQueryConsumerOffsetRequest(group, mq), {
        timeoutMs: CALL_TIMEOUT_MS,
      });
      if (response.code === ResponseCode.QUERY_NOT_FOUND) return undefined;
      return parseQueryConsumerOffsetResponse(response, { brokerAddr, topic: mq.topic, group });
    },
    async admin(...args) {
      const r = await mqadmin(namesrvAddr, args);
      if (r.exitCode !== 0) {
        throw new Error(`mqadmin ${args.join(' ')} exited ${String(r.exitCode)}:\n${r.stdout}\n${r.stderr}`);
      }
      return r;
    },
    logTail: (lines) => servers.logTail(lines),
    async close() {
      await client.close();
      await servers.close();
    },
  };
}

export const CONSUMER_PEERS: readonly ConsumerPeerKind[] = [
  {
    name: 'our name server and broker',
    async start() {
      const pair = await startLoopbackPair('push-consumer');
      return peerOver('ours', {
        namesrvAddr: pair.namesrvAddr,
        brokerAddr: pair.brokerAddr,
        brokerName: 'broker-ts',
        dir: pair.dir,
        logTail: () => '',
        close: () => pair.close(),
      });
    },
  },
  {
    name: 'the official 4.9.x name server and broker',
    async start() {
      const namesrv = await startNamesrv();
      let broker: Awaited<ReturnType<typeof startBroker>>;
      try {
        broker = await startBroker({ namesrvAddr: namesrv.addr, brokerName: 'broker-4x' });
      } catch (error) {
        await namesrv.close();
        throw error;
      }
      const dir = mkdtempSync(join(tmpdir(), 'rmq-interop-push-consumer-'));
      return peerOver('official', {
        namesrvAddr: namesrv.addr,
        brokerAddr: broker.addr,
        brokerName: broker.brokerName,
        dir,
        logTail: (lines = 40) => `${namesrv.logTail(lines)}\n${broker.logTail(lines)}`,
        async close() {
          await broker.close();
          await namesrv.close();
          rmSync(dir, { recursive: true, force: true });
        },
      });
    },
  },
];
