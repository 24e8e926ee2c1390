import fc from 'fast-check';
import type * as z from 'zod/mini';
import { DOCUMENT_SCHEMAS, FAST_PARSERS } from '#shared/documents/documents';
import type { Collection } from '#shared/documents/fields';

/**
 * The fast parse of the common valid document (shared/documents/fast-parse.ts) against zod, the
 * validator of the contract: on any input it gives zod's output exactly (same values, same key
 * order) or gives up, so that every refusal and its messages stay zod's; and it does not give up on
 * the valid documents gateways send, or it would save nothing.
 */
const COLLECTIONS = Object.keys(DOCUMENT_SCHEMAS) as Collection[];

const digits = (n: number, max: number) => fc.integer({ min: 0, max }).map((v) => String(v).padStart(n, '0'));
/**
 * ISO 8601-like text, mostly well formed, sometimes not (month 13, day 31 of a short month, 29 February of a common
 * year, a zone without a colon...).
 */
const timestampText = fc
  .tuple(
    digits(4, 9999),
    digits(2, 13),
    digits(2, 32),
    fc.constantFrom('T', 't', ' '),
    digits(2, 24),
    digits(2, 60),
    digits(2, 60),
    fc.constantFrom('', '.5', '.123', '.123456789', '.'),
    fc.constantFrom('Z', 'z', '+01:00', '-05:30', '+24:00', '+0100', '', '+01'),
  )
  .map(([y, mo, d, t, h, mi, s, f, zone]) => `${y}-${mo}-${d}${t}${h}:${mi}:${s}${f}${zone}`);
/** Valid from 1970 on (shared/time/timestamps.ts); the years before are among timestampText's, refused. */
const validTimestamp = fc
  .date({ min: new Date('1970-01-01T00:00:00Z'), max: new Date('9999-12-31T23:59:59Z'), noInvalidDate: true })
  .map((d) => d.toISOString());
const someText = fc.oneof(
  fc.string({ maxLength: 4 }),
  fc.string({ unit: 'binary', maxLength: 4 }),
  fc.string({ minLength: 510, maxLength: 514 }),
  fc.constant(''),
);
const someNumber = fc.oneof(
  fc.double(),
  fc.integer(),
  fc.constantFrom(-0, -1, 0.5, 1e6, 1e6 + 1, 1e9, 1e9 + 0.5, -1e308, 1e308, Number.NaN, Number.POSITIVE_INFINITY, '1'),
);
const someDirection = fc.constantFrom('A', 'B', 'C', 'a', '');
/** Any JSON-like value, or any value at all, where a field's kind is wrong. */
const wild = fc.oneof(
  fc.jsonValue(),
  fc.anything({ withNullPrototype: true, withObjectString: true, withBoxedValues: true, withSparseArray: true }),
);
const maybeWild = <T>(arb: fc.Arbitrary<T>) => fc.oneof({ weight: 8, arbitrary: arb }, { weight: 1, arbitrary: wild });
/** An object with some of `fields`, sometimes an unknown one too. */
const someObject = (fields: Record<string, fc.Arbitrary<unknown>>) =>
  fc
    .tuple(
      fc.record(fields, { requiredKeys: [] }),
      fc.option(fc.tuple(fc.constantFrom('extra', '__proto__', 'toString', 'ID'), wild)),
    )
    .map(([o, extra]) => {
      if (extra)
        Object.defineProperty(o, extra[0], { value: extra[1], enumerable: true, writable: true, configurable: true });
      return o;
    });

const arbitraryField: Record<string, fc.Arbitrary<unknown>> = {
  id: maybeWild(someText),
  organizationId: maybeWild(someText),
  locationId: maybeWild(someText),
  timestamp: maybeWild(fc.oneof(validTimestamp, timestampText)),
  startingTimestamp: maybeWild(fc.oneof(validTimestamp, timestampText)),
  trackingCameraId: maybeWild(someText),
  label: maybeWild(someText),
  parkingLotId: maybeWild(someText),
  cameraId: maybeWild(someText),
  spotId: maybeWild(someText),
  occupied: maybeWild(someNumber),
  free: maybeWild(someNumber),
  total: maybeWild(someNumber),
  duration: maybeWild(someNumber),
  crossedPaths: maybeWild(
    fc.array(
      maybeWild(
        someObject({ id: maybeWild(someText), end: maybeWild(someDirection), start: maybeWild(someDirection) }),
      ),
      { maxLength: 3 },
    ),
  ),
  polygons: maybeWild(
    fc.array(maybeWild(someObject({ id: maybeWild(someText), value: maybeWild(someNumber) })), { maxLength: 3 }),
  ),
};

/** Documents of `collection`, valid or not: its own fields, each of the right kind more often than not. */
const anyDocument = (collection: Collection) =>
  someObject(
    Object.fromEntries(
      Object.keys(DOCUMENT_SCHEMAS[collection].shape).map((f) => [f, arbitraryField[f] as fc.Arbitrary<unknown>]),
    ),
  );

const text = fc.string({ minLength: 1, maxLength: 30 });
const validField: Record<string, fc.Arbitrary<unknown>> = {
  id: text,
  organizationId: text,
  locationId: text,
  timestamp: validTimestamp,
  startingTimestamp: validTimestamp,
  trackingCameraId: text,
  label: text,
  parkingLotId: text,
  cameraId: text,
  spotId: text,
  // Within the bounds of each number (shared/documents/documents.ts): spots and seconds from 0.
  occupied: fc.double({ min: 0, max: 1_000_000, noNaN: true }),
  free: fc.double({ min: 0, max: 1_000_000, noNaN: true }),
  total: fc.double({ min: 0, max: 1_000_000, noNaN: true }),
  duration: fc.double({ min: 0, max: 1e9, noNaN: true }),
  crossedPaths: fc.array(
    fc.record(
      { id: text, end: fc.constantFrom('A', 'B'), start: fc.constantFrom('A', 'B') },
      { requiredKeys: ['id', 'end'] },
    ),
    { maxLength: 4 },
  ),
  polygons: fc.array(fc.record({ id: text, value: fc.double({ min: 0, max: 1e9, noNaN: true }) }), { maxLength: 4 }),
};

/** Valid documents as a gateway sends them: JSON text, parsed. */
const validDocument = (collection: Collection) => {
  const shape = DOCUMENT_SCHEMAS[collection].shape as Record<string, z.ZodMiniType>;
  const required = Object.keys(shape).filter((f) => shape[f]?._zod.def.type !== 'optional');
  return fc
    .record(Object.fromEntries(Object.keys(shape).map((f) => [f, validField[f] as fc.Arbitrary<unknown>])), {
      requiredKeys: required,
    })
    .map((d) => JSON.parse(JSON.stringify(d)) as unknown);
};

/** Every object in a JSON value with its keys, to pick one to change. */
function slots(value: unknown, out: [Record<string, unknown>, string][] = []): [Record<string, unknown>, string][] {
  if (Array.isArray(value)) for (const v of value) slots(v, out);
  else if (typeof value === 'object' && value !== null) {
    for (const [k, v] of Object.entries(value)) {
      out.push([value as Record<string, unknown>, k]);
      slots(v, out);
    }
  }
  return out;
}

/**
 * A valid document with one thing changed: a value replaced (often by one of another field's kind), a key removed, or
 * an unknown key added.
 */
const nearlyValid = (collection: Collection) =>
  fc
    .tuple(
      validDocument(collection),
      fc.nat(),
      fc.constantFrom('replace', 'remove', 'add'),
      fc.oneof(someText, someNumber, someDirection, timestampText, validTimestamp, wild),
    )
    .map(([document, pick, change, value]) => {
      const all = slots(document);
      const [owner, key] = all[pick % all.length] as [Record<string, unknown>, string];
      if (change === 'replace') owner[key] = value;
      else if (change === 'remove') delete owner[key];
      else owner[`${key}_`] = value;
      return document;
    });

/** zod's answer and the fast parse's agree: the same output (values and key order), or the fast parse gave up. */
function agrees(collection: Collection, input: unknown): void {
  const fast = FAST_PARSERS[collection]?.(input);
  if (fast === undefined) return;
  const zod = DOCUMENT_SCHEMAS[collection].safeParse(input);
  expect(zod.success).toBe(true);
  expect(fast).toStrictEqual(zod.data);
  expect(JSON.stringify(fast)).toBe(JSON.stringify(zod.data));
}

describe.each(COLLECTIONS)('the fast parse of %s', (collection) => {
  test('gives what zod gives, or gives up, on any input', () => {
    fc.assert(
      fc.property(anyDocument(collection), (input) => {
        agrees(collection, input);
        agrees(collection, JSON.parse(JSON.stringify(input) ?? 'null') as unknown);
      }),
      { numRuns: 3000 },
    );
  });

  test('gives what zod gives, or gives up, on a valid document with one thing changed', () => {
    fc.assert(
      fc.property(nearlyValid(collection), (input) => agrees(collection, input)),
      { numRuns: 3000 },
    );
  });

  test('parses every valid document a gateway sends itself (what makes it fast)', () => {
    fc.assert(
      fc.property(validDocument(collection), (input) => {
        const fast = FAST_PARSERS[collection]?.(input);
        expect(fast).toBeDefined();
        expect(fast).toStrictEqual(DOCUMENT_SCHEMAS[collection].safeParse(input).data);
      }),
      { numRuns: 1000 },
    );
  });

  test('gives up on documents zod refuses, so their errors stay zod’s', () => {
    // Prepare: by hand, one of each way a document is refused
    const ok = { organizationId: 'o', locationId: 'l', timestamp: '2024-02-29T00:00:00+01:00' };
    const refused = [
      { ...ok, extra: 1 },
      { ...ok, locationId: '' },
      { ...ok, locationId: 'x'.repeat(513) },
      { ...ok, timestamp: '2023-02-29T00:00:00Z' },
      { ...ok, timestamp: '2024-03-01T00:00:00' },
      { organizationId: 'o', locationId: 'l' },
      { ...ok, id: undefined },
      Object.assign(Object.create(null) as object, ok),
    ];
    // Act, Assess
    expect(refused.map((d) => FAST_PARSERS[collection]?.(d))).toEqual(refused.map(() => undefined));
    expect(FAST_PARSERS[collection]?.(ok)).toEqual(ok);
  });
});

test('the fast parse of movementEvents gives up on a path without a valid end or a polygon without a finite value', () => {
  const ok = { organizationId: 'o', locationId: 'l', timestamp: '2024-02-29T00:00:00Z' };
  const parse = FAST_PARSERS.movementEvents as (v: unknown) => unknown;
  expect(parse({ ...ok, crossedPaths: [{ id: 'n', end: 'C' }] })).toBeUndefined();
  expect(parse({ ...ok, polygons: [{ id: 'p', value: Number.POSITIVE_INFINITY }] })).toBeUndefined();
  expect(parse({ ...ok, crossedPaths: [{ end: 'B', id: 'n' }], polygons: [{ value: -0, id: 'p' }] })).toStrictEqual({
    ...ok,
    crossedPaths: [{ id: 'n', end: 'B' }],
    polygons: [{ id: 'p', value: -0 }],
  });
});
