/**
 * Reads allocate/vectors.json (written by the official 4.9.8 strategies, AllocateFixtures.java) and
 * builds our strategy for each case from its description, with the custom hash functions and the
 * machine-room resolver the generator documents in the manifest.
 */
import {
  AllocateMachineRoomNearby,
  AllocateMessageQueueAveragely,
  AllocateMessageQueueAveragelyByCircle,
  AllocateMessageQueueByConfig,
  AllocateMessageQueueByMachineRoom,
  AllocateMessageQueueConsistentHash,
  type AllocateMessageQueueStrategy,
  type HashFunction,
  type MachineRoomResolver,
} from '../../../../src/client/consumer/rebalance/allocate/index.js';
import { javaStringHashCode } from '../../../../src/common/java-hash.js';
import type { Logger } from '../../../../src/common/logger.js';
import { MessageQueue } from '../../../../src/common/message/message-queue.js';
import {
  type GoldenAllocateCase,
  type GoldenAllocateStrategy,
  goldenFile,
  goldenManifest,
} from '../../../golden-fixtures.js';

export function allocateCases(): GoldenAllocateCase[] {
  return JSON.parse(goldenFile(goldenManifest().allocate.file).toString('utf8')) as GoldenAllocateCase[];
}

export function expandRuns(topic: string, runs: Array<[string, number[]]>): MessageQueue[] {
  return runs.flatMap(([brokerName, ids]) => ids.map((id) => new MessageQueue(topic, brokerName, id)));
}

/** The generator's custom hash functions, by the names the manifest gives them. */
export const CUSTOM_HASHES: Record<string, HashFunction> = {
  hashCode: { hash: (key) => javaStringHashCode(key) },
  length: { hash: (key) => key.length },
  hashCodeMod8: { hash: (key) => ((javaStringHashCode(key) % 8) + 8) % 8 },
  hashCodeTimesGolden: { hash: (key) => BigInt(javaStringHashCode(key)) * 0x9e3779b97f4a7c15n },
};

/** The manifest's rule: the text before the first '@', or the whole string. */
export function roomOf(s: string): string {
  const at = s.indexOf('@');
  return at < 0 ? s : s.slice(0, at);
}

export const ROOM_RESOLVER: MachineRoomResolver = {
  brokerDeployIn: (mq) => roomOf(mq.brokerName),
  consumerDeployIn: (cid) => roomOf(cid),
};

export function buildStrategy(
  spec: GoldenAllocateStrategy,
  topic: string,
  logger: Logger,
): AllocateMessageQueueStrategy {
  switch (spec.type) {
    case 'AVG':
      return new AllocateMessageQueueAveragely({ logger });
    case 'AVG_BY_CIRCLE':
      return new AllocateMessageQueueAveragelyByCircle({ logger });
    case 'CONFIG':
      return new AllocateMessageQueueByConfig(
        spec.messageQueueList.map(([b, q]) => new MessageQueue(topic, b, q)),
      );
    case 'MACHINE_ROOM':
      return new AllocateMessageQueueByMachineRoom({ consumeridcs: spec.consumeridcs, logger });
    case 'CONSISTENT_HASH': {
      const custom = spec.hashFunction === null ? undefined : CUSTOM_HASHES[spec.hashFunction];
      if (spec.hashFunction !== null && custom === undefined) {
        throw new Error(`unknown hash function ${spec.hashFunction}`);
      }
      return new AllocateMessageQueueConsistentHash({
        virtualNodeCnt: spec.virtualNodeCnt,
        customHashFunction: custom,
        logger,
      });
    }
    case 'MACHINE_ROOM_NEARBY':
      return new AllocateMachineRoomNearby(buildStrategy(spec.inner, topic, logger), ROOM_RESOLVER, {
        logger,
      });
  }
}
