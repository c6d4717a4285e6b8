import { startHarness, createProjectFixture, bearer, eventually, Harness, ProjectFixture } from '../helpers/harness';
import { startSendgridSink, SendgridSink } from '../helpers/sendgridSink';
import { verifiedDomain, uniqueEmail } from '../helpers/fixtures';
import { workflowApi, equalsFilter, localActivitiesOf } from '../helpers/workflows';
import { eventSignal } from '../../temporal/contract';
import { routeEvents } from '../../activities/eventBatch';
import { upsertContact } from '../../db/contactWriters';
import { recordEvent } from '../../db/events';
import { createExecution, markWaiting } from '../../db/executions';
import { cancelExecutions } from '../../services/executions';
import crypto from 'node:crypto';
import { deliverEmailWorkflowId } from '../../temporal/workflowIds';
import { PRIORITY } from '../../temporal/priorities';

// A day lasts 0.864 s: "DELAY 2 days" runs in under two seconds.
const SCALE = '0.00001';
const scaled = (days: number) => Math.round(days * 86_400_000 * Number(SCALE));

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
  await verifiedDomain(h, p.projectId, 'wf.example.com');
  api = workflowApi(h, p);
});
afterAll(async () => {
  await h?.stop();
  await sink?.stop();
});

const sinkFor = (email: string) => sink.messages.filter((m) => m.body.personalizations[0].to[0].email === email);
const contactId = async (email: string) => (await h.deps.knex('contacts').where({ project_id: p.projectId, email }).first()).id as string;
const temporalClient = () => h.deps.temporal.client();
const routed = (eventId: string) => eventually(async () => (await h.deps.knex('events').where({ id: eventId }).first())?.routed_at);

/** A manual execution row for a new contact, written by createExecution alone: no Temporal start. */
async function executionRow(workflowId: string, tag: string) {
  const contact = (await upsertContact(h.deps.knex, { projectId: p.projectId, email: uniqueEmail(tag), defaultSubscribed: true })).contact.id;
  const created = await createExecution(h.deps.knex, {
    id: crypto.randomUUID(),
    projectId: p.projectId,
    workflowId,
    contactId: contact,
    context: {},
    mode: 'manual',
  });
  if ('skipped' in created) throw new Error(created.skipped);
  return created;
}

describe('triggered executions', () => {
  it('signup → DELAY 2 days → CONDITION on data.plan: yes sends the email once (COMPLETED), no exits (EXITED)', async () => {
    const event = `signup-${Date.now()}`;
    const tpl = await h.http.post('/templates').set(bearer(p.secretKey)).send({
      name: 'welcome',
      subject: 'Welcome {{ name }} ({{ event.name }})',
      body: '<p>plan {{ plan }} via {{ event.data.source }}</p>',
      from: 'team@wf.example.com',
      type: 'MARKETING',
    });
    const wf = await api.build(
      event,
      {
        wait: { type: 'DELAY', config: { amount: 2, unit: 'days' } },
        cond: { type: 'CONDITION', config: { condition: equalsFilter('data.plan', 'pro') } },
        send: { type: 'SEND_EMAIL', config: { templateId: tpl.body.id } },
        exit: { type: 'EXIT' },
      },
      [
        ['trigger', 'wait'],
        ['wait', 'cond'],
        ['cond', 'send', 'yes'],
        ['cond', 'exit', 'no'],
      ],
      { enabled: true },
    );
    // email.sent is routed too: a second workflow on it marks the contact.
    await api.build('email.sent', { mark: { type: 'UPDATE_CONTACT', config: { data: { welcomed: true } } } }, [['trigger', 'mark']], { enabled: true });

    const [pro, free] = [uniqueEmail('pro'), uniqueEmail('free')];
    const source = { value: 'ads', persistent: false };
    expect((await api.track(pro, event, { plan: 'pro', name: 'Ann', source })).status).toBe(200);
    expect((await api.track(free, event, { plan: 'free', source })).status).toBe(200);
    const [proExec, freeExec] = [await api.executionOf(wf.id, await contactId(pro)), await api.executionOf(wf.id, await contactId(free))];

    const done = await api.until(wf.id, proExec.id, ['COMPLETED', 'EXITED', 'FAILED']);
    expect(done.status).toBe('COMPLETED');
    expect(done.steps.map((s: any) => [s.type, s.status])).toEqual([
      ['TRIGGER', 'COMPLETED'],
      ['DELAY', 'COMPLETED'],
      ['CONDITION', 'COMPLETED'],
      ['SEND_EMAIL', 'COMPLETED'],
    ]);
    expect(done.steps[1].output).toEqual({ delayedMs: scaled(2) });
    expect(done.steps[2].output).toEqual({ matched: true });
    expect(done.steps[3].output).toMatchObject({ status: 'SENT', emailId: expect.any(String) });
    // The step's delivery is started from deliverEmail's kit: transactional priority and Web UI text, like every delivery.
    const child = await (await h.deps.temporal.client()).workflow.getHandle(deliverEmailWorkflowId(done.steps[3].output.emailId)).describe();
    expect(child.raw.workflowExecutionInfo?.priority?.priorityKey).toBe(PRIORITY.transactional);
    expect(await child.staticSummary()).toMatch(/^Delivery of email /);
    expect(done.context.event).toMatchObject({ name: event, data: { plan: 'pro', source: 'ads' } });

    const exited = await api.until(wf.id, freeExec.id, ['COMPLETED', 'EXITED', 'FAILED']);
    expect(exited.status).toBe('EXITED');
    expect(exited.steps.map((s: any) => s.type)).toEqual(['TRIGGER', 'DELAY', 'CONDITION', 'EXIT']);
    expect(exited.steps[2].output).toEqual({ matched: false });
    expect(exited.finishedAt).toEqual(expect.any(String));

    const mails = sinkFor(pro);
    expect(mails).toHaveLength(1);
    expect(mails[0].body.subject).toBe(`Welcome Ann (${event})`);
    // A marketing template's mail carries the open pixel by default (docs/tracking.md).
    expect(mails[0].body.content.find((c: any) => c.type === 'text/html').value).toMatch(
      /^<p>plan pro via ads<\/p><img src="http:\/\/[^"]+\/t\/o\/[\w.-]+"[^>]*>$/,
    );
    expect(sinkFor(free)).toHaveLength(0);
    await eventually(async () => (await h.deps.knex('contacts').where({ email: pro, project_id: p.projectId }).first()).data.welcomed === true);
  });

  it('WAIT_FOR_EVENT takes next with the event in the context, or timeout when none comes', async () => {
    const event = `trial-${Date.now()}`;
    const wf = await api.build(
      event,
      {
        wait: { type: 'WAIT_FOR_EVENT', config: { eventName: `${event}-purchase`, timeout: { amount: 6, unit: 'days' } } },
        bought: { type: 'UPDATE_CONTACT', config: { data: { bought: true } } },
        exit: { type: 'EXIT' },
      },
      [
        ['trigger', 'wait'],
        ['wait', 'bought', 'next'],
        ['wait', 'exit', 'timeout'],
      ],
      { enabled: true },
    );
    const [buyer, idler] = [uniqueEmail('buyer'), uniqueEmail('idler')];
    await Promise.all([api.track(buyer, event), api.track(idler, event)]);
    const buying = await api.executionOf(wf.id, await contactId(buyer));
    const idling = await api.executionOf(wf.id, await contactId(idler));
    await api.until(wf.id, buying.id, ['WAITING']);
    const purchase = await api.track(buyer, `${event}-purchase`, { sku: 'x1' });

    const got = await api.until(wf.id, buying.id, ['COMPLETED', 'EXITED', 'FAILED']);
    expect(got.status).toBe('COMPLETED');
    expect(got.steps.map((s: any) => s.type)).toEqual(['TRIGGER', 'WAIT_FOR_EVENT', 'UPDATE_CONTACT']);
    expect(got.steps[1].output).toEqual({ eventId: purchase.body.data.event });
    expect(got.context.event).toMatchObject({ id: purchase.body.data.event, name: `${event}-purchase`, data: { sku: 'x1' } });
    expect((await h.deps.knex('contacts').where({ email: buyer, project_id: p.projectId }).first()).data.bought).toBe(true);

    const timedOut = await api.until(wf.id, idling.id, ['COMPLETED', 'EXITED', 'FAILED']);
    expect(timedOut.status).toBe('EXITED');
    expect(timedOut.steps.map((s: any) => s.type)).toEqual(['TRIGGER', 'WAIT_FOR_EVENT', 'EXIT']);
    expect(timedOut.steps[1].output).toEqual({ timedOut: true });
  });

  it('routes a batch of many contacts side by side: one execution each despite repeats, then every wait released', async () => {
    const event = `batch-${Date.now()}`;
    const wf = await api.build(event, { wait: { type: 'WAIT_FOR_EVENT', config: { eventName: `${event}-done` } } }, [['trigger', 'wait']], { enabled: true });
    const contacts = await Promise.all(
      Array.from(
        { length: 24 },
        async (_, i) => (await upsertContact(h.deps.knex, { projectId: p.projectId, email: uniqueEmail(`batch${i}`), defaultSubscribed: true })).contact.id,
      ),
    );
    const record = (contactId: string, name: string) => recordEvent(h.deps.knex, { projectId: p.projectId, contactId, name, data: {} });
    // Each contact's trigger comes twice in the one batch; allowReentry is off.
    const triggers = [];
    for (const c of contacts) triggers.push(await record(c, event));
    for (const c of contacts) triggers.push(await record(c, event));
    const routedStarts = await routeEvents(
      h.deps,
      triggers.map((e) => e.id),
    );
    expect(routedStarts).toEqual({ started: 24, signalled: 0 });
    expect(await api.rows(wf.id)).toHaveLength(24);
    await eventually(async () => (await api.rows(wf.id)).every((r: any) => r.status === 'WAITING'));

    const done = [];
    for (const c of contacts) done.push(await record(c, `${event}-done`));
    const routedSignals = await routeEvents(
      h.deps,
      done.map((e) => e.id),
    );
    // Each waiting execution is signalled once, unless it caught its event itself: a markWaiting retried
    // after the event was written (a loaded machine's activity timeout) reads unrouted events and goes on
    // without the signal (db/executions.ts), and its signal then finds the run closed. Either way every
    // execution completes, below, and nothing starts.
    expect(routedSignals.started).toBe(0);
    expect(routedSignals.signalled).toBeGreaterThanOrEqual(20);
    expect(routedSignals.signalled).toBeLessThanOrEqual(24);
    await eventually(async () => (await api.rows(wf.id)).every((r: any) => r.status === 'COMPLETED'), 30_000);
    const events = await h.deps
      .knex('events')
      .whereIn(
        'id',
        [...triggers, ...done].map((e) => e.id),
      )
      .whereNull('routed_at');
    expect(events).toHaveLength(0);
  });

  it('records the trigger step with the execution row, so its engine starts one mirror write later', async () => {
    const wf = await api.build(`rec-${Date.now()}`, { exit: { type: 'EXIT' } }, [['trigger', 'exit']], { enabled: true });
    const created = await executionRow(wf.id, 'rec');
    expect(created.execution.current_step_id).toBe(wf.triggerStepId);
    const steps = await h.deps.knex('workflow_execution_steps').where({ execution_id: created.execution.id });
    expect(steps).toEqual([expect.objectContaining({ seq: 0, step_id: wf.triggerStepId, type: 'TRIGGER', status: 'RUNNING' })]);
  });

  it('createExecution decides in one statement: not triggered (other project, disabled, other event), already entered, already active, or the same row again', async () => {
    const event = `ce-${Date.now()}`;
    const wf = await api.build(event, { exit: { type: 'EXIT' } }, [['trigger', 'exit']], { enabled: true });
    const contact = (await upsertContact(h.deps.knex, { projectId: p.projectId, email: uniqueEmail('ce'), defaultSubscribed: true })).contact.id;
    const other = await createProjectFixture(h, 'other project');
    const attempt = (over: Partial<Parameters<typeof createExecution>[1]> = {}) =>
      createExecution(h.deps.knex, {
        id: crypto.randomUUID(),
        projectId: p.projectId,
        workflowId: wf.id,
        contactId: contact,
        context: {},
        triggerEvent: { id: crypto.randomUUID(), name: event },
        mode: 'trigger',
        ...over,
      });
    expect(await attempt({ projectId: other.projectId })).toEqual({ skipped: 'not-triggered' });
    expect(await attempt({ triggerEvent: { id: crypto.randomUUID(), name: `${event}-else` } })).toEqual({ skipped: 'not-triggered' });
    const first = await attempt();
    if ('skipped' in first) throw new Error(first.skipped);
    expect(first).toMatchObject({ fresh: true, workflow: { id: wf.id, enabled: true }, execution: { status: 'RUNNING', current_step_id: wf.triggerStepId } });
    expect(first.graph.steps.map((st) => st.id).sort()).toEqual([wf.triggerStepId, wf.steps.exit].sort());
    // The same id again (a retried router): the row it made, not a new one.
    const again = await attempt({ id: first.execution.id });
    expect(again).toMatchObject({ fresh: false, execution: { id: first.execution.id } });
    // Not re-entrant: a second trigger for the contact is refused by its entry; a manual start is not,
    // but the first is still active.
    expect(await attempt()).toEqual({ skipped: 'already-entered' });
    expect(await attempt({ mode: 'manual', triggerEvent: undefined })).toEqual({ skipped: 'already-active' });
    expect(await h.deps.knex('workflow_executions').where({ workflow_id: wf.id, contact_id: contact })).toHaveLength(1);
    // Disabled: nothing starts by trigger, whatever the contact.
    await api.patch(wf.id, { enabled: false });
    const fresh = (await upsertContact(h.deps.knex, { projectId: p.projectId, email: uniqueEmail('ce2'), defaultSubscribed: true })).contact.id;
    expect(await attempt({ contactId: fresh })).toEqual({ skipped: 'not-triggered' });
  });

  it('writes a step boundary and the wait it leads into as one local activity (enterExecutionWait), with the same rows as two', async () => {
    const event = `fold-${Date.now()}`;
    const ping = `${event}-ping`;
    const wf = await api.build(
      event,
      { wait: { type: 'WAIT_FOR_EVENT', config: { eventName: ping } }, pause: { type: 'DELAY', config: { amount: 1, unit: 'hours' } } },
      [
        ['trigger', 'wait'],
        ['wait', 'pause', 'next'],
      ],
      { enabled: true },
    );
    const email = uniqueEmail('fold');
    const { id } = await api.waitingExecution(wf.id, email, event);
    const handle = (await temporalClient()).workflow.getHandle(`exec-${id}`);
    const localActivities = () => localActivitiesOf(h, id);
    // Postgres says WAITING as soon as the local activity wrote it; its marker reaches the history when
    // the workflow task completes, a moment later.
    expect(await eventually(async () => ((await localActivities()).length ? localActivities() : null))).toEqual(['enterExecutionWait']);
    const row = await h.deps.knex('workflow_executions').where({ id }).first();
    expect(row).toMatchObject({ status: 'WAITING', waiting_for: ping, waiting_seq: 1, current_step_id: wf.steps.wait, wake_at: null });
    const steps = await h.deps.knex('workflow_execution_steps').where({ execution_id: id }).orderBy('seq');
    expect(steps.map((st) => [st.seq, st.type, st.status])).toEqual([
      [0, 'TRIGGER', 'COMPLETED'],
      [1, 'WAIT_FOR_EVENT', 'RUNNING'],
    ]);

    const ping1 = (await api.track(email, ping)).body.data.event;
    const done = await api.until(wf.id, id, ['COMPLETED', 'FAILED']);
    expect(done.status).toBe('COMPLETED');
    expect(done.steps.map((st: { type: string; status: string }) => [st.type, st.status])).toEqual([
      ['TRIGGER', 'COMPLETED'],
      ['WAIT_FOR_EVENT', 'COMPLETED'],
      ['DELAY', 'COMPLETED'],
    ]);
    expect(done.steps[1].output).toEqual({ eventId: ping1 });
    // The event reached the context through the folded write into the DELAY (it travels as an id).
    expect((await h.deps.knex('workflow_executions').where({ id }).first()).context.event).toMatchObject({ id: ping1, name: ping });
    await handle.result();
    expect(await localActivities()).toEqual(['enterExecutionWait', 'enterExecutionWait', 'recordExecutionProgress']);
  });

  it('a folded boundary write on a cancelled execution records the steps and leaves the execution as it is', async () => {
    const wf = await api.build(`foldc-${Date.now()}`, { wait: { type: 'WAIT_FOR_EVENT', config: { eventName: 'never' } } }, [['trigger', 'wait']]);
    const { id } = (await executionRow(wf.id, 'foldc')).execution;
    const boundary = { finished: { seq: 0, status: 'COMPLETED' as const }, started: { seq: 1, stepId: wf.steps.wait, type: 'WAIT_FOR_EVENT' } };
    await h.deps.knex('workflow_executions').where({ id }).update({ status: 'CANCELLED' });
    expect(await markWaiting(h.deps.knex, { executionId: id, seq: 1, eventName: 'never' }, boundary)).toEqual({
      active: false,
      stepStarted: true,
      early: null,
    });
    expect(await h.deps.knex('workflow_executions').where({ id }).first()).toMatchObject({
      status: 'CANCELLED',
      waiting_for: null,
      current_step_id: wf.triggerStepId,
    });
    const steps = await h.deps.knex('workflow_execution_steps').where({ execution_id: id }).orderBy('seq');
    expect(steps.map((st) => [st.seq, st.status])).toEqual([
      [0, 'COMPLETED'],
      [1, 'RUNNING'],
    ]);
    // Active again: the same call (a retry) makes it wait, and starts no second step row.
    await h.deps.knex('workflow_executions').where({ id }).update({ status: 'RUNNING' });
    expect(await markWaiting(h.deps.knex, { executionId: id, seq: 1, eventName: 'never', wakeInMs: 60_000 }, boundary)).toEqual({
      active: true,
      stepStarted: false,
      early: null,
    });
    const waiting = await h.deps.knex('workflow_executions').where({ id }).first();
    expect(waiting).toMatchObject({ status: 'WAITING', waiting_for: 'never', waiting_seq: 1, current_step_id: wf.steps.wait });
    expect(new Date(waiting.wake_at).getTime() - Date.now()).toBeGreaterThan(50_000);
  });

  it('delivers an event to a wait once: a repeated signal of the same event is dropped', async () => {
    const event = `twice-${Date.now()}`;
    const ping = `${event}-ping`;
    const wf = await api.build(
      event,
      { first: { type: 'WAIT_FOR_EVENT', config: { eventName: ping } }, second: { type: 'WAIT_FOR_EVENT', config: { eventName: ping } } },
      [
        ['trigger', 'first'],
        ['first', 'second'],
      ],
      { enabled: true },
    );
    const email = uniqueEmail();
    await api.track(email, event);
    const exec = await api.executionOf(wf.id, await contactId(email));
    await api.until(wf.id, exec.id, ['WAITING']);
    const e1 = (await api.track(email, ping)).body.data.event;
    await routed(e1);
    const afterFirst = await eventually(async () => {
      const body = (await api.execution(wf.id, exec.id)).body;
      return body.status === 'WAITING' && body.steps.length === 3 ? body : null;
    });
    expect(afterFirst.steps[1].output).toEqual({ eventId: e1 });
    // The same event again, as a repeated routing would send it: the second wait must not take it.
    const stored = await h.deps.knex('events').where({ id: e1 }).first();
    const handle = (await temporalClient()).workflow.getHandle(`exec-${exec.id}`);
    await handle.signal(eventSignal, { id: e1, name: ping, data: {}, createdAt: new Date(stored.created_at).toISOString() });
    const e2 = (await api.track(email, ping)).body.data.event;
    const done = await api.until(wf.id, exec.id, ['COMPLETED', 'FAILED']);
    expect(done.steps[2].output).toEqual({ eventId: e2 });
  });
});

describe('contact updates', () => {
  it('UPDATE_CONTACT unsubscribes and routes contact.unsubscribed (which triggers); a MARKETING email is then SKIPPED', async () => {
    const listener = await api.build('contact.unsubscribed', { mark: { type: 'UPDATE_CONTACT', config: { data: { goodbye: true } } } }, [['trigger', 'mark']], {
      enabled: true,
    });
    const wf = await api.build(
      'leave',
      {
        leave: { type: 'UPDATE_CONTACT', config: { subscribed: false, data: { left: 'yes' } } },
        send: { type: 'SEND_EMAIL', config: { subject: 'Deals', body: '<p>deals</p>', from: 'team@wf.example.com' } },
      },
      [
        ['trigger', 'leave'],
        ['leave', 'send'],
      ],
    );
    const email = uniqueEmail();
    await api.track(email, 'x');
    const contact = await contactId(email);
    const started = await api.start(wf.id, { contactId: contact });
    const done = await api.until(wf.id, started.body.id, ['COMPLETED', 'FAILED']);
    expect(done.status).toBe('COMPLETED');
    expect(done.steps.map((s: any) => [s.type, s.status])).toEqual([
      ['TRIGGER', 'COMPLETED'],
      ['UPDATE_CONTACT', 'COMPLETED'],
      ['SEND_EMAIL', 'SKIPPED'],
    ]);
    expect(done.steps[1].output).toEqual({ changed: true, events: ['contact.unsubscribed'] });
    expect(done.steps[2].output).toEqual({ reason: 'unsubscribed' });
    const after = await api.executionOf(listener.id, contact);
    await api.until(listener.id, after.id, ['COMPLETED']);
    const row = await h.deps.knex('contacts').where({ id: contact }).first();
    expect(row).toMatchObject({ subscribed: false, data: { left: 'yes', goodbye: true } });
    expect(sinkFor(email)).toHaveLength(0);
  });
});

describe('re-entry', () => {
  it('allowReentry off: ten concurrent /v1/track calls start exactly one execution, and none later', async () => {
    const event = `once-${Date.now()}`;
    const wf = await api.build(event, { pause: { type: 'DELAY', config: { amount: 1, unit: 'minutes' } } }, [['trigger', 'pause']], { enabled: true });
    const email = uniqueEmail();
    const tracked = await Promise.all(Array.from({ length: 10 }, () => api.track(email, event)));
    expect(tracked.every((r) => r.status === 200)).toBe(true);
    for (const r of tracked) await routed(r.body.data.event);
    expect(await api.rows(wf.id)).toHaveLength(1);
    const [only] = await api.rows(wf.id);
    await api.until(wf.id, only.id, ['COMPLETED']);
    await routed((await api.track(email, event)).body.data.event);
    expect(await api.rows(wf.id)).toHaveLength(1);
  });

  it('allowReentry on: one active execution at a time, a new one once it has ended', async () => {
    const event = `again-${Date.now()}`;
    const go = `${event}-go`;
    const wf = await api.build(event, { hold: { type: 'WAIT_FOR_EVENT', config: { eventName: go } } }, [['trigger', 'hold']], {
      enabled: true,
      allowReentry: true,
    });
    const email = uniqueEmail();
    const tracked = await Promise.all(Array.from({ length: 10 }, () => api.track(email, event)));
    for (const r of tracked) await routed(r.body.data.event);
    const rows = await api.rows(wf.id);
    expect(rows).toHaveLength(1);
    await api.until(wf.id, rows[0].id, ['WAITING']);
    await api.track(email, go);
    await api.until(wf.id, rows[0].id, ['COMPLETED']);
    await routed((await api.track(email, event)).body.data.event);
    expect(await api.rows(wf.id)).toHaveLength(2);
  });
});

describe('manual executions and cancelling', () => {
  it('starts one for a contact with a context, refuses a second while active, and cancels it in Temporal and Postgres', async () => {
    const wf = await api.build('manual', { hold: { type: 'WAIT_FOR_EVENT', config: { eventName: 'manual-never' } } }, [['trigger', 'hold']]);
    const email = uniqueEmail();
    await api.track(email, 'something');
    const contact = await contactId(email);
    const started = await api.start(wf.id, { contactId: contact, context: { coupon: 'A1' } });
    expect(started.status).toBe(201);
    expect(started.body).toMatchObject({ workflowId: wf.id, contactId: contact, status: 'RUNNING', context: { coupon: 'A1' }, finishedAt: null, error: null });
    const id = started.body.id;
    const waiting = await api.until(wf.id, id, ['WAITING']);
    expect(waiting.currentStepId).toBe(wf.steps.hold);
    const described = await (await temporalClient()).workflow.getHandle(`exec-${id}`).describe();
    expect(described.searchAttributes).toMatchObject({ ProjectId: [p.projectId], ContactId: [contact], WorkflowDefinitionId: [wf.id] });
    expect(described.memo).toMatchObject({ workflow: 'wf manual', trigger: 'manual' });
    expect((await api.start(wf.id, { contactId: contact })).status).toBe(409);
    expect((await api.start(wf.id, { contactId: 'cnt_nobody' })).status).toBe(422);
    expect((await api.executions(wf.id, '?status=WAITING')).body).toMatchObject({ total: 1, data: [{ id }] });
    expect((await api.executions(wf.id, '?status=SLEEPING')).status).toBe(400);

    const cancelled = await api.cancel(wf.id, id);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.status).toBe('CANCELLED');
    const handle = (await temporalClient()).workflow.getHandle(`exec-${id}`);
    await eventually(async () => (await handle.describe()).status.name === 'CANCELLED');
    const detail = await eventually(async () => {
      const body = (await api.execution(wf.id, id)).body;
      return body.steps[1]?.status === 'CANCELLED' ? body : null;
    });
    expect(detail.status).toBe('CANCELLED');
    expect((await api.cancel(wf.id, id)).status).toBe(409);
  });

  it('cancel-all leaves no running Temporal workflow; the trigger change and delete are refused before, delete succeeds after', async () => {
    const event = `bulk-${Date.now()}`;
    const wf = await api.build(event, { hold: { type: 'WAIT_FOR_EVENT', config: { eventName: `${event}-never` } } }, [['trigger', 'hold']], { enabled: true });
    const emails = [uniqueEmail(), uniqueEmail(), uniqueEmail()];
    await Promise.all(emails.map((e) => api.track(e, event)));
    for (const e of emails) await api.until(wf.id, (await api.executionOf(wf.id, await contactId(e))).id, ['WAITING']);

    expect((await api.patch(wf.id, { eventName: `${event}-other` })).status).toBe(409);
    expect((await api.del(wf.id)).status).toBe(409);
    const all = await api.cancelAll(wf.id);
    expect(all.status).toBe(200);
    expect(all.body).toEqual({ cancelled: 3 });
    const client = await temporalClient();
    await eventually(async () => {
      let running = 0;
      for await (const _ of client.workflow.list({ query: `WorkflowDefinitionId = "${wf.id}" AND ExecutionStatus = "Running"` })) running++;
      return running === 0;
    });
    expect((await api.executions(wf.id, '?status=CANCELLED')).body.total).toBe(3);
    expect((await api.del(wf.id)).status).toBe(204);
    expect((await api.get(wf.id)).status).toBe(404);
  });
});

describe('cancelling, whoever records it first', () => {
  it('counts an execution its own workflow recorded CANCELLED before the API marked it', async () => {
    const event = `race-${Date.now()}`;
    const wf = await api.build(event, { hold: { type: 'WAIT_FOR_EVENT', config: { eventName: `${event}-never` } } }, [['trigger', 'hold']], { enabled: true });
    const emails = [uniqueEmail(), uniqueEmail(), uniqueEmail()];
    await Promise.all(emails.map((e) => api.track(e, event)));
    const ids: string[] = [];
    for (const e of emails) ids.push((await api.until(wf.id, (await api.executionOf(wf.id, await contactId(e))).id, ['WAITING'])).id);
    // The first one's cancellation landed first: its workflow wrote CANCELLED before the API's statement ran.
    await h.deps.knex('workflow_executions').where({ id: ids[0] }).update({ status: 'CANCELLED', finished_at: h.deps.knex.fn.now() });
    expect(await cancelExecutions(h.deps, wf.id, ids)).toBe(3);
    expect((await api.executions(wf.id, '?status=CANCELLED')).body.total).toBe(3);
  });
});

describe('durability', () => {
  it('runs the graph it started with: editing a DELAY (and deleting a later step) while it sleeps changes nothing for it', async () => {
    const wf = await api.build(
      'snapshot',
      { pause: { type: 'DELAY', config: { amount: 5, unit: 'days' } }, mark: { type: 'UPDATE_CONTACT', config: { data: { snapshot: 'kept' } } } },
      [
        ['trigger', 'pause'],
        ['pause', 'mark'],
      ],
    );
    const [first, second] = [uniqueEmail(), uniqueEmail()];
    await Promise.all([api.track(first, 'x'), api.track(second, 'x')]);
    const started = await api.start(wf.id, { contactId: await contactId(first) });
    await api.until(wf.id, started.body.id, ['WAITING']);
    expect((await api.patchStep(wf.id, wf.steps.pause, { config: { amount: 1, unit: 'minutes' } })).status).toBe(200);
    expect((await api.delStep(wf.id, wf.steps.mark)).status).toBe(204);

    const done = await api.until(wf.id, started.body.id, ['COMPLETED', 'FAILED']);
    expect(done.status).toBe('COMPLETED');
    expect(done.steps.map((s: any) => s.type)).toEqual(['TRIGGER', 'DELAY', 'UPDATE_CONTACT']);
    expect(done.steps[1].output).toEqual({ delayedMs: scaled(5) });
    expect((await h.deps.knex('contacts').where({ email: first, project_id: p.projectId }).first()).data.snapshot).toBe('kept');

    // A new execution gets the edited graph.
    const later = await api.start(wf.id, { contactId: await contactId(second) });
    const edited = await api.until(wf.id, later.body.id, ['COMPLETED', 'FAILED']);
    expect(edited.steps.map((s: any) => s.type)).toEqual(['TRIGGER', 'DELAY']);
    expect(edited.steps[1].output).toEqual({ delayedMs: 1 });
  });

  it('loses nothing when the worker stops during a DELAY and comes back after the timer fired', async () => {
    const wf = await api.build(
      'restart',
      {
        pause: { type: 'DELAY', config: { amount: 2, unit: 'days' } },
        send: {
          type: 'SEND_EMAIL',
          config: { subject: 'After the pause', body: '<p>{{ context.note }}</p>', from: 'team@wf.example.com', type: 'TRANSACTIONAL' },
        },
      },
      [
        ['trigger', 'pause'],
        ['pause', 'send'],
      ],
    );
    const email = uniqueEmail();
    await api.track(email, 'x');
    const started = await api.start(wf.id, { contactId: await contactId(email), context: { note: 'still here' } });
    await api.until(wf.id, started.body.id, ['WAITING']);
    await h.stopWorker();
    try {
      const handle = (await temporalClient()).workflow.getHandle(`exec-${started.body.id}`);
      await eventually(async () => (await handle.fetchHistory()).events?.some((e) => e.timerFiredEventAttributes));
    } finally {
      await h.startWorker();
    }
    const done = await api.until(wf.id, started.body.id, ['COMPLETED', 'FAILED']);
    expect(done.status).toBe('COMPLETED');
    await eventually(async () => sinkFor(email).length === 1);
    expect(sinkFor(email)[0].body.content.find((c: any) => c.type === 'text/html').value).toBe('<p>still here</p>');
    expect(await h.deps.knex('emails').where({ project_id: p.projectId, to_email: email }).count({ n: '*' }).first()).toEqual({ n: 1 });
  });
});
