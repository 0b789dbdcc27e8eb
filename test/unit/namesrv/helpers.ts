/** Shared pieces of the name server tests: a hand-driven clock, in-memory connections, request builders. */
import { type Duplex, duplexPair } from 'node:stream';
import { createLogger, type Logger } from '../../../src/common/logger.js';
import { messageBodyCrc } from '../../../src/common/message/crc32.js';
import { encodeRegisterBrokerBody } from '../../../src/common/protocol/register-broker-body.js';
import { createTopicConfig, type TopicConfig } from '../../../src/common/protocol/topic-config.js';
import type { NamesrvController } from '../../../src/namesrv/namesrv-controller.js';
import { createRequest, type RemotingCommand } from '../../../src/remoting/protocol/command.js';
import { encodeHeader } from '../../../src/remoting/protocol/header-schema.js';
import { RegisterBrokerRequestHeader } from '../../../src/remoting/protocol/headers/index.js';
import { RequestCode } from '../../../src/remoting/protocol/request-code.js';
import {
  Connection,
  clientConnectionSettings,
  clientSettings,
} from '../../../src/remoting/transport/index.js';

export const quiet: Logger = createLogger('test', { level: 'silent' });

export { ManualClock } from '../../../src/common/clock.js';

/** duplexPair ends that, like a socket pair, close each other. */
export function linkedPair(): [Duplex, Duplex] {
  const [a, b] = duplexPair();
  a.on('close', () => b.destroy());
  b.on('close', () => a.destroy());
  return [a, b];
}

/** A client-side Connection talking to the name server over an in-memory pair. */
export function connectInMemory(
  namesrv: NamesrvController,
  remoteAddress = '10.0.0.9:50000',
): { client: Connection; server: Connection } {
  const [near, far] = linkedPair();
  const server = namesrv.remotingServer.handle(near, { remoteAddress });
  const client = new Connection(far, {
    settings: clientConnectionSettings(clientSettings({ clientChannelMaxIdleTimeSeconds: 0 })),
    handler: { handleRequest: () => {} },
    logger: quiet,
    remoteAddress: 'namesrv',
  });
  return { client, server };
}

export interface BrokerSpec {
  clusterName?: string;
  brokerName?: string;
  brokerAddr?: string;
  brokerId?: bigint;
  haServerAddr?: string;
  topics?: TopicConfig[];
  counter?: bigint;
  timestamp?: bigint;
  filterServers?: string[];
  compressed?: boolean;
  withCrc?: boolean;
  version?: number;
}

export function topics(...names: string[]): TopicConfig[] {
  return names.map((n) => createTopicConfig(n, { readQueueNums: 4, writeQueueNums: 4 }));
}

/** A REGISTER_BROKER request as a 4.9.8 broker sends it. */
export function registerRequest(spec: BrokerSpec = {}): RemotingCommand {
  const body = encodeRegisterBrokerBody(
    {
      topicConfigSerializeWrapper: {
        topicConfigTable: new Map((spec.topics ?? topics('TBW102')).map((t) => [t.topicName, t])),
        dataVersion: { counter: spec.counter ?? 1n, timestamp: spec.timestamp ?? 1_700_000_000_000n },
      },
      filterServerList: spec.filterServers ?? [],
    },
    spec.compressed ?? false,
  );
  return createRequest(RequestCode.REGISTER_BROKER, {
    version: spec.version ?? 409,
    extFields: encodeHeader(RegisterBrokerRequestHeader, {
      brokerName: spec.brokerName ?? 'broker-a',
      brokerAddr: spec.brokerAddr ?? '10.0.0.1:10911',
      clusterName: spec.clusterName ?? 'DefaultCluster',
      haServerAddr: spec.haServerAddr ?? '10.0.0.1:10912',
      brokerId: spec.brokerId ?? 0n,
      compressed: spec.compressed ?? false,
      bodyCrc32: spec.withCrc === false ? 0 : messageBodyCrc(body),
    }),
    body,
  });
}
