import { createHash } from 'node:crypto';

/** Namespace of generated location ids (a fixed random UUID; never change it: ids would change). */
export const LOCATION_ID_NAMESPACE = '8f7c2d0e-5b1a-4c3e-9a6d-2f4b8e1c7a90';

/** RFC 9562 version 5 UUID (SHA-1, name-based): the same name always gives the same id. */
export function uuidV5(name: string, namespace: string = LOCATION_ID_NAMESPACE): string {
  const ns = Buffer.from(namespace.replace(/-/g, ''), 'hex');
  const hash = createHash('sha1').update(ns).update(name, 'utf8').digest();
  hash[6] = ((hash[6] as number) & 0x0f) | 0x50;
  hash[8] = ((hash[8] as number) & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * The id of a location given without one: derived from its organization, type and time zone and its
 * rank among the file's id-less locations with those three values, so a re-run of the same file
 * finds the same locations (editing their sensor groups keeps the id; give ids to be safe from
 * reordering).
 */
export function generatedLocationId(organizationId: string, type: string, timezone: string, ordinal: number): string {
  return uuidV5(JSON.stringify([organizationId, type, timezone, ordinal]));
}
