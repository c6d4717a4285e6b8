import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApplicationFailure } from '@temporalio/common';
import { addressProblem, guardedFetch, GuardOptions, portProblem, WebhookRefused } from '../../services/httpGuard';
import { webhookActivities } from '../../activities/steps/webhook';
import { loadConfig } from '../../lib/config';

describe('addressProblem', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['10.20.30.40', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['100.64.0.1', 'carrier-grade NAT'],
    ['100.127.255.254', 'carrier-grade NAT'],
    ['169.254.169.254', 'cloud metadata endpoint'],
    ['169.254.10.1', 'link-local'],
    ['0.0.0.0', 'unspecified ("this network")'],
    ['224.0.0.251', 'multicast'],
    ['255.255.255.255', 'reserved or broadcast'],
    ['::', 'unspecified'],
    ['::1', 'loopback'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['fd12:3456::1', 'unique local (private)'],
    ['fd00:ec2::254', 'cloud metadata endpoint'],
    ['FD00:EC2:0:0:0:0:0:254', 'cloud metadata endpoint'],
    ['ff02::1', 'multicast'],
    ['::ffff:127.0.0.1', 'loopback (IPv4 127.0.0.1 inside IPv6)'],
    ['::ffff:a9fe:a9fe', 'cloud metadata endpoint (IPv4 169.254.169.254 inside IPv6)'],
    ['64:ff9b::a00:1', 'private (IPv4 10.0.0.1 inside IPv6)'],
    ['2002:c0a8:101::1', 'private (IPv4 192.168.1.1 inside IPv6)'],
    ['::127.0.0.1', 'loopback (IPv4 127.0.0.1 inside IPv6)'],
    // IPv4-translated (::ffff:0:0:0/96), in hex and dotted forms.
    ['::ffff:0:7f00:1', 'loopback (IPv4 127.0.0.1 inside IPv6)'],
    ['::ffff:0:10.1.2.3', 'private (IPv4 10.1.2.3 inside IPv6)'],
    ['::ffff:0:a9fe:a9fe', 'cloud metadata endpoint (IPv4 169.254.169.254 inside IPv6)'],
    ['64:ff9b::c0a8:101', 'private (IPv4 192.168.1.1 inside IPv6)'],
    ['64:ff9b::100.100.100.200', 'cloud metadata endpoint (IPv4 100.100.100.200 inside IPv6)'],
    ['64:ff9b:1::a00:1', 'local-use NAT64'],
    // Metadata and platform endpoints beyond 169.254.169.254.
    ['168.63.129.16', 'cloud metadata endpoint'],
    ['::ffff:168.63.129.16', 'cloud metadata endpoint (IPv4 168.63.129.16 inside IPv6)'],
    ['100.100.100.200', 'cloud metadata endpoint'],
    ['192.0.0.192', 'cloud metadata endpoint'],
    ['fd00:ec2:0::254', 'cloud metadata endpoint'],
    ['3fff:0:1::1', 'documentation'],
  ])('refuses %s (%s)', (ip, label) => {
    expect(addressProblem(ip)).toBe(label);
  });

  it.each([
    '8.8.8.8',
    '1.1.1.1',
    '172.32.0.1',
    '100.128.0.1',
    '192.169.0.1',
    '2606:4700:4700::1111',
    '::ffff:8.8.8.8',
    '::ffff:0:808:808',
    '64:ff9b::808:808',
    '168.63.129.17',
  ])('allows public %s', (ip) => {
    expect(addressProblem(ip)).toBeNull();
  });
});

describe('portProblem', () => {
  it.each([
    'http://example.com/',
    'https://example.com/',
    'http://example.com:8080/',
    'https://example.com:8443/',
    'http://example.com:443/',
    'https://example.com:80/',
  ])('allows %s', (url) => {
    expect(portProblem(new URL(url))).toBeNull();
  });

  it.each([
    ['http://example.com:22/', 22],
    ['https://example.com:6379/', 6379],
    ['http://example.com:8000/', 8000],
    ['http://[2606:4700::1]:25/', 25],
  ])('refuses %s', (url, port) => {
    expect(portProblem(new URL(url))).toBe(`port ${port} is not one webhooks may call (80, 443, 8080, 8443)`);
  });
});

/** A resolver answering from a table, counting lookups. */
function resolver(table: Record<string, string[]>) {
  const calls: string[] = [];
  return {
    calls,
    a: async (name: string) => {
      calls.push(name);
      return (table[name] ?? []).filter((ip) => !ip.includes(':'));
    },
    aaaa: async (name: string) => (table[name] ?? []).filter((ip) => ip.includes(':')),
  };
}

interface Seen {
  method?: string;
  url?: string;
  host?: string;
  body: string;
}

let server: http.Server;
let base: string;
const seen: Seen[] = [];
let respond: (req: http.IncomingMessage, res: http.ServerResponse) => void;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      seen.push({ method: req.method, url: req.url, host: req.headers.host, body });
      respond(req, res);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((r) => server.close(r)));
beforeEach(() => {
  seen.length = 0;
  respond = (_req, res) => res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"ok":true}');
});

// Loopback stands in for "a public server" only where a test says so, its random port for a web port.
const loopbackIsPublic = (ip: string) => ip === '127.0.0.1';
const testServerPort = (port: number) => String(port) === new URL(base).port;
const opts = (extra: Partial<GuardOptions> = {}): GuardOptions => ({ resolver: resolver({}), allowPrivate: false, ...extra });
const get = (url: string) => ({ url, method: 'GET' as const, headers: {} });

describe('guardedFetch', () => {
  it('refuses private targets, by literal or by name, before connecting', async () => {
    await expect(guardedFetch(get(`${base}/x`), opts())).rejects.toThrow(new WebhookRefused('127.0.0.1 is a loopback address'));
    const dns = resolver({ 'inside.test': ['10.0.0.7'], 'mixed.test': ['8.8.8.8', '127.0.0.1'] });
    // A name's answer is never repeated in the error (it would map the LAN's DNS for whoever can save a URL).
    await expect(guardedFetch(get('http://inside.test/'), opts({ resolver: dns }))).rejects.toThrow(
      new WebhookRefused('inside.test resolves to a private address'),
    );
    // Every answer must pass, not just the first.
    await expect(guardedFetch(get('http://mixed.test/'), opts({ resolver: dns }))).rejects.toThrow(
      new WebhookRefused('mixed.test resolves to a private address'),
    );
    await expect(guardedFetch(get('http://[::ffff:169.254.169.254]/'), opts())).rejects.toThrow(WebhookRefused);
    await expect(guardedFetch(get('http://nowhere.test/'), opts({ resolver: dns }))).rejects.toThrow('does not resolve');
    await expect(guardedFetch(get('ftp://example.com/'), opts())).rejects.toThrow('only http and https');
    await expect(guardedFetch(get('http://[::ffff:0:127.0.0.1]/'), opts())).rejects.toThrow(
      '::ffff:0:7f00:1 is a loopback (IPv4 127.0.0.1 inside IPv6) address',
    );
    expect(seen).toHaveLength(0);
  });

  it('refuses a public address on a port other than 80, 443, 8080 and 8443 before connecting, unless WEBHOOK_ALLOW_PRIVATE', async () => {
    const dns = resolver({ 'redis.example.test': ['8.8.8.8'] });
    await expect(guardedFetch(get('http://redis.example.test:6379/'), opts({ resolver: dns }))).rejects.toThrow(
      new WebhookRefused('port 6379 is not one webhooks may call (80, 443, 8080, 8443)'),
    );
    await expect(guardedFetch(get('https://8.8.8.8:22/'), opts())).rejects.toThrow('port 22 is not one');
    // A redirect hop is held to the same rule.
    respond = (_req, res) => res.writeHead(307, { Location: 'http://redis.example.test:6379/' }).end();
    await expect(guardedFetch(get(`${base}/to-redis`), opts({ resolver: dns, allowAddress: loopbackIsPublic, allowPort: testServerPort }))).rejects.toThrow(
      'port 6379 is not one',
    );
    expect(seen.map((s) => s.url)).toEqual(['/to-redis']);
    // The development switch lifts the port rule with the address rule (the loopback server's port is random).
    seen.length = 0;
    respond = (_req, res) => res.writeHead(200).end();
    expect((await guardedFetch(get(`${base}/dev`), opts({ allowPrivate: true }))).status).toBe(200);
  });

  it('connects to the address it checked, whatever DNS says next (no rebinding), with the name as Host', async () => {
    const answers = [['127.0.0.1'], ['10.9.9.9']];
    let lookups = 0;
    const rebinding = { a: async () => answers[Math.min(lookups++, 1)], aaaa: async () => [] };
    const port = new URL(base).port;
    const res = await guardedFetch(
      get(`http://api.rebind.test:${port}/ping`),
      opts({ resolver: rebinding, allowAddress: loopbackIsPublic, allowPort: testServerPort }),
    );
    expect(res.status).toBe(200);
    expect(lookups).toBe(1);
    expect(seen).toEqual([{ method: 'GET', url: '/ping', host: `api.rebind.test:${port}`, body: '' }]);
  });

  it('re-checks every redirect hop and refuses one that leads to a private or metadata address', async () => {
    const dns = resolver({ 'metadata.rebind.test': ['169.254.169.254'] });
    for (const location of ['http://169.254.169.254/latest/meta-data/', 'http://metadata.rebind.test/', 'http://10.0.0.1/']) {
      respond = (_req, res) => res.writeHead(302, { Location: location }).end();
      await expect(guardedFetch(get(`${base}/start`), opts({ resolver: dns, allowAddress: loopbackIsPublic, allowPort: testServerPort }))).rejects.toThrow(
        WebhookRefused,
      );
    }
    expect(seen.map((s) => s.url)).toEqual(['/start', '/start', '/start']);
  });

  it('follows at most three redirects, turning a 303 into a body-less GET', async () => {
    respond = (req, res) => {
      const n = Number(new URL(req.url!, base).searchParams.get('n') ?? 0);
      if (n < 3) res.writeHead(n === 0 ? 303 : 307, { Location: `/r?n=${n + 1}` }).end();
      else res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"done":true}');
    };
    const res = await guardedFetch(
      { url: `${base}/r`, method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":1}' },
      opts({ allowAddress: loopbackIsPublic, allowPort: testServerPort }),
    );
    expect(res.status).toBe(200);
    expect(seen.map((s) => [s.method, s.url, s.body])).toEqual([
      ['POST', '/r', '{"a":1}'],
      ['GET', '/r?n=1', ''],
      ['GET', '/r?n=2', ''],
      ['GET', '/r?n=3', ''],
    ]);
    respond = (_req, res) => res.writeHead(302, { Location: '/again' }).end();
    await expect(guardedFetch(get(`${base}/again`), opts({ allowAddress: loopbackIsPublic, allowPort: testServerPort }))).rejects.toThrow(
      'more than 3 redirects',
    );
    expect(seen.filter((s) => s.url === '/again')).toHaveLength(4);
  });

  it('cuts a response above the size cap and gives up after the timeout', async () => {
    respond = (_req, res) => res.writeHead(200).end('x'.repeat(5000));
    const big = await guardedFetch(get(`${base}/big`), opts({ allowPrivate: true, maxResponseBytes: 1000 }));
    expect(big.truncated).toBe(true);
    expect(big.body.length).toBeLessThanOrEqual(1000);
    respond = () => undefined;
    await expect(guardedFetch(get(`${base}/slow`), opts({ allowPrivate: true, timeoutMs: 200 }))).rejects.toThrow('no complete answer');
  });
});

describe('callWebhook activity', () => {
  const config = loadConfig({ JWT_SECRET: 'x'.repeat(32), WEBHOOK_ALLOW_PRIVATE: 'false' });
  const deps = { config, knex: null as any, log: null as any, temporal: null as any, runtime: null as any };
  const call = (activities: ReturnType<typeof webhookActivities>, url: string) =>
    activities.callWebhook({ projectId: 'p', contactId: 'c', executionId: 'e', seq: 1, context: {}, config: { url, method: 'GET' } });

  it('fails a refused target without retries, naming the reason', async () => {
    respond = (_req, res) => res.writeHead(301, { Location: 'http://127.0.0.2/' }).end();
    const activities = webhookActivities(deps, { allowAddress: loopbackIsPublic, allowPort: testServerPort });
    const err = await call(activities, `${base}/moved`).catch((e) => e);
    expect(err).toBeInstanceOf(ApplicationFailure);
    expect(err).toMatchObject({ type: 'WebhookRefused', nonRetryable: true, message: 'refused: 127.0.0.2 is a loopback address' });
  });

  // The answer itself (JSON or not) is stored in the execution's row: test/integration/workflows-webhook.test.ts.
});
