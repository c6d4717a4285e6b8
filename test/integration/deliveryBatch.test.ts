import crypto from 'node:crypto';
import { startHarness, createProjectFixture, bearer, eventually, Harness, ProjectFixture } from '../helpers/harness';
import { startSendgridSink, SendgridSink } from '../helpers/sendgridSink';
import { verifiedDomain, uniqueEmail } from '../helpers/fixtures';
import { upsertContact } from '../../db/contactWriters';
import { insertEmail } from '../../db/emails';
import { startDeliveryBatch } from '../../services/deliveryBatcher';
import { startDelivery } from '../../services/deliveries';
import { deliverEmailBatchWorkflowId, deliverEmailWorkflowId } from '../../temporal/workflowIds';
import { UNKNOWN_OUTCOME } from '../../services/handOver';
import { PRIORITY } from '../../temporal/priorities';

/** POST /v1/send hands its emails to Temporal in batches (services/deliveryBatcher.ts, temporal/workflows/deliverEmailBatch/). */

const DOMAIN = 'batch.example.com';
let h: Harness;
let p: ProjectFixture;
let sink: SendgridSink;

beforeAll(async () => {
  sink = await startSendgridSink();
  h = await startHarness({ worker: true, env: { EMAIL_TRANSPORT: 'sendgrid', SENDGRID_API_KEY: 'SG.test-key', SENDGRID_API_URL: sink.url } });
  p = await createProjectFixture(h);
  await verifiedDomain(h, p.projectId, DOMAIN);
});
afterAll(async () => {
  await h?.stop();
  await sink?.stop();
});

const send = (to: string | string[]) =>
  h.http
    .post('/v1/send')
    .set(bearer(p.secretKey))
    .send({ from: `hello@${DOMAIN}`, subject: 'Hi {{ name }}', body: '<p>Hi {{ name }}</p>', data: { name: 'Ann' }, to });
const rows = (ids: string[]) => h.deps.knex('emails').whereIn('id', ids);
const arrived = (email: string) => sink.recipients().filter((r) => r.email === email);
const workflowRuns = async (workflowId: string) => {
  const client = await h.deps.temporal.client();
  const runs = [];
  for await (const wf of client.workflow.list({ query: `WorkflowId = "${workflowId}"` })) runs.push(wf);
  return runs;
};

/** Rows as an API request would have committed them for batch `workflowId` (null: single deliveries), with `status` set directly. */
async function batchRows(workflowId: string | null, statuses: string[]) {
  const out: Array<{ id: string; to: string }> = [];
  for (const status of statuses) {
    const { contact } = await upsertContact(h.deps.knex, { projectId: p.projectId, email: uniqueEmail('batch'), defaultSubscribed: true });
    const id = crypto.randomUUID();
    await insertEmail(h.deps.knex, {
      id,
      projectId: p.projectId,
      contactId: contact.id,
      type: 'TRANSACTIONAL',
      deliveryWorkflow: workflowId,
      to: { email: contact.email },
      from: { email: `hello@${DOMAIN}` },
      subject: 'S',
      body: '<p>B</p>',
      variables: {},
    });
    await h.deps.knex('emails').where({ id }).update({ status });
    out.push({ id, to: contact.email });
  }
  return out;
}

describe('POST /v1/send in batches', () => {
  it('30 concurrent requests go out in a few batch workflows, each email once; rows name their batch and the batch names its emails, never an address', async () => {
    const to = Array.from({ length: 30 }, () => uniqueEmail('many'));
    const answers = await Promise.all(to.map((t) => send(t)));
    expect(answers.map((a) => a.status)).toEqual(to.map(() => 200));
    const ids = answers.map((a) => a.body.data.emails[0].email as string);
    await eventually(async () => (await rows(ids)).every((r) => r.status === 'SENT'));
    for (const t of to) expect(arrived(t)).toHaveLength(1);
    expect(arrived(to[0])[0]).toMatchObject({ subject: 'Hi Ann', html: '<p>Hi Ann</p>' });

    const batches = new Map<string, string[]>();
    for (const r of await rows(ids)) batches.set(r.delivery_workflow, [...(batches.get(r.delivery_workflow) ?? []), r.id]);
    // How many batches depends on how the requests' arrivals fell into the 200 ms windows (a loaded
    // machine spreads them); that one request's recipients share one is checked below.
    expect([...batches.values()].flat().sort()).toEqual([...ids].sort());
    const client = await h.deps.temporal.client();
    for (const [workflowId, emailIds] of batches) {
      expect(workflowId).toMatch(/^emails-[0-9a-f-]{36}$/);
      const handle = client.workflow.getHandle(workflowId);
      expect(await handle.result()).toEqual({ sent: emailIds.length, failed: 0 });
      const d = await handle.describe();
      // Transactional mail goes first when the workers are behind (temporal/priorities.ts).
      expect(d.raw.workflowExecutionInfo?.priority?.priorityKey).toBe(PRIORITY.transactional);
      const details = (await d.staticDetails()) ?? '';
      for (const id of emailIds) expect(details).toContain(id);
      expect(await d.staticSummary()).toMatch(new RegExp(`^Delivery of ${emailIds.length} emails? from POST /v1/send \\(first `));
      const history = JSON.stringify((await handle.fetchHistory()).events);
      for (const t of to) expect(history).not.toContain(t);
    }
    // Each email's `email.sent` event was recorded and routed by the batch itself.
    const sent = await h.deps.knex('events').where({ name: 'email.sent' }).whereRaw("data->>'emailId' = ANY(?)", [ids]);
    expect(sent).toHaveLength(ids.length);
    await eventually(
      async () =>
        (
          await h.deps
            .knex('events')
            .whereIn(
              'id',
              sent.map((e) => e.id),
            )
            .whereNull('routed_at')
        ).length === 0,
    );
  });

  it("one request's recipients go in one batch, and a request arriving while a batch is open joins it", async () => {
    const to = Array.from({ length: 12 }, () => uniqueEmail('one'));
    const res = await send(to);
    expect(res.status).toBe(200);
    const ids = res.body.data.emails.map((e: any) => e.email as string);
    const named = new Set((await rows(ids)).map((r) => r.delivery_workflow));
    expect(named.size).toBe(1);
    const [workflowId] = [...named];
    // The answer comes before the batch starts (it waits out its window).
    await eventually(async () => (await rows(ids)).every((r) => r.status === 'SENT'));
    const client = await h.deps.temporal.client();
    expect(await client.workflow.getHandle(workflowId).result()).toEqual({ sent: 12, failed: 0 });
    for (const t of to) expect(arrived(t)).toHaveLength(1);
    // Two places taken back to back in one project share the open batch.
    const a = h.deps.runtime.deliveries.reserve(p.projectId, 1);
    const b = h.deps.runtime.deliveries.reserve(p.projectId, 1);
    expect(b.workflowId).toBe(a.workflowId);
    a.settle([]);
    b.settle([]);
  });

  it('a batch starts only once every request that took a place in it has committed or failed', async () => {
    const first = h.deps.runtime.deliveries.reserve(p.projectId, 1);
    const second = h.deps.runtime.deliveries.reserve(p.projectId, 1);
    expect(second.workflowId).toBe(first.workflowId);
    const [a] = await batchRows(first.workflowId, ['QUEUED']);
    first.settle([a.id]);
    // Well past the batch's window: still waiting for the second request.
    await new Promise((r) => setTimeout(r, 500));
    expect(await workflowRuns(first.workflowId)).toHaveLength(0);
    second.settle([]); // that request failed and wrote nothing
    await eventually(async () => (await rows([a.id]))[0].status === 'SENT');
    expect(arrived(a.to)).toHaveLength(1);
  });

  it('a lost provider answer fails that email (outcome unknown) and never offers it twice; the rest of its batch goes once', async () => {
    const to = Array.from({ length: 3 }, () => uniqueEmail('lost'));
    sink.loseAnswers(1);
    const res = await send(to);
    expect(res.status).toBe(200);
    const ids = res.body.data.emails.map((e: any) => e.email as string);
    const done = await eventually(async () => {
      const r = await rows(ids);
      return r.every((x) => x.status === 'SENT' || x.status === 'FAILED') ? r : null;
    });
    const failed = done.filter((r) => r.status === 'FAILED');
    expect(failed).toHaveLength(1);
    expect(failed[0].error).toBe(UNKNOWN_OUTCOME);
    // The provider took all three (one answer was lost): each arrived once, none twice.
    for (const t of to) expect(arrived(t)).toHaveLength(1);
  });

  it('an attempt that died mid hand-over: its SENDING row is failed, its QUEUED row delivered, rows of other batches untouched', async () => {
    const workflowId = deliverEmailBatchWorkflowId(crypto.randomUUID());
    const [interrupted, queued] = await batchRows(workflowId, ['SENDING', 'QUEUED']);
    const [other] = await batchRows(deliverEmailBatchWorkflowId(crypto.randomUUID()), ['QUEUED']);
    await startDeliveryBatch(h.deps.temporal, { workflowId, projectId: p.projectId, emailIds: [interrupted.id, queued.id], source: 'test' });
    const client = await h.deps.temporal.client();
    expect(await client.workflow.getHandle(workflowId).result()).toEqual({ sent: 1, failed: 1 });
    const byId = new Map((await rows([interrupted.id, queued.id, other.id])).map((r) => [r.id, r]));
    expect(byId.get(interrupted.id)).toMatchObject({ status: 'FAILED', error: UNKNOWN_OUTCOME });
    expect(byId.get(queued.id).status).toBe('SENT');
    expect(byId.get(other.id).status).toBe('QUEUED');
    expect(arrived(interrupted.to)).toHaveLength(0);
    expect(arrived(queued.to)).toHaveLength(1);
  });

  it('the maintenance sweep starts a batch an API crash never started, under the id its rows name, and only once', async () => {
    const workflowId = deliverEmailBatchWorkflowId(crypto.randomUUID());
    const orphans = await batchRows(workflowId, ['QUEUED', 'QUEUED']);
    await h.deps
      .knex('emails')
      .whereIn(
        'id',
        orphans.map((o) => o.id),
      )
      .update({ created_at: new Date(Date.now() - 10 * 60_000) });
    const client = await h.deps.temporal.client();
    const sweep = () => client.workflow.execute('maintenance', { taskQueue: h.taskQueue, workflowId: `maintenance-test-${crypto.randomUUID()}` });
    const result: any = await sweep();
    expect(result.resumed.batches).toBeGreaterThanOrEqual(1);
    await eventually(async () => (await rows(orphans.map((o) => o.id))).every((r) => r.status === 'SENT'));
    await sweep();
    expect(
      await eventually(async () => {
        const runs = await workflowRuns(workflowId);
        return runs.length ? runs : null;
      }),
    ).toHaveLength(1);
    for (const o of orphans) expect(arrived(o.to)).toHaveLength(1);
  });
});

describe('a single delivery (deliverEmail) shares the hand-over', () => {
  it("a row an interrupted attempt left SENDING fails with the batches' unknown-outcome error and is not offered; a QUEUED one is sent with one email.sent event", async () => {
    const [interrupted, queued] = await batchRows(null, ['SENDING', 'QUEUED']);
    const client = await h.deps.temporal.client();
    const deliver = async (email: { id: string }) => {
      await startDelivery(h.deps.temporal, { id: email.id, projectId: p.projectId, contactId: null, source: 'test' });
      return client.workflow.getHandle(deliverEmailWorkflowId(email.id)).result();
    };
    expect(await deliver(interrupted)).toEqual({ status: 'FAILED', error: UNKNOWN_OUTCOME });
    expect(await deliver(queued)).toMatchObject({ status: 'SENT' });
    const byId = new Map((await rows([interrupted.id, queued.id])).map((r) => [r.id, r]));
    expect(byId.get(interrupted.id)).toMatchObject({ status: 'FAILED', error: UNKNOWN_OUTCOME });
    expect(byId.get(queued.id).status).toBe('SENT');
    expect(arrived(interrupted.to)).toHaveLength(0);
    expect(arrived(queued.to)).toHaveLength(1);
    // The hand-over writes the event and the workflow's own record finds it: one event, routed.
    const events = await eventually(async () => {
      const e = await h.deps.knex('events').where({ name: 'email.sent' }).whereRaw("data->>'emailId' = ?", [queued.id]);
      return e.length && e.every((x) => x.routed_at) ? e : null;
    });
    expect(events).toHaveLength(1);
  });
});
