import * as z from 'zod/mini';

/** Schema pieces that several request schemas use: one definition of each limit, one instance (zod schemas are immutable). */

/** A field name, a location id, a key of `filters`: 1 to 128 characters. */
export const NAME = z.string().check(z.minLength(1), z.maxLength(128));

export const OPTIONAL_NAME = z.optional(NAME);

export const OPTIONAL_FLAG = z.optional(z.boolean());
