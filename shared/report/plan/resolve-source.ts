import type { FieldError } from '../../errors';
import { CATALOG, COLLECTIONS, type Collection } from '../../documents/fields';

/** A field or nested path named somewhere in the request, with where it was named. */
export interface FieldMention {
  readonly name: string;
  readonly path: string;
  readonly isNestedPath?: boolean;
}

export type SourceResolution = { readonly source: Collection } | { readonly errors: readonly FieldError[] };

const hasMention = (c: Collection, m: FieldMention): boolean =>
  m.isNestedPath ? [...CATALOG[c].values()].some((f) => f.nestedPath === m.name) : CATALOG[c].has(m.name);

/**
 * The collection a request queries: `source` when given, else the one collection that has every
 * field the request names. Ambiguous or contradictory requests are a 400 asking for `source`.
 */
export function resolveSource(given: Collection | undefined, mentions: readonly FieldMention[]): SourceResolution {
  if (given) return { source: given };
  const candidates = COLLECTIONS.filter((c) => mentions.every((m) => hasMention(c, m)));
  if (candidates.length === 1) return { source: candidates[0] as Collection };
  if (candidates.length > 1) {
    return {
      errors: [
        {
          path: '/source',
          message: `is required: the fields named fit ${candidates.join(', ')}; set source to one of them`,
        },
      ],
    };
  }
  const unknown = mentions.filter((m) => !COLLECTIONS.some((c) => hasMention(c, m)));
  if (unknown.length > 0) {
    const known = [...new Set(COLLECTIONS.flatMap((c) => [...CATALOG[c].keys()]))].sort();
    return {
      errors: unknown.map((m) => ({
        path: m.path,
        message: `unknown field '${m.name}'; known fields: ${known.join(', ')}`,
      })),
    };
  }
  return {
    errors: [
      {
        path: '/source',
        message: `is required: no single collection has all the fields named (${[...new Set(mentions.map((m) => m.name))].join(', ')}); set source to one of ${COLLECTIONS.join(', ')}`,
      },
    ],
  };
}
