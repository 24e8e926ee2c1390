/**
 * The signed-in session and the sign-in in progress, kept in the tab's sessionStorage (see
 * docs/explorer.md, "Signing in", for why there and not in memory alone): the tab forgets both when it
 * closes, other tabs never see them, and a reload keeps the person signed in and the report in the URL.
 */
export interface Session {
  /** The ID token the API verifies (its audience is the explorer's client; it carries the organization). */
  readonly idToken: string;
  readonly refreshToken?: string;
  /** When the ID token expires, in ms since the epoch (its `exp`). */
  readonly expiresAt: number;
  /** Who is signed in, as the page shows it: email, else preferred_username, else sub. */
  readonly name: string;
}

/** What the page keeps across the redirect to the provider and back. */
export interface PendingSignIn {
  readonly state: string;
  readonly nonce: string;
  readonly codeVerifier: string;
  /** The page's URL (path, query, fragment) before the sign-in, restored after it. */
  readonly returnTo: string;
}

const SESSION_KEY = 'lrs-session';
const PENDING_KEY = 'lrs-sign-in';

function read<T>(storage: Storage, key: string, valid: (v: Record<string, unknown>) => boolean): T | undefined {
  try {
    const value = JSON.parse(storage.getItem(key) ?? 'null') as unknown;
    return typeof value === 'object' && value !== null && valid(value as Record<string, unknown>)
      ? (value as T)
      : undefined;
  } catch {
    return undefined;
  }
}

export const readSession = (storage: Storage): Session | undefined =>
  read<Session>(
    storage,
    SESSION_KEY,
    (v) => typeof v.idToken === 'string' && typeof v.expiresAt === 'number' && typeof v.name === 'string',
  );
export const writeSession = (storage: Storage, session: Session): void =>
  storage.setItem(SESSION_KEY, JSON.stringify(session));

export const readPending = (storage: Storage): PendingSignIn | undefined =>
  read<PendingSignIn>(storage, PENDING_KEY, (v) =>
    ['state', 'nonce', 'codeVerifier', 'returnTo'].every((k) => typeof v[k] === 'string'),
  );
export const writePending = (storage: Storage, pending: PendingSignIn): void =>
  storage.setItem(PENDING_KEY, JSON.stringify(pending));

/** Forgets the session and any sign-in in progress. */
export function forget(storage: Storage): void {
  storage.removeItem(SESSION_KEY);
  storage.removeItem(PENDING_KEY);
}
export const forgetPending = (storage: Storage): void => storage.removeItem(PENDING_KEY);

/** Renew this long before the ID token expires, so no request goes out with a token about to lapse. */
export const RENEW_BEFORE_MS = 60_000;

/** When to renew a session: a minute before it expires, at once if that has passed. */
export const renewDelayMs = (session: Pick<Session, 'expiresAt'>, now: number): number =>
  Math.max(0, session.expiresAt - RENEW_BEFORE_MS - now);

/** The name the page shows for the signed-in person. */
export function displayName(claims: Readonly<Record<string, unknown>>): string {
  for (const key of ['email', 'preferred_username', 'sub'])
    if (typeof claims[key] === 'string' && claims[key]) return claims[key] as string;
  return 'signed in';
}
