import fc from 'fast-check';
import * as z from 'zod/mini';
import { isOrganizationId } from '#shared/organization';

/** The edge's organization check and the import schema's z.uuid() (shared/locations/schema.ts) agree. */
const zodUuid = z.uuid();

describe('isOrganizationId', () => {
  test('accepts a UUID in either case and refuses what API Gateway makes of other claim values', () => {
    expect(isOrganizationId('7d1b5a52-4c44-4f57-9d0a-5e0d1c1e0a01')).toBe(true);
    expect(isOrganizationId('7D1B5A52-4C44-4F57-9D0A-5E0D1C1E0A01')).toBe(true);
    // JSON null, a number, a boolean and an array as the JWT authorizer passes them on, then free text,
    // a UUID with a space or a newline after it, one without dashes, and a wrong variant (c).
    for (const claim of [
      'null',
      '42',
      'true',
      '[7d1b5a52-4c44-4f57-9d0a-5e0d1c1e0a01]',
      'org-a',
      '',
      '7d1b5a52-4c44-4f57-9d0a-5e0d1c1e0a01 ',
      '7d1b5a52-4c44-4f57-9d0a-5e0d1c1e0a01\n',
      '7d1b5a524c444f579d0a5e0d1c1e0a01',
      '7d1b5a52-4c44-4f57-cd0a-5e0d1c1e0a01',
    ]) {
      expect({ claim, accepted: isOrganizationId(claim) }).toEqual({ claim, accepted: false });
    }
    expect([null, 42, true, ['7d1b5a52-4c44-4f57-9d0a-5e0d1c1e0a01']].some(isOrganizationId)).toBe(false);
  });

  test('gives the same answer as z.uuid() for UUIDs of every version, look-alikes and random strings', () => {
    const hex = fc.constantFrom(...'0123456789abcdefABCDEF');
    const lookAlike = fc
      .tuple(...[8, 4, 4, 4, 12].map((n) => fc.string({ unit: hex, minLength: n, maxLength: n })))
      .map((parts) => parts.join('-'));
    fc.assert(
      fc.property(fc.oneof(fc.uuid({ version: [1, 2, 3, 4, 5, 6, 7, 8] }), lookAlike, fc.string()), (value) => {
        expect(isOrganizationId(value)).toBe(zodUuid.safeParse(value).success);
      }),
      { numRuns: 2000 },
    );
  });
});
