import type { OAuthProviderConfig } from './config';

/**
 * The sign-in providers as clients may see them (config.oauthProviders, from the
 * `OAUTH_<PROVIDER>_CLIENT_ID` / `_CLIENT_SECRET` pairs). The client id is public by OAuth's design
 * (it appears in the authorize URL); the secret never leaves the server.
 */
export function oauthProviders(providers: OAuthProviderConfig[]): Array<{ id: string; clientId: string }> {
  return providers.map(({ id, clientId }) => ({ id, clientId }));
}
