import { startHarness, createProjectFixture, bearer, eventually, Harness, ProjectFixture } from '../helpers/harness';
import { startSendgridSink, SendgridSink } from '../helpers/sendgridSink';
import { verifiedDomain, uniqueEmail } from '../helpers/fixtures';
import { scheduledSendWorkflowId } from '../../temporal/workflowIds';
import { minuteOf } from '../../services/scheduledSends';

let h: Harness;
let p: ProjectFixture;
let other: ProjectFixture;
let sink: SendgridSink;

beforeAll(async () => {
  sink = await startSendgridSink();
  h = await startHarness({ worker: true, env: { EMAIL_TRANSPORT: 'sendgrid', SENDGRID_API_KEY: 'SG.test-key', SENDGRID_API_URL: sink.url } });
  p = await createProjectFixture(h);
  other = await createProjectFixture(h, 'Other project');
  await verifiedDomain(h, p.projectId, 'mail.example.com');
});
afterAll(async () => {
  await h?.stop();
  await sink?.stop();
});

const send = (body: Record<string, unknown>) =>
  h.http
    .post('/v1/send')
    .set(bearer(p.secretKey))
    .send({ from: 'hello@mail.example.com', subject: 'Hi', body: '<p>Hi</p>', ...body });
const inSeconds = (s: number) => new Date(Date.now() + s * 1000).toISOString();
const sinkFor = (email: string) => sink.messages.filter((m) => m.body.personalizations[0].to[0].email === email);
const emailRow = (id: string) => h.deps.knex('emails').where({ id }).first();
const statusBecomes = (id: string, status: string) => eventually(async () => ((await emailRow(id))?.status === status ? emailRow(id) : null));
const scheduleOne = async (seconds: number) => {
  const to = uniqueEmail('sched');
  const res = await send({ to, sendAt: inSeconds(seconds) });
  expect(res.status).toBe(200);
  return { to, id: res.body.data.emails[0].email as string };
};

describe('scheduled sends (sendAt)', () => {
  it('stores the email SCHEDULED and delivers it once its time has come, through the /v1/send batch hand-over', async () => {
    const { to, id } = await scheduleOne(3);
    const row = await emailRow(id);
    expect(row.status).toBe('SCHEDULED');
    expect(row.delivery_workflow).toBeNull();
    const shown = await h.http.get(`/emails/${id}`).set(bearer(p.secretKey));
    expect(shown.body).toMatchObject({ status: 'SCHEDULED', sendAt: row.send_at.toISOString() });
    const sent = await statusBecomes(id, 'SENT');
    expect(sent.sent_at.getTime()).toBeGreaterThanOrEqual(row.send_at.getTime() - 250);
    expect(sent.delivery_workflow).toMatch(/^emails-/);
    expect(sinkFor(to)).toHaveLength(1);
    // The minute's one workflow did it, under its deterministic id.
    const handle = (await h.deps.temporal.client()).workflow.getHandle(scheduledSendWorkflowId(p.projectId, minuteOf(row.send_at)));
    expect((await handle.describe()).type).toBe('scheduledSend');
  });

  it('sends a past sendAt now, without scheduling it', async () => {
    const to = uniqueEmail('past');
    const res = await send({ to, sendAt: new Date(Date.now() - 3_600_000).toISOString() });
    expect(res.status).toBe(200);
    const id = res.body.data.emails[0].email;
    expect((await emailRow(id)).send_at).toBeNull();
    await statusBecomes(id, 'SENT');
    expect(sinkFor(to)).toHaveLength(1);
  });

  it('refuses a sendAt more than 30 days ahead, and one that is no ISO 8601 time', async () => {
    const far = await send({ to: uniqueEmail(), sendAt: new Date(Date.now() + 31 * 86_400_000).toISOString() });
    expect(far.status).toBe(422);
    expect(far.body.error.code).toBe('VALIDATION_ERROR');
    expect(far.body.error.errors[0].field).toBe('sendAt');
    const bad = await send({ to: uniqueEmail(), sendAt: 'tomorrow' });
    expect(bad.status).toBe(422);
    expect(bad.body.error.errors[0].field).toBe('sendAt');
    const patched = await h.http
      .patch(`/emails/${(await scheduleOne(600)).id}`)
      .set(bearer(p.secretKey))
      .send({ sendAt: new Date(Date.now() + 40 * 86_400_000).toISOString() });
    expect(patched.status).toBe(422);
  });

  it('never delivers an email cancelled before its time', async () => {
    const { to, id } = await scheduleOne(2);
    const res = await h.http.post(`/emails/${id}/cancel`).set(bearer(p.secretKey));
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('CANCELLED');
    // A later email of the same project, scheduled after it, goes out: by then the cancelled one's time has passed too.
    const later = await scheduleOne(4);
    await statusBecomes(later.id, 'SENT');
    expect((await emailRow(id)).status).toBe('CANCELLED');
    expect(sinkFor(to)).toHaveLength(0);
    const again = await h.http.post(`/emails/${id}/cancel`).set(bearer(p.secretKey));
    expect(again.status).toBe(409);
  });

  it('answers 409 to a cancel or reschedule once the hand-over started', async () => {
    const { id } = await scheduleOne(1);
    await statusBecomes(id, 'SENT');
    const cancel = await h.http.post(`/emails/${id}/cancel`).set(bearer(p.secretKey));
    expect(cancel.status).toBe(409);
    expect(cancel.body.error.code).toBe('CONFLICT');
    const patch = await h.http
      .patch(`/emails/${id}`)
      .set(bearer(p.secretKey))
      .send({ sendAt: inSeconds(60) });
    expect(patch.status).toBe(409);
    // An immediate send was never SCHEDULED.
    const now = await send({ to: uniqueEmail() });
    expect((await h.http.post(`/emails/${now.body.data.emails[0].email}/cancel`).set(bearer(p.secretKey))).status).toBe(409);
  });

  it('reschedules: later (the old minute finds nothing due for it) and back to soon', async () => {
    const { to, id } = await scheduleOne(2);
    const later = await h.http
      .patch(`/emails/${id}`)
      .set(bearer(p.secretKey))
      .send({ sendAt: inSeconds(3600) });
    expect(later.status).toBe(200);
    expect(later.body.status).toBe('SCHEDULED');
    // An email of the old time goes; the rescheduled one stays.
    const marker = await scheduleOne(3);
    await statusBecomes(marker.id, 'SENT');
    expect((await emailRow(id)).status).toBe('SCHEDULED');
    expect(sinkFor(to)).toHaveLength(0);
    const soon = await h.http
      .patch(`/emails/${id}`)
      .set(bearer(p.secretKey))
      .send({ sendAt: inSeconds(2) });
    expect(soon.status).toBe(200);
    await statusBecomes(id, 'SENT');
    expect(sinkFor(to)).toHaveLength(1);
  });

  it('does not reach another project’s email: 404 for reschedule and cancel', async () => {
    const { id } = await scheduleOne(600);
    expect((await h.http.post(`/emails/${id}/cancel`).set(bearer(other.secretKey))).status).toBe(404);
    expect(
      (
        await h.http
          .patch(`/emails/${id}`)
          .set(bearer(other.secretKey))
          .send({ sendAt: inSeconds(60) })
      ).status,
    ).toBe(404);
    expect((await emailRow(id)).status).toBe('SCHEDULED');
  });

  it('survives a worker restart: the minute waits in Temporal and delivers once the worker is back', async () => {
    const { to, id } = await scheduleOne(3);
    await h.stopWorker();
    try {
      // Past its time with no worker: still SCHEDULED, nothing sent.
      await new Promise((r) => setTimeout(r, 4000));
      expect((await emailRow(id)).status).toBe('SCHEDULED');
    } finally {
      await h.startWorker();
    }
    await statusBecomes(id, 'SENT');
    expect(sinkFor(to)).toHaveLength(1);
  });

  it('a cancel racing the hand-over has exactly one winner', async () => {
    const emails = await Promise.all(Array.from({ length: 6 }, () => scheduleOne(2)));
    await new Promise((r) => setTimeout(r, 1900));
    const answers = await Promise.all(emails.map((e) => h.http.post(`/emails/${e.id}/cancel`).set(bearer(p.secretKey))));
    for (const [i, e] of emails.entries()) {
      const row = await eventually(async () => {
        const r = await emailRow(e.id);
        return ['CANCELLED', 'SENT'].includes(r.status) ? r : null;
      });
      if (answers[i].status === 200) {
        expect(row.status).toBe('CANCELLED');
        expect(sinkFor(e.to)).toHaveLength(0);
      } else {
        expect(answers[i].status).toBe(409);
        expect(row.status).toBe('SENT');
        expect(sinkFor(e.to)).toHaveLength(1);
      }
    }
  });
});
