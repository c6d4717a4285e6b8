import { startHarness, createProjectFixture, bearer, eventually, Harness, ProjectFixture } from '../helpers/harness';
import { startSendgridSink, SendgridSink } from '../helpers/sendgridSink';
import { verifiedDomain, uniqueEmail } from '../helpers/fixtures';
import { RENDER_BUDGET_MS } from '../../services/render';

/**
 * One project's template cannot stall the worker every project shares: rendering has a budget per
 * email and per batch (services/render.ts), a template over it fails its emails once with an error
 * naming the budget, and another project's mail sent meanwhile through the same worker is delivered.
 */
const DOMAIN = 'budget.example.com';
// 100,000 × 100 iterations: within the memory bound, far beyond the time budget.
const HOSTILE = '<p>{% for i in (1..100000) %}{% for j in (1..100) %}x{% endfor %}{% endfor %}</p>';
const BUDGET_ERROR = `render failed: body: rendering takes longer than the render budget of ${RENDER_BUDGET_MS} ms`;

let h: Harness;
let sink: SendgridSink;
let hostile: ProjectFixture;
let other: ProjectFixture;

beforeAll(async () => {
  sink = await startSendgridSink();
  h = await startHarness({ worker: true, env: { EMAIL_TRANSPORT: 'sendgrid', SENDGRID_API_KEY: 'SG.test-key', SENDGRID_API_URL: sink.url } });
  hostile = await createProjectFixture(h, 'Hostile');
  other = await createProjectFixture(h, 'Other');
  await verifiedDomain(h, hostile.projectId, DOMAIN);
  await verifiedDomain(h, other.projectId, DOMAIN);
});
afterAll(async () => {
  await h?.stop();
  await sink?.stop();
});

/** Every attempt of every activity of the workflow: a budget failure is recorded, never retried. */
async function activityAttempts(workflowId: string): Promise<number[]> {
  const history = await (await h.deps.temporal.client()).workflow.getHandle(workflowId).fetchHistory();
  return (history.events ?? []).flatMap((e) => (e.activityTaskStartedEventAttributes ? [e.activityTaskStartedEventAttributes.attempt ?? 1] : []));
}

it("a campaign and a /v1/send over the render budget fail their emails once, naming the budget; another project's send is delivered meanwhile", async () => {
  const recipients = Array.from({ length: 40 }, () => uniqueEmail('hostile'));
  for (const email of recipients) expect((await h.http.post('/contacts').set(bearer(hostile.secretKey)).send({ email, subscribed: true })).status).toBe(201);
  const created = await h.http
    .post('/campaigns')
    .set(bearer(hostile.secretKey))
    .send({ name: 'Loop', subject: 'Hi', body: HOSTILE, from: `news@${DOMAIN}`, audienceType: 'ALL' });
  expect(created.status).toBe(201);
  const campaignId = created.body.data.id;

  // All three at once: the campaign, a transactional send of the same template, and the other project's mail.
  const innocent = uniqueEmail('innocent');
  const hostileTo = [uniqueEmail('hostile-send'), uniqueEmail('hostile-send')];
  const [started, hostileSend, otherSend] = await Promise.all([
    h.http.post(`/campaigns/${campaignId}/send`).set(bearer(hostile.secretKey)).send({}),
    h.http
      .post('/v1/send')
      .set(bearer(hostile.secretKey))
      .send({ from: `hello@${DOMAIN}`, subject: 'Hi', body: HOSTILE, to: hostileTo }),
    h.http
      .post('/v1/send')
      .set(bearer(other.secretKey))
      .send({ from: `hello@${DOMAIN}`, subject: 'Your code', body: '<p>Code {{ code }}</p>', data: { code: '4711' }, to: innocent }),
  ]);
  expect(started.status).toBeLessThan(300);
  expect(hostileSend.status).toBe(200);
  expect(otherSend.status).toBe(200);

  // The other project's email goes out.
  const otherId = otherSend.body.data.emails[0].email;
  await eventually(async () => (await h.deps.knex('emails').where({ id: otherId }).first())?.status === 'SENT');
  expect(sink.recipients().filter((r) => r.email === innocent)).toHaveLength(1);

  // The hostile campaign ends, every email FAILED with the budget named; nothing reached the provider.
  await eventually(async () => (await h.deps.knex('campaigns').where({ id: campaignId }).first()).status === 'SENT', 60_000);
  const campaignRows = await h.deps.knex('emails').where({ campaign_id: campaignId });
  expect(campaignRows).toHaveLength(recipients.length);
  for (const row of campaignRows) expect(row).toMatchObject({ status: 'FAILED', error: BUDGET_ERROR });

  const sendIds: string[] = hostileSend.body.data.emails.map((e: { email: string }) => e.email);
  await eventually(async () => (await h.deps.knex('emails').whereIn('id', sendIds)).every((r) => r.status === 'FAILED'));
  for (const row of await h.deps.knex('emails').whereIn('id', sendIds)) expect(row.error).toBe(BUDGET_ERROR);
  for (const email of [...recipients, ...hostileTo]) expect(sink.recipients().filter((r) => r.email === email)).toHaveLength(0);

  // Once: no activity of the campaign (or of the send's batch) was attempted a second time.
  expect((await activityAttempts(`campaign-${campaignId}`)).every((a) => a === 1)).toBe(true);
  const batchWorkflow = (await h.deps.knex('emails').where({ id: sendIds[0] }).first()).delivery_workflow;
  if (batchWorkflow) expect((await activityAttempts(batchWorkflow)).every((a) => a === 1)).toBe(true);
}, 120_000);
