/**
 * The canonical IANA name of a time zone (as ICU spells it), or undefined when unknown. Offsets such
 * as `+01:00` are refused: they ignore DST, which is rarely what a location means.
 */
export function canonicalTimeZone(name: string): string | undefined {
  if (!/^[A-Za-z][A-Za-z0-9_+\-]*(\/[A-Za-z0-9_+\-]+)*$/.test(name)) return undefined;
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    return undefined;
  }
}
