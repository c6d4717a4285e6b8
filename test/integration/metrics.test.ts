import crypto from 'node:crypto';
import request from 'supertest';
import { startHarness, createProjectFixture, bearer, eventually, Harness, ProjectFixture } from '../helpers/harness';
import { verifiedDomain, uniqueEmail } from '../helpers/fixtures';
import { workflowApi } from '../helpers/workflows';
import { parseMetrics, Sample, valueOf } from '../helpers/metrics';
import { buildApp } from '../../api/app';

let h: Harness;
let p: ProjectFixture;

beforeAll(async () => {
  h = await startHarness({ worker: true });
  p = await createProjectFixture(h);
  await verifiedDomain(h, p.projectId, 'mail.example.com');
});
afterAll(async () => {
  await h?.stop();
});

/** Through the real endpoint, as Prometheus scrapes it. */
async function scrape(): Promise<Sample[]> {
  const res = await h.http.get('/metrics');
  expect(res.status).toBe(200);
  return parseMetrics(res.text);
}

/** What changed between two scrapes on one series (the harness's own setup requests count too). */
const delta = (before: Sample[], after: Sample[], name: string, labels: Record<string, string> = {}) =>
  valueOf(after, name, labels) - valueOf(before, name, labels);

const send = (projectKey: string, to: string[]) =>
  h.http.post('/v1/send').set(bearer(projectKey)).send({ from: 'hello@mail.example.com', to, subject: 'Hi', body: '<p>Hi</p>' });

async function sentAll(res: request.Response): Promise<string[]> {
  expect(res.status).toBe(200);
  const ids = res.body.data.emails.map((e: any) => e.email as string);
  await eventually(async () => (await h.deps.knex('emails').whereIn('id', ids).where({ status: 'SENT' })).length === ids.length, 120_000);
  return ids;
}

describe('GET /metrics', () => {
  it('counts requests by route template, method and status class, and times them', async () => {
    const before = await scrape();
    const emails = [uniqueEmail(), uniqueEmail()];
    const ids: string[] = [];
    for (const email of emails) {
      const created = await h.http.post('/contacts').set(bearer(p.secretKey)).send({ email });
      expect(created.status).toBe(201);
      ids.push(created.body.data?.id ?? created.body.id);
    }
    for (const id of ids) expect((await h.http.get(`/contacts/${id}`).set(bearer(p.secretKey))).status).toBe(200);
    const unknown = ['cnt_nope1', 'cnt_nope2', 'cnt_nope3'];
    for (const id of unknown) expect((await h.http.get(`/contacts/${id}`).set(bearer(p.secretKey))).status).toBe(404);
    expect((await h.http.delete('/no/such/route')).status).toBe(404);
    const after = await scrape();

    const contact = { method: 'GET', route: '/contacts/:id' };
    expect(delta(before, after, 'svc_http_requests_total', { ...contact, status_class: '2xx' })).toBe(2);
    expect(delta(before, after, 'svc_http_requests_total', { ...contact, status_class: '4xx' })).toBe(3);
    expect(delta(before, after, 'svc_http_request_duration_seconds_count', { ...contact, status_class: '4xx' })).toBe(3);
    expect(delta(before, after, 'svc_http_requests_total', { method: 'POST', route: '/contacts', status_class: '2xx' })).toBe(2);
    expect(delta(before, after, 'svc_http_requests_total', { method: 'DELETE', route: 'unmatched', status_class: '4xx' })).toBe(1);
    // The scrape itself is a request like any other.
    expect(delta(before, after, 'svc_http_requests_total', { method: 'GET', route: '/metrics', status_class: '2xx' })).toBe(1);

    const labelValues = after.flatMap((s) => Object.values(s.labels)).join('\n');
    for (const raw of [...ids, ...unknown, ...emails, p.projectId]) expect(labelValues).not.toContain(raw);
    // The pool this app queries through is reported.
    expect(valueOf(after, 'svc_db_pool_connections', { pool: 'api', state: 'max' })).toBe(20);
  });

  it('counts emails handed over by transport and type, and tracked events handed to routing', async () => {
    const before = await scrape();
    await sentAll(await send(p.secretKey, [uniqueEmail(), uniqueEmail(), uniqueEmail()]));
    const sent = await scrape();
    expect(delta(before, sent, 'svc_emails_handed_over_total', { transport: 'log', type: 'TRANSACTIONAL' })).toBe(3);
    expect(delta(before, sent, 'svc_email_deliveries_failed_total', { transport: 'log', type: 'TRANSACTIONAL', reason: 'rejected' })).toBe(0);

    // The first event creates the contact (and its subscription event); the next four are one event each.
    // A workflow listens to them: an event nothing listens to is written routed and handed to no one.
    await workflowApi(h, p).build('metrics-probe', { mark: { type: 'UPDATE_CONTACT', config: { data: { probed: true } } } }, [['trigger', 'mark']], {
      enabled: true,
    });
    const email = uniqueEmail();
    const track = () => h.http.post('/v1/track').set(bearer(p.publicKey)).send({ email, event: 'metrics-probe' });
    expect((await track()).status).toBe(200);
    const routed = (s: Sample[]) => valueOf(s, 'svc_event_routing_events_total', { outcome: 'started' });
    const settled = async () =>
      eventually(async () => {
        const s = await scrape();
        return valueOf(s, 'svc_event_routing_queued_events') === 0 && s;
      }, 90_000);
    const warm = await settled();
    const tracks = 4;
    for (let i = 0; i < tracks; i++) expect((await track()).status).toBe(200);
    await eventually(async () => routed(await scrape()) - routed(warm) === tracks, 90_000);
    const done = await settled();
    expect(routed(done) - routed(warm)).toBe(tracks);
    expect(delta(warm, done, 'svc_event_routing_events_total', { outcome: 'failed' })).toBe(0);
    const batches = delta(warm, done, 'svc_event_routing_handoff_seconds_count', { outcome: 'started' });
    expect(batches).toBeGreaterThanOrEqual(1);
    expect(batches).toBeLessThanOrEqual(tracks);
  });

  it('starts the executions routing creates eagerly, on the worker that routes them', async () => {
    const flows = workflowApi(h, p);
    const wf = await flows.build('eager-probe', { mark: { type: 'UPDATE_CONTACT', config: { data: { eager: true } } } }, [['trigger', 'mark']], {
      enabled: true,
    });
    const before = await scrape();
    const emails = [uniqueEmail('e1'), uniqueEmail('e2'), uniqueEmail('e3')];
    for (const email of emails) expect((await flows.track(email, 'eager-probe')).status).toBe(200);
    await eventually(async () => (await flows.rows(wf.id)).filter((x) => x.status === 'COMPLETED').length === 3);
    const after = await scrape();
    // The routing batches were started by the API (no worker there: not eager); the executions by the worker's routing.
    expect(delta(before, after, 'svc_workflow_starts_total', { eager: 'true' })).toBeGreaterThanOrEqual(3);
  });

  it('counts provider events by kind and outcome', async () => {
    const [a, b] = await sentAll(await send(p.secretKey, [uniqueEmail(), uniqueEmail()]));
    const ev = (emailId: string, event: string, id = crypto.randomBytes(9).toString('hex')) => ({
      event,
      email_id: emailId,
      project_id: p.projectId,
      sg_event_id: id,
      timestamp: Math.floor(Date.now() / 1000),
    });
    const repeated = ev(a, 'delivered');
    const before = await scrape();
    const res = await h.http
      .post('/webhooks/sendgrid')
      .set('Content-Type', 'application/json')
      .send(JSON.stringify([repeated, ev(b, 'delivered'), ev(a, 'open'), ev(a, 'not-a-sendgrid-kind'), repeated]));
    expect(res.status).toBeLessThan(300);
    const after = await scrape();
    const provider = (kind: string, outcome: string) => delta(before, after, 'svc_provider_events_total', { provider: 'sendgrid', kind, outcome });
    expect(provider('delivered', 'applied')).toBe(2);
    expect(provider('open', 'applied')).toBe(1);
    expect(provider('delivered', 'duplicate')).toBe(1);
    // Unknown kinds share one label value, whatever the provider sends.
    expect(provider('other', 'ignored')).toBe(1);
    expect(after.some((s) => s.labels.kind === 'not-a-sendgrid-kind')).toBe(false);
  });

  it('counts executions started and ended by status, and steps by type', async () => {
    const api = workflowApi(h, p);
    const event = `metrics-${crypto.randomBytes(3).toString('hex')}`;
    const quick = await api.build(event, { exit: { type: 'EXIT' } }, [['trigger', 'exit']], { enabled: true });
    const slow = await api.build(`${event}-slow`, { wait: { type: 'DELAY', config: { amount: 4, unit: 'weeks' } } }, [['trigger', 'wait']], { enabled: true });
    const before = await scrape();

    const people = [uniqueEmail(), uniqueEmail()];
    for (const email of people) expect((await api.track(email, event)).status).toBe(200);
    await eventually(async () => {
      const rows = await api.rows(quick.id);
      return rows.length === people.length && rows.every((r: any) => r.status === 'EXITED');
    }, 90_000);
    const contactId = (await api.rows(quick.id))[0].contact_id;
    const manual = await api.start(slow.id, { contactId });
    expect(manual.status).toBe(201);
    const executionId = manual.body.id ?? manual.body.data?.id;
    await api.until(slow.id, executionId, ['WAITING'], 90_000);
    expect((await api.cancel(slow.id, executionId)).status).toBeLessThan(300);
    await api.until(slow.id, executionId, ['CANCELLED'], 90_000);
    const after = await scrape();

    expect(delta(before, after, 'svc_executions_started_total', { mode: 'trigger' })).toBe(2);
    expect(delta(before, after, 'svc_executions_started_total', { mode: 'manual' })).toBe(1);
    expect(delta(before, after, 'svc_executions_ended_total', { status: 'EXITED' })).toBe(2);
    expect(delta(before, after, 'svc_executions_ended_total', { status: 'CANCELLED' })).toBe(1);
    expect(delta(before, after, 'svc_execution_steps_started_total', { type: 'EXIT' })).toBe(2);
    expect(delta(before, after, 'svc_execution_steps_started_total', { type: 'DELAY' })).toBe(1);
  });

  it('needs the bearer token when METRICS_TOKEN is set, and stays off the API surface', async () => {
    const token = 'scrape-secret';
    const guarded = request(buildApp({ ...h.deps, config: { ...h.config, metrics: { ...h.config.metrics, token } } }).app.callback());
    for (const auth of [undefined, 'Bearer wrong', token, `Bearer ${p.secretKey}`]) {
      const res = auth ? await guarded.get('/metrics').set('Authorization', auth) : await guarded.get('/metrics');
      expect(res.status).toBe(401);
      expect(res.body).toMatchObject({ success: false, error: { code: 'UNAUTHORIZED', statusCode: 401, requestId: expect.any(String) } });
      expect(res.text).not.toContain('svc_http_requests_total');
    }
    const ok = await guarded.get('/metrics').set('Authorization', `Bearer ${token}`);
    expect(ok.status).toBe(200);
    expect(ok.headers['content-type']).toMatch(/^text\/plain/);
    expect(ok.text).toContain('svc_http_requests_total{method="GET",route="/metrics",status_class="4xx"} 4');
    // Not rate-limited like keyed routes, and not in the OpenAPI document.
    expect(ok.headers['ratelimit-limit']).toBeUndefined();
    const doc = await h.http.get('/openapi.json');
    expect(Object.keys(doc.body.paths)).not.toContain('/metrics');
  });

  it('adds no series when sending to 1,000 distinct contacts in 50 projects', async () => {
    const projects = 50;
    const perProject = 20;
    // Campaigns reach all 1,000 (the bulk path, cheap enough for CI); /v1/send reaches one per project on the per-request path.
    const transactionalPerProject = 1;
    const newProject = async (name: string) => {
      const created = await h.http.post('/users/@me/projects').set('Cookie', p.cookie).send({ name });
      expect(created.status).toBe(201);
      await verifiedDomain(h, created.body.id, 'mail.example.com');
      return { id: created.body.id as string, key: created.body.secretKey as string };
    };
    const seed = async (projectId: string, n: number) => {
      const rows = Array.from({ length: n }, () => ({
        id: `cnt_${crypto.randomBytes(8).toString('hex')}`,
        project_id: projectId,
        email: uniqueEmail(),
        subscribed: true,
      }));
      await h.deps.knex('contacts').insert(rows);
      return rows.map((r) => r.email);
    };
    const campaign = async (key: string) => {
      const created = await h.http.post('/campaigns').set(bearer(key)).send({
        name: 'All',
        subject: 'Hi {{ email }}',
        body: '<p>Hi</p><a href="{{ unsubscribeUrl }}">u</a>',
        from: 'news@mail.example.com',
        audienceType: 'ALL',
      });
      expect(created.status).toBe(201);
      expect((await h.http.post(`/campaigns/${created.body.data.id}/send`).set(bearer(key)).send({})).status).toBe(200);
    };
    const handedOver = (s: Sample[], type: string) => valueOf(s, 'svc_emails_handed_over_total', { transport: 'log', type });
    const ours = (s: Sample[]) => s.filter((x) => x.name.startsWith('svc_'));

    // Every label value these paths produce exists once they ran once, in a project of their own.
    const warm = await newProject('metrics warm-up');
    const warmTo = await seed(warm.id, 1);
    const start = await scrape();
    await campaign(warm.key);
    await sentAll(await send(warm.key, warmTo));
    await eventually(async () => handedOver(await scrape(), 'MARKETING') - handedOver(start, 'MARKETING') === 1);
    const before = ours(await scrape());

    const tenants = [];
    for (let i = 0; i < projects; i++) {
      const t = await newProject(`metrics ${i}`);
      tenants.push({ ...t, emails: await seed(t.id, perProject) });
    }
    expect(new Set(tenants.flatMap((t) => t.emails)).size).toBe(projects * perProject);
    for (let i = 0; i < projects; i += 10) {
      for (const res of await Promise.all(tenants.slice(i, i + 10).map((t) => send(t.key, t.emails.slice(0, transactionalPerProject)))))
        expect(res.status).toBe(200);
    }
    for (let i = 0; i < projects; i += 10) await Promise.all(tenants.slice(i, i + 10).map((t) => campaign(t.key)));
    // One wait for all of it: about 20 s on an idle machine, minutes on a loaded one.
    await eventually(
      async () => {
        const now = await scrape();
        const counts = {
          marketing: handedOver(now, 'MARKETING') - handedOver(before, 'MARKETING'),
          transactional: handedOver(now, 'TRANSACTIONAL') - handedOver(before, 'TRANSACTIONAL'),
        };
        if (counts.marketing !== projects * perProject || counts.transactional !== projects * transactionalPerProject)
          throw new Error(`handed over so far: ${JSON.stringify(counts)}`);
        return true;
      },
      480_000,
      1000,
    );
    const after = ours(await scrape());

    expect(after.map((s) => s.series).sort()).toEqual(before.map((s) => s.series).sort());
    expect(delta(before, after, 'svc_emails_handed_over_total', { transport: 'log', type: 'MARKETING' })).toBe(projects * perProject);
    expect(delta(before, after, 'svc_emails_handed_over_total', { transport: 'log', type: 'TRANSACTIONAL' })).toBe(projects * transactionalPerProject);
  }, 600_000);
});
