/**
 * Iteration order of a Java 8+ `java.util.HashMap`, which is the order fastjson's MapSerializer writes
 * a HashMap in (it only sorts maps under MapSortField). This replays HashMap's own algorithm for a
 * sequence of puts (HashMap.putVal, resize, treeifyBin, TreeNode.treeify/putTreeVal/split,
 * balanceInsertion, moveRootToFront), so it also holds for colliding keys:
 *  - bucket index = (h ^ (h >>> 16)) & (capacity - 1), h = key.hashCode();
 *  - `new HashMap<>()` allocates 16 buckets on the first put, `new HashMap<>(n)` tableSizeFor(n);
 *    the table doubles after a put that makes size > 0.75 * capacity;
 *  - a list bucket reaching 9 entries doubles the table while it has fewer than 64 buckets, and
 *    otherwise becomes a red-black tree; a tree bucket iterates root first, then its `next` chain,
 *    where each new key goes right after its tree parent; resizes keep relative order and turn trees
 *    of 6 or fewer entries back into lists;
 *  - putting a key equal to an earlier one changes nothing.
 * Tree buckets order keys with the same hash by compareTo; without it Java falls back to
 * System.identityHashCode, which no one can replay, so `compareTo` is required when that happens.
 */

import { ValidationError } from '../errors.js';
import { javaStringHashCode } from '../java-hash.js';

export interface JavaHashMapOptions {
  /** The `initialCapacity` passed to the HashMap constructor; omitted for `new HashMap<>()`. */
  readonly initialCapacity?: number;
}

/** A Java key class: its hashCode, equals and (for Comparable classes) compareTo. */
export interface JavaKeyType<K> {
  hashCode(key: K): number;
  /** Default: `Object.is`. */
  equals?(a: K, b: K): boolean;
  compareTo?(a: K, b: K): number;
}

const MAXIMUM_CAPACITY = 1 << 30;
const TREEIFY_THRESHOLD = 8;
const UNTREEIFY_THRESHOLD = 6;
const MIN_TREEIFY_CAPACITY = 64;
/** The model allocates the table it replays; larger constructor capacities are refused. */
const MAX_MODELLED_CAPACITY = 1 << 24;

/** Java `Integer.hashCode`. */
export function javaIntegerHashCode(value: number): number {
  return value | 0;
}

/** Java `Long.hashCode`: (int) (value ^ (value >>> 32)). */
export function javaLongHashCode(value: bigint | number): number {
  const v = BigInt.asUintN(64, BigInt(value));
  return Number(BigInt.asIntN(32, v ^ (v >> 32n)));
}

function naturalOrder<T extends string | number | bigint>(a: T, b: T): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export const JAVA_STRING_KEY: JavaKeyType<string> = { hashCode: javaStringHashCode, compareTo: naturalOrder };
export const JAVA_INTEGER_KEY: JavaKeyType<number> = {
  hashCode: javaIntegerHashCode,
  compareTo: naturalOrder,
};
export const JAVA_LONG_KEY: JavaKeyType<bigint> = { hashCode: javaLongHashCode, compareTo: naturalOrder };

class HNode<K> {
  next: HNode<K> | null = null;
  prev: HNode<K> | null = null;
  parent: HNode<K> | null = null;
  left: HNode<K> | null = null;
  right: HNode<K> | null = null;
  red = false;
  tree = false;

  constructor(
    readonly key: K,
    readonly hash: number,
  ) {}
}

type Table<K> = Array<HNode<K> | null>;

/** HashMap.tableSizeFor: the smallest power of two >= cap (1 for cap <= 1). */
function tableSizeFor(cap: number): number {
  let n = 1;
  while (n < cap && n < MAXIMUM_CAPACITY) n *= 2;
  return n;
}

class JavaHashMapModel<K> {
  private table: Table<K> = [];
  private threshold: number;
  private size = 0;
  private readonly equals: (a: K, b: K) => boolean;

  constructor(
    private readonly type: JavaKeyType<K>,
    initialCapacity: number | undefined,
  ) {
    if (
      initialCapacity !== undefined &&
      !(initialCapacity >= 0 && initialCapacity <= MAX_MODELLED_CAPACITY)
    ) {
      throw new ValidationError(`HashMap order: initialCapacity must be 0..${MAX_MODELLED_CAPACITY}`);
    }
    this.threshold = initialCapacity === undefined ? 0 : tableSizeFor(initialCapacity);
    this.equals = type.equals ?? Object.is;
  }

  /** HashMap.putVal for a new or existing key. */
  put(key: K): void {
    const h = this.type.hashCode(key) | 0;
    const hash = h ^ (h >>> 16);
    if (this.table.length === 0) this.resize();
    const tab = this.table;
    const i = hash & (tab.length - 1);
    const p = tab[i];
    if (p === null || p === undefined) {
      tab[i] = new HNode(key, hash);
    } else if (p.hash === hash && this.equals(p.key, key)) {
      return;
    } else if (p.tree) {
      if (!this.putTreeVal(tab, p, hash, key)) return;
    } else {
      let q: HNode<K> = p;
      for (let binCount = 0; ; binCount++) {
        const e = q.next;
        if (e === null) {
          q.next = new HNode(key, hash);
          if (binCount >= TREEIFY_THRESHOLD - 1) this.treeifyBin(tab, hash);
          break;
        }
        if (e.hash === hash && this.equals(e.key, key)) return;
        q = e;
      }
    }
    if (++this.size > this.threshold) this.resize();
  }

  order(): K[] {
    const out: K[] = [];
    for (const first of this.table) {
      for (let e = first ?? null; e !== null; e = e.next) out.push(e.key);
    }
    return out;
  }

  private compare(a: K, b: K): number {
    const d = this.type.compareTo?.(a, b) ?? 0;
    if (d === 0) {
      throw new ValidationError('HashMap order: colliding keys without compareTo depend on identityHashCode');
    }
    return d;
  }

  private resize(): void {
    const oldTab = this.table;
    const oldCap = oldTab.length;
    let newCap: number;
    let newThr: number;
    if (oldCap > 0) {
      newCap = oldCap * 2;
      newThr = oldCap >= 16 ? this.threshold * 2 : Math.floor(newCap * 0.75);
    } else if (this.threshold > 0) {
      newCap = this.threshold;
      newThr = Math.floor(newCap * 0.75);
    } else {
      newCap = 16;
      newThr = 12;
    }
    const newTab: Table<K> = new Array<HNode<K> | null>(newCap).fill(null);
    this.table = newTab;
    this.threshold = newThr;
    for (let j = 0; j < oldCap; j++) {
      const e = oldTab[j] ?? null;
      if (e === null) continue;
      if (e.next === null) newTab[e.hash & (newCap - 1)] = e;
      else this.split(newTab, e, j, oldCap);
    }
  }

  /** Lo/hi split of a bucket on resize (list buckets and TreeNode.split). */
  private split(tab: Table<K>, first: HNode<K>, index: number, bit: number): void {
    let loHead: HNode<K> | null = null;
    let loTail: HNode<K> | null = null;
    let hiHead: HNode<K> | null = null;
    let hiTail: HNode<K> | null = null;
    let lc = 0;
    let hc = 0;
    for (let e: HNode<K> | null = first; e !== null; ) {
      const next: HNode<K> | null = e.next;
      e.next = null;
      if ((e.hash & bit) === 0) {
        e.prev = loTail;
        if (loTail === null) loHead = e;
        else loTail.next = e;
        loTail = e;
        lc++;
      } else {
        e.prev = hiTail;
        if (hiTail === null) hiHead = e;
        else hiTail.next = e;
        hiTail = e;
        hc++;
      }
      e = next;
    }
    const tree = first.tree;
    if (loHead !== null) {
      tab[index] = loHead;
      if (tree && lc <= UNTREEIFY_THRESHOLD) untreeify(loHead);
      else if (tree && hiHead !== null) this.treeify(tab, loHead);
    }
    if (hiHead !== null) {
      tab[index + bit] = hiHead;
      if (tree && hc <= UNTREEIFY_THRESHOLD) untreeify(hiHead);
      else if (tree && loHead !== null) this.treeify(tab, hiHead);
    }
  }

  private treeifyBin(tab: Table<K>, hash: number): void {
    if (tab.length < MIN_TREEIFY_CAPACITY) {
      this.resize();
      return;
    }
    const hd = tab[hash & (tab.length - 1)] ?? null;
    let tl: HNode<K> | null = null;
    for (let e = hd; e !== null; e = e.next) {
      e.tree = true;
      e.prev = tl;
      tl = e;
    }
    if (hd !== null) this.treeify(tab, hd);
  }

  /** TreeNode.treeify: insert the chain into a red-black tree in chain order, root to the front. */
  private treeify(tab: Table<K>, hd: HNode<K>): void {
    let root: HNode<K> | null = null;
    for (let x: HNode<K> | null = hd; x !== null; ) {
      const next: HNode<K> | null = x.next;
      x.left = null;
      x.right = null;
      if (root === null) {
        x.parent = null;
        x.red = false;
        root = x;
      } else {
        for (let p: HNode<K> = root; ; ) {
          const dir = p.hash > x.hash ? -1 : p.hash < x.hash ? 1 : this.compare(x.key, p.key);
          const child = dir <= 0 ? p.left : p.right;
          if (child === null) {
            x.parent = p;
            if (dir <= 0) p.left = x;
            else p.right = x;
            root = balanceInsertion(root, x);
            break;
          }
          p = child;
        }
      }
      x = next;
    }
    if (root !== null) moveRootToFront(tab, root);
  }

  /** TreeNode.putTreeVal; false when the key was already there. */
  private putTreeVal(tab: Table<K>, first: HNode<K>, hash: number, key: K): boolean {
    let root = first;
    while (root.parent !== null) root = root.parent;
    for (let p: HNode<K> = root; ; ) {
      let dir: number;
      if (p.hash > hash) dir = -1;
      else if (p.hash < hash) dir = 1;
      else if (this.equals(p.key, key)) return false;
      else dir = this.compare(key, p.key);
      const child = dir <= 0 ? p.left : p.right;
      if (child === null) {
        const xpn = p.next;
        const x = new HNode(key, hash);
        x.tree = true;
        x.next = xpn;
        if (dir <= 0) p.left = x;
        else p.right = x;
        p.next = x;
        x.parent = p;
        x.prev = p;
        if (xpn !== null) xpn.prev = x;
        moveRootToFront(tab, balanceInsertion(root, x));
        return true;
      }
      p = child;
    }
  }
}

function untreeify<K>(hd: HNode<K>): void {
  for (let e: HNode<K> | null = hd; e !== null; e = e.next) {
    e.tree = false;
    e.parent = null;
    e.left = null;
    e.right = null;
  }
}

function moveRootToFront<K>(tab: Table<K>, root: HNode<K>): void {
  const index = root.hash & (tab.length - 1);
  const first = tab[index] ?? null;
  if (root === first) return;
  tab[index] = root;
  const rp = root.prev;
  const rn = root.next;
  if (rn !== null) rn.prev = rp;
  if (rp !== null) rp.next = rn;
  if (first !== null) first.prev = root;
  root.next = first;
  root.prev = null;
}

function rotateLeft<K>(root: HNode<K>, p: HNode<K>): HNode<K> {
  const r = p.right;
  if (r === null) return root;
  const rl = r.left;
  p.right = rl;
  if (rl !== null) rl.parent = p;
  const pp = p.parent;
  r.parent = pp;
  if (pp === null) {
    root = r;
    r.red = false;
  } else if (pp.left === p) {
    pp.left = r;
  } else {
    pp.right = r;
  }
  r.left = p;
  p.parent = r;
  return root;
}

function rotateRight<K>(root: HNode<K>, p: HNode<K>): HNode<K> {
  const l = p.left;
  if (l === null) return root;
  const lr = l.right;
  p.left = lr;
  if (lr !== null) lr.parent = p;
  const pp = p.parent;
  l.parent = pp;
  if (pp === null) {
    root = l;
    l.red = false;
  } else if (pp.right === p) {
    pp.right = l;
  } else {
    pp.left = l;
  }
  l.right = p;
  p.parent = l;
  return root;
}

/** TreeNode.balanceInsertion (CLR red-black insertion fix-up, as Java writes it). */
function balanceInsertion<K>(root: HNode<K>, x: HNode<K>): HNode<K> {
  x.red = true;
  for (;;) {
    let xp = x.parent;
    if (xp === null) {
      x.red = false;
      return x;
    }
    let xpp = xp.parent;
    if (!xp.red || xpp === null) return root;
    const xppl = xpp.left;
    if (xp === xppl) {
      const xppr = xpp.right;
      if (xppr?.red) {
        xppr.red = false;
        xp.red = false;
        xpp.red = true;
        x = xpp;
      } else {
        if (x === xp.right) {
          x = xp;
          root = rotateLeft(root, x);
          xp = x.parent;
          xpp = xp === null ? null : xp.parent;
        }
        if (xp !== null) {
          xp.red = false;
          if (xpp !== null) {
            xpp.red = true;
            root = rotateRight(root, xpp);
          }
        }
      }
    } else if (xppl?.red) {
      xppl.red = false;
      xp.red = false;
      xpp.red = true;
      x = xpp;
    } else {
      if (x === xp.left) {
        x = xp;
        root = rotateRight(root, x);
        xp = x.parent;
        xpp = xp === null ? null : xp.parent;
      }
      if (xp !== null) {
        xp.red = false;
        if (xpp !== null) {
          xpp.red = true;
          root = rotateLeft(root, xpp);
        }
      }
    }
  }
}

/** Iteration order of a HashMap into which `keys` were put in order (equal keys keep the first place). */
export function javaHashMapIterationOrder<K>(
  keys: readonly K[],
  keyType: JavaKeyType<K>,
  options?: JavaHashMapOptions,
): K[] {
  const map = new JavaHashMapModel(keyType, options?.initialCapacity);
  for (const key of keys) map.put(key);
  return map.order();
}

/**
 * Iteration order of a `HashMap<String, V>` whose distinct keys were put in the given order.
 * Header and property maps take a fast path: when no bucket of the smallest (16-slot) table would
 * hold more than TREEIFY_THRESHOLD keys, no bin is ever treeified or forces an early resize, so the
 * order is simply bucket index at the final capacity, then insertion order. Otherwise the full model
 * replays every put.
 */
export function javaHashMapOrder(keys: readonly string[], options?: JavaHashMapOptions): string[] {
  if (options?.initialCapacity !== undefined || new Set(keys).size !== keys.length) {
    return javaHashMapIterationOrder(keys, JAVA_STRING_KEY, options);
  }
  const spread = keys.map((key) => {
    const h = javaStringHashCode(key);
    return h ^ (h >>> 16);
  });
  const smallest = new Array<number>(16).fill(0);
  for (const h of spread) {
    const i = h & 15;
    smallest[i] = (smallest[i] ?? 0) + 1;
    if ((smallest[i] ?? 0) > TREEIFY_THRESHOLD)
      return javaHashMapIterationOrder(keys, JAVA_STRING_KEY, options);
  }
  let capacity = 16;
  while (keys.length > capacity * 0.75) capacity *= 2;
  const mask = capacity - 1;
  const order = keys.map((_, i) => i);
  order.sort((a, b) => ((spread[a] as number) & mask) - ((spread[b] as number) & mask) || a - b);
  return order.map((i) => keys[i] as string);
}
