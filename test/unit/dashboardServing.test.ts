import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Koa from 'koa';
import request from 'supertest';
import { dashboard, DASHBOARD_CSP } from '../../api/dashboard';

/** api/dashboard.ts: the built dashboard under /app/, on a dist directory of its own. */

let dist: string;
let http: ReturnType<typeof request>;
let missing: ReturnType<typeof request>;

const appOn = (dir: string) => {
  const app = new Koa();
  app.use(dashboard(dir) as any);
  // Stands for the API's router: whatever the dashboard passes on.
  app.use((ctx) => {
    ctx.status = 200;
    ctx.body = { api: ctx.path };
  });
  return request(app.callback());
};

beforeAll(() => {
  dist = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-dist-'));
  fs.mkdirSync(path.join(dist, 'assets'));
  fs.writeFileSync(path.join(dist, 'index.html'), '<!doctype html><div id="root"></div><script type="module" src="/app/assets/index-abc123.js"></script>');
  fs.writeFileSync(path.join(dist, 'assets', 'index-abc123.js'), 'console.log(1)');
  fs.writeFileSync(path.join(dist, 'favicon.svg'), '<svg/>');
  fs.writeFileSync(path.join(os.tmpdir(), 'svc-secret.txt'), 'secret');
  http = appOn(dist);
  missing = appOn(path.join(dist, 'nowhere'));
});
afterAll(() => fs.rmSync(dist, { recursive: true, force: true }));

describe('GET /', () => {
  it('sends a browser to /app/', async () => {
    const res = await http.get('/').set('Accept', 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8');
    expect(res.status).toBe(302);
    expect(res.headers.location).toBe('/app/');
  });

  it.each([['*/*'], ['application/json'], ['']])('leaves Accept %j to the API', async (accept) => {
    const res = await http.get('/').set('Accept', accept);
    expect(res.body).toEqual({ api: '/' });
  });
});

describe('/app/', () => {
  it('serves index.html for /app/ and every client route, revalidated, with a CSP without inline script', async () => {
    for (const p of ['/app/', '/app/login', '/app/p/123/contacts']) {
      const res = await http.get(p);
      expect([p, res.status]).toEqual([p, 200]);
      expect(res.headers['content-type']).toMatch(/text\/html/);
      expect(res.text).toContain('<div id="root">');
      expect(res.headers['cache-control']).toBe('no-cache');
      expect(res.headers['content-security-policy']).toBe(DASHBOARD_CSP);
    }
    expect(DASHBOARD_CSP).toMatch(/script-src 'self'(;|$)/);
    expect(DASHBOARD_CSP).not.toMatch(/script-src[^;]*unsafe-inline/);
    expect((await http.get('/app')).headers.location).toBe('/app/');
  });

  it('caches hashed assets for a year', async () => {
    const res = await http.get('/app/assets/index-abc123.js');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/javascript/);
    expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect((await http.get('/app/favicon.svg')).headers['cache-control']).toBe('no-cache');
  });

  it('answers 404 for a missing asset rather than the page', async () => {
    expect((await http.get('/app/assets/gone-123.js')).status).toBe(404);
    expect((await http.get('/app/robots.txt')).status).toBe(404);
  });

  it('never serves a file outside dist', async () => {
    for (const p of [
      '/app/../svc-secret.txt',
      '/app/%2e%2e/svc-secret.txt',
      '/app/..%2fsvc-secret.txt',
      '/app/assets/%2e%2e%2f%2e%2e%2fsvc-secret.txt',
      '/app/%00',
      '/app/%E0%A4%A',
    ]) {
      const res = await http.get(p);
      expect([p, res.text]).not.toEqual([p, 'secret']);
      expect([p, res.status]).not.toEqual([p, 500]);
    }
  });

  it('passes other methods and paths on to the API', async () => {
    expect((await http.post('/app/login')).body).toEqual({ api: '/app/login' });
    expect((await http.get('/contacts')).body).toEqual({ api: '/contacts' });
    expect((await http.get('/application')).body).toEqual({ api: '/application' });
  });

  it('says how to build it when web/dist is missing', async () => {
    const res = await missing.get('/app/');
    expect(res.status).toBe(503);
    expect(res.text).toContain('npm run build:web');
  });
});
