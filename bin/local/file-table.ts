import {
  appendFileSync,
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { dirname } from 'node:path';
import {
  conditionHolds,
  type ItemTable,
  keyOf,
  type NotNewerThan,
  type PageOptions,
  type TransactAction,
  transactConditionHolds,
  TransactionConflictError,
  type WriteCondition,
} from '#shared/locations/item-table';
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

  async page(pk: string, options: PageOptions): Promise<Item[]> {
    const all = await this.query(pk);
    const below =
      options.before === undefined
        ? all
        : all.filter((i) => Buffer.compare(Buffer.from(i.SK), Buffer.from(options.before!)) < 0);
    return (options.descending ? below.reverse() : below).slice(0, options.limit);
  }

  /**
   * Every action or none, as DynamoDB's TransactWriteItems: the conditions are checked first, then
   * the writes go to the log as one line, which a replay applies whole or (cut short by a crash)
   * drops whole.
   */
  async transact(actions: readonly TransactAction[]): Promise<void> {
    const keys = actions.map((a) => `${keyOf(a).PK}\n${keyOf(a).SK}`);
    if (new Set(keys).size !== keys.length) throw new Error('a transaction names one item twice (DynamoDB refuses it)');
    actions.forEach((a, i) => {
      const key = keyOf(a);
      if (!transactConditionHolds(this.partitions.get(key.PK)?.get(key.SK), a.condition))
        throw new TransactionConflictError(i);
    });
    const entries: LogEntry[] = actions.flatMap((a): LogEntry[] => {
      if ('put' in a) return [{ put: deepFreeze(JSON.parse(JSON.stringify(a.put)) as Item) }];
      if ('delete' in a) return [{ delete: [a.delete.PK, a.delete.SK] }];
      return [];
    });
    this.append({ tx: entries });
    for (const entry of entries) this.apply(entry);
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

  private append(entry: LogLine): void {
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
      let parsed: LogLine;
      try {
        parsed = JSON.parse(line) as LogLine;
        if (!isLogLine(parsed)) throw new Error('not a put, delete or transaction entry');
      } catch (e) {
        if (i === lines.length - 1) return;
        throw new Error(
          `${this.path}:${i + 1}: ${(e as Error).message}; move the file away to start with an empty table`,
        );
      }
      for (const entry of 'tx' in parsed ? parsed.tx : [parsed])
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
    writeFileSync(
      tmp,
      [...this.partitions.values()]
        .flatMap((p) => [...p.values()])
        .map((item) => `${JSON.stringify({ put: item })}\n`)
        .join(''),
    );
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
/** One line of the log: a write, or a transaction's writes (applied whole). */
type LogLine = LogEntry | { readonly tx: readonly LogEntry[] };

function isLogEntry(value: unknown): value is LogEntry {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as { put?: Partial<Item>; delete?: unknown };
  if (v.put) return typeof v.put.PK === 'string' && typeof v.put.SK === 'string';
  return Array.isArray(v.delete) && v.delete.length === 2 && v.delete.every((k) => typeof k === 'string');
}

function isLogLine(value: unknown): value is LogLine {
  const tx = (value as { tx?: unknown } | null)?.tx;
  return Array.isArray(tx) ? tx.every(isLogEntry) : isLogEntry(value);
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
