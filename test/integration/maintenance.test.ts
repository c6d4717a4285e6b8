import crypto from 'node:crypto';
import { startHarness, createProjectFixture, eventually, Harness, ProjectFixture } from '../helpers/harness';
import { uniqueEmail } from '../helpers/fixtures';
import { upsertContact } from '../../db/contactWriters';
import { insertEmail } from '../../db/emails';
import { eventPartitions, EVENT_PARTITION_MONTHS_AHEAD } from '../../db/eventPartitions';

let h: Harness;
let p: ProjectFixture;

beforeAll(async () => {
  h = await startHarness({ worker: true });
  p = await createProjectFixture(h);
});
afterAll(() => h?.stop());

/** Runs the Schedule's workflow once on this harness's worker, as the Schedule would. */
async function runMaintenance() {
  const client = await h.deps.temporal.client();
  return client.workflow.execute('maintenance', { taskQueue: h.taskQueue, workflowId: `maintenance-test-${crypto.randomUUID()}` });
}

describe('maintenance workflow', () => {
  it('routes events and delivers emails that an API crash left unstarted, and nothing twice', async () => {
    const { contact } = await upsertContact(h.deps.knex, { projectId: p.projectId, email: uniqueEmail(), defaultSubscribed: true });
    const eventId = crypto.randomUUID();
    const old = new Date(Date.now() - 10 * 60_000);
    await h.deps.knex('events').insert({ id: eventId, project_id: p.projectId, contact_id: contact.id, name: 'orphan', data: '{}', created_at: old });
    const emailId = crypto.randomUUID();
    await insertEmail(h.deps.knex, {
      id: emailId,
      projectId: p.projectId,
      contactId: contact.id,
      type: 'TRANSACTIONAL',
      to: { email: contact.email },
      from: { email: 'a@mail.example.com' },
      subject: 'orphan',
      body: '<p>x</p>',
      variables: {},
    });
    await h.deps.knex('emails').where({ id: emailId }).update({ created_at: old });
    const fresh = crypto.randomUUID();
    await h.deps.knex('events').insert({ id: fresh, project_id: p.projectId, contact_id: contact.id, name: 'fresh', data: '{}' });

    const result: any = await runMaintenance();
    expect(result.resumed.events).toBeGreaterThanOrEqual(1);
    expect(result.resumed.emails).toBeGreaterThanOrEqual(1);
    await eventually(async () => (await h.deps.knex('events').where({ id: eventId }).first()).routed_at);
    await eventually(async () => (await h.deps.knex('emails').where({ id: emailId }).first()).status === 'SENT');
    // A recent unrouted event may still be on its way from the API: the sweep leaves it alone.
    expect((await h.deps.knex('events').where({ id: fresh }).first()).routed_at).toBeNull();

    // A second sweep starts nothing new: the deterministic ids already ran.
    await runMaintenance();
    const client = await h.deps.temporal.client();
    const runs = [];
    for await (const wf of client.workflow.list({ query: `WorkflowId = "email-${emailId}"` })) runs.push(wf);
    expect(runs).toHaveLength(1);
  });

  it('prunes expired idempotency keys and old rate-limit windows', async () => {
    await h.deps.knex('idempotency_keys').insert([
      { project_id: p.projectId, key: 'expired', method: 'POST', path: '/v1/send', expires_at: new Date(Date.now() - 1000) },
      { project_id: p.projectId, key: 'live', method: 'POST', path: '/v1/send', expires_at: new Date(Date.now() + 3600_000) },
    ]);
    await h.deps.knex('rate_limits').insert({ project_id: p.projectId, window_start: new Date(Date.now() - 10 * 60_000), count: 5 });
    await runMaintenance();
    const keys = await h.deps.knex('idempotency_keys').where({ project_id: p.projectId }).pluck('key');
    expect(keys).toEqual(['live']);
    expect(
      await h.deps
        .knex('rate_limits')
        .where({ project_id: p.projectId })
        .where('window_start', '<', new Date(Date.now() - 5 * 60_000)),
    ).toEqual([]);
  });

  it('keeps a partition of events ready for this month and the next EVENT_PARTITION_MONTHS_AHEAD, and a DEFAULT one', async () => {
    const result: any = await runMaintenance();
    expect(result.partitions).toEqual({ created: expect.any(Array) });
    const parts = await eventPartitions(h.deps.knex);
    expect(parts.some((x) => x.isDefault)).toBe(true);
    const now = new Date();
    for (let m = 0; m <= EVENT_PARTITION_MONTHS_AHEAD; m++) {
      const from = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + m, 1));
      const covering = parts.filter((x) => !x.isDefault && (x.from === null || x.from <= from) && x.to !== null && x.to > from);
      expect(covering).toHaveLength(1);
    }
  });
});
