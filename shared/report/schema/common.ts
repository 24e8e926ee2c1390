import * as z from 'zod/mini';
import { described } from '../../openapi/registry';
import { FieldNameSchema } from './vocabulary';

/**
 * Schema pieces that several request schemas use: one definition of each limit, one instance (zod schemas are
 * immutable).
 */

/** A field name, a location id, a key of `filters`: 1 to 128 characters. */
export const NAME = z.string().check(z.minLength(1), z.maxLength(128));

export const OPTIONAL_NAME = z.optional(NAME);

export const OPTIONAL_FLAG = z.optional(z.boolean());

/**
 * A field name: any name to zod (the plan builder checks it against the collection and answers
 * with the fields allowed at that place), a FieldName in the OpenAPI document.
 */
export const fieldName = (description: string) => described(NAME, description, FieldNameSchema);
