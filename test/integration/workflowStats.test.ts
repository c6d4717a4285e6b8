import { startHarness, createProjectFixture, bearer, eventually, Harness, ProjectFixture } from '../helpers/harness';
import { startSendgridSink, SendgridSink } from '../helpers/sendgridSink';
import { verifiedDomain, uniqueEmail } from '../helpers/fixtures';
import { workflowApi, equalsFilter } from '../helpers/workflows';
import { markWaiting, recordProgress } from '../../db/executions';

// A day lasts 0.864 s: the 12-day wait below times out after about ten seconds.
const SCALE = '0.00001';
const BROWSER = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_0) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Safari/605.1.15';

let h: Harness;
let p: ProjectFixture;
let sink: SendgridSink;
let api: ReturnType<typeof workflowApi>;

beforeAll(async () => {
  sink = await startSendgridSink();
  h = await startHarness({
    worker: true,
    env: { EMAIL_TRANSPORT: 'sendgrid', SENDGRID_API_KEY: 'SG.test-key', SENDGRID_API_URL: sink.url, WORKFLOW_TIME_SCALE: SCALE },
  });
  p = await createProjectFixture(h);
  await verifiedDomain(h, p.projectId, 'stats.example.com');
  api = workflowApi(h, p);
});
afterAll(async () => {
  await h?.stop();
  await sink?.stop();
});

const stats = (id: string, query = '') => h.http.get(`/workflows/${id}/stats${query}`).set(bearer(p.secretKey));
const byStep = (body: any) => Object.fromEntries(body.steps.map((s: any) => [s.stepId, s]));

/** What the step history says, counted the slow way: each step's entries, and its leavings by branch. */
async function countedFromHistory(workflowId: string) {
  const rows = await h.deps
    .knex('workflow_execution_steps as s')
    .join('workflow_executions as x', 'x.id', 's.execution_id')
    .where('x.workflow_id', workflowId)
    .select('s.step_id', 's.branch', 's.status', 's.finished_at');
  const out: Record<string, { entered: number; left: Record<string, number> }> = {};
  for (const r of rows) {
    const c = (out[r.step_id] ??= { entered: 0, left: {} });
    c.entered += 1;
    if (r.finished_at && r.branch) c.left[r.branch] = (c.left[r.branch] ?? 0) + 1;
  }
  return out;
}

describe('per-step counters', () => {
  it('stay exact under concurrent executions, retried writes, a cancel and a deleted contact', async () => {
    const event = `stats-${Date.now()}`;
    const tpl = await h.http.post('/templates').set(bearer(p.secretKey)).send({
      name: 'stats tips',
      subject: 'Tips',
      body: '<p>tips</p>',
      from: 'team@stats.example.com',
      type: 'MARKETING',
    });
    // trigger → wait for purchase (12 days) → next: send; timeout: if plan is pro → yes: mark; no: open (ends there).
    const wf = await api.build(
      event,
      {
        wait: { type: 'WAIT_FOR_EVENT', config: { eventName: `${event}-purchase`, timeout: { amount: 12, unit: 'days' } } },
        send: { type: 'SEND_EMAIL', config: { templateId: tpl.body.id } },
        cond: { type: 'CONDITION', config: { condition: equalsFilter('data.plan', 'pro') } },
        mark: { type: 'UPDATE_CONTACT', config: { data: { nudged: true } } },
      },
      [
        ['trigger', 'wait'],
        ['wait', 'send', 'next'],
        ['wait', 'cond', 'timeout'],
        ['cond', 'mark', 'yes'],
      ],
      { enabled: true },
    );
    const s = wf.steps;

    // Twelve contacts enter at once; every third is on the pro plan.
    const emails = Array.from({ length: 12 }, (_, i) => uniqueEmail(`stats${i}`));
    const tracked = await Promise.all(emails.map((email, i) => api.track(email, event, { plan: i % 3 === 0 ? 'pro' : 'free' })));
    expect(tracked.every((r) => r.status === 200)).toBe(true);
    const waitingAll = await eventually(async () => {
      const res = await stats(wf.id);
      return byStep(res.body)[s.wait].waiting === 12 ? res.body : null;
    });
    expect(byStep(waitingAll)[s.trigger]).toMatchObject({ entered: 12, waiting: 0, left: { next: 12 } });
    expect(byStep(waitingAll)[s.wait]).toMatchObject({ entered: 12, waiting: 12, left: {} });

    // A retried write (the activity ran twice) counts nothing twice.
    const first = await h.deps.knex('workflow_executions').where({ workflow_id: wf.id }).orderBy('started_at').first();
    const [trig, wait] = await h.deps.knex('workflow_execution_steps').where({ execution_id: first.id }).orderBy('seq');
    await recordProgress(h.deps.knex, {
      executionId: first.id,
      finished: { seq: trig.seq, status: 'COMPLETED', branch: 'next' },
      started: { seq: wait.seq, stepId: wait.step_id, type: wait.type },
    });
    await markWaiting(h.deps.knex, { executionId: first.id, seq: wait.seq, eventName: `${event}-purchase`, wakeInMs: 1 });
    const retried = byStep((await stats(wf.id)).body);
    expect(retried[s.trigger]).toMatchObject({ entered: 12, left: { next: 12 } });
    expect(retried[s.wait]).toMatchObject({ entered: 12, waiting: 12 });

    // Four buy (at once), one is cancelled, one contact is deleted; the other six time out.
    const contactIds = await Promise.all(emails.map(async (e) => (await h.deps.knex('contacts').where({ project_id: p.projectId, email: e }).first()).id));
    const execs = await Promise.all(contactIds.map((c) => api.executionOf(wf.id, c)));
    await Promise.all(emails.slice(0, 4).map((email) => api.track(email, `${event}-purchase`)));
    expect((await api.cancel(wf.id, execs[4].id)).status).toBe(200);
    expect((await h.http.delete(`/contacts/${contactIds[5]}`).set(bearer(p.secretKey))).status).toBeLessThan(300);

    const rest = [...execs.slice(0, 5), ...execs.slice(6)];
    await Promise.all(rest.map((x) => api.until(wf.id, x.id, ['COMPLETED', 'EXITED', 'CANCELLED', 'FAILED'], 60_000)));
    const done = byStep((await stats(wf.id)).body);
    // Timed out: 6, 7, 8, 9, 10, 11 — pro: 6 and 9.
    expect(done[s.wait]).toMatchObject({ entered: 12, waiting: 0, left: { next: 4, timeout: 6 }, cancelled: 1 });
    expect(done[s.send]).toMatchObject({ entered: 4, waiting: 0, left: { next: 4 } });
    expect(done[s.cond]).toMatchObject({ entered: 6, left: { yes: 2, no: 4 } });
    expect(done[s.mark]).toMatchObject({ entered: 2, left: { next: 2 } });
    // The same numbers as the history, counted the slow way (the deleted contact's history is gone, its counts stay).
    const history = await countedFromHistory(wf.id);
    expect(history[s.cond]).toEqual({ entered: done[s.cond].entered, left: done[s.cond].left });
    expect(history[s.send]).toEqual({ entered: done[s.send].entered, left: done[s.send].left });
    expect(history[s.wait].entered).toBe(done[s.wait].entered - 1);

    // The step's emails: sent, then opened through the tracking pixel.
    const sent = await eventually(async () => {
      const res = byStep((await stats(wf.id)).body)[s.send];
      return res.emails.sent === 4 ? res : null;
    });
    expect(sent.emails).toEqual({ sent: 4, opened: 0, clicked: 0 });
    const mail = sink.messages.find((m) => m.body.personalizations[0].to[0].email === emails[0])!;
    const pixel = mail.body.content.find((c: any) => c.type === 'text/html').value.match(/\/t\/o\/[\w.-]+/)[0];
    expect((await h.http.get(pixel).set('User-Agent', BROWSER)).status).toBe(200);
    const opened = await eventually(async () => {
      const res = byStep((await stats(wf.id)).body)[s.send];
      return res.emails.opened === 1 ? res : null;
    });
    expect(opened.emails).toEqual({ sent: 4, opened: 1, clicked: 0 });

    // A period: an hour long past holds nothing but the gauge; one around now holds it all.
    const past = byStep((await stats(wf.id, '?from=2020-01-01T00:00:00Z&to=2020-01-02T00:00:00Z')).body);
    expect(past[s.wait]).toMatchObject({ entered: 0, waiting: 0, left: {} });
    expect(past[s.send].emails).toEqual({ sent: 0, opened: 0, clicked: 0 });
    const hourAgo = new Date(Date.now() - 3_600_000).toISOString();
    expect(byStep((await stats(wf.id, `?from=${hourAgo}`)).body)[s.wait]).toMatchObject({ entered: 12 });
  }, 120_000);

  it('leave test runs out: a test run moves no counter and its email counts as no step’s', async () => {
    const wf = await api.build(
      `stats-test-${Date.now()}`,
      { mark: { type: 'UPDATE_CONTACT', config: { data: { tested: true } } }, wait: { type: 'DELAY', config: { amount: 1, unit: 'days' } } },
      [
        ['trigger', 'mark'],
        ['mark', 'wait'],
      ],
    );
    const contact = await h.http
      .post('/contacts')
      .set(bearer(p.secretKey))
      .send({ email: uniqueEmail('tested') });
    const before = byStep((await stats(wf.id)).body);
    const run = await h.http.post(`/workflows/${wf.id}/test`).set(bearer(p.secretKey)).send({ contactId: contact.body.id, to: 'tester@stats.example.com' });
    expect(run.status).toBe(201);
    await eventually(async () => (await h.deps.knex('workflow_executions').where({ id: run.body.executionId }).first()).status === 'COMPLETED');
    // The run did pass both steps (its history says so), and the counters did not move.
    expect(Number((await h.deps.knex('workflow_execution_steps').where({ execution_id: run.body.executionId }).count('* as n').first())?.n)).toBe(3);
    expect(byStep((await stats(wf.id)).body)).toEqual(before);
  });

  it('refuses a bad period and another project’s workflow', async () => {
    const wf = await api.build(`stats-bad-${Date.now()}`, {}, []);
    expect((await stats(wf.id, '?from=yesterday')).status).toBe(400);
    const bad = await stats(wf.id, '?from=2026-02-01T00:00:00Z&to=2026-01-01T00:00:00Z');
    expect(bad.status).toBe(400);
    expect(bad.body.error).toBeDefined();
    const other = await createProjectFixture(h);
    expect((await h.http.get(`/workflows/${wf.id}/stats`).set(bearer(other.secretKey))).status).toBe(404);
  });
});

describe('executions list', () => {
  it('shows the contact’s email, the current step in words and when a wait resumes; searches by email', async () => {
    const event = `list-${Date.now()}`;
    const wf = await api.build(event, { wait: { type: 'DELAY', config: { amount: 30, unit: 'days' }, name: 'Cool off' } }, [['trigger', 'wait']], {
      enabled: true,
    });
    const [a, b] = [uniqueEmail('list-ann'), uniqueEmail('list-bob')];
    await api.track(a, event);
    await api.track(b, event);
    const page = await eventually(async () => {
      const res = await api.executions(wf.id);
      return res.body.data.length === 2 && res.body.data.every((x: any) => x.status === 'WAITING') ? res.body : null;
    });
    const ann = page.data.find((x: any) => x.contactEmail === a);
    expect(ann).toMatchObject({ currentStep: { name: 'Cool off', type: 'DELAY', title: 'Wait' }, waitingFor: null, wakeAt: expect.any(String) });
    expect(Date.parse(ann.wakeAt)).toBeGreaterThan(Date.now());
    const found = await api.executions(wf.id, `?search=${encodeURIComponent(a.slice(0, 12).toUpperCase())}`);
    expect(found.body.data.map((x: any) => x.contactEmail)).toEqual([a]);
    expect((await api.executions(wf.id, '?search=%25')).body.data).toHaveLength(0);
    const one = await api.execution(wf.id, ann.id);
    expect(one.body).toMatchObject({ contactEmail: a, currentStep: { title: 'Wait' } });
    expect(one.body.steps[0]).toMatchObject({ type: 'TRIGGER', branch: 'next' });
    await api.cancelAll(wf.id);
  });
});
