import crypto from 'node:crypto';
import { startHarness, createProjectFixture, bearer, eventually, Harness, ProjectFixture } from '../helpers/harness';
import { verifiedDomain, uniqueEmail } from '../helpers/fixtures';
import { workflowApi } from '../helpers/workflows';
import { csvRecords } from '../../lib/csv';
import { createExportJob, pruneContactExports } from '../../db/contactExport';

/**
 * Export (docs/privacy.md "Export"): one contact's whole record as JSON, and a project's contacts as a
 * CSV file produced by a job (the bulkJob workflow on the real worker), with a filter tree.
 */

let h: Harness;
let p: ProjectFixture;
const DOMAIN = `export-${crypto.randomBytes(4).toString('hex')}.example.com`;

beforeAll(async () => {
  h = await startHarness({ worker: true });
  p = await createProjectFixture(h, 'Export');
  await verifiedDomain(h, p.projectId, DOMAIN);
});
afterAll(async () => {
  await h?.stop();
});

const auth = (fx = p) => bearer(fx.secretKey);

async function csvOf(text: string): Promise<string[][]> {
  const out: string[][] = [];
  for await (const r of csvRecords(
    (async function* () {
      yield text;
    })(),
  ))
    out.push(r);
  return out;
}

/** A project with one `pro` and one `free` contact, and the filter tree that matches the `pro` one. */
async function proAndFree(name: string) {
  const fx = await createProjectFixture(h, name);
  const pro = await h.http
    .post('/contacts')
    .set(auth(fx))
    .send({ email: uniqueEmail('pro'), data: { plan: 'pro' } });
  await h.http
    .post('/contacts')
    .set(auth(fx))
    .send({ email: uniqueEmail('free'), data: { plan: 'free' } });
  const filter = { logic: 'AND', groups: [{ filters: [{ field: 'data.plan', operator: 'equals', value: 'pro' }] }] };
  return { fx, pro, filter };
}

async function completedExport(fx: ProjectFixture, body: Record<string, unknown>) {
  const res = await h.http.post('/contacts/export').set(auth(fx)).send(body);
  expect(res.status).toBe(202);
  const job = await eventually(async () => {
    const r = await h.http.get(`/contacts/export/${res.body.jobId}`).set(auth(fx));
    return r.body.status === 'COMPLETED' ? r.body : null;
  }, 60_000);
  return { jobId: res.body.jobId as string, job };
}

describe('GET /contacts/:id/export', () => {
  it('answers the contact with its data, topics, consent record, events, emails and executions', async () => {
    const email = uniqueEmail('record');
    const topic = await h.http.post('/topics').set(auth()).send({ name: 'News', slug: 'news' });
    expect(topic.status).toBe(201);
    const created = await h.http
      .post('/contacts')
      .set(auth())
      .send({ email, data: { plan: 'pro' }, topics: { news: true } });
    expect(created.status).toBe(201);
    const contactId = created.body.id as string;
    const api = workflowApi(h, p);
    const wf = await api.build('export.started', { mark: { type: 'UPDATE_CONTACT', config: { data: { marked: true } } } }, [['trigger', 'mark']], {
      enabled: true,
    });
    expect((await api.track(email, 'export.started', { step: 1 })).status).toBe(200);
    const execution = await api.executionOf(wf.id, contactId);
    await api.until(wf.id, execution.id, ['COMPLETED']);
    const sent = await h.http
      .post('/v1/send')
      .set(auth())
      .send({ to: email, from: `hi@${DOMAIN}`, subject: 'Hello {{ plan }}', body: '<p>Hi</p>' });
    const emailId = sent.body.data.emails[0].email as string;
    await eventually(async () => (await h.deps.knex('emails').where({ id: emailId }).first())?.status === 'SENT');

    const res = await h.http.get(`/contacts/${contactId}/export`).set(auth());
    expect(res.status).toBe(200);
    // Who took a copy of the person's data is in the audit log (issue 30 §7).
    expect(await h.deps.knex('audit_log').where({ project_id: p.projectId, action: 'contact.export', target_id: contactId })).toEqual([
      expect.objectContaining({ actor: 'secret key', target_type: 'contact' }),
    ]);
    expect(res.body.contact).toMatchObject({
      id: contactId,
      email,
      subscribed: true,
      data: { plan: 'pro', marked: true },
      topics: { news: true },
      pending: false,
    });
    expect(res.body.consent).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ scope: 'global', value: true, source: 'api' }),
        expect.objectContaining({ scope: 'topic', topic: { id: topic.body.id, slug: 'news' }, value: true, source: 'api' }),
      ]),
    );
    expect(res.body.events.map((e: any) => e.name)).toEqual(expect.arrayContaining(['export.started', 'email.sent']));
    expect(res.body.events.find((e: any) => e.name === 'export.started').data).toEqual({ step: 1 });
    expect(res.body.emails).toEqual([
      expect.objectContaining({ id: emailId, status: 'SENT', subject: 'Hello pro', from: `hi@${DOMAIN}`, sentAt: expect.any(String) }),
    ]);
    expect(res.body.executions).toEqual([expect.objectContaining({ id: execution.id, workflowId: wf.id, status: 'COMPLETED' })]);
    expect(new Date(res.body.exportedAt).getTime()).not.toBeNaN();
  }, 90_000);

  it("is 404 for an unknown id and for another project's contact", async () => {
    const other = await createProjectFixture(h, 'Other export');
    const theirs = await h.http
      .post('/contacts')
      .set(auth(other))
      .send({ email: uniqueEmail('theirs') });
    for (const [path, fx] of [
      [`/contacts/${theirs.body.id}/export`, p],
      ['/contacts/cnt_unknown/export', p],
      ['/contacts/not-an-id/export', other],
    ] as const) {
      const res = await h.http.get(path).set(auth(fx));
      expect(res.status).toBe(404);
      expect(res.body.error).toMatchObject({ code: 'NOT_FOUND' });
    }
  });
});

describe('POST /contacts/export (CSV job)', () => {
  it('exports every contact, one row each, with data columns, quoting and formula cells defused', async () => {
    const fx = await createProjectFixture(h, 'CSV');
    const rows = [
      { email: uniqueEmail('a'), data: { plan: 'pro', note: 'says "hi", twice', profile: { tier: 2 } } },
      { email: uniqueEmail('b'), subscribed: false, data: { plan: 'free', note: '=HYPERLINK("http://evil.example")' } },
      { email: uniqueEmail('c') },
    ];
    const ids: string[] = [];
    for (const r of rows) ids.push((await h.http.post('/contacts').set(auth(fx)).send(r)).body.id);

    const { jobId, job } = await completedExport(fx, {});
    expect(job).toMatchObject({ type: 'EXPORT', total: 3, processed: 3, succeeded: 3, failed: 0 });
    const file = await h.http
      .get(`/contacts/export/${jobId}/download`)
      .set(auth(fx))
      .buffer(true)
      .parse((res, cb) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString('utf8')));
        res.on('end', () => cb(null, text));
      });
    expect(file.status).toBe(200);
    expect(file.headers['content-type']).toMatch(/^text\/csv/);
    expect(file.headers['content-disposition']).toContain('attachment');
    const [header, ...lines] = await csvOf(file.body as string);
    expect(header).toEqual(['id', 'email', 'subscribed', 'createdAt', 'updatedAt', 'data.note', 'data.plan', 'data.profile.tier']);
    // Contact ids grow with creation time: the file is in creation order.
    expect(lines.map((l) => l[0])).toEqual(ids);
    expect(lines.map((l) => [l[1], l[2], l[5], l[6], l[7]])).toEqual([
      [rows[0].email, 'true', 'says "hi", twice', 'pro', '2'],
      [rows[1].email, 'false', `'=HYPERLINK("http://evil.example")`, 'free', ''],
      [rows[2].email, 'true', '', '', ''],
    ]);
  }, 90_000);

  it('exports only the contacts a filter tree matches; a bad tree is 422', async () => {
    const { fx, pro, filter } = await proAndFree('CSV filter');
    const { jobId, job } = await completedExport(fx, { format: 'csv', filter });
    expect(job).toMatchObject({ total: 1, processed: 1 });
    const file = await h.http.get(`/contacts/export/${jobId}/download`).set(auth(fx));
    const [, ...lines] = await csvOf(file.text);
    expect(lines.map((l) => l[0])).toEqual([pro.body.id]);

    for (const body of [
      { format: 'xlsx' },
      { filter: { logic: 'AND', groups: [] } },
      { filter: { logic: 'AND', groups: [{ filters: [{ field: 'nope', operator: 'equals', value: 1 }] }] } },
    ]) {
      const res = await h.http.post('/contacts/export').set(auth(fx)).send(body);
      expect(res.status).toBe(422);
      expect(res.body.error).toMatchObject({ code: 'VALIDATION_ERROR' });
    }
  }, 90_000);

  it('never runs an export whose audit entry could not be written: the job and its entry commit together', async () => {
    const fx = await createProjectFixture(h, 'audit fails');
    // The audit log refuses this project's entries (a trigger scoped to it, dropped at the end).
    const fn = `refuse_audit_${fx.projectId.replace(/-/g, '')}`;
    await h.deps.knex.raw(`CREATE FUNCTION ${fn}() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF NEW.project_id = '${fx.projectId}' THEN RAISE EXCEPTION 'audit log unavailable'; END IF; RETURN NEW; END $$`);
    await h.deps.knex.raw(`CREATE TRIGGER ${fn} BEFORE INSERT ON audit_log FOR EACH ROW EXECUTE FUNCTION ${fn}()`);
    try {
      const res = await h.http.post('/contacts/export').set(auth(fx)).send({});
      expect(res.status).toBeGreaterThanOrEqual(500);
      expect(await h.deps.knex('jobs').where({ project_id: fx.projectId })).toEqual([]);
    } finally {
      await h.deps.knex.raw(`DROP TRIGGER ${fn} ON audit_log`);
      await h.deps.knex.raw(`DROP FUNCTION ${fn}()`);
    }
    // With the log writable again, the same request exports, and its entry names its job.
    const res = await h.http.post('/contacts/export').set(auth(fx)).send({});
    expect(res.status).toBe(202);
    expect(await h.deps.knex('audit_log').where({ project_id: fx.projectId, action: 'contact.export', target_id: res.body.jobId })).toHaveLength(1);
  });

  it('takes the same export as GET /contacts/export?format=csv with the filter tree as JSON; a malformed one is refused', async () => {
    const { fx, pro, filter } = await proAndFree('CSV by GET');
    const res = await h.http
      .get('/contacts/export')
      .query({ format: 'csv', filter: JSON.stringify(filter) })
      .set(auth(fx));
    expect(res.status).toBe(202);
    await eventually(async () => (await h.http.get(`/contacts/export/${res.body.jobId}`).set(auth(fx))).body.status === 'COMPLETED', 60_000);
    const file = await h.http.get(`/contacts/export/${res.body.jobId}/download`).set(auth(fx));
    const [, ...lines] = await csvOf(file.text);
    expect(lines.map((l) => l[0])).toEqual([pro.body.id]);
    expect(await h.deps.knex('audit_log').where({ project_id: fx.projectId, action: 'contact.export', target_id: res.body.jobId })).toHaveLength(1);

    // A query the schema refuses (the tree is checked as the POST's body is) is 400, as every bad query is.
    const unknownField = { logic: 'AND', groups: [{ filters: [{ field: 'nope', operator: 'equals', value: 1 }] }] };
    for (const query of [
      {},
      { format: 'xlsx' },
      { format: 'csv', filter: '{not json' },
      { format: 'csv', filter: JSON.stringify({ logic: 'AND', groups: [] }) },
      { format: 'csv', filter: JSON.stringify(unknownField) },
    ]) {
      const refused = await h.http.get('/contacts/export').query(query).set(auth(fx));
      expect(refused.status).toBe(400);
      expect(refused.body.error).toMatchObject({ code: 'BAD_REQUEST' });
    }
  }, 90_000);

  it("answers 409 before the file is ready, 404 for another project's export, and drops exports a day after they finished", async () => {
    const fx = await createProjectFixture(h, 'CSV states');
    await h.http
      .post('/contacts')
      .set(auth(fx))
      .send({ email: uniqueEmail('s') });
    // Staged but never started: it stays QUEUED.
    const queued = await createExportJob(h.deps.knex, fx.projectId, null);
    const early = await h.http.get(`/contacts/export/${queued.id}/download`).set(auth(fx));
    expect(early.status).toBe(409);
    expect(early.body.error).toMatchObject({ code: 'CONFLICT' });

    const { jobId } = await completedExport(fx, {});
    for (const path of [`/contacts/export/${jobId}`, `/contacts/export/${jobId}/download`]) {
      const res = await h.http.get(path).set(auth());
      expect(res.status).toBe(404);
    }
    // An export is not an import: the import route does not show it.
    expect((await h.http.get(`/contacts/import/${jobId}`).set(auth(fx))).status).toBe(404);

    await h.deps
      .knex('jobs')
      .where({ id: jobId })
      .update({ finished_at: h.deps.knex.raw(`now() - interval '25 hours'`) });
    expect(await pruneContactExports(h.deps.knex)).toBeGreaterThanOrEqual(1);
    expect((await h.http.get(`/contacts/export/${jobId}`).set(auth(fx))).status).toBe(404);
    expect(await h.deps.knex('contact_export_lines').where({ job_id: jobId })).toEqual([]);
  }, 90_000);
});
