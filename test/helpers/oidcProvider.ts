import path from 'node:path';
import { spawn } from 'node:child_process';

const FIXTURE = path.resolve(__dirname, '..', 'fixtures', 'oidcProvider.mjs');

export interface OidcProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** Sets who the account signing in as `sub` is (test/fixtures/oidcProvider.mjs). */
  setAccount(sub: string, claims: { email?: string; email_verified?: boolean }): Promise<void>;
  stop(): Promise<void>;
}

/**
 * A real OpenID provider (oidc-provider, ESM only, so `node` runs it outside jest) on a free
 * loopback port, with one confidential client whose redirect URIs are `redirectUris`. Its login
 * names and what they mean: test/fixtures/oidcProvider.mjs.
 */
export async function startOidcProvider(redirectUris: string[]): Promise<OidcProvider> {
  const clientId = 'svc-dashboard';
  const clientSecret = 'a-client-secret-for-tests-only';
  const child = spawn(process.execPath, [FIXTURE], {
    env: { ...process.env, OIDC_TEST_CLIENT_ID: clientId, OIDC_TEST_CLIENT_SECRET: clientSecret, OIDC_TEST_REDIRECT_URIS: redirectUris.join(',') },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stderr!.on('data', (d) => (output += d));
  const issuer = await new Promise<string>((resolve, reject) => {
    let line = '';
    child.stdout!.on('data', (d) => {
      line += d;
      if (line.includes('\n')) resolve(JSON.parse(line.split('\n')[0]).issuer);
    });
    child.once('exit', (code) => reject(new Error(`the OpenID provider exited with ${code}:\n${output}`)));
  });
  return {
    issuer,
    clientId,
    clientSecret,
    async setAccount(sub, claims) {
      const res = await fetch(`${issuer}/test/accounts/${encodeURIComponent(sub)}`, { method: 'PUT', body: JSON.stringify(claims) });
      if (res.status !== 204) throw new Error(`setAccount: ${res.status}`);
    },
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}
