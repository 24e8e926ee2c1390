import type { FieldError } from '../../errors';
import {
  CATALOG,
  nestedPathsOf,
  type Collection,
  type FieldDef,
  type FieldKind,
  type NestedPath,
} from '../../documents/fields';

/** Where in the document a pipeline stage stands: the root (null) or inside a nested path. */
export type Context = NestedPath | null;

/**
 * Checks field names against the collection and the nested context, collecting errors that say
 * what is allowed at that place instead of stopping at the first.
 */
export class FieldChecker {
  readonly errors: FieldError[] = [];
  private readonly used = new Set<string>();

  constructor(private readonly source: Collection) {}

  error(path: string, message: string): void {
    this.errors.push({ path, message });
  }

  field(
    name: string,
    path: string,
    context: Context,
    kinds: readonly FieldKind[],
    what: string,
    where: 'filters' | 'aggregation',
  ): FieldDef | undefined {
    const fields = CATALOG[this.source];
    const def = fields.get(name);
    const allowed = [...fields.values()]
      .filter((f) => (f.nestedPath ?? null) === context && kinds.includes(f.kind))
      .map((f) => f.name);
    const allowedText = allowed.length > 0 ? `allowed here: ${allowed.join(', ')}` : this.elsewhere(kinds, context);
    if (!def) return this.fail(path, `unknown field '${name}' for ${this.source}; ${allowedText}`);
    if ((def.nestedPath ?? null) !== context) {
      if (def.nestedPath && context === null) {
        const fix =
          where === 'filters'
            ? `filter it in nestedFilters with path ${def.nestedPath}`
            : `use it after a nested aggregation on ${def.nestedPath}`;
        return this.fail(path, `'${name}' is a field of nested ${def.nestedPath} items: ${fix}`);
      }
      return this.fail(
        path,
        `'${name}' is not a field of the ${context} items this stage is in; add reverseNested first for fields of the document`,
      );
    }
    if (!kinds.includes(def.kind))
      return this.fail(path, `${what} needs a ${kinds.join(' or ')} field, '${name}' is ${def.kind}; ${allowedText}`);
    this.used.add(name);
    return def;
  }

  /** When no field of the kinds fits this stage: where such fields are, and how to get there. */
  private elsewhere(kinds: readonly FieldKind[], context: Context): string {
    const others = [...CATALOG[this.source].values()].filter(
      (f) => kinds.includes(f.kind) && (f.nestedPath ?? null) !== context,
    );
    if (others.length === 0) return `${this.source} has no ${kinds.join(' or ')} field`;
    const where = (f: FieldDef) =>
      f.nestedPath ? `${f.name} (after a nested aggregation on ${f.nestedPath})` : `${f.name} (after reverseNested)`;
    return `no ${kinds.join(' or ')} field at this level; ${this.source} has ${others.map(where).join(', ')}`;
  }

  nestedPath(name: string, path: string): NestedPath | undefined {
    const paths = nestedPathsOf(this.source);
    if ((paths as readonly string[]).includes(name)) return name as NestedPath;
    const allowed = paths.length > 0 ? `allowed: ${paths.join(', ')}` : `${this.source} has no nested documents`;
    return this.fail(path, `unknown nested path '${name}'; ${allowed}`);
  }

  deprecated(): string[] {
    return [...this.used].filter((n) => CATALOG[this.source].get(n)?.deprecated).sort();
  }

  private fail(path: string, message: string): undefined {
    this.error(path, message);
    return undefined;
  }
}
