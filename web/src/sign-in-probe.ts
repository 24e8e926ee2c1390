import { readSignInConfig, SIGN_IN_CONFIG_PATH, type SignInConfig } from './model/sign-in-config';

/**
 * The sign-in settings beside the page (`/sign-in.json`, written by the stack or served by `npm start
 * -- --jwt-issuer`), or undefined where there are none (the local development token, or a deployment
 * that trusts another issuer). Only a page that finds them loads the sign-in code (./auth.ts and
 * oauth4webapi, a chunk of its own): no one else pays for it.
 */
export async function findSignIn(): Promise<SignInConfig | undefined> {
  const response = await fetch(SIGN_IN_CONFIG_PATH, { headers: { accept: 'application/json' } });
  // S3 through CloudFront answers 403 for a missing object
  if (response.status === 404 || response.status === 403) return undefined;
  if (!response.ok) throw new Error(`${SIGN_IN_CONFIG_PATH} answered ${response.status}`);
  const config = readSignInConfig(await response.json().catch(() => undefined));
  if (typeof config === 'string') throw new Error(`${SIGN_IN_CONFIG_PATH} ${config}`);
  return config;
}
