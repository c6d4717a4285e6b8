import { startHarness, createProjectFixture, bearer, Harness, ProjectFixture } from '../helpers/harness';
import { uniqueEmail } from '../helpers/fixtures';

/**
 * The public key (which sits in web pages) gets a share of the project's limit, so a page visitor
 * cannot spend the minute the tenant's server needs: RATE_LIMIT_PER_MINUTE=20, share 0.5, so the
 * public key may make 10 requests and the secret key always keeps the other 10.
 */

let h: Harness;
const LIMIT = 20;
const PUBLIC = 10;

beforeAll(async () => {
  h = await startHarness({ env: { RATE_LIMIT_PER_MINUTE: String(LIMIT), RATE_LIMIT_PUBLIC_SHARE: '0.5' } });
});
afterAll(() => h?.stop());

/** Every request of a test inside one fixed window: start early in a minute. */
async function freshWindow() {
  const intoMinute = Date.now() % 60_000;
  if (intoMinute > 40_000) await new Promise((r) => setTimeout(r, 60_000 - intoMinute + 50));
}

const track = (p: ProjectFixture) => h.http.post('/v1/track').set(bearer(p.publicKey)).send({ email: uniqueEmail(), event: 'page.view' });
const listContacts = (p: ProjectFixture) => h.http.get('/contacts').set(bearer(p.secretKey));

/** Sequential, so each answer's count is the one after the previous request. */
async function times<T>(n: number, f: () => Promise<T>): Promise<T[]> {
  const out: T[] = [];
  for (let i = 0; i < n; i++) out.push(await f());
  return out;
}

describe('the public key share of the rate limit', () => {
  it('stops the public key at its share while the secret key still gets the rest, and no more', async () => {
    const p = await createProjectFixture(h, 'share');
    await freshWindow();
    const pk = await times(PUBLIC + 5, () => track(p));
    expect(pk.map((r) => r.status)).toEqual([...Array(PUBLIC).fill(200), ...Array(5).fill(429)]);
    // The public key's headers speak of its own share.
    expect(pk[0].headers['ratelimit-limit']).toBe(String(PUBLIC));
    expect(pk[0].headers['ratelimit-remaining']).toBe(String(PUBLIC - 1));
    const over = pk[PUBLIC];
    expect(over.body.error.code).toBe('RATE_LIMIT_EXCEEDED');
    expect(over.headers['ratelimit-limit']).toBe(String(PUBLIC));
    expect(over.headers['ratelimit-remaining']).toBe('0');
    expect(Number(over.headers['retry-after'])).toBeGreaterThan(0);

    // The refused public requests took nothing from the secret key: it has LIMIT - PUBLIC left.
    const sk = await times(LIMIT - PUBLIC + 1, () => listContacts(p));
    expect(sk.map((r) => r.status)).toEqual([...Array(LIMIT - PUBLIC).fill(200), 429]);
    expect(sk[0].headers['ratelimit-limit']).toBe(String(LIMIT));
    expect(sk[0].headers['ratelimit-remaining']).toBe(String(LIMIT - PUBLIC - 1));
    // All keys together: exactly the project's limit was served.
    expect([...pk, ...sk].filter((r) => r.status === 200)).toHaveLength(LIMIT);
  });

  it('counts both keys against the one project limit: a secret key that spent it all leaves the public key nothing', async () => {
    const p = await createProjectFixture(h, 'all-keys');
    await freshWindow();
    const sk = await times(LIMIT, () => listContacts(p));
    expect(sk.every((r) => r.status === 200)).toBe(true);
    const pk = await track(p);
    expect(pk.status).toBe(429);
    expect(pk.headers['ratelimit-limit']).toBe(String(PUBLIC));
    expect(pk.headers['ratelimit-remaining']).toBe('0');
  });

  it('serves concurrent public and secret requests within their budgets: never more than the limit, the secret key its whole rest', async () => {
    const p = await createProjectFixture(h, 'burst');
    await freshWindow();
    const [pk, sk] = await Promise.all([
      Promise.all(Array.from({ length: 30 }, () => track(p))),
      Promise.all(Array.from({ length: LIMIT - PUBLIC }, () => listContacts(p))),
    ]);
    expect(pk.filter((r) => r.status === 200)).toHaveLength(PUBLIC);
    expect(sk.filter((r) => r.status === 200)).toHaveLength(LIMIT - PUBLIC);
    expect((await listContacts(p)).status).toBe(429);
  });
});
