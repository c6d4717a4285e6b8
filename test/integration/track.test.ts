import crypto from 'node:crypto';
import { WorkflowNotFoundError } from '@temporalio/client';
import { startHarness, createProjectFixture, bearer, eventually, Harness, ProjectFixture } from '../helpers/harness';
import { uniqueEmail } from '../helpers/fixtures';
import { localActivitiesOf, workflowApi } from '../helpers/workflows';

let h: Harness;
let p: ProjectFixture;

beforeAll(async () => {
  h = await startHarness({ worker: true });
  p = await createProjectFixture(h);
});
afterAll(() => h?.stop());

const track = (body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  h.http.post('/v1/track').set(bearer(p.publicKey)).set(headers).send(body);

describe('POST /v1/track', () => {
  it('records the event, creates the contact subscribed, answers the spec shape and routes the event durably', async () => {
    // A workflow listens to signup here, so the event goes through routing (see the test of events nobody listens to).
    await workflowApi(h, p).build('signup', { mark: { type: 'UPDATE_CONTACT', config: { data: { joined: true } } } }, [['trigger', 'mark']], { enabled: true });
    const email = uniqueEmail();
    const res = await track({ email, event: 'signup', data: { plan: 'pro', coupon: { value: 'X1', persistent: false } } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, data: { contact: expect.stringMatching(/^cnt_/), event: expect.any(String), timestamp: expect.any(String) } });
    const contact = await h.deps.knex('contacts').where({ id: res.body.data.contact }).first();
    expect(contact).toMatchObject({ email, subscribed: true, data: { plan: 'pro' } });
    const event = await h.deps.knex('events').where({ id: res.body.data.event }).first();
    expect(event).toMatchObject({ name: 'signup', contact_id: contact.id, data: { plan: 'pro', coupon: 'X1' } });
    const routed = await eventually(async () => (await h.deps.knex('events').where({ id: event.id }).first())?.routed_at);
    expect(routed).toBeInstanceOf(Date);
    const batch = await (await h.deps.temporal.client()).workflow.getHandle(`events-${event.id}`).describe();
    expect(batch.type).toBe('routeEventBatch');
    expect(batch.searchAttributes.ProjectId).toEqual([p.projectId]);
  });

  it('routes a burst of tracked events through a few batch executions, every event exactly once', async () => {
    const own = await createProjectFixture(h, 'burst');
    const endpoint = await h.http
      .post('/webhook-endpoints')
      .set(bearer(own.secretKey))
      .send({ url: 'https://hooks.example.test/burst', events: ['burst'] });
    expect(endpoint.status).toBe(201);
    const results = await Promise.all(
      Array.from({ length: 60 }, (_, i) =>
        h.http
          .post('/v1/track')
          .set(bearer(own.publicKey))
          .send({ email: uniqueEmail(`b${i}`), event: 'burst' }),
      ),
    );
    expect(results.every((r) => r.status === 200)).toBe(true);
    const ids = results.map((r) => r.body.data.event);
    await eventually(async () => (await h.deps.knex('events').whereIn('id', ids).whereNull('routed_at')).length === 0);
    const client = await h.deps.temporal.client();
    // Visibility trails the executions (more so on a loaded machine): list until the batches it
    // shows carry all 60 events; a batch routing an event twice would never sum to 60.
    const batches = await eventually(async () => {
      const ids: string[] = [];
      for await (const wf of client.workflow.list({ query: `WorkflowType = "routeEventBatch" AND ProjectId = "${own.projectId}"` })) ids.push(wf.workflowId);
      let routed = 0;
      for (const id of ids) routed += ((await client.workflow.getHandle(id).result()) as { events: number }).events;
      return routed === 60 ? ids : null;
    }, 90_000);
    expect(batches.length).toBeGreaterThanOrEqual(1);
    expect(batches.length).toBeLessThan(60);
    // Its deliveries to an address that does not resolve would retry for the rest of the run.
    expect((await h.http.delete(`/webhook-endpoints/${endpoint.body.id}`).set(bearer(own.secretKey))).status).toBe(204);
  }, 180_000);

  it('writes an event nobody listens to already routed, with no routing pass; routes it where a workflow, an endpoint or a waiting execution listens', async () => {
    const routingOf = async (eventId: string) => {
      try {
        return (await (await h.deps.temporal.client()).workflow.getHandle(`events-${eventId}`).describe()).type;
      } catch (err) {
        if (err instanceof WorkflowNotFoundError) return null;
        throw err;
      }
    };
    const eventOf = async (res: { status: number; body: any }) => {
      expect(res.status).toBe(200);
      return h.deps.knex('events').where({ id: res.body.data.event }).first();
    };

    // Nobody listens: routed by the statement that wrote it (routed_at is its created_at), no routeEventBatch.
    const quiet = await createProjectFixture(h, 'quiet');
    const settled = await eventOf(
      await h.http
        .post('/v1/track')
        .set(bearer(quiet.publicKey))
        .send({ email: uniqueEmail('q'), event: 'browsed' }),
    );
    expect(settled.routed_at).toEqual(settled.created_at);
    await new Promise((r) => setTimeout(r, 300)); // past the batcher's 100 ms window
    expect(await routingOf(settled.id)).toBeNull();

    // An enabled workflow on the event, or an enabled endpoint matching it: routed by routeEventBatch.
    const listened = await createProjectFixture(h, 'listened');
    const flows = workflowApi(h, listened);
    await flows.build('ordered', { mark: { type: 'UPDATE_CONTACT', config: { data: { ordered: true } } } }, [['trigger', 'mark']], { enabled: true });
    const ordered = await eventOf(await flows.track(uniqueEmail('o'), 'ordered'));
    expect(ordered.routed_at).toBeNull();
    await eventually(async () => (await routingOf(ordered.id)) === 'routeEventBatch');
    await eventually(async () => (await h.deps.knex('contacts').where({ id: ordered.contact_id }).first()).data?.ordered === true);
    const endpoint = await h.http
      .post('/webhook-endpoints')
      .set(bearer(listened.secretKey))
      .send({ url: 'https://hooks.example.test/paid', events: ['invoice.*'] });
    expect(endpoint.status).toBe(201);
    const paid = await eventOf(await flows.track(uniqueEmail('p'), 'invoice.paid'));
    expect(paid.routed_at).toBeNull();
    await eventually(async () => (await h.deps.knex('webhook_deliveries').where({ event_id: paid.id })).length === 1);
    expect((await h.http.delete(`/webhook-endpoints/${endpoint.body.id}`).set(bearer(listened.secretKey))).status).toBe(204);

    // The contact's execution waits for the event (its workflow triggers on another one): routed, and it resumes.
    const wf = await flows.waitThenMark('joined', 'confirmed', { confirmed: true });
    const waiter = uniqueEmail('w');
    const x = await flows.waitingExecution(wf.id, waiter, 'joined');
    const confirmed = await eventOf(await flows.track(waiter, 'confirmed'));
    expect(confirmed.routed_at).toBeNull();
    expect((await flows.until(wf.id, x.id, ['COMPLETED', 'EXITED', 'FAILED'])).status).toBe('COMPLETED');
    // Another contact tracking the same name has nothing waiting: settled.
    expect((await eventOf(await flows.track(uniqueEmail('n'), 'confirmed'))).routed_at).not.toBeNull();

    // A wait that committed while the event's statement ran: the statement wrote it routed; the
    // batcher's check after the commit reopens it, and routing resumes the execution.
    const lateX = await flows.waitingExecution(wf.id, uniqueEmail('late'), 'joined');
    // Postgres says WAITING as soon as the wait's local activity wrote it; the activity then reads
    // the events that arrived meanwhile (db/executions markWaiting). Write the event once that read is
    // over (its marker is in the history): on a loaded machine the read could otherwise take it first,
    // resume the execution, and leave the batcher no wait to reopen the event for.
    await eventually(async () => (await localActivitiesOf(h, lateX.id)).includes('enterExecutionWait'));
    const client = await h.deps.temporal.client();
    const raced = crypto.randomUUID();
    await h.deps
      .knex('events')
      .insert({ id: raced, project_id: listened.projectId, contact_id: lateX.contactId, name: 'confirmed', data: {}, routed_at: h.deps.knex.fn.now() });
    h.deps.runtime.events.recheck([{ id: raced, project_id: listened.projectId, contact_id: lateX.contactId, name: 'confirmed' }]);
    expect((await flows.until(wf.id, lateX.id, ['COMPLETED', 'EXITED', 'FAILED'])).status).toBe('COMPLETED');
    // The reopened event rides the flush's batch, named after that batch's first event — which is
    // another event of the project when one was tracked in the same window: find the batch carrying it.
    await eventually(async () => {
      for await (const run of client.workflow.list({ query: `WorkflowType = "routeEventBatch" AND ProjectId = "${listened.projectId}"` })) {
        const history = await client.workflow.getHandle(run.workflowId, run.runId).fetchHistory();
        const input = history.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads ?? [];
        if (
          input.some((p) =>
            Buffer.from(p.data ?? [])
              .toString('utf8')
              .includes(raced),
          )
        )
          return true;
      }
      return false;
    }, 90_000);
  }, 180_000);

  it('records a new event each time the same event is tracked', async () => {
    const email = uniqueEmail();
    const a = await track({ email, event: 'visit' });
    const b = await track({ email, event: 'visit' });
    expect(a.body.data.event).not.toBe(b.body.data.event);
    expect(a.body.data.contact).toBe(b.body.data.contact);
  });

  it('keeps an existing subscription unless given, and emits contact.unsubscribed on a change', async () => {
    const email = uniqueEmail();
    const first = await track({ email, event: 'a' });
    await track({ email, event: 'b' });
    expect((await h.deps.knex('contacts').where({ id: first.body.data.contact }).first()).subscribed).toBe(true);
    await track({ email, event: 'c', subscribed: false });
    expect((await h.deps.knex('contacts').where({ id: first.body.data.contact }).first()).subscribed).toBe(false);
    const changes = await h.deps.knex('events').where({ contact_id: first.body.data.contact }).whereIn('name', ['contact.subscribed', 'contact.unsubscribed']);
    expect(changes.map((e: any) => e.name)).toEqual(['contact.unsubscribed']);
    await eventually(async () => (await h.deps.knex('events').where({ id: changes[0].id }).first())?.routed_at);
  });

  it.each([
    'email.opened',
    'email.anything',
    'contact.subscribed',
    'contact.unsubscribed',
    'contact.updated',
    'segment.vip-users.entry',
    'segment.x.exit',
    'segment.entry',
    // Messages outbound webhooks deliver signed as the platform's: a page holding the public key must not forge them.
    'campaign.sent',
    'campaign.cancelled',
    'webhook.disabled',
    'webhook.test',
    'Campaign.Sent',
  ])('rejects the reserved name %s with reserved_event', async (event) => {
    const email = uniqueEmail();
    const res = await track({ email, event });
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
    expect(res.body.error.errors).toEqual([expect.objectContaining({ field: 'event', code: 'reserved_event' })]);
    expect(await h.deps.knex('contacts').where({ project_id: p.projectId, email }).first()).toBeUndefined();
  });

  it.each([
    ['a zero-width space', 'campaign\u200b.sent', 'reserved_event'],
    ['a full-width letter', '\uff43ampaign.sent', 'reserved_event'],
    ['a full-width stop', 'email\uff0ebounced', 'reserved_event'],
    ['a zero-width joiner', 'web\u200dhook.test', 'reserved_event'],
    ['a right-to-left override in a caller name', 'signup\u202e', 'custom'],
  ])('refuses a reserved name written with %s, and invisible characters anywhere (422)', async (_how, event, code) => {
    const email = uniqueEmail();
    const res = await track({ email, event });
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
    expect(res.body.error.errors).toEqual([expect.objectContaining({ field: 'event', code })]);
    expect(await h.deps.knex('contacts').where({ project_id: p.projectId, email }).first()).toBeUndefined();
  });

  it('keeps non-ASCII caller names that are not reserved', async () => {
    expect((await track({ email: uniqueEmail(), event: 'commande.payée' })).status).toBe(200);
  });

  it('accepts names that only look like reserved ones', async () => {
    for (const event of ['emails.sent', 'segments.entry', 'contacts.updated', 'campaigns.sent', 'my.webhook.test']) {
      expect((await track({ email: uniqueEmail(), event })).status).toBe(200);
    }
  });

  it('refuses the secret key with 401 INVALID_API_KEY', async () => {
    const res = await h.http.post('/v1/track').set(bearer(p.secretKey)).send({ email: uniqueEmail(), event: 'x' });
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('INVALID_API_KEY');
  });

  it('performs exactly one of 20 concurrent requests sharing an Idempotency-Key', async () => {
    const email = uniqueEmail();
    const key = `track-${Date.now()}`;
    const results = await Promise.all(Array.from({ length: 20 }, () => track({ email, event: 'purchase' }, { 'Idempotency-Key': key })));
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    const refused = results.filter((r) => r.status === 409);
    expect(refused).toHaveLength(19);
    expect(refused[0].body.error.details.originalRequest).toEqual({ method: 'POST', path: '/v1/track' });
    const n = await h.deps
      .knex('events')
      .join('contacts', 'contacts.id', 'events.contact_id')
      .where({ 'contacts.email': email, 'events.name': 'purchase' })
      .count({ n: '*' })
      .first();
    expect(n).toEqual({ n: 1 });
  });

  it.each([
    ['empty', ''],
    ['non-ASCII', 'clé'],
    ['a control character', 'a\tb'],
  ])('refuses an %s Idempotency-Key with 422 and records nothing', async (_why, key) => {
    const email = uniqueEmail();
    const res = await track({ email, event: 'x' }, { 'Idempotency-Key': key });
    expect(res.status).toBe(422);
    expect(res.body.error.errors[0]).toMatchObject({ field: 'Idempotency-Key', code: 'invalid_string' });
    expect(await h.deps.knex('contacts').where({ project_id: p.projectId, email }).first()).toBeUndefined();
  });

  it('lets another project use the same Idempotency-Key', async () => {
    const other = await createProjectFixture(h, 'other');
    const key = `shared-${Date.now()}`;
    expect((await track({ email: uniqueEmail(), event: 'x' }, { 'Idempotency-Key': key })).status).toBe(200);
    const res = await h.http.post('/v1/track').set(bearer(other.publicKey)).set('Idempotency-Key', key).send({ email: uniqueEmail(), event: 'x' });
    expect(res.status).toBe(200);
  });
});
