/**
 * The k-way merge OpenSearch uses to reduce terms and date_histogram buckets from several shards
 * (`AbstractInternalTerms.reduceMergeSort`, `InternalDateHistogram.reduceBuckets`): a Lucene
 * `PriorityQueue` of per-shard bucket iterators. For equal keys the order in which shards come out
 * of the heap is not their shard order; it decides the order in which their sub-aggregations are
 * reduced, and so the last bit of a floating-point sum. Mirrored here heap operation for heap operation.
 *
 * https://github.com/apache/lucene/blob/main/lucene/core/src/java/org/apache/lucene/util/PriorityQueue.java
 */

interface Cursor<K> {
  readonly shard: number;
  readonly keys: readonly K[];
  at: number;
}

/** org.apache.lucene.util.PriorityQueue: 1-based binary min-heap; `lessThan` strict, so ties stay put. */
class LucenePriorityQueue<T> {
  private readonly heap: (T | undefined)[] = [undefined];
  private count = 0;

  constructor(private readonly lessThan: (a: T, b: T) => boolean) {}

  get size(): number {
    return this.count;
  }

  add(element: T): void {
    this.heap[++this.count] = element;
    this.upHeap(this.count);
  }

  top(): T {
    return this.heap[1] as T;
  }

  updateTop(): void {
    this.downHeap(1);
  }

  pop(): void {
    this.heap[1] = this.heap[this.count];
    this.heap[this.count--] = undefined;
    this.downHeap(1);
  }

  private upHeap(origPos: number): void {
    let i = origPos;
    const node = this.heap[i] as T;
    let j = i >>> 1;
    while (j > 0 && this.lessThan(node, this.heap[j] as T)) {
      this.heap[i] = this.heap[j];
      i = j;
      j = j >>> 1;
    }
    this.heap[i] = node;
  }

  private downHeap(start: number): void {
    let i = start;
    const node = this.heap[i] as T;
    let j = this.smallerChild(i);
    while (j <= this.count && this.lessThan(this.heap[j] as T, node)) {
      this.heap[i] = this.heap[j];
      i = j;
      j = this.smallerChild(i);
    }
    this.heap[i] = node;
  }

  private smallerChild(i: number): number {
    const j = i << 1;
    const k = j + 1;
    return k <= this.count && this.lessThan(this.heap[k] as T, this.heap[j] as T) ? k : j;
  }
}

/** One merged key and the shards that had it, in the order the merge took them. */
export interface MergedKey<K> {
  readonly key: K;
  readonly shards: readonly number[];
}

/**
 * Merges per-shard ascending key lists (given in the order OpenSearch hands the shard results to
 * the reduce; empty lists are left out, as OpenSearch does).
 */
export function mergeShardKeys<K>(
  lists: readonly { readonly shard: number; readonly keys: readonly K[] }[],
  compare: (a: K, b: K) => number,
): MergedKey<K>[] {
  const pq = new LucenePriorityQueue<Cursor<K>>((a, b) => compare(a.keys[a.at] as K, b.keys[b.at] as K) < 0);
  for (const list of lists) if (list.keys.length > 0) pq.add({ shard: list.shard, keys: list.keys, at: 0 });
  const merged: MergedKey<K>[] = [];
  let current: { key: K; shards: number[] } | undefined;
  while (pq.size > 0) {
    const top = pq.top();
    const key = top.keys[top.at] as K;
    if (!current || compare(key, current.key) !== 0) {
      current = { key, shards: [] };
      merged.push(current);
    }
    current.shards.push(top.shard);
    if (++top.at < top.keys.length) pq.updateTop();
    else pq.pop();
  }
  return merged;
}

/** Keyword order of OpenSearch (Lucene BytesRef: unsigned UTF-8 bytes, i.e. code point order). */
export function compareUtf8(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}
