/**
 * Freezes a value and everything it holds, so that one shared copy (a stored item, a verified token's
 * claims) can be handed to every caller without any of them changing it for the others.
 */
export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}
