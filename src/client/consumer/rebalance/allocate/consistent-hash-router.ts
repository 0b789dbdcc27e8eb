/**
 * Upstream ConsistentHashRouter (rocketmq-common, consistenthash package): physical nodes placed on a
 * ring of Java longs through `vNodeCount` virtual nodes each, keys routed to the first virtual node
 * at or after their hash (wrapping to the first). Java keeps the ring in a TreeMap, so a virtual node
 * whose hash collides with an earlier one replaces it, and a node added twice continues its replica
 * numbering from the virtual nodes of that key still on the ring. Both are kept here, because they
 * decide which member owns a queue.
 */
import { createHash } from 'node:crypto';
import { ValidationError } from '../../../../common/errors.js';

/**
 * Upstream HashFunction: a string to a Java long. Numbers must be safe integers; bigints are read as
 * 64-bit signed values, like the long a Java function returns.
 */
export interface HashFunction {
  hash(key: string): number | bigint;
}

interface VirtualNode {
  /** The physical node's key (upstream compares physical nodes by key). */
  readonly physicalKey: string;
  readonly replicaIndex: number;
}

/** Upstream's default MD5Hash: the first 4 digest bytes, big-endian, as a non-negative long. */
export const MD5_HASH: HashFunction = {
  hash(key: string): number {
    return createHash('md5').update(javaDefaultBytes(key)).digest().readUInt32BE(0);
  },
};

/**
 * `key.getBytes()` with a UTF-8 default charset: Java's encoder writes `?` for a lone surrogate where
 * Node writes U+FFFD, so those are replaced first.
 */
function javaDefaultBytes(key: string): Buffer {
  return Buffer.from(key.replace(LONE_SURROGATE, '?'), 'utf8');
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

function toJavaLong(value: number | bigint): bigint {
  if (typeof value === 'bigint') return BigInt.asIntN(64, value);
  if (!Number.isSafeInteger(value)) {
    throw new ValidationError(`hash function returned ${value}, not a safe integer`);
  }
  return BigInt(value);
}

export class ConsistentHashRouter {
  private readonly ring = new Map<bigint, VirtualNode>();
  /** Virtual nodes on the ring per physical key: upstream's getExistingReplicas, without the scan. */
  private readonly replicas = new Map<string, number>();
  private readonly hashFunction: HashFunction;
  /** The ring's hashes in ascending order, rebuilt after a change (routeNode is the hot path). */
  private sorted: bigint[] | undefined;

  constructor(pNodes: Iterable<string>, vNodeCount: number, hashFunction: HashFunction = MD5_HASH) {
    this.hashFunction = hashFunction;
    for (const pNode of pNodes) this.addNode(pNode, vNodeCount);
  }

  addNode(pNode: string, vNodeCount: number): void {
    if (vNodeCount < 0) throw new ValidationError(`illegal virtual node counts :${vNodeCount}`);
    const existingReplicas = this.getExistingReplicas(pNode);
    for (let i = 0; i < vNodeCount; i++) {
      const vNode: VirtualNode = { physicalKey: pNode, replicaIndex: i + existingReplicas };
      this.put(this.hash(`${vNode.physicalKey}-${vNode.replicaIndex}`), vNode);
    }
  }

  getExistingReplicas(pNode: string): number {
    return this.replicas.get(pNode) ?? 0;
  }

  /** The physical node owning `objectKey`, or undefined on an empty ring. */
  routeNode(objectKey: string): string | undefined {
    if (this.ring.size === 0) return undefined;
    this.sorted ??= [...this.ring.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    const hashVal = this.hash(objectKey);
    const keys = this.sorted;
    // First key >= hashVal (TreeMap.tailMap is inclusive), else wrap to the first key.
    let lo = 0;
    let hi = keys.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((keys[mid] as bigint) < hashVal) lo = mid + 1;
      else hi = mid;
    }
    const nodeHashVal = keys[lo === keys.length ? 0 : lo] as bigint;
    return this.ring.get(nodeHashVal)?.physicalKey;
  }

  private hash(key: string): bigint {
    return toJavaLong(this.hashFunction.hash(key));
  }

  private put(hash: bigint, vNode: VirtualNode): void {
    const replaced = this.ring.get(hash);
    if (replaced !== undefined) {
      this.replicas.set(replaced.physicalKey, (this.replicas.get(replaced.physicalKey) ?? 1) - 1);
    }
    this.ring.set(hash, vNode);
    this.replicas.set(vNode.physicalKey, (this.replicas.get(vNode.physicalKey) ?? 0) + 1);
    this.sorted = undefined;
  }
}
