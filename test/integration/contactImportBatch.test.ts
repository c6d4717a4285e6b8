import { MockActivityEnvironment } from '@temporalio/testing';
import { startHarness, createProjectFixture, bearer, eventually, Harness, ProjectFixture } from '../helpers/harness';
import { bulkActivities } from '../../activities/bulk';
import { BatchResult, createJob, markJobRunning, StagedRow } from '../../db/jobs';
import { upsertContacts } from '../../db/contactBatchWriter';

/**
 * The import's set-based batch write (db/contactBatchWriter via activities/bulk applyJobBatch): one
 * statement per batch must leave exactly what the per-row upsert left, row for row.
 */

let h: Harness;

beforeAll(async () => {
  h = await startHarness({ worker: true });
});
afterAll(() => h?.stop());

const contactOf = (projectId: string, email: string) => h.deps.knex('contacts').where({ project_id: projectId, email }).first();
const consentOf = (contactId: string) => h.deps.knex('consent_records').where({ contact_id: contactId }).orderBy('id').select('value', 'source', 'scope');
const eventsOf = (contactId: string) => h.deps.knex('events').where({ contact_id: contactId }).orderBy('created_at').select('name', 'data');

async function imported(p: ProjectFixture, csv: string, mapping?: unknown) {
  const req = h.http.post('/contacts/import').set(bearer(p.secretKey)).attach('file', Buffer.from(csv), 'contacts.csv');
  const res = await (mapping ? req.field('mapping', JSON.stringify(mapping)) : req);
  expect(res.status).toBe(202);
  return eventually(async () => {
    const job = await h.http.get(`/contacts/import/${res.body.jobId}`).set(bearer(p.secretKey));
    return job.body.status === 'COMPLETED' && job.body;
  }, 60_000);
}

/** A staged import job, RUNNING, without a workflow: the test drives its batches itself. */
async function stagedJob(projectId: string, rows: StagedRow[]) {
  const job = await createJob(h.deps.knex, { projectId, type: 'IMPORT', rows });
  await markJobRunning(h.deps.knex, job.id);
  return job.id;
}

const applyBatch = (jobId: string, after = 0, limit = 5000) => new MockActivityEnvironment().run(bulkActivities(h.deps).applyJobBatch, { jobId, after, limit });
const jobRow = (id: string) => h.deps.knex('jobs').where({ id }).first('processed', 'succeeded', 'failed', 'errors');

describe('an import batch', () => {
  it('names the row and column of a bad cell among good rows of the same batch, stores typed values and counts exactly', async () => {
    const p = await createProjectFixture(h, 'batch-typed');
    const job = await imported(
      p,
      ['email,Score,VIP,Joined', 'a@typed.test,72,yes,2024-03-01', 'b@typed.test,abc,no,', 'c@typed.test,1.5,no,2024-02-30', 'd@typed.test,-3,,'].join('\n'),
      [
        { column: 'Score', key: 'score', type: 'number' },
        { column: 'VIP', key: 'vip', type: 'boolean' },
        { column: 'Joined', key: 'joined', type: 'date' },
      ],
    );
    expect(job).toMatchObject({ total: 4, processed: 4, succeeded: 2, failed: 2 });
    expect(job.errors).toEqual([
      { row: 3, message: 'column Score: "abc" is not a number' },
      { row: 4, message: expect.stringMatching(/^column Joined: "2024-02-30" is not a date/) },
    ]);
    expect((await contactOf(p.projectId, 'a@typed.test')).data).toEqual({ score: 72, vip: true, joined: '2024-03-01' });
    expect((await contactOf(p.projectId, 'd@typed.test')).data).toEqual({ score: -3 });
    expect(await contactOf(p.projectId, 'b@typed.test')).toBeUndefined();
    const types = await h.deps.knex('contact_fields').where({ project_id: p.projectId }).orderBy('key').select('key', 'type');
    expect(types).toEqual([
      { key: 'joined', type: 'date' },
      { key: 'score', type: 'number' },
      { key: 'vip', type: 'boolean' },
    ]);
  });

  it('writes one consent record per new contact and per flip, and the flip event, as the per-row path did', async () => {
    const p = await createProjectFixture(h, 'batch-consent');
    const existing = await h.http
      .post('/contacts')
      .set(bearer(p.secretKey))
      .send({ email: 'old@consent.test', subscribed: true, data: { plan: 'pro' } });
    expect(existing.status).toBe(201);
    const same = await h.http
      .post('/contacts')
      .set(bearer(p.secretKey))
      .send({ email: 'same@consent.test', data: { plan: 'pro' } });
    const before = await contactOf(p.projectId, 'same@consent.test');

    const job = await imported(
      p,
      'email,subscribed,plan\nnew-yes@consent.test,yes,free\nnew-no@consent.test,no,free\nold@consent.test,no,\nsame@consent.test,,pro\n',
    );
    expect(job).toMatchObject({ total: 4, succeeded: 4, failed: 0 });

    const yes = await contactOf(p.projectId, 'new-yes@consent.test');
    const no = await contactOf(p.projectId, 'new-no@consent.test');
    expect(await consentOf(yes.id)).toEqual([{ value: true, source: 'import', scope: 'global' }]);
    expect(await consentOf(no.id)).toEqual([{ value: false, source: 'import', scope: 'global' }]);
    // A new contact emits no subscription event, whatever its state.
    expect(await eventsOf(yes.id)).toEqual([]);
    expect(await eventsOf(no.id)).toEqual([]);

    const old = await contactOf(p.projectId, 'old@consent.test');
    expect(old).toMatchObject({ subscribed: false, data: { plan: 'pro' } });
    expect((await consentOf(old.id)).map((c) => [c.value, c.source])).toEqual([
      [true, 'api'],
      [false, 'import'],
    ]);
    expect(await eventsOf(old.id)).toEqual([{ name: 'contact.unsubscribed', data: { source: 'import' } }]);
    // Handed to routing once the batch committed.
    await eventually(async () => (await h.deps.knex('events').where({ contact_id: old.id }).first()).routed_at);

    // A row that changes nothing writes nothing: same updated_at, no consent record.
    const after = await contactOf(p.projectId, 'same@consent.test');
    expect(after.updated_at).toEqual(before.updated_at);
    expect(await consentOf(same.body.id)).toHaveLength(1);
  });

  it('applies a contact named twice in one batch row after row, as the per-row path did', async () => {
    const p = await createProjectFixture(h, 'batch-twice');
    const job = await imported(p, 'email,subscribed,plan,city\ntwice@dup.test,yes,free,\nother@dup.test,,pro,\nTWICE@dup.test,no,,Paris\n');
    expect(job).toMatchObject({ total: 3, succeeded: 3, failed: 0 });
    const twice = await contactOf(p.projectId, 'twice@dup.test');
    expect(twice).toMatchObject({ subscribed: false, data: { plan: 'free', city: 'Paris' } });
    expect((await consentOf(twice.id)).map((c) => c.value)).toEqual([true, false]);
    expect(await eventsOf(twice.id)).toEqual([{ name: 'contact.unsubscribed', data: { source: 'import' } }]);
  });

  it('counts created, updated and unchanged contacts exactly', async () => {
    const p = await createProjectFixture(h, 'batch-counts');
    await h.http
      .post('/contacts')
      .set(bearer(p.secretKey))
      .send({ email: 'keep@counts.test', data: { plan: 'pro' } });
    await h.http
      .post('/contacts')
      .set(bearer(p.secretKey))
      .send({ email: 'change@counts.test', data: { plan: 'pro' } });
    const result = await h.deps.knex.transaction((trx) =>
      upsertContacts(trx, {
        projectId: p.projectId,
        defaultSubscribed: true,
        source: 'import',
        contacts: [
          { email: 'new1@counts.test', data: { plan: 'free' } },
          { email: 'keep@counts.test', data: { plan: 'pro', note: '' } },
          { email: 'change@counts.test', data: { plan: 'team' } },
          { email: 'new2@counts.test', data: { 'bad.key': 1 } },
          { email: 'new1@counts.test', data: { plan: 'free' } },
        ],
      }),
    );
    expect(result).toMatchObject({ created: 1, updated: 1, unchanged: 2, events: [] });
    expect(result.errors).toEqual([{ index: 3, message: expect.stringContaining('bad.key') }]);
    expect((await contactOf(p.projectId, 'change@counts.test')).data).toEqual({ plan: 'team' });
    expect(await contactOf(p.projectId, 'new2@counts.test')).toBeUndefined();
  });

  it('leaves an imported contact found by the substring searches as soon as the job is done', async () => {
    const p = await createProjectFixture(h, 'batch-search');
    await imported(p, ['email,company', 'zed.found@search-import.test,Quixotic Widgets', 'other@search-import.test,Plain'].join('\n'));
    const byEmail = await h.http.get('/contacts').query({ search: 'ED.FOUND@search' }).set(bearer(p.secretKey));
    expect(byEmail.body.data.map((c: { email: string }) => c.email)).toEqual(['zed.found@search-import.test']);
    const byValue = await h.http.post('/contacts/search').set(bearer(p.secretKey)).send({ search: 'xotic widg' });
    expect(byValue.body.data.map((c: { email: string }) => c.email)).toEqual(['zed.found@search-import.test']);
  });
});

describe('a retried import batch', () => {
  const rows = (n: number, domain: string): StagedRow[] =>
    Array.from({ length: n }, (_, i) => ({
      rowNumber: i + 2,
      payload: i === 3 ? { error: 'column Score: "x" is not a number' } : { email: `r${i}@${domain}`, subscribed: i % 2 === 0, data: { n: String(i) } },
    }));

  it('applies nothing twice when the activity runs again after its batch committed', async () => {
    const p = await createProjectFixture(h, 'retry-after-commit');
    const jobId = await stagedJob(p.projectId, rows(10, 'again.test'));
    const first = await applyBatch(jobId);
    expect(first).toMatchObject({ last: 11, more: false, processed: 10, total: 10 });
    // The same call again, as Temporal retries an activity whose completion was lost.
    const again = await applyBatch(jobId);
    expect(again).toMatchObject({ last: 0, more: false, processed: 10 });
    expect(await jobRow(jobId)).toMatchObject({ processed: 10, succeeded: 9, failed: 1, errors: [{ row: 5, message: 'column Score: "x" is not a number' }] });
    expect(await h.deps.knex('contacts').where({ project_id: p.projectId }).count('* as n')).toEqual([{ n: 9 }]);
    expect(await h.deps.knex('consent_records').where({ project_id: p.projectId }).count('* as n')).toEqual([{ n: 9 }]);
  });

  it('leaves nothing behind when its transaction fails after the write, and the retry applies every row once', async () => {
    const p = await createProjectFixture(h, 'retry-after-failure');
    await h.http.post('/contacts').set(bearer(p.secretKey)).send({ email: 'r1@fail.test', subscribed: true });
    const jobId = await stagedJob(p.projectId, rows(10, 'fail.test'));
    // The counters' update, the batch's last statement, fails once for this job: the contact writes before it must roll back.
    const seq = `fail_once_${jobId.replace(/-/g, '')}`;
    await h.deps.knex.raw(`CREATE SEQUENCE ${seq}`);
    await h.deps.knex.raw(`CREATE FUNCTION ${seq}() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF nextval('${seq}') = 1 THEN RAISE EXCEPTION 'injected failure'; END IF; RETURN NEW; END $$`);
    await h.deps.knex.raw(`CREATE TRIGGER ${seq} BEFORE UPDATE ON jobs FOR EACH ROW WHEN (NEW.id = '${jobId}') EXECUTE FUNCTION ${seq}()`);
    try {
      await expect(applyBatch(jobId)).rejects.toThrow('injected failure');
      expect(await h.deps.knex('contacts').where({ project_id: p.projectId }).count('* as n')).toEqual([{ n: 1 }]);
      expect(await h.deps.knex('job_rows').where({ job_id: jobId }).count('* as n')).toEqual([{ n: 10 }]);

      expect(await applyBatch(jobId)).toMatchObject({ processed: 10, more: false });
    } finally {
      await h.deps.knex.raw(`DROP TRIGGER IF EXISTS ${seq} ON jobs`);
      await h.deps.knex.raw(`DROP FUNCTION IF EXISTS ${seq}()`);
      await h.deps.knex.raw(`DROP SEQUENCE IF EXISTS ${seq}`);
    }
    expect(await jobRow(jobId)).toMatchObject({ processed: 10, succeeded: 9, failed: 1 });
    expect(await h.deps.knex('contacts').where({ project_id: p.projectId }).count('* as n')).toEqual([{ n: 9 }]);
    // r1 existed subscribed and its row says unsubscribed: one flip, one record and one event, not two.
    const r1 = await contactOf(p.projectId, 'r1@fail.test');
    expect(r1.subscribed).toBe(false);
    expect((await consentOf(r1.id)).map((c) => [c.value, c.source])).toEqual([
      [true, 'api'],
      [false, 'import'],
    ]);
    expect(await eventsOf(r1.id)).toEqual([{ name: 'contact.unsubscribed', data: { source: 'import' } }]);
    expect(await h.deps.knex('consent_records').where({ project_id: p.projectId }).count('* as n')).toEqual([{ n: 10 }]);
  });
});

describe('import lanes', () => {
  const laneOf = async (email: string, lanes = 2) =>
    Number((await h.deps.knex.raw('SELECT mod(hashtext(?) & 2147483647, ?) AS lane', [email, lanes])).rows[0].lane);
  const applyLane = (jobId: string, lane: number, after = 0, limit = 5000) =>
    new MockActivityEnvironment().run(bulkActivities(h.deps).applyJobBatch, { jobId, after, limit, lane, lanes: 2 }) as Promise<BatchResult>;
  /** A lane's batches one after another until it reports none left, as the workflow runs it. */
  const drainLane = async (jobId: string, lane: number, limit: number) => {
    for (let after = 0; ; ) {
      const r = await applyLane(jobId, lane, after, limit);
      if (!r.more) return;
      after = r.last;
    }
  };

  it('take disjoint shares by email, keep one contact in row order in one lane, and add up the job’s figures and errors', async () => {
    const p = await createProjectFixture(h, 'lanes-share');
    const rows: StagedRow[] = Array.from({ length: 40 }, (_, i) => ({
      rowNumber: i + 2,
      payload: [5, 30].includes(i) ? { error: `bad row ${i + 2}` } : { email: `l${i}@lanes.test`, data: { n: String(i) } },
    }));
    // The same contact again, later in the file: its last row must win, whichever lane runs first.
    rows.push({ rowNumber: 42, payload: { email: 'l3@lanes.test', data: { n: 'last' } } });
    const jobId = await stagedJob(p.projectId, rows);
    await Promise.all([drainLane(jobId, 0, 4), drainLane(jobId, 1, 4)]);

    expect(await h.deps.knex('job_rows').where({ job_id: jobId }).count('* as n')).toEqual([{ n: 0 }]);
    expect(await jobRow(jobId)).toEqual({
      processed: 41,
      succeeded: 39,
      failed: 2,
      errors: [
        { row: 7, message: 'bad row 7' },
        { row: 32, message: 'bad row 32' },
      ],
    });
    expect(await h.deps.knex('contacts').where({ project_id: p.projectId }).count('* as n')).toEqual([{ n: 38 }]);
    expect((await contactOf(p.projectId, 'l3@lanes.test')).data).toEqual({ n: 'last' });
    // Each lane took only its own emails: both lanes had rows (the split is by hash, about half each).
    const staged = rows.map((r) => r.payload as { email?: string }).filter((r) => r.email);
    const lanes = await Promise.all(staged.map((r) => laneOf(r.email!)));
    expect(new Set(lanes)).toEqual(new Set([0, 1]));
  });

  it('keep the job’s errors in row order when a later lane adds an earlier row’s error', async () => {
    const p = await createProjectFixture(h, 'lanes-errors');
    const candidates = Array.from({ length: 20 }, (_, i) => `e${i}@lane-errors.test`);
    const lanes = await Promise.all(candidates.map((e) => laneOf(e)));
    const inOne = candidates[lanes.indexOf(1)];
    const inZero = candidates[lanes.indexOf(0)];
    // Data the writer refuses (a key with a dot): row 2 in lane 1, row 3 in lane 0.
    const jobId = await stagedJob(p.projectId, [
      { rowNumber: 2, payload: { email: inOne, data: { 'a.b': 1 } } },
      { rowNumber: 3, payload: { email: inZero, data: { 'c.d': 1 } } },
    ]);
    await drainLane(jobId, 0, 5);
    await drainLane(jobId, 1, 5);
    const job = await jobRow(jobId);
    expect(job).toMatchObject({ processed: 2, succeeded: 0, failed: 2 });
    expect(job.errors.map((e: { row: number }) => e.row)).toEqual([2, 3]);
  });

  it('run side by side: one lane waiting on a contact does not hold the other back', async () => {
    const p = await createProjectFixture(h, 'lanes-side');
    const emails = Array.from({ length: 20 }, (_, i) => `s${i}@side.test`);
    const byLane = await Promise.all(emails.map((e) => laneOf(e)));
    const blocked = emails[byLane.indexOf(0)];
    const other = emails.filter((_, i) => byLane[i] === 1);
    expect(other.length).toBeGreaterThan(0);
    await h.http.post('/contacts').set(bearer(p.secretKey)).send({ email: blocked, subscribed: true });
    const jobId = await stagedJob(
      p.projectId,
      emails.map((email, i) => ({ rowNumber: i + 2, payload: { email, data: { v: 'new' } } })),
    );
    // Another transaction holds lane 0's existing contact: lane 0's batch waits for it.
    const holder = await h.deps.knex.transaction();
    try {
      await holder('contacts').where({ project_id: p.projectId, email: blocked }).forUpdate().first();
      let zeroDone = false;
      const zero = applyLane(jobId, 0).then((r) => {
        zeroDone = true;
        return r;
      });
      // Lane 1 commits while lane 0 still waits (a job-row lock for the whole batch would queue it behind).
      const one = await applyLane(jobId, 1);
      expect(one).toMatchObject({ more: false, processed: other.length });
      expect(zeroDone).toBe(false);
      expect(await h.deps.knex('contacts').where({ project_id: p.projectId }).whereIn('email', other).count('* as n')).toEqual([{ n: other.length }]);
      await holder.commit();
      expect(await zero).toMatchObject({ more: false, processed: 20 });
    } finally {
      if (!holder.isCompleted()) await holder.rollback();
    }
    expect(await jobRow(jobId)).toMatchObject({ processed: 20, succeeded: 20, failed: 0 });
    expect((await contactOf(p.projectId, blocked)).data).toEqual({ v: 'new' });
  });
});
