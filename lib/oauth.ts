/**
 * OAuth providers are configured by environment pairs `OAUTH_<PROVIDER>_CLIENT_ID` and
 * `OAUTH_<PROVIDER>_CLIENT_SECRET`; a provider is listed only when both are set. The client id is
 * public by OAuth's design (it appears in the authorize URL); the secret never leaves the server.
 */
export function oauthProviders(env: NodeJS.ProcessEnv = process.env): Array<{ id: string; clientId: string }> {
  const out: Array<{ id: string; clientId: string }> = [];
  for (const [key, value] of Object.entries(env)) {
    const m = /^OAUTH_([A-Z0-9]+)_CLIENT_ID$/.exec(key);
    if (!m || !value?.trim() || !env[`OAUTH_${m[1]}_CLIENT_SECRET`]?.trim()) continue;
    out.push({ id: m[1].toLowerCase(), clientId: value.trim() });
  }
  return out.sort((a, b) => a.id.localeCompare(b.id));
}
