import { Worker } from '@temporalio/worker';
import { startHarness, createProjectFixture, bearer, eventually, Harness, ProjectFixture } from '../helpers/harness';
import { startSmtpSink, SmtpSink } from '../helpers/smtpSink';
import { startWebhookReceiver } from '../helpers/webhookReceiver';
import { uniqueEmail, verifiedDomain } from '../helpers/fixtures';
import { workflowApi } from '../helpers/workflows';

/**
 * "Start from a flow" and "Test with a contact" (docs/workflows.md): every starter is created
 * disabled with its templates to pick and enables once they are picked; a test run mails the
 * signed-in person through the real SMTP transport (never the contact), waits seconds where the
 * graph says a day, calls webhooks only when asked and stays out of the executions list.
 * WORKFLOW_TIME_SCALE is 1 here: a "1 day" wait that ends in seconds is the test run's doing.
 */

let h: Harness;
let p: ProjectFixture;
let sink: SmtpSink;
let hooks: Awaited<ReturnType<typeof startWebhookReceiver>>;
const DOMAIN = 'flows.example.com';

beforeAll(async () => {
  sink = await startSmtpSink();
  hooks = await startWebhookReceiver();
  h = await startHarness({
    worker: true,
    env: { EMAIL_TRANSPORT: 'smtp', SMTP_URL: sink.url, WEBHOOK_ALLOW_PRIVATE: 'true', WORKFLOW_TIME_SCALE: '1' },
  });
  p = await createProjectFixture(h);
  await verifiedDomain(h, p.projectId, DOMAIN);
});
afterAll(async () => {
  await h?.stop();
  await sink?.stop();
  await hooks?.stop();
});

const key = () => bearer(p.secretKey);
/** The dashboard's way in: the signed-in person's cookie and the project header. */
const cookie = () => ({ Cookie: p.cookie, 'X-Project-Id': p.projectId });

async function template(name: string) {
  const res = await h.http
    .post('/templates')
    .set(key())
    .send({ name, subject: `${name} for {{ email }}`, body: `<p>${name}</p>`, from: `team@${DOMAIN}`, type: 'MARKETING' });
  expect(res.status).toBe(201);
  return res.body.id as string;
}

describe('Start from a flow', () => {
  it('lists at least five starters, each with its steps in words and its templates to pick', async () => {
    const res = await h.http.get('/workflows/starters').set(key());
    expect(res.status).toBe(200);
    const keys = res.body.data.map((s: any) => s.key);
    expect(keys).toEqual(expect.arrayContaining(['welcome-series', 'abandoned-cart', 're-engagement', 'double-opt-in-nurture', 'post-purchase']));
    const cart = res.body.data.find((s: any) => s.key === 'abandoned-cart');
    expect(cart).toMatchObject({ name: 'Abandoned cart', templatesToPick: 1 });
    expect(cart.steps.map((s: any) => s.title)).toEqual(['Wait for event', 'Send email']);
    // The dashboard finds each step's words by its key (web/src/i18n/*/workflows.ts starters.flows).
    expect(cart.steps.map((s: any) => s.key)).toEqual(['purchase', 'reminder']);
  });

  it('unknown starter → 404', async () => {
    const res = await h.http.post('/workflows/starters/no-such-flow').set(key()).send({});
    expect(res.status).toBe(404);
  });

  it('creates each starter disabled; Enable names every template to pick, and passes once they are picked', async () => {
    const list = (await h.http.get('/workflows/starters').set(key())).body.data;
    const tpl = await template('Starter email');
    for (const starter of list) {
      const created = await h.http.post(`/workflows/starters/${starter.key}`).set(key()).send({});
      expect(created.status).toBe(201);
      const wf = created.body;
      expect(wf).toMatchObject({ name: starter.name, enabled: false, triggerConfig: { eventName: starter.eventName } });
      const sends = wf.steps.filter((s: any) => s.type === 'SEND_EMAIL');
      expect(sends).toHaveLength(starter.templatesToPick);
      expect(wf.steps.filter((s: any) => s.type !== 'TRIGGER').map((s: any) => s.name)).toEqual(starter.steps.map((s: any) => s.name));

      const refused = await h.http.patch(`/workflows/${wf.id}`).set(key()).send({ enabled: true });
      expect(refused.status).toBe(422);
      expect(refused.body.error.errors).toEqual(
        sends.map((s: any) => ({ field: `steps.${s.id}.config.templateId`, code: 'custom', message: 'Send email: pick a template', stepId: s.id })),
      );

      for (const s of sends) {
        const picked = await h.http
          .patch(`/workflows/${wf.id}/steps/${s.id}`)
          .set(key())
          .send({ config: { templateId: tpl } });
        expect(picked.status).toBe(200);
      }
      const enabled = await h.http.patch(`/workflows/${wf.id}`).set(key()).send({ enabled: true });
      expect({ starter: starter.key, status: enabled.status, body: enabled.status === 200 ? 'ok' : enabled.body }).toEqual({
        starter: starter.key,
        status: 200,
        body: 'ok',
      });
      // Disabled again: the rest of this file tracks events some of these listen to.
      expect((await h.http.patch(`/workflows/${wf.id}`).set(key()).send({ enabled: false })).status).toBe(200);
    }
  });

  it('takes a name of its own', async () => {
    const res = await h.http.post('/workflows/starters/welcome-series').set(key()).send({ name: 'Hello new people' });
    expect(res.status).toBe(201);
    expect(res.body.name).toBe('Hello new people');
  });
});

describe('Test with a contact', () => {
  it('mails only the signed-in person, waits seconds for a day, skips webhooks, and stays out of the executions list', async () => {
    const api = workflowApi(h, p);
    const tpl = await template('Reminder');
    const hook = hooks.url('/test-run-off');
    const wf = await api.build(
      'cart.test1',
      {
        wait: { type: 'WAIT_FOR_EVENT', config: { eventName: 'purchase', timeout: { amount: 1, unit: 'days' } } },
        send: { type: 'SEND_EMAIL', config: { templateId: tpl } },
        pause: { type: 'DELAY', config: { amount: 2, unit: 'days' } },
        hook: { type: 'WEBHOOK', config: { url: hook } },
      },
      [
        ['trigger', 'wait'],
        ['wait', 'send', 'timeout'],
        ['send', 'pause'],
        ['pause', 'hook'],
      ],
    );
    const contactEmail = uniqueEmail('contact');
    const tracked = await api.track(contactEmail, 'something');
    const contactId = tracked.body.data.contact as string;
    const sentBefore = await h.deps.knex('events').where({ project_id: p.projectId, name: 'email.sent' }).count<{ count: string }[]>('* as count');

    const started = Date.now();
    const res = await h.http.post(`/workflows/${wf.id}/test`).set(cookie()).send({ contactId });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ executionId: expect.any(String), to: p.email });
    const done = await api.until(wf.id, res.body.executionId, ['COMPLETED', 'EXITED', 'FAILED'], 60_000);
    expect(done.status).toBe('COMPLETED');
    expect(done.test).toBe(true);
    // A day's wait for an event and a two-day delay passed in seconds.
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(done.steps.map((s: any) => [s.type, s.status])).toEqual([
      ['TRIGGER', 'COMPLETED'],
      ['WAIT_FOR_EVENT', 'COMPLETED'],
      ['SEND_EMAIL', 'COMPLETED'],
      ['DELAY', 'COMPLETED'],
      ['WEBHOOK', 'SKIPPED'],
    ]);
    expect(done.steps[1].output).toEqual({ timedOut: true });
    expect(done.steps[3].output.delayedMs).toBeLessThanOrEqual(5_000);
    expect(done.steps[4].output).toEqual({ reason: 'test run: webhooks are not called' });

    // The tester got it through the relay; the contact was never offered to it.
    const [mail] = await eventually(async () => (sink.mailsTo(p.email).length ? sink.mailsTo(p.email) : null));
    const parsed = await sink.parse(mail);
    expect(parsed.subject).toBe(`[Test] Reminder for ${contactEmail}`);
    expect(sink.offered(contactEmail)).toBe(0);
    expect(hooks.calls('/test-run-off')).toHaveLength(0);
    // Nothing counted: no email.sent of the contact, the email row names no contact.
    const email = await h.deps.knex('emails').where({ workflow_execution_id: res.body.executionId }).first();
    expect(email).toMatchObject({ contact_id: null, to_email: p.email });
    await eventually(async () => (await h.deps.knex('emails').where({ id: email.id }).first()).status === 'SENT');
    const sentAfter = await h.deps.knex('events').where({ project_id: p.projectId, name: 'email.sent' }).count<{ count: string }[]>('* as count');
    expect(sentAfter[0].count).toBe(sentBefore[0].count);

    // Left out of the list by default, listed with test=true; the contact was not recorded as entered.
    expect((await api.executions(wf.id)).body).toMatchObject({ data: [], total: 0 });
    const tests = await api.executions(wf.id, '?test=true');
    expect(tests.body.data.map((x: any) => [x.id, x.test])).toEqual([[res.body.executionId, true]]);
    expect(await h.deps.knex('workflow_entries').where({ workflow_id: wf.id })).toHaveLength(0);

    // The history carries the flag, never the tester's address, and replays as it ran.
    const workflowId = `exec-${res.body.executionId}`;
    const history = await (await h.deps.temporal.client()).workflow.getHandle(workflowId).fetchHistory();
    // Payloads are base64 JSON: read them as text.
    const text = JSON.stringify(history).replace(/"data":"([A-Za-z0-9+/=]+)"/g, (_m, b64: string) => Buffer.from(b64, 'base64').toString('utf8'));
    expect(text).toContain('"test":{"callWebhooks":false,"waitMs":3000}');
    expect(text).not.toContain(p.email);
    expect(text).not.toContain(contactEmail);
    for await (const result of Worker.runReplayHistories({ workflowBundle: { codePath: process.env.TEST_WORKFLOW_BUNDLE! } }, [{ workflowId, history }])) {
      expect(result.error).toBeUndefined();
    }
  });

  it('calls webhooks when asked (callWebhooks), and runs beside the contact’s real execution', async () => {
    const api = workflowApi(h, p);
    const wf = await api.build(
      'hook.test2',
      {
        wait: { type: 'DELAY', config: { amount: 1, unit: 'days' } },
        hook: { type: 'WEBHOOK', config: { url: hooks.url('/test-run-on') } },
      },
      [
        ['trigger', 'wait'],
        ['wait', 'hook'],
      ],
      { enabled: true },
    );
    const contactEmail = uniqueEmail('contact');
    // A real execution, waiting its day.
    const real = await api.waitingExecution(wf.id, contactEmail, 'hook.test2');
    const res = await h.http.post(`/workflows/${wf.id}/test`).set(cookie()).send({ contactId: real.contactId, callWebhooks: true });
    expect(res.status).toBe(201);
    const done = await api.until(wf.id, res.body.executionId, ['COMPLETED', 'FAILED'], 60_000);
    expect(done.steps.map((s: any) => [s.type, s.status])).toEqual([
      ['TRIGGER', 'COMPLETED'],
      ['DELAY', 'COMPLETED'],
      ['WEBHOOK', 'COMPLETED'],
    ]);
    expect(hooks.calls('/test-run-on')).toHaveLength(1);
    // The real one still waits, alone in the list.
    const list = (await api.executions(wf.id)).body.data;
    expect(list.map((x: any) => [x.id, x.status, x.test])).toEqual([[real.id, 'WAITING', false]]);
    await api.cancelAll(wf.id);
  });

  it('refuses what it cannot run: unknown contact, a secret key without an address, an address other than the signed-in person’s', async () => {
    const api = workflowApi(h, p);
    const wf = await api.build('refuse.test3', { wait: { type: 'DELAY', config: { amount: 1, unit: 'minutes' } } }, [['trigger', 'wait']]);
    const contactId = (await api.track(uniqueEmail('contact'), 'x')).body.data.contact;
    const unknown = await h.http.post(`/workflows/${wf.id}/test`).set(cookie()).send({ contactId: 'cnt_nope' });
    expect(unknown.status).toBe(422);
    const keyed = await h.http.post(`/workflows/${wf.id}/test`).set(key()).send({ contactId });
    expect(keyed.status).toBe(422);
    expect(keyed.body.error.errors[0].field).toBe('to');
    const other = await h.http.post(`/workflows/${wf.id}/test`).set(cookie()).send({ contactId, to: 'someone@else.example' });
    expect(other.status).toBe(422);
    const withTo = await h.http.post(`/workflows/${wf.id}/test`).set(key()).send({ contactId, to: 'qa@flows.example.com' });
    expect(withTo.status).toBe(201);
    expect(withTo.body.to).toBe('qa@flows.example.com');
    const missing = await h.http.post('/workflows/00000000-0000-4000-8000-000000000000/test').set(cookie()).send({ contactId });
    expect(missing.status).toBe(404);
  });
});
