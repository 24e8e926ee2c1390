import * as z from 'zod/mini';

/**
 * What the OpenAPI document says of a zod schema. The schemas that validate requests carry it
 * (shared/report/schema/*), so the document and the validation have one home; the document's
 * component generator (./components.ts) reads it. Validation never reads it: a described or named
 * schema validates exactly as the plain one, with the same messages.
 */
export interface ApiSchemaMeta {
  /** Makes the schema a named component of the document, `#/components/schemas/<id>`. */
  readonly id?: string;
  /** Every component and every property has one (a test walks the document for it). */
  readonly description?: string;
}

/** The schemas the OpenAPI document describes: every one with an `id` becomes a component. */
export const apiSchemas = z.registry<ApiSchemaMeta>();

/**
 * What the document shows instead of a schema, where the service checks more than the zod schema
 * does: a field name is any string to zod, and the plan builder then refuses an unknown one with a
 * message that lists the fields allowed at that place (400 bodies depend on it), while the document
 * lists the names. A component (a schema with an `id`) is shown as its `$ref`.
 */
export const documentedAs = new WeakMap<z.core.$ZodType, z.core.$ZodType>();

/** `schema` as the component `id` (the schema itself is registered: its uses become `$ref`s). */
export function named<S extends z.ZodMiniType>(schema: S, id: string, description: string): S {
  apiSchemas.add(schema, { id, description });
  return schema;
}

/**
 * A copy of `schema` that validates alike and carries its own description (and, optionally, what
 * the document shows instead): one schema such as a 1-128 character name serves many properties, and
 * each property says what it is.
 */
export function described<S extends z.ZodMiniType>(schema: S, description: string, documentAs?: z.core.$ZodType): S {
  const copy = schema.clone();
  apiSchemas.add(copy, { description });
  if (documentAs) documentedAs.set(copy, documentAs);
  return copy;
}
