import type * as z from 'zod/mini';
import { ValidationError, type FieldError } from './errors';

/**
 * zod at the edge: parse, and on failure turn every issue into a `{ path, message }` pair whose
 * message names what is allowed. zod/mini carries no locale, so the messages are ours.
 */
export function parseOrThrow<S extends z.ZodMiniType>(schema: S, input: unknown, pathPrefix = ''): z.infer<S> {
  const result = schema.safeParse(input, { reportInput: true });
  if (result.success) return result.data as z.infer<S>;
  throw new ValidationError(issuesToErrors(schema, input, result.error.issues, pathPrefix));
}

/**
 * Like parseOrThrow, but when the only problems are unknown properties it still returns the data
 * (those properties removed) with the errors, so that later checks can add theirs to one answer.
 */
export function parseCollecting<S extends z.ZodMiniType>(
  schema: S,
  input: unknown,
): { readonly data: z.infer<S>; readonly errors: FieldError[] } {
  const result = schema.safeParse(input, { reportInput: true });
  if (result.success) return { data: result.data as z.infer<S>, errors: [] };
  const issues = result.error.issues;
  const errors = issuesToErrors(schema, input, issues);
  if (!issues.every((i) => i.code === 'unrecognized_keys')) throw new ValidationError(errors);
  const stripped = structuredClone(input) as Record<PropertyKey, unknown>;
  for (const issue of issues) {
    const owner = issue.path.reduce<unknown>((o, k) => (o as Record<PropertyKey, unknown>)?.[k], stripped) as Record<
      string,
      unknown
    >;
    if (issue.code === 'unrecognized_keys') for (const key of issue.keys) delete owner[key];
  }
  return { data: parseOrThrow(schema, stripped), errors };
}

/** JSON Pointer (RFC 6901) for a path of keys and indices. */
export function pointer(path: readonly PropertyKey[]): string {
  return path.map((p) => `/${String(p).replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');
}

export function issuesToErrors(
  schema: z.ZodMiniType,
  input: unknown,
  issues: readonly z.core.$ZodIssue[],
  pathPrefix = '',
): FieldError[] {
  const errors: FieldError[] = [];
  for (const issue of issues) {
    if (issue.code === 'unrecognized_keys') {
      const allowed = allowedKeysAt(schema, input, issue.path);
      for (const key of issue.keys) {
        errors.push({
          path: pathPrefix + pointer([...issue.path, key]),
          message: `unknown property${allowed ? `; allowed: ${allowed.join(', ')}` : ''}`,
        });
      }
      continue;
    }
    errors.push({ path: pathPrefix + pointer(issue.path), message: messageOf(issue) });
  }
  return errors;
}

function messageOf(issue: z.core.$ZodIssue): string {
  if (issue.message && issue.message !== 'Invalid input') return issue.message;
  switch (issue.code) {
    case 'invalid_type':
      return issue.input === undefined ? `is required (${issue.expected})` : `must be ${article(issue.expected)}`;
    case 'too_small':
      return issue.origin === 'array'
        ? `must have at least ${issue.minimum} item${issue.minimum === 1 ? '' : 's'}`
        : `must be at least ${issue.minimum} characters`;
    case 'too_big':
      return issue.origin === 'array'
        ? `must have at most ${issue.maximum} items`
        : `must be at most ${issue.maximum} characters`;
    case 'invalid_value':
      return `must be one of: ${issue.values.map((v) => String(v)).join(', ')}`;
    case 'invalid_union': {
      const options = (issue as { options?: unknown[] }).options;
      return options ? `must be one of: ${options.join(', ')}` : 'does not match any allowed form';
    }
    case 'invalid_format':
      return `has an invalid format (${issue.format})`;
    default:
      return 'is invalid';
  }
}

function article(type: string): string {
  return type === 'array' || type === 'object' ? `an ${type}` : `a ${type}`;
}

type Def = {
  type: string;
  shape?: Record<string, z.ZodMiniType>;
  element?: z.ZodMiniType;
  innerType?: z.ZodMiniType;
  valueType?: z.ZodMiniType;
  options?: z.ZodMiniType[];
  discriminator?: string;
};
const defOf = (s: z.ZodMiniType): Def => (s as unknown as { _zod: { def: Def } })._zod.def;

/** Walks the schema along an issue path (following the data through unions) to list an object's keys. */
function allowedKeysAt(schema: z.ZodMiniType, input: unknown, path: readonly PropertyKey[]): string[] | undefined {
  let s: z.ZodMiniType | undefined = schema;
  let value: unknown = input;
  let i = 0;
  while (s) {
    const def = defOf(s);
    if (def.type === 'optional' || def.type === 'nullable' || def.type === 'default') {
      s = def.innerType;
      continue;
    }
    if (def.type === 'union' && def.options) {
      s = pickOption(def, value);
      continue;
    }
    if (i === path.length) return def.type === 'object' && def.shape ? Object.keys(def.shape) : undefined;
    const key = path[i++] as PropertyKey;
    value = (value as Record<PropertyKey, unknown> | undefined)?.[key];
    if (def.type === 'object') s = def.shape?.[String(key)];
    else if (def.type === 'array') s = def.element;
    else if (def.type === 'record') s = def.valueType;
    else return undefined;
  }
  return undefined;
}

function pickOption(def: Def, value: unknown): z.ZodMiniType | undefined {
  const options = def.options ?? [];
  if (def.discriminator && value && typeof value === 'object') {
    const tag = (value as Record<string, unknown>)[def.discriminator];
    return options.find((o) => {
      const literal = defOf(o).shape?.[def.discriminator as string];
      const values = literal ? (defOf(literal) as { values?: unknown[] }).values : undefined;
      return values?.includes(tag);
    });
  }
  return options.find((o) => o.safeParse(value).success);
}
