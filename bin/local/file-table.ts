import { appendFileSync, closeSync, existsSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { conditionHolds, type ItemTable, type NotNewerThan, type WriteCondition } from '#shared/locations/item-table';
import type { Item } from '#shared/locations/items';
import { TTL_ATTRIBUTE } from '#shared/locations/table';
import { deepFreeze } from './deep-freeze';

/**
 * The local server's table of locations, sensor groups and occupancy entries: the items in memory,
 * kept in a file as a log of writes (one JSON line per put or delete), replayed and compacted when
 * the table is opened. Behind the same store logic as DynamoDB (shared/locations/table-store.ts),
 * and checked against DynamoDB Local by one contract test (test/integration/locations/store-contract).
 *
 * Why not an emulator: with dynalite, every read was an SDK request (marshalling, SigV4 signing, an
 * HTTP hop) to an in-process server parsing it again and reading LevelDB, which held the local
 * server's throughput down (bench/README.md); the store needs five operations and one condition.
 *
 * One process at a time: a lock file next to the log names the process that holds it.
 */
export class FileItemTable implements ItemTable {
  private readonly partitions = new Map<string, Map<string, Item>>();
  private logLines = 0;
  private closed = false;

  private constructor(
    private readonly path: string,
    private readonly lock: string,
  ) {}

  /** Opens (or creates) the table kept in `path`; an Error when another live process holds it. */
  static open(path: string, options: { now?: number } = {}): FileItemTable {
    const lock = `${path}.lock`;
    mkdirSync(dirname(path), { recursive: true });
    takeLock(lock, path);
    const table = new FileItemTable(path, lock);
    try {
      if (existsSync(path)) table.replay(readFileSync(path, 'utf8'), options.now ?? Date.now());
      table.compact();
    } catch (e) {
      rmSync(lock, { force: true });
      throw e;
    }
    return table;
  }

  async get(pk: string, sk: string): Promise<Item | undefined> {
    return this.partitions.get(pk)?.get(sk);
  }

  async query(pk: string, skPrefix = ''): Promise<Item[]> {
    const partition = this.partitions.get(pk);
    if (!partition) return [];
    // DynamoDB orders a partition by the sort key's UTF-8 bytes.
    return [...partition.entries()]
      .filter(([sk]) => sk.startsWith(skPrefix))
      .sort(([a], [b]) => Buffer.compare(Buffer.from(a), Buffer.from(b)))
      .map(([, item]) => item);
  }

  async scan(): Promise<Item[]> {
    return [...this.partitions.values()].flatMap((p) => [...p.values()]);
  }

  async put(item: Item, condition?: WriteCondition): Promise<boolean> {
    if (!this.holds(item.PK, item.SK, condition)) return false;
    // A copy as the document client would send it (undefined attributes dropped), frozen so that no
    // reader can change what is stored.
    const stored = deepFreeze(JSON.parse(JSON.stringify(item)) as Item);
    this.append({ put: stored });
    this.apply({ put: stored });
    return true;
  }

  async delete(pk: string, sk: string, condition?: NotNewerThan): Promise<boolean> {
    if (!this.holds(pk, sk, condition)) return false;
    if (this.partitions.get(pk)?.has(sk)) {
      this.append({ delete: [pk, sk] });
      this.apply({ delete: [pk, sk] });
    }
    return true;
  }

  /** Writes the compacted log and releases the lock. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.compact();
    rmSync(this.lock, { force: true });
  }

  /** The condition as DynamoDB evaluates its expression (shared/locations/item-table.ts). */
  private holds(pk: string, sk: string, condition: WriteCondition | undefined): boolean {
    return conditionHolds(this.partitions.get(pk)?.get(sk), condition);
  }

  private apply(entry: LogEntry): void {
    if ('put' in entry) {
      const { PK, SK } = entry.put;
      let partition = this.partitions.get(PK);
      if (!partition) this.partitions.set(PK, (partition = new Map()));
      partition.set(SK, entry.put);
    } else {
      const [pk, sk] = entry.delete;
      const partition = this.partitions.get(pk);
      partition?.delete(sk);
      if (partition?.size === 0) this.partitions.delete(pk);
    }
  }

  private append(entry: LogEntry): void {
    if (this.closed) throw new Error(`${this.path} is closed`);
    appendFileSync(this.path, `${JSON.stringify(entry)}\n`);
    this.logLines++;
    // Occupancy is rewritten every refresh: keep the log within a few times the live items.
    if (this.logLines > 1000 + 4 * this.size()) this.compact();
  }

  /**
   * Replays the log. A last line cut short (the process died while appending) is dropped; any other
   * line that is not a log entry is an error naming it. Items whose TTL passed are dropped, as
   * DynamoDB's TTL would eventually delete them.
   */
  private replay(text: string, now: number): void {
    const lines = text.split('\n');
    lines.forEach((line, i) => {
      if (line === '') return;
      let entry: LogEntry;
      try {
        entry = JSON.parse(line) as LogEntry;
        if (!isLogEntry(entry)) throw new Error('not a put or delete entry');
      } catch (e) {
        if (i === lines.length - 1) return;
        throw new Error(`${this.path}:${i + 1}: ${(e as Error).message}; move the file away to start with an empty table`);
      }
      this.apply('put' in entry ? { put: deepFreeze(entry.put) } : entry);
    });
    for (const item of [...this.partitions.values()].flatMap((p) => [...p.values()])) {
      const expiresAt = item[TTL_ATTRIBUTE];
      if (typeof expiresAt === 'number' && expiresAt * 1000 < now) this.apply({ delete: [item.PK, item.SK] });
    }
  }

  /** Rewrites the log as one put per live item, atomically (a new file renamed over the old). */
  private compact(): void {
    const tmp = `${this.path}.${process.pid}.tmp`;
    writeFileSync(tmp, [...this.partitions.values()].flatMap((p) => [...p.values()]).map((item) => `${JSON.stringify({ put: item })}\n`).join(''));
    renameSync(tmp, this.path);
    this.logLines = this.size();
  }

  private size(): number {
    let n = 0;
    for (const p of this.partitions.values()) n += p.size;
    return n;
  }
}

type LogEntry = { readonly put: Item } | { readonly delete: readonly [string, string] };

function isLogEntry(value: unknown): value is LogEntry {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as { put?: Partial<Item>; delete?: unknown };
  if (v.put) return typeof v.put.PK === 'string' && typeof v.put.SK === 'string';
  return Array.isArray(v.delete) && v.delete.length === 2 && v.delete.every((k) => typeof k === 'string');
}


/** Creates `lock` holding this process id; an Error when a live process holds it (a dead one's is taken over). */
function takeLock(lock: string, path: string): void {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(lock, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
    const holder = Number(readFileSync(lock, 'utf8'));
    if (Number.isInteger(holder) && holder > 0 && isAlive(holder)) {
      throw new Error(`${path} is in use by process ${holder} (another npm start or seed?); stop it first`);
    }
    rmSync(lock, { force: true });
  }
  throw new Error(`cannot lock ${path}`);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}
