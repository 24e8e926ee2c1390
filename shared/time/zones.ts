/**
 * What an IANA time zone name looks like (`Europe/Berlin`, `America/Argentina/Buenos_Aires`, `UTC`, `Etc/GMT+1`); an
 * offset (`+01:00`) does not.
 */
export const TIME_ZONE_PATTERN = /^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+)*$/;

/**
 * The canonical IANA name of a time zone (as ICU spells it), or undefined when unknown. Offsets such
 * as `+01:00` are refused: they ignore DST, which is rarely what a location means.
 */
export function canonicalTimeZone(name: string): string | undefined {
  if (!TIME_ZONE_PATTERN.test(name)) return undefined;
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    return undefined;
  }
}
