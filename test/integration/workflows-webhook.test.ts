import { deterministicUuid } from '../../lib/ids';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startHarness, createProjectFixture, bearer, eventually, Harness, ProjectFixture } from '../helpers/harness';
import { startDnsServer, TestDnsServer } from '../helpers/dnsServer';
import { uniqueEmail } from '../helpers/fixtures';
import { workflowApi } from '../helpers/workflows';

/**
 * WEBHOOK steps against the SSRF rules. `guarded` refuses private targets (the default); `open`
 * runs with WEBHOOK_ALLOW_PRIVATE=true so a loopback test server stands in for a real endpoint.
 * Redirects to private targets are covered in test/unit/webhookGuard.test.ts, where a first hop
 * can be allowed on loopback.
 */

let guarded: Harness;
let open: Harness;
let p: ProjectFixture;
let dns: TestDnsServer;
let server: http.Server;
let port: number;
const received: { method?: string; url?: string; headers: http.IncomingHttpHeaders; body: string }[] = [];

beforeAll(async () => {
  dns = await startDnsServer();
  server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      received.push({ method: req.method, url: req.url, headers: req.headers, body });
      if (req.url?.startsWith('/html')) return void res.writeHead(500, { 'Content-Type': 'text/html' }).end('<html>oops</html>');
      res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ ok: true, echoed: body ? JSON.parse(body) : null }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as AddressInfo).port;
  [guarded, open] = await Promise.all([
    startHarness({ worker: true, env: { DNS_SERVERS: dns.address } }),
    startHarness({ worker: true, env: { DNS_SERVERS: dns.address, WEBHOOK_ALLOW_PRIVATE: 'true' } }),
  ]);
  p = await createProjectFixture(guarded);
});
afterAll(async () => {
  await Promise.all([guarded?.stop(), open?.stop()]);
  await new Promise((r) => server?.close(r));
  await dns?.stop();
});

async function runWebhook(h: Harness, url: string) {
  const api = workflowApi(h, p);
  const wf = await api.build('hook', { hook: { type: 'WEBHOOK', config: { url, method: 'GET' } } }, [['trigger', 'hook']]);
  const email = uniqueEmail();
  await api.track(email, 'x');
  const contact = await h.deps.knex('contacts').where({ project_id: p.projectId, email }).first();
  const started = await api.start(wf.id, { contactId: contact.id });
  expect(started.status).toBe(201);
  return api.until(wf.id, started.body.id, ['COMPLETED', 'FAILED']);
}

describe('WEBHOOK refusals (WEBHOOK_ALLOW_PRIVATE off)', () => {
  beforeAll(() => {
    dns.set('internal.svc.test', 'A', ['10.1.2.3']);
    // A public address (example.com's): only the port is wrong, and nothing is ever sent there.
    dns.set('public.svc.test', 'A', ['93.184.215.14']);
  });

  it.each([
    ['loopback', () => `http://127.0.0.1:${port}/hook`, /refused: 127\.0\.0\.1 is a loopback address/],
    ['the cloud metadata address', () => 'http://169.254.169.254/latest/meta-data/', /refused: 169\.254\.169\.254 is a cloud metadata endpoint address/],
    ['a name resolving to a private address', () => `http://internal.svc.test:${port}/hook`, /refused: internal\.svc\.test resolves to a private address$/],
    [
      'loopback in the IPv4-translated IPv6 form',
      () => `http://[::ffff:0:127.0.0.1]:${port}/hook`,
      /refused: ::ffff:0:7f00:1 is a loopback \(IPv4 127\.0\.0\.1 inside IPv6\) address/,
    ],
    ["Azure's WireServer", () => 'http://168.63.129.16/machine?comp=goalstate', /refused: 168\.63\.129\.16 is a cloud metadata endpoint address/],
    [
      'a public host on a port other than 80, 443, 8080 and 8443',
      () => 'http://public.svc.test:6379/',
      /refused: port 6379 is not one webhooks may call \(80, 443, 8080, 8443\)/,
    ],
  ])('refuses %s and records a failed step with the reason', async (_name, url, reason) => {
    const before = received.length;
    const done = await runWebhook(guarded, url());
    expect(done.status).toBe('FAILED');
    expect(done.error).toMatch(reason);
    expect(done.steps.map((s: any) => [s.type, s.status])).toEqual([
      ['TRIGGER', 'COMPLETED'],
      ['WEBHOOK', 'FAILED'],
    ]);
    expect(done.steps[1].error).toMatch(reason);
    // Neither the execution nor its steps (error, output) name what an internal name resolves to.
    expect(JSON.stringify(done)).not.toContain('10.1.2.3');
    expect(received.length).toBe(before);
  });
});

describe('webhook endpoints under the same rules (WEBHOOK_ALLOW_PRIVATE off)', () => {
  it.each([
    ['a public host on a port other than 80, 443, 8080 and 8443', 'http://public.svc.test:6379/hook', /^refused: port 6379 is not one webhooks may call/],
    [
      'the IPv4-translated form of the metadata address',
      'http://[::ffff:0:169.254.169.254]/latest/meta-data/',
      /^refused: ::ffff:0:a9fe:a9fe is a cloud metadata endpoint \(IPv4 169\.254\.169\.254 inside IPv6\) address/,
    ],
    // The name's answer (10.1.2.3) is not repeated: lastError must not map the LAN's DNS.
    ['a name resolving to a private address', 'http://internal.svc.test/hook', /^refused: internal\.svc\.test resolves to a private address$/],
  ])('records the delivery to %s as failed with the reason, sending nothing', async (_name, url, reason) => {
    const created = await guarded.http
      .post('/webhook-endpoints')
      .set(bearer(p.secretKey))
      .send({ url, events: ['contact.*'] });
    expect(created.status).toBe(201);
    const before = received.length;
    expect((await guarded.http.post(`/webhook-endpoints/${created.body.id}/test`).set(bearer(p.secretKey))).status).toBe(202);
    const delivery = await eventually(async () => {
      const page = await guarded.http.get(`/webhook-endpoints/${created.body.id}/deliveries`).set(bearer(p.secretKey));
      return page.body.data?.find((d: any) => d.type === 'webhook.test' && d.attempts > 0);
    });
    expect(delivery).toMatchObject({ lastStatusCode: null, lastError: expect.stringMatching(reason) });
    expect(JSON.stringify(delivery)).not.toContain('10.1.2.3');
    expect(received.length).toBe(before);
  });
});

describe('WEBHOOK calls (WEBHOOK_ALLOW_PRIVATE on)', () => {
  it('sends the rendered body and headers, and puts the status and JSON answer in the context as `webhook`', async () => {
    const api = workflowApi(open, p);
    const event = `hooked-${Date.now()}`;
    const wf = await api.build(
      event,
      {
        hook: {
          type: 'WEBHOOK',
          config: {
            url: `http://127.0.0.1:${port}/hook?x=1`,
            method: 'POST',
            headers: { 'X-Token': 'abc' },
            body: '{"email": "{{ email }}", "plan": "{{ plan }}", "source": "{{ event.data.source }}"}',
          },
        },
      },
      [['trigger', 'hook']],
      { enabled: true },
    );
    const email = uniqueEmail();
    const before = received.length;
    await api.track(email, event, { plan: 'pro', source: { value: 'ads', persistent: false } });
    const contact = await open.deps.knex('contacts').where({ project_id: p.projectId, email }).first();
    const exec = await api.executionOf(wf.id, contact.id);
    const done = await api.until(wf.id, exec.id, ['COMPLETED', 'FAILED']);
    expect(done.status).toBe('COMPLETED');
    const sent = { email, plan: 'pro', source: 'ads' };
    expect(done.context.webhook).toEqual({ status: 200, body: { ok: true, echoed: sent } });
    expect(done.steps[1].output).toEqual(done.context.webhook);
    const got = received.slice(before);
    expect(got).toHaveLength(1);
    expect(got[0]).toMatchObject({ method: 'POST', url: '/hook?x=1' });
    expect(got[0].headers).toMatchObject({ 'x-token': 'abc', 'content-type': 'application/json', host: `127.0.0.1:${port}` });
    // The key names this execution's step, so a retried call repeats it and the receiver can tell.
    const step = await open.deps.knex('workflow_execution_steps').where({ execution_id: exec.id, type: 'WEBHOOK' }).first();
    expect(got[0].headers['idempotency-key']).toBe(deterministicUuid('webhook', exec.id, String(step.seq)));
    expect(JSON.parse(got[0].body)).toEqual(sent);
  });

  it('keeps the status of an answer that is not JSON, with a null body, in the context and the step output', async () => {
    const api = workflowApi(open, p);
    const event = `hooked-html-${Date.now()}`;
    const wf = await api.build(event, { hook: { type: 'WEBHOOK', config: { url: `http://127.0.0.1:${port}/html`, method: 'GET' } } }, [['trigger', 'hook']], {
      enabled: true,
    });
    const email = uniqueEmail();
    await api.track(email, event);
    const contact = await open.deps.knex('contacts').where({ project_id: p.projectId, email }).first();
    const done = await api.until(wf.id, (await api.executionOf(wf.id, contact.id)).id, ['COMPLETED', 'FAILED']);
    expect(done.status).toBe('COMPLETED');
    expect(done.context.webhook).toEqual({ status: 500, body: null });
    expect(done.steps[1].output).toEqual({ status: 500, body: null });
  });
});
