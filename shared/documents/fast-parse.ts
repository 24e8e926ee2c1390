import type * as z from 'zod/mini';

/**
 * A schema's output for the inputs it surely accepts, else undefined ("not sure": ask zod).
 *
 * zod stays the validator (./documents.ts): a fast parse is a shortcut for the common valid
 * document, built from the schema itself, that gives exactly what `schema.safeParse(input).data`
 * gives (fresh objects and arrays, keys in the shape's order, absent optional keys absent) and
 * gives up on anything else: a value of another kind, an unknown or inherited key, a key set to
 * undefined, an object that is not plain, a schema part it does not know. Refusals and their
 * messages therefore always come from zod. Validating a document with zod cost more than parsing
 * and hashing it together (bench/README.md, "Ingest").
 */
export type FastParse = (input: unknown) => unknown;

/**
 * What the fast parse may check itself: leaf schemas (by identity, the very objects the shapes are
 * built from) and the test that is exactly what each accepts.
 */
export type Leaves = ReadonlyMap<z.ZodMiniType, (value: unknown) => boolean>;

/**
 * A fast parse of `schema` (a strict object whose parts are leaves, optional, arrays and strict objects), or undefined
 * when some part is none of those.
 */
export function fastParser(schema: z.ZodMiniType, leaves: Leaves): FastParse | undefined {
  const leaf = leaves.get(schema);
  if (leaf) return (value) => (leaf(value) ? value : undefined);
  const def = schema._zod.def as unknown as Def;
  if (def.checks !== undefined && def.checks.length > 0) return undefined;
  if (def.type === 'array') {
    const element = def.element && fastParser(def.element, leaves);
    return element && arrayParser(element);
  }
  if (def.type === 'object' && def.catchall?._zod.def.type === 'never' && def.shape)
    return objectParser(def.shape, leaves);
  return undefined;
}

interface Def {
  readonly type: string;
  readonly checks?: readonly unknown[];
  readonly element?: z.ZodMiniType;
  readonly shape?: Readonly<Record<string, z.ZodMiniType>>;
  readonly catchall?: z.ZodMiniType;
  readonly innerType?: z.ZodMiniType;
}

interface Field {
  readonly name: string;
  readonly optional: boolean;
  readonly parse: FastParse;
}

function arrayParser(element: FastParse): FastParse {
  return (input) => {
    if (!Array.isArray(input) || Object.getPrototypeOf(input) !== Array.prototype) return undefined;
    const out = new Array<unknown>(input.length);
    for (let i = 0; i < input.length; i++) {
      const value = element(input[i]);
      if (value === undefined) return undefined;
      out[i] = value;
    }
    return out;
  };
}

function objectParser(shape: Readonly<Record<string, z.ZodMiniType>>, leaves: Leaves): FastParse | undefined {
  const fields: Field[] = [];
  for (const [name, schema] of Object.entries(shape)) {
    const def = schema._zod.def as unknown as Def;
    const optional = def.type === 'optional';
    const parse = fastParser(optional ? (def.innerType as z.ZodMiniType) : schema, leaves);
    if (!parse) return undefined;
    fields.push({ name, optional, parse });
  }
  return (input) => {
    if (typeof input !== 'object' || input === null || Object.getPrototypeOf(input) !== Object.prototype)
      return undefined;
    const object = input as Record<string, unknown>;
    const out: Record<string, unknown> = {};
    let present = 0;
    for (const { name, optional, parse } of fields) {
      if (!Object.hasOwn(object, name)) {
        if (optional) continue;
        return undefined;
      }
      const value = parse(object[name]);
      if (value === undefined) return undefined;
      out[name] = value;
      present++;
    }
    // Every enumerable key, own or inherited, must be one of the shape's (present and parsed above).
    let keys = 0;
    for (const _ in object) keys++;
    return keys === present ? out : undefined;
  };
}
