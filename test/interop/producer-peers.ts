/**
 * The three peers our producer is proven against: the official 4.9.x name server and broker, the
 * official 5.x pair, and our own pair in this process. Each starts with the same broker settings so
 * a suite can loop over them.
 */
import {
  type BrokerHandle,
  type NamesrvHandle,
  startBroker,
  startNamesrv,
  type UpstreamLine,
} from './harness.js';
import { startLoopbackPair } from './loopback-pair.js';

/** Broker settings a producer suite may shorten (the names are upstream's BrokerConfig keys). */
export interface PeerBrokerConfig {
  /** How often the broker checks open transactions, ms [60000]. */
  readonly transactionCheckInterval?: number;
  /** A half message younger than this is not checked yet, ms [6000]. */
  readonly transactionTimeOut?: number;
  /**
   * 5.x only (the others write each commit or rollback mark at once): how long the broker gathers
   * them before writing, ms [3000]. A half message older than transactionTimeOut whose mark is not
   * written yet gets checked although it is decided, so keep this below transactionTimeOut.
   */
  readonly transactionOpBatchInterval?: number;
}

export interface ProducerPeer {
  readonly name: string;
  readonly namesrvAddr: string;
  readonly brokerName: string;
  /** The servers' log tails (empty for our pair, which logs errors to stderr). */
  logTail(lines?: number): string;
  close(): Promise<void>;
}

export interface ProducerPeerKind {
  readonly name: string;
  start(config: PeerBrokerConfig): Promise<ProducerPeer>;
}

function withoutOpBatch(config: PeerBrokerConfig): Omit<PeerBrokerConfig, 'transactionOpBatchInterval'> {
  const { transactionOpBatchInterval: _, ...rest } = config;
  return rest;
}

function official(upstream: UpstreamLine, name: string): ProducerPeerKind {
  return {
    name,
    async start(config) {
      const namesrv: NamesrvHandle = await startNamesrv({ upstream });
      let broker: BrokerHandle;
      try {
        broker = await startBroker({
          namesrvAddr: namesrv.addr,
          upstream,
          brokerName: `broker-${upstream}x`,
          config: upstream === 5 ? { ...config } : withoutOpBatch(config),
        });
      } catch (error) {
        await namesrv.close();
        throw error;
      }
      return {
        name,
        namesrvAddr: namesrv.addr,
        brokerName: broker.brokerName,
        logTail: (lines = 40) => `${namesrv.logTail(lines)}\n${broker.logTail(lines)}`,
        async close() {
          await broker.close();
          await namesrv.close();
        },
      };
    },
  };
}

export const PRODUCER_PEERS: readonly ProducerPeerKind[] = [
  official(4, 'the official 4.9.x name server and broker'),
  official(5, 'the official 5.5.0 name server and broker'),
  {
    name: 'our name server and broker',
    async start(config) {
      const pair = await startLoopbackPair('producer', withoutOpBatch(config));
      return {
        name: 'our name server and broker',
        namesrvAddr: pair.namesrvAddr,
        brokerName: 'broker-ts',
        logTail: () => '',
        close: () => pair.close(),
      };
    },
  },
];
