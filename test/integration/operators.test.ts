import fs from 'node:fs';
import path from 'node:path';
import type { WorkflowHandle } from '@temporalio/client';
import { Worker } from '@temporalio/worker';
import { temporal } from '@temporalio/proto';
import { startHarness, createProjectFixture, bearer, eventually, Harness, ProjectFixture } from '../helpers/harness';
import { verifiedDomain, uniqueEmail } from '../helpers/fixtures';
import { workflowApi } from '../helpers/workflows';
import { campaignStateQuery, executionStateQuery, jobStateQuery } from '../../temporal/contract';

// A day lasts 0.864 s.
const SCALE = '0.00001';
const DOMAIN = 'ops.example.com';

let h: Harness;
let p: ProjectFixture;

beforeAll(async () => {
  h = await startHarness({ worker: true, env: { WORKFLOW_TIME_SCALE: SCALE } });
  p = await createProjectFixture(h);
  await verifiedDomain(h, p.projectId, DOMAIN);
});
afterAll(async () => h?.stop());

const client = () => h.deps.temporal.client();
const handle = async (workflowId: string) => (await client()).workflow.getHandle(workflowId);
const contactId = async (email: string, projectId = p.projectId) =>
  (await h.deps.knex('contacts').where({ project_id: projectId, email }).first()).id as string;
/** What the Web UI shows as an execution's current details (the SDK's built-in metadata query). */
const currentDetails = async (hd: WorkflowHandle) =>
  ((await hd.query<{ currentDetails?: string }>('__temporal_workflow_metadata')).currentDetails ?? '') as string;

/** The static summary and details of a workflow as the Web UI shows them, checked for what every start must say and never say. */
async function described(workflowId: string, mustName: string[]) {
  // The API answers before some starts (an execution row is written, then its workflow started by the router).
  const hd = await handle(workflowId);
  const d = await eventually(() => hd.describe());
  const summary = (await d.staticSummary()) ?? '';
  const details = (await d.staticDetails()) ?? '';
  expect(summary.length).toBeGreaterThan(0);
  expect(summary).not.toMatch(/\n/);
  for (const name of mustName) expect(`${summary}\n${details}`).toContain(name);
  // Ids only: no email address in the summary, the details or the memo.
  for (const text of [summary, details, JSON.stringify(d.memo ?? {})]) expect(text).not.toMatch(/@/);
  return { summary, details, description: d };
}

/** Visibility is eventually consistent: the query is repeated until it returns the expected count (bounded). */
async function listIds(query: string, expected: number): Promise<string[]> {
  const c = await client();
  return eventually(
    async () => {
      const ids: string[] = [];
      for await (const w of c.workflow.list({ query })) ids.push(w.workflowId);
      return ids.length === expected ? ids.sort() : null;
    },
    20_000,
    250,
  );
}

describe('every workflow explains itself in the Web UI', () => {
  it('an automation execution: summary and details, state, current details moving from DELAY to WAIT_FOR_EVENT, StepType upserted', async () => {
    const api = workflowApi(h, p);
    const event = `ops-signup-${Date.now()}`;
    const wf = await api.build(
      event,
      {
        // 10 scaled days: about 9 s, long enough to be seen waiting on a loaded machine.
        pause: { type: 'DELAY', config: { amount: 10, unit: 'days' } },
        wait: { type: 'WAIT_FOR_EVENT', config: { eventName: `${event}-purchase`, timeout: { amount: 300, unit: 'days' } } },
        done: { type: 'UPDATE_CONTACT', config: { data: { bought: true } } },
      },
      [
        ['trigger', 'pause'],
        ['pause', 'wait'],
        ['wait', 'done', 'next'],
      ],
      { enabled: true, name: 'Welcome series' },
    );
    const email = uniqueEmail('ops');
    const tracked = await api.track(email, event);
    expect(tracked.status).toBe(200);
    const cid = await contactId(email);
    const exec = await api.executionOf(wf.id, cid);
    const hd = await handle(`exec-${exec.id}`);

    const { summary, details } = await described(`exec-${exec.id}`, [wf.id, exec.id, cid, p.projectId, event]);
    expect(summary).toBe(`Automation 'Welcome series' for contact ${cid}`);
    expect(details).toContain(`GET /workflows/${wf.id}/executions/${exec.id}`);
    const triggerEvent = await h.deps.knex('events').where({ contact_id: cid, name: event }).first();
    expect(details).toContain(`event ${triggerEvent.id} ('${event}')`);

    const delaying = await eventually(async () => {
      const s = await hd.query(executionStateQuery);
      return s.stepType === 'DELAY' && s.status === 'WAITING' ? s : null;
    });
    expect(delaying).toMatchObject({ currentStepId: wf.steps.pause, seq: 1, waitingFor: null, wakeAt: expect.any(String) });
    const delayDetails = await currentDetails(hd);
    expect(delayDetails).toMatch(/^Step 2 of 4 · DELAY '.*' · wakes \d{4}-\d\d-\d\dT/);

    const waiting = await eventually(async () => {
      const s = await hd.query(executionStateQuery);
      // The step starts (RUNNING) a moment before it parks (WAITING): wait for the parked state.
      return s.stepType === 'WAIT_FOR_EVENT' && s.status === 'WAITING' ? s : null;
    });
    expect(waiting).toMatchObject({ status: 'WAITING', currentStepId: wf.steps.wait, seq: 2, waitingFor: `${event}-purchase`, wakeAt: expect.any(String) });
    const waitDetails = await currentDetails(hd);
    expect(waitDetails).not.toBe(delayDetails);
    expect(waitDetails).toMatch(new RegExp(`^Step 3 of 4 · WAIT_FOR_EVENT '.*' · waiting for event '${event}-purchase' · times out \\d{4}-`));
    // The StepType search attribute moved with it.
    expect((await hd.describe()).searchAttributes.StepType).toEqual(['WAIT_FOR_EVENT']);

    await api.track(email, `${event}-purchase`);
    await api.until(wf.id, exec.id, ['COMPLETED']);
    expect(await hd.query(executionStateQuery)).toMatchObject({ status: 'COMPLETED', stepType: 'UPDATE_CONTACT' });
  });

  it('a delivery from /v1/send (a batch) and from a SEND_EMAIL step (a child workflow): the email ids and template, never the address', async () => {
    const tpl = await h.http
      .post('/templates')
      .set(bearer(p.secretKey))
      .send({ name: 'Receipt', subject: 'Thanks', body: '<p>hi</p>', from: `team@${DOMAIN}`, type: 'TRANSACTIONAL' });
    expect(tpl.status).toBe(201);
    const to = uniqueEmail('receipt');
    const sent = await h.http.post('/v1/send').set(bearer(p.secretKey)).send({ to, template: tpl.body.id });
    expect(sent.status).toBe(200);
    const emailId = sent.body.data.emails[0].email as string;
    // Its row names the batch workflow that delivers it, and that workflow's summary names the email.
    const batch = (await h.deps.knex('emails').where({ id: emailId }).first()).delivery_workflow as string;
    expect(batch).toMatch(/^emails-/);
    const { summary } = await described(batch, [emailId, p.projectId, 'POST /v1/send']);
    expect(summary).toBe(`Delivery of 1 email from POST /v1/send (first ${emailId})`);
    await eventually(async () => (await currentDetails(await handle(batch))) === 'Delivery of 1 email · 1 sent, 0 failed');
    expect(JSON.stringify((await (await handle(batch)).fetchHistory()).events)).not.toContain(to);

    const api = workflowApi(h, p);
    const event = `ops-buy-${Date.now()}`;
    const wf = await api.build(event, { send: { type: 'SEND_EMAIL', config: { templateId: tpl.body.id } } }, [['trigger', 'send']], { enabled: true });
    const buyer = uniqueEmail('buyer');
    await api.track(buyer, event);
    const exec = await api.executionOf(wf.id, await contactId(buyer));
    const done = await api.until(wf.id, exec.id, ['COMPLETED', 'FAILED']);
    expect(done.status).toBe('COMPLETED');
    const childEmail = done.steps[1].output.emailId as string;
    // SDK 1.24 does not carry a child's static summary to the server (its start event has no user
    // metadata), so the child says what it is in its current details.
    const child = await handle(`email-${childEmail}`);
    expect(await currentDetails(child)).toBe(`Delivery of email ${childEmail} for exec-${exec.id} · SENT`);
    // The step's activity result lands in the execution's history: no address there either.
    const history = JSON.stringify((await (await handle(`exec-${exec.id}`)).fetchHistory()).events);
    expect(history).not.toContain(buyer);
  });

  it('event routing started by a contact change names the event and contact', async () => {
    const email = uniqueEmail('flip');
    const created = await h.http.post('/contacts').set(bearer(p.secretKey)).send({ email, subscribed: true });
    expect([200, 201]).toContain(created.status);
    const cid = await contactId(email);
    expect((await h.http.patch(`/contacts/${cid}`).set(bearer(p.secretKey)).send({ subscribed: false })).status).toBe(200);
    const ev = await eventually(async () => h.deps.knex('events').where({ contact_id: cid, name: 'contact.unsubscribed' }).first());
    const { summary } = await described(`event-${ev.id}`, [ev.id, cid, 'contact.unsubscribed']);
    expect(summary).toBe(`Routing of event 'contact.unsubscribed' (${ev.id}) for contact ${cid}`);
  });

  it('a campaign: summary, the CampaignId search attribute finds exactly its run, state answers while it waits', async () => {
    const fx = await createProjectFixture(h);
    await verifiedDomain(h, fx.projectId, DOMAIN);
    const ids: string[] = [];
    for (const name of ['November news', 'December news']) {
      const res = await h.http
        .post('/campaigns')
        .set(bearer(fx.secretKey))
        .send({ name, subject: 's', body: 'b', from: `news@${DOMAIN}`, audienceType: 'ALL' });
      expect(res.status).toBe(201);
      ids.push(res.body.data.id);
      expect((await h.http.post(`/campaigns/${res.body.data.id}/send`).set(bearer(fx.secretKey)).send({ scheduledFor: '2999-01-01T00:00:00Z' })).status).toBe(
        200,
      );
    }
    const { summary } = await described(`campaign-${ids[0]}`, [ids[0], fx.projectId]);
    expect(summary).toBe("Campaign 'November news' · scheduled for 2999-01-01T00:00:00.000Z");
    expect(await listIds(`CampaignId = '${ids[0]}'`, 1)).toEqual([`campaign-${ids[0]}`]);
    expect(await listIds(`ProjectId = '${fx.projectId}' AND WorkflowType = 'campaignSend'`, 2)).toEqual(ids.map((i) => `campaign-${i}`).sort());
    const hd = await handle(`campaign-${ids[0]}`);
    expect(await hd.query(campaignStateQuery)).toEqual({
      status: 'SCHEDULED',
      totalRecipients: null,
      handedOver: 0,
      failed: 0,
      lanes: 0,
      paused: false,
      pausedSince: null,
    });
    expect(await currentDetails(hd)).toBe('Scheduled for 2999-01-01T00:00:00.000Z');
    // Not sending yet: the workflow's validator refuses a pause (the route refuses first on the row's status).
    expect((await h.http.post(`/campaigns/${ids[0]}/pause`).set(bearer(fx.secretKey)).send({})).status).toBe(409);
    for (const id of ids) expect((await h.http.post(`/campaigns/${id}/cancel`).set(bearer(fx.secretKey)).send({})).status).toBe(200);
  });

  it('a bulk job and a segment compute: summary, state with processed and total, current details', async () => {
    const fx = await createProjectFixture(h);
    const contactIds: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await h.http
        .post('/contacts')
        .set(bearer(fx.secretKey))
        .send({ email: uniqueEmail(`bulk${i}`), subscribed: false, data: { plan: 'pro' } });
      contactIds.push(res.body.id ?? res.body.data?.id);
    }
    const job = await h.http.post('/contacts/bulk-subscribe').set(bearer(fx.secretKey)).send({ contactIds });
    expect(job.status).toBe(202);
    const jobId = job.body.jobId as string;
    const { summary } = await described(`job-${jobId}`, [jobId, fx.projectId, `GET /contacts/bulk/${jobId}`]);
    expect(summary).toBe(`Bulk subscribe of 3 rows · job ${jobId}`);
    const jh = await handle(`job-${jobId}`);
    await jh.result();
    // A closed workflow still answers queries (the worker replays it).
    expect(await jh.query(jobStateQuery)).toEqual({ status: 'COMPLETED', processed: 3, total: 3, batches: 1 });
    expect(await currentDetails(jh)).toBe('Completed · 3 of 3 rows processed · 1 batches in this run');

    const seg = await h.http
      .post('/segments')
      .set(bearer(fx.secretKey))
      .send({
        name: 'Pro users',
        condition: { logic: 'AND', groups: [{ filters: [{ field: 'data.plan', operator: 'equals', value: 'pro' }] }] },
        trackMembership: true,
      });
    expect(seg.status).toBe(201);
    expect((await h.http.post(`/segments/${seg.body.id}/compute`).set(bearer(fx.secretKey))).status).toBe(200);
    const [computeId] = await listIds(`ProjectId = '${fx.projectId}' AND WorkflowType = 'segmentCompute'`, 1);
    const computed = await described(computeId, [seg.body.id, fx.projectId]);
    expect(computed.summary).toBe(`Compute of segment 'Pro users' (${seg.body.id})`);
    const sh = await handle(computeId);
    expect(await sh.query(jobStateQuery)).toEqual({ status: 'COMPLETED', processed: 3, total: null, batches: 1 });
    expect(await currentDetails(sh)).toBe('Completed · 1 batches · 3 contacts walked · 3 members (3 entered, 0 exited)');
  });
});

describe('search attributes operators filter by', () => {
  it("StepType = 'WAIT_FOR_EVENT' (with the workflow or the project) finds exactly the executions sitting there", async () => {
    const fx = await createProjectFixture(h);
    const api = workflowApi(h, fx);
    const event = `ops-trial-${Date.now()}`;
    const waiting = await api.build(event, { wait: { type: 'WAIT_FOR_EVENT', config: { eventName: `${event}-paid` } } }, [['trigger', 'wait']], {
      enabled: true,
    });
    const delaying = await api.build(event, { later: { type: 'DELAY', config: { amount: 1000, unit: 'days' } } }, [['trigger', 'later']], { enabled: true });
    const emails = [uniqueEmail('w1'), uniqueEmail('w2')];
    for (const e of emails) expect((await api.track(e, event)).status).toBe(200);
    const execs = await Promise.all(emails.map(async (e) => (await api.executionOf(waiting.id, await contactId(e, fx.projectId))).id));
    const delayed = await Promise.all(emails.map(async (e) => (await api.executionOf(delaying.id, await contactId(e, fx.projectId))).id));
    for (const id of execs) await api.until(waiting.id, id, ['WAITING']);
    for (const id of delayed) await api.until(delaying.id, id, ['WAITING']);

    const expected = execs.map((id) => `exec-${id}`).sort();
    expect(await listIds(`WorkflowDefinitionId = '${waiting.id}' AND StepType = 'WAIT_FOR_EVENT'`, 2)).toEqual(expected);
    expect(await listIds(`ProjectId = '${fx.projectId}' AND StepType = 'WAIT_FOR_EVENT'`, 2)).toEqual(expected);
    expect(await listIds(`ProjectId = '${fx.projectId}' AND StepType = 'DELAY'`, 2)).toEqual(delayed.map((id) => `exec-${id}`).sort());
    // One contact's executions, whatever their workflow.
    const one = await contactId(emails[0], fx.projectId);
    expect(await listIds(`ContactId = '${one}' AND WorkflowType = 'workflowExecution'`, 2)).toEqual([`exec-${execs[0]}`, `exec-${delayed[0]}`].sort());
  });
});

describe('the workflow bundle', () => {
  it('preloads the workflow modules once per V8 context instead of evaluating them per run', () => {
    const code = fs.readFileSync(process.env.TEST_WORKFLOW_BUNDLE!, 'utf8');
    const preload = /exports\.preloadModules = function preloadModules\(\) \{([^}]*)\}/.exec(code);
    expect(preload?.[1]).toContain('./temporal/workflows/index.ts');
  });
});

describe('workflow changes replay recorded histories', () => {
  const replay = (name: string) => {
    const history = temporal.api.history.v1.History.decode(fs.readFileSync(path.join(__dirname, '..', 'fixtures', `${name}.history.bin`)));
    // The shortest, an execution that reached its first wait, has 9 events: less is a broken fixture.
    expect(history.events.length).toBeGreaterThanOrEqual(9);
    return Worker.runReplayHistory({ workflowBundle: { codePath: process.env.TEST_WORKFLOW_BUNDLE! } }, history, `${name}-replay`);
  };
  // Recorded before the StepType upsert (TRIGGER → DELAY → WAIT_FOR_EVENT → UPDATE_CONTACT): one
  // history of an execution still waiting, one of the same execution completed.
  it.each(['workflowExecution-v1-waiting', 'workflowExecution-v1-completed'])('replays %s, recorded before StepType was upserted', (name) => replay(name));
  // Recorded before the boundary write was folded into the wait (TRIGGER → WAIT_FOR_EVENT → DELAY →
  // UPDATE_CONTACT, two local activities at each wait): waiting, and the same execution completed.
  it.each(['workflowExecution-v2-waiting', 'workflowExecution-v2-completed'])('replays %s, recorded before the fold-boundary-write patch', (name) =>
    replay(name),
  );
  // Recorded before pause/resume: a lanes run that continued as new, and the run that finished.
  it.each(['campaignSend-v2-continued', 'campaignSend-v2-finished'])('replays %s, recorded before pause and resume', (name) => replay(name));
});
