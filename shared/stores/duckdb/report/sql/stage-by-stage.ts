import type { AggNode } from '../../../../report/plan/plan';
import { compileFilter, compileFilters } from './compile-scope';
import { Compiler } from './compiler';
import { columnOf, ident, nestedTable, PARENT_ID, ROW_ID, TABLES } from '../../layout/schema';

/** The stage-by-stage compilation (see compile.ts). */
export class PipelineCompiler extends Compiler {
  private rel = 's0';
  private keys: string[] = [];

  compile(scopeSql: string): string {
    this.ctes.push(`s0 AS (${scopeSql})`);
    this.plan.pipeline.forEach((node, i) => this.stage(node, i));
    return this.statement();
  }

  private stage(node: AggNode, i: number): void {
    const out = `s${i + 1}`;
    const k = `k${this.keys.length}`;
    const keys = this.keys.map((key) => `s.${key}`);
    switch (node.kind) {
      case 'dateHistogram':
        return this.next(
          i,
          out,
          `SELECT s.*, ${this.histogramKey(`s.${ident('timestamp')}`)} AS ${k} FROM ${this.rel} s`,
          [...this.keys, k],
        );
      case 'terms':
        return this.terms(
          i,
          out,
          node.profile ? this.profileKey(node.profile, `s.${ident('timestamp')}`) : `s.${ident(columnOf(node.field))}`,
          i === this.plan.pipeline.length - 1,
        );
      case 'filters': {
        const branches = node.buckets.map(
          (b, index) =>
            `SELECT s.*, ${index} AS ${k} FROM ${this.rel} s WHERE ${compileFilter(b.filter, 's', this.params)}`,
        );
        return this.next(i, out, branches.join(' UNION ALL '), [...this.keys, k]);
      }
      case 'filter':
        return this.next(
          i,
          out,
          `SELECT s.* FROM ${this.rel} s WHERE ${compileFilter(node.filter, 's', this.params)}`,
          this.keys,
        );
      case 'nested': {
        // the item's copy of the parent's _shard comes with c.*
        const child = ident(nestedTable(this.plan.source, node.path));
        const on = `c.${ident(PARENT_ID)} = s.${ident(ROW_ID)}`;
        const select = `SELECT ${[...keys, 'c.*', 'c.rowid AS _ord'].join(', ')} FROM ${this.rel} s JOIN ${child} c ON ${on}`;
        return this.next(i, out, `${select} WHERE ${compileFilters(node.itemFilters, 'c', this.params)}`, this.keys);
      }
      case 'reverseNested': {
        const parents = `SELECT DISTINCT ${[...keys, `s.${ident(PARENT_ID)}`].join(', ')} FROM ${this.rel} s`;
        const root = ident(TABLES[this.plan.source].root);
        const select = [...this.keys.map((key) => `r.${key}`), 'd.*'].join(', ');
        return this.next(
          i,
          out,
          `SELECT ${select} FROM (${parents}) r JOIN ${root} d ON d.${ident(ROW_ID)} = r.${ident(PARENT_ID)}`,
          this.keys,
        );
      }
      case 'stats': {
        const col = `s.${ident(columnOf(node.field))}`;
        const order = node.field.nestedPath ? 's._ord' : `s.${ident(ROW_ID)}`;
        const stats = { mn: `min(${col})`, mx: `max(${col})`, sm: `fsum(${col} ORDER BY ${order})` };
        this.part(
          { what: "'stats'", lvl: i, keys: this.keys, n: `count(${col})`, stats, shard: 's._shard' },
          `${this.rel} s${this.groupBy([...this.keys, '_shard'])}`,
        );
        return this.percentiles(i, node, col, `${this.rel} s`, this.keys);
      }
    }
  }

  /** terms: one grouped pass `g<i>` counts per (key, shard); the rows of the kept keys go on. */
  /** `key`: the SQL of the key over the alias `s` (a column, or a profile's expression). */
  private terms(i: number, out: string, key: string, last: boolean): void {
    const parentKeys = this.keys;
    const k = `k${parentKeys.length}`;
    const selectKeys = [...parentKeys.map((pk) => `s.${pk}`), `${key} AS ${k}`].join(', ');
    this.ctes.push(
      `g${i} AS (SELECT ${selectKeys}, s._shard, count(*) AS n FROM ${this.rel} s WHERE ${key} IS NOT NULL GROUP BY ALL)`,
    );
    const cap = this.rankTerms(i, parentKeys, k);
    if (!last) {
      const join = `JOIN r${i} r ON ${[...parentKeys.map((pk) => `s.${pk} = r.${pk}`), `${key} = r.${k}`].join(' AND ')}`;
      this.ctes.push(`${out} AS (SELECT s.*, ${key} AS ${k} FROM ${this.rel} s ${join} WHERE r.rn <= ${cap})`);
    }
    this.rel = out;
    this.keys = [...parentKeys, k];
  }

  /** Registers the stage's relation and its bucket counts per shard. */
  private next(i: number, out: string, select: string, keys: string[]): void {
    this.ctes.push(`${out} AS (${select})`);
    this.rel = out;
    this.keys = keys;
    this.counts(i, out, keys, 'count(*)');
  }
}
