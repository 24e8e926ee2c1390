/**
 * The documented form of an organization id (README, "Tokens and identity"): a UUID, exactly as
 * zod's `z.uuid()` accepts it where organizations are imported (shared/locations/schema.ts): RFC 9562
 * versions 1 to 8 with the RFC variant, or the nil and max UUIDs, in either case. Kept as a regex so
 * that the edge checks a token without loading zod; a unit test holds the two to the same answers.
 */
const ORGANIZATION_ID =
  /^(?:[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}|00000000-0000-0000-0000-000000000000|ffffffff-ffff-ffff-ffff-ffffffffffff)$/i;

/** True for a string in the documented form of an organization id. */
export function isOrganizationId(value: unknown): value is string {
  return typeof value === 'string' && ORGANIZATION_ID.test(value);
}
