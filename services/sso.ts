import crypto from 'node:crypto';
import { pathToFileURL } from 'node:url';
import type * as OpenIdClient from 'openid-client';
import type { SsoConfig } from '../lib/config';
import type { ProviderIdentity } from '../db/userIdentities';

/**
 * Single sign-on with OpenID Connect (docs/security.md "Single sign-on"): discovery from the
 * issuer, the authorization code flow with PKCE (S256), a fresh `state` and `nonce` per attempt,
 * the ID token validated by openid-client, then the checks on the address the provider vouches for.
 */

type Client = typeof OpenIdClient;

/**
 * openid-client v6 is ESM only and this project compiles to CommonJS, where TypeScript rewrites
 * `import()` into `require()`. A function built at run time keeps a real `import()`. It is loaded
 * only when a sign-in starts, so the processes that never use SSO (and jest, whose CommonJS sandbox
 * refuses `import()`; test/integration/sso.test.ts runs the API in a child process) never load it.
 */
const esmImport = new Function('specifier', 'return import(specifier)') as (specifier: string) => Promise<Client>;
let loading: Promise<Client> | undefined;
function openIdClient(): Promise<Client> {
  loading ??= esmImport(pathToFileURL(require.resolve('openid-client')).href).catch((err) => {
    loading = undefined;
    throw err;
  });
  return loading;
}

/** Discovery documents are fetched once and then at most hourly, so a provider that moved its endpoints is followed. */
const DISCOVERY_TTL_MS = 60 * 60 * 1000;
const discovered = new WeakMap<SsoConfig, { at: number; config: Promise<OpenIdClient.Configuration> }>();

async function providerConfig(sso: SsoConfig): Promise<{ client: Client; config: OpenIdClient.Configuration }> {
  const client = await openIdClient();
  let entry = discovered.get(sso);
  if (!entry || Date.now() - entry.at > DISCOVERY_TTL_MS) {
    const issuer = new URL(sso.issuer);
    // lib/config.ts allows plain http only for a provider on this machine.
    const execute = issuer.protocol === 'http:' ? [client.allowInsecureRequests] : [];
    const config = client.discovery(issuer, sso.clientId, undefined, client.ClientSecretBasic(sso.clientSecret), { execute, timeout: 10 });
    entry = { at: Date.now(), config };
    discovered.set(sso, entry);
    // A provider that was down is asked again by the next attempt, not remembered as down.
    config.catch(() => discovered.get(sso) === entry && discovered.delete(sso));
  }
  return { client, config: await entry.config };
}

/** What one attempt must find again on its callback; kept in the browser in a signed cookie (api/routes/sso.ts). */
export interface SsoAttempt {
  state: string;
  nonce: string;
  /** The PKCE code verifier; the provider only ever sees its S256 challenge. */
  verifier: string;
}

export async function beginSignIn(sso: SsoConfig, redirectUri: string): Promise<{ url: string; attempt: SsoAttempt }> {
  const { client, config } = await providerConfig(sso);
  const attempt: SsoAttempt = { state: client.randomState(), nonce: client.randomNonce(), verifier: client.randomPKCECodeVerifier() };
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: redirectUri,
    scope: 'openid email profile',
    response_type: 'code',
    code_challenge: await client.calculatePKCECodeChallenge(attempt.verifier),
    code_challenge_method: 'S256',
    state: attempt.state,
    nonce: attempt.nonce,
  });
  return { url: url.href, attempt };
}

/** Why a callback signs nobody in; the login screen has a sentence for each (web/src/pages/Auth.tsx). */
export type SsoRefusal = 'state' | 'denied' | 'email_missing' | 'email_unverified' | 'domain' | 'signups_disabled' | 'failed';

export type SsoOutcome = { identity: ProviderIdentity } | { refused: SsoRefusal; cause?: unknown };

const EMAIL = /^[^\s@]{1,64}@[^\s@]{1,253}$/;

/**
 * Validates the provider's answer (`callbackUrl`: the redirect URI with the query it came back
 * with) against the attempt: state, the code exchange with the PKCE verifier, the ID token
 * (signature, issuer, audience, expiry, nonce), then the address.
 */
export async function finishSignIn(sso: SsoConfig, callbackUrl: URL, attempt: SsoAttempt | null): Promise<SsoOutcome> {
  const returnedState = callbackUrl.searchParams.get('state');
  // Checked before anything else: a callback that is not the answer to this browser's own attempt is refused unread.
  if (!attempt || returnedState === null || !sameText(returnedState, attempt.state)) return { refused: 'state' };
  let client: Client;
  let config: OpenIdClient.Configuration;
  let claims: Record<string, unknown>;
  try {
    ({ client, config } = await providerConfig(sso));
    const tokens = await client.authorizationCodeGrant(config, callbackUrl, {
      pkceCodeVerifier: attempt.verifier,
      expectedState: attempt.state,
      expectedNonce: attempt.nonce,
      idTokenExpected: true,
    });
    claims = { ...tokens.claims()! };
    // Providers may keep the address out of the ID token in the code flow: then it comes from the
    // UserInfo endpoint, whose `sub` openid-client checks against the ID token's.
    if (claims.email === undefined && tokens.access_token) {
      const info = await client.fetchUserInfo(config, tokens.access_token, claims.sub as string);
      claims = { ...info, ...claims, email: info.email, email_verified: info.email_verified };
    }
  } catch (cause) {
    const error = (cause as { error?: unknown }).error;
    if ((cause as Error)?.name === 'AuthorizationResponseError' && error === 'access_denied') return { refused: 'denied', cause };
    return { refused: 'failed', cause };
  }
  const email = typeof claims.email === 'string' ? claims.email.trim() : '';
  if (!email || !EMAIL.test(email)) return { refused: 'email_missing' };
  // Some providers send the flag as a string.
  if (claims.email_verified !== true && claims.email_verified !== 'true') return { refused: 'email_unverified' };
  if (!domainAllowed(email, sso.allowedDomains)) return { refused: 'domain' };
  return { identity: { issuer: String(claims.iss), subject: String(claims.sub), email } };
}

/** OIDC_ALLOWED_DOMAINS names exact domains: `example.com` admits `a@example.com`, not `a@evil-example.com` nor `a@sub.example.com`. */
export function domainAllowed(email: string, allowed: string[] | undefined): boolean {
  if (!allowed) return true;
  const domain = email.slice(email.lastIndexOf('@') + 1).toLowerCase();
  return allowed.includes(domain);
}

function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && crypto.timingSafeEqual(x, y);
}
