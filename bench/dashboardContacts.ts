/**
 * The dashboard's contacts page on a project with 100,000 contacts (issue 24: "opens its contacts
 * page in under a second on this machine — a benchmark, not a test").
 *
 * Starts the real stack (API on a fresh database, Temporal dev server), signs a user up through
 * /auth/signup and creates a project through /users/@me/projects (as bench/stack.ts benchProject does), seeds
 * the project's contacts with one INSERT … SELECT generate_series, builds web/dist when missing or
 * stale, then:
 *   - times the API's first page alone: GET /contacts?limit=25&sort=createdAt&dir=desc with the
 *     session cookie and X-Project-Id, as the page asks it (RUNS times, after one warm-up);
 *   - drives Debian chromium (puppeteer-core, test/helpers/browser.ts) to /app/p/<id>/contacts,
 *     RUNS fresh loads, each timed from the navigation's start to the first row of the
 *     "Contacts" table being visible (HTTP cache disabled, so every load fetches the JS again).
 * Prints median and max of both. Nothing asserts on time.
 *
 * Usage: npm run bench -- dashboardContacts [N] [RUNS]   (defaults 100,000 and 5)
 */
import http from 'node:http';
import { startStack, percentile } from './stack';
import { launchBrowser } from '../test/helpers/browser';
import { ensureDashboardBuilt } from '../scripts/buildWeb';

const N = Number(process.argv[2] ?? 100_000);
const RUNS = Number(process.argv[3] ?? 5);

const summary = (ms: number[]) => {
  const s = [...ms].sort((a, b) => a - b);
  return `median ${percentile(s, 50).toFixed(0).padStart(5)} ms   max ${s[s.length - 1].toFixed(0).padStart(5)} ms   (${s.map((x) => x.toFixed(0)).join(', ')})`;
};

/** One GET over a fresh connection, as a browser's first request would be; resolves the status. */
function get(url: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      })
      .on('error', reject);
  });
}

async function main() {
  await ensureDashboardBuilt((line) => console.log(line));
  const stack = await startStack();
  const tb = await launchBrowser();
  try {
    // A user who is a member (the owner) of the project, signed in with a real session cookie.
    const email = `bench-dash-${Date.now()}@example.test`;
    const signup = await fetch(`${stack.url}/auth/signup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, password: 'bench password' }),
    });
    if (signup.status >= 300) throw new Error(`signup: ${signup.status} ${await signup.text()}`);
    const cookie = signup.headers.get('set-cookie')!.split(';')[0];
    const created = await fetch(`${stack.url}/users/@me/projects`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie },
      body: JSON.stringify({ name: 'bench contacts' }),
    });
    const projectId = ((await created.json()) as { id: string }).id;

    const t0 = performance.now();
    // Ids shaped like lib/ids contactId's (a prefix growing in creation order, then random characters).
    await stack.knex.raw(
      `INSERT INTO contacts (id, project_id, email, subscribed, data, created_at, updated_at)
       SELECT 'cnt_' || lpad(g::text, 9, '0') || substr(md5(g::text), 1, 13), ?, 'user' || g || '@bench.example', g % 10 <> 0,
              jsonb_build_object('plan', (ARRAY['free', 'pro', 'team'])[1 + g % 3]),
              now() - (? - g) * interval '1 second', now()
         FROM generate_series(1, ?::int) g`,
      [projectId, N, N],
    );
    await stack.knex.raw('ANALYZE contacts');
    console.log(`seeded ${N.toLocaleString('en')} contacts in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

    // The API's first page alone, as the page asks it.
    const headers = { cookie, 'x-project-id': projectId, accept: 'application/json' };
    const first = `${stack.url}/contacts?limit=25&sort=createdAt&dir=desc`;
    const warm = await get(first, headers);
    if (warm.status !== 200) throw new Error(`GET /contacts: ${warm.status} ${warm.body}`);
    const total = (JSON.parse(warm.body) as { total?: number }).total;
    const apiTimes: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const s = performance.now();
      const r = await get(first, headers);
      apiTimes.push(performance.now() - s);
      if (r.status !== 200) throw new Error(`GET /contacts: ${r.status}`);
    }

    // The page in Chromium: a fresh tab per load, the session cookie set, the HTTP cache off.
    const [name, value] = [cookie.slice(0, cookie.indexOf('=')), cookie.slice(cookie.indexOf('=') + 1)];
    await tb.browser.setCookie({ name, value, domain: new URL(stack.url).hostname, path: '/' });
    const pageUrl = `${stack.url}/app/p/${projectId}/contacts`;
    /** RUNS loads (after one uncounted warm-up), each in a fresh tab; with `cache` false the JS is fetched every time. */
    const loads = async (cache: boolean) => {
      const rows: number[] = [];
      const asked: number[] = [];
      const api: number[] = [];
      for (let i = 0; i < RUNS + 1; i++) {
        const page = await tb.browser.newPage();
        await page.setViewport({ width: 1280, height: 800 });
        await page.setCacheEnabled(cache);
        await page.goto(pageUrl, { waitUntil: 'domcontentloaded' });
        // Polled on every animation frame inside the page: the page's own clock, whose zero is the
        // navigation's start, read when the first row is laid out and visible.
        const handle = await page.waitForFunction(
          () => {
            const tr = (globalThis as any).document.querySelector('table[aria-label="Contacts"] tbody tr');
            return tr && tr.getBoundingClientRect().height > 0 && tr.checkVisibility() ? performance.now() : false;
          },
          { polling: 'raf', timeout: 30_000 },
        );
        const ms = (await handle.jsonValue()) as number;
        const shown = await page.$eval('table[aria-label="Contacts"] tbody tr', (tr) => (tr as unknown as { innerText: string }).innerText);
        if (!shown.includes('@bench.example')) throw new Error(`first row: ${shown}`);
        // When, on the same clock, the page's GET /contacts answered.
        const answered = await page.evaluate(() => {
          const e = performance.getEntriesByType('resource').find((r) => /\/contacts\?/.test(r.name)) as { startTime: number; responseEnd: number } | undefined;
          return e ? [e.startTime, e.responseEnd] : [-1, -1];
        });
        // The first load warms Chromium's process and the server's code paths; it is not counted.
        if (i > 0) {
          rows.push(ms);
          asked.push(answered[0]);
          api.push(answered[1]);
        }
        await page.close();
      }
      return { rows, asked, api };
    };
    const cold = await loads(false);
    const warmCache = await loads(true);
    console.log(
      `\ndashboard contacts page, ${N.toLocaleString('en')} contacts (total reported: ${total?.toLocaleString('en') ?? '?'}), ${RUNS} loads each after one warm-up`,
    );
    const line = (label: string, ms: number[]) => console.log(`  ${label.padEnd(52)} : ${summary(ms)}`);
    line('GET /contacts first page alone (cookie + header)', apiTimes);
    for (const [label, r] of [
      ['HTTP cache off', cold],
      ['HTTP cache on', warmCache],
    ] as const) {
      line(`navigation → first table row visible, ${label}`, r.rows);
      line("  of which: the page's GET /contacts sent at", r.asked);
      line("  of which: the page's GET /contacts answered at", r.api);
    }
  } finally {
    await tb.close();
    await stack.stop();
  }
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
