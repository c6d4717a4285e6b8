import crypto from 'node:crypto';
import { Worker } from '@temporalio/worker';
import { startHarness, createProjectFixture, bearer, eventually, Harness, ProjectFixture } from '../helpers/harness';
import { startSendgridSink, SendgridSink } from '../helpers/sendgridSink';
import { verifiedDomain, uniqueEmail } from '../helpers/fixtures';
import { workflowApi } from '../helpers/workflows';
import { upsertContact } from '../../db/contactWriters';
import { startExecution } from '../../services/executions';
import { forEachLimit } from '../../lib/concurrency';
import { startSecondWorker } from '../helpers/secondWorker';
import { localTime } from '../../lib/zonedTime';

// An hour lasts 1.8 s: quiet hours two hours long are seen WAITING, and a local 09:00 a day away comes within a minute.
const SCALE = 0.0005;

let h: Harness;
let p: ProjectFixture;
let sink: SendgridSink;
let api: ReturnType<typeof workflowApi>;

beforeAll(async () => {
  sink = await startSendgridSink();
  h = await startHarness({
    worker: true,
    env: { EMAIL_TRANSPORT: 'sendgrid', SENDGRID_API_KEY: 'SG.test-key', SENDGRID_API_URL: sink.url, WORKFLOW_TIME_SCALE: String(SCALE) },
  });
  p = await createProjectFixture(h);
  await verifiedDomain(h, p.projectId, 'ctl.example.com');
  api = workflowApi(h, p);
});
afterAll(async () => {
  await h?.stop();
  await sink?.stop();
});

const settings = (body: Record<string, unknown>) => h.http.patch('/settings').set(bearer(p.secretKey)).send(body);
const contact = async (data: Record<string, unknown> = {}, email = uniqueEmail()) =>
  (await upsertContact(h.deps.knex, { projectId: p.projectId, email, data, defaultSubscribed: true })).contact;
const sinkFor = (email: string) => sink.recipients().filter((r) => r.email === email);
const hhmm = (instant: number, zone: string) => {
  const l = localTime(instant, zone);
  return `${String(l.hour).padStart(2, '0')}:${String(l.minute).padStart(2, '0')}`;
};
const run = (workflowId: string, contactId: string) => api.start(workflowId, { contactId });
const MARKETING = (subject: string) => ({ type: 'SEND_EMAIL', config: { subject, body: '<p>hi</p>', from: 'news@ctl.example.com', type: 'MARKETING' } });

describe('RANDOM_SPLIT', () => {
  const split = {
    type: 'RANDOM_SPLIT',
    config: {
      branches: [
        { name: 'a', weight: 70 },
        { name: 'b', weight: 30 },
      ],
    },
  };

  it('transitions use the configured branch names; an unknown one is 422; a branch left open ends the execution there', async () => {
    const wf = await api.build(`split-${Date.now()}`, { split, x: { type: 'EXIT' } }, [['trigger', 'split']]);
    const unknown = await api.connect(wf.id, wf.steps.split, wf.steps.x, 'c');
    expect(unknown.status).toBe(422);
    expect(JSON.stringify(unknown.body)).toContain('a, b');
    expect((await api.connect(wf.id, wf.steps.split, wf.steps.x, 'a')).status).toBe(201);
    // Branch b is open: a contact drawn into it ends there (docs/workflows.md, "Branches may end").
    expect((await api.patch(wf.id, { enabled: true })).status).toBe(200);
    expect((await api.patch(wf.id, { enabled: false })).status).toBe(200);
    const y = await api.addStep(wf.id, { type: 'EXIT' });
    expect((await api.connect(wf.id, wf.steps.split, y.body.id, 'b')).status).toBe(201);
    expect((await api.patch(wf.id, { enabled: true })).status).toBe(200);
  });

  it.each([
    [{ branches: [{ name: 'a', weight: 1 }] }],
    [
      {
        branches: [
          { name: 'a', weight: 1 },
          { name: 'B!', weight: 1 },
        ],
      },
    ],
    [
      {
        branches: [
          { name: 'a', weight: -1 },
          { name: 'b', weight: 1 },
        ],
      },
    ],
  ])('refuses config %j with 422', async (config) => {
    const wf = await api.build(`split-bad-${Date.now()}`, {}, []);
    const res = await api.addStep(wf.id, { type: 'RANDOM_SPLIT', config });
    expect(res.status).toBe(422);
  });

  it('1,000 executions split 70/30 within four standard deviations, and their histories replay identically', async () => {
    // a → DELAY (a timer), b → EXIT (none): a replay that drew the other branch would not match its history.
    const wf = await api.build(
      `split-run-${Date.now()}`,
      { split, wait: { type: 'DELAY', config: { amount: 1, unit: 'minutes' } }, x: { type: 'EXIT' } },
      [
        ['trigger', 'split'],
        ['split', 'wait', 'a'],
        ['split', 'x', 'b'],
      ],
      { enabled: true },
    );
    const N = 1000;
    const ids: string[] = [];
    const rows = Array.from({ length: N }, () => ({ id: crypto.randomUUID(), email: uniqueEmail('split') }));
    await forEachLimit(rows, 25, async (r) => {
      const c = await contact({}, r.email);
      await startExecution(h.deps, { id: r.id, projectId: p.projectId, workflowId: wf.id, contactId: c.id, context: {}, mode: 'manual' });
      ids.push(r.id);
    });
    const finished = await eventually(
      async () => {
        const done = await h.deps
          .knex('workflow_executions')
          .where({ workflow_id: wf.id })
          .whereIn('status', ['COMPLETED', 'EXITED'])
          .count<{ count: string }[]>('* as count');
        return Number(done[0].count) === N;
      },
      240_000,
      1000,
    );
    expect(finished).toBe(true);
    const branches = await h.deps
      .knex('workflow_execution_steps')
      .join('workflow_executions', 'workflow_executions.id', 'workflow_execution_steps.execution_id')
      .where({ 'workflow_executions.workflow_id': wf.id, 'workflow_execution_steps.type': 'RANDOM_SPLIT' })
      .select('workflow_execution_steps.output', 'workflow_executions.status', 'workflow_executions.id');
    expect(branches).toHaveLength(N);
    const a = branches.filter((r) => r.output.branch === 'a');
    // Each branch really was followed: a went through the DELAY and completed, b exited.
    expect(a.every((r) => r.status === 'COMPLETED')).toBe(true);
    expect(branches.filter((r) => r.output.branch === 'b').every((r) => r.status === 'EXITED')).toBe(true);
    const sigma = Math.sqrt(N * 0.7 * 0.3);
    expect(Math.abs(a.length - N * 0.7)).toBeLessThan(4 * sigma);

    const sample = [...a.slice(0, 5), ...branches.filter((r) => r.output.branch === 'b').slice(0, 5)];
    const client = await h.deps.temporal.client();
    const histories = await Promise.all(
      sample.map(async (r) => ({ workflowId: `exec-${r.id}`, history: await client.workflow.getHandle(`exec-${r.id}`).fetchHistory() })),
    );
    for await (const result of Worker.runReplayHistories({ workflowBundle: { codePath: process.env.TEST_WORKFLOW_BUNDLE! } }, histories)) {
      expect(result.error).toBeUndefined();
    }
  }, 300_000);
});

describe('WAIT_UNTIL', () => {
  it.each([[{ at: '9am' }], [{ at: '24:00' }], [{ at: '09:00', days: ['monday'] }], [{ field: 'email' }], [{ at: '09:00', field: 'data.x' }], [{}]])(
    'refuses config %j with 422',
    async (config) => {
      const wf = await api.build(`wu-bad-${Date.now()}`, {}, []);
      expect((await api.addStep(wf.id, { type: 'WAIT_UNTIL', config })).status).toBe(422);
    },
  );

  it("waits until the next HH:MM of the contact's own zone (data.timezone), else the project's", async () => {
    await settings({ timezone: 'Asia/Tokyo', quietHours: null, frequencyCap: null });
    const now = Date.now();
    // Three hours ahead on Tokyo's wall clock, whatever the real hour; Kathmandu (UTC+5:45) reaches the same wall time 3 h 15 min later.
    const at = hhmm(now + 3 * 3_600_000, 'Asia/Tokyo');
    const wf = await api.build(`wu-${Date.now()}`, { wait: { type: 'WAIT_UNTIL', config: { at } } }, [['trigger', 'wait']], { enabled: true });
    const own = await contact({ timezone: 'Asia/Kathmandu' });
    const fallback = await contact({ timezone: 'Not/AZone' }); // invalid: the project's Tokyo
    const [o, f] = [await run(wf.id, own.id), await run(wf.id, fallback.id)];
    const [od, fd] = [await api.until(wf.id, o.body.id, ['COMPLETED', 'FAILED'], 60_000), await api.until(wf.id, f.body.id, ['COMPLETED', 'FAILED'], 60_000)];
    expect([od.status, fd.status]).toEqual(['COMPLETED', 'COMPLETED']);
    const hours = (iso: string) => (Date.parse(iso) - now) / 3_600_000;
    const oOut = od.steps[1].output;
    expect(oOut.timeZone).toBe('Asia/Kathmandu');
    expect(hhmm(Date.parse(oOut.wakeAt), 'Asia/Kathmandu')).toBe(at);
    expect(hours(oOut.wakeAt)).toBeGreaterThan(6.2);
    expect(hours(oOut.wakeAt)).toBeLessThan(6.3);
    const fOut = fd.steps[1].output;
    expect(fOut.timeZone).toBe('Asia/Tokyo');
    expect(hhmm(Date.parse(fOut.wakeAt), 'Asia/Tokyo')).toBe(at);
    expect(hours(fOut.wakeAt)).toBeGreaterThan(2.95);
    expect(hours(fOut.wakeAt)).toBeLessThan(3.05);
  }, 90_000);

  it('waits until a date in contact data plus an offset; past or missing continues at once', async () => {
    const wf = await api.build(
      `wu-field-${Date.now()}`,
      { wait: { type: 'WAIT_UNTIL', config: { field: 'data.renewalDate', offset: { amount: -1, unit: 'days' } } } },
      [['trigger', 'wait']],
      { enabled: true },
    );
    const renewal = new Date(Date.now() + 26 * 3_600_000).toISOString(); // a day before it: in about two hours
    const future = await contact({ renewalDate: renewal });
    const past = await contact({ renewalDate: '2020-01-01T00:00:00Z' });
    const none = await contact({});
    const started = [await run(wf.id, future.id), await run(wf.id, past.id), await run(wf.id, none.id)];
    // The future one is seen waiting on its timer, with the reason.
    const waiting = await eventually(
      async () => {
        const res = await api.execution(wf.id, started[0].body.id);
        return res.body.status === 'WAITING' ? res.body : null;
      },
      20_000,
      50,
    );
    expect(waiting.waitingReason).toContain('until');
    const [fd, pd, nd] = await Promise.all(started.map((s) => api.until(wf.id, s.body.id, ['COMPLETED', 'FAILED'], 60_000)));
    expect(fd.steps[1].output).toMatchObject({ wakeAt: new Date(Date.parse(renewal) - 86_400_000).toISOString() });
    expect(fd.steps[1].output.waitMs).toBeGreaterThan(0);
    expect(pd.steps[1].output).toMatchObject({ waitMs: 0, reason: 'past', wakeAt: '2019-12-31T00:00:00.000Z' });
    expect(nd.steps[1].output).toMatchObject({ waitMs: 0, reason: 'no date in field', wakeAt: null });
  }, 90_000);
});

describe('quiet hours', () => {
  it("a MARKETING SEND_EMAIL in the contact's quiet hours waits (WAITING, and why) until they end, then sends once; TRANSACTIONAL and other zones go at once", async () => {
    const now = Date.now();
    // Quiet from half an hour ago to two hours from now on Tokyo's clock: New York is outside that window at any real hour.
    await settings({
      timezone: 'America/New_York',
      quietHours: { start: hhmm(now - 1_800_000, 'Asia/Tokyo'), end: hhmm(now + 2 * 3_600_000, 'Asia/Tokyo') },
      frequencyCap: null,
    });
    const wf = await api.build(`quiet-${Date.now()}`, { send: MARKETING('Quiet news') }, [['trigger', 'send']], { enabled: true });
    const tx = await api.build(
      `quiet-tx-${Date.now()}`,
      { send: { type: 'SEND_EMAIL', config: { subject: 'Receipt', body: '<p>r</p>', from: 'news@ctl.example.com', type: 'TRANSACTIONAL' } } },
      [['trigger', 'send']],
      { enabled: true },
    );
    const tokyo = await contact({ timezone: 'Asia/Tokyo' });
    const ny = await contact({});
    const tokyoTx = await contact({ timezone: 'Asia/Tokyo' });

    const held = await run(wf.id, tokyo.id);
    const free = await run(wf.id, ny.id);
    const receipt = await run(tx.id, tokyoTx.id);
    const waiting = await eventually(
      async () => {
        const res = await api.execution(wf.id, held.body.id);
        return res.body.status === 'WAITING' ? res.body : null;
      },
      20_000,
      50,
    );
    expect(waiting.waitingReason).toMatch(/^quiet hours until .* \(Asia\/Tokyo\)$/);
    expect(sinkFor(tokyo.email)).toHaveLength(0);

    const [fd, rd] = [await api.until(wf.id, free.body.id, ['COMPLETED', 'FAILED']), await api.until(tx.id, receipt.body.id, ['COMPLETED', 'FAILED'])];
    expect(fd.status).toBe('COMPLETED');
    expect(fd.steps[1].output.heldUntil).toBeUndefined();
    expect(rd.status).toBe('COMPLETED');
    expect(rd.steps[1].output.heldUntil).toBeUndefined();

    const hd = await api.until(wf.id, held.body.id, ['COMPLETED', 'FAILED'], 60_000);
    expect(hd.status).toBe('COMPLETED');
    expect(hhmm(Date.parse(hd.steps[1].output.heldUntil), 'Asia/Tokyo')).toBe(hhmm(now + 2 * 3_600_000, 'Asia/Tokyo'));
    await eventually(async () => sinkFor(tokyo.email).length === 1);
    expect(sinkFor(tokyo.email)).toHaveLength(1);
    expect(sinkFor(tokyo.email)[0].subject).toBe('Quiet news');
  }, 90_000);
});

describe('frequency cap', () => {
  it('a cap of 1 per day lets one of two MARKETING sends through per contact, across two workflows on two workers at once; the other is SKIPPED with the reason', async () => {
    await settings({ timezone: 'UTC', quietHours: null, frequencyCap: { max: 1, per: 'day' } });
    const event = `cap-${Date.now()}`;
    const one = await api.build(event, { send: MARKETING('One') }, [['trigger', 'send']], { enabled: true, name: 'cap one' });
    const two = await api.build(event, { send: MARKETING('Two') }, [['trigger', 'send']], { enabled: true, name: 'cap two' });
    const stopSecond = await startSecondWorker(h);
    try {
      const emails = Array.from({ length: 8 }, () => uniqueEmail('cap'));
      await Promise.all(emails.map((e) => api.track(e, event)));
      for (const email of emails) {
        const c = await eventually(async () => h.deps.knex('contacts').where({ project_id: p.projectId, email }).first());
        const [e1, e2] = [await api.executionOf(one.id, c.id), await api.executionOf(two.id, c.id)];
        const [d1, d2] = [await api.until(one.id, e1.id, ['COMPLETED', 'FAILED']), await api.until(two.id, e2.id, ['COMPLETED', 'FAILED'])];
        const statuses = [d1.steps[1].status, d2.steps[1].status].sort();
        expect(statuses).toEqual(['COMPLETED', 'SKIPPED']);
        const skipped = [d1, d2].find((d) => d.steps[1].status === 'SKIPPED');
        expect(skipped.steps[1].output).toEqual({ reason: 'frequency_cap' });
        expect(d1.status).toBe('COMPLETED');
        await eventually(async () => sinkFor(email).length === 1);
        expect(sinkFor(email)).toHaveLength(1);
      }
      // TRANSACTIONAL mail is never capped.
      const c = await contact({});
      const tx = await api.build(
        `cap-tx-${Date.now()}`,
        { send: { type: 'SEND_EMAIL', config: { subject: 'R', body: '<p>r</p>', from: 'news@ctl.example.com', type: 'TRANSACTIONAL' } } },
        [['trigger', 'send']],
        { enabled: true, allowReentry: true },
      );
      const m = await run(one.id, c.id);
      expect((await api.until(one.id, m.body.id, ['COMPLETED'])).steps[1].status).toBe('COMPLETED');
      const t = await run(tx.id, c.id);
      expect((await api.until(tx.id, t.body.id, ['COMPLETED'])).steps[1].status).toBe('COMPLETED');
    } finally {
      await stopSecond();
      await settings({ frequencyCap: null });
    }
  }, 120_000);
});
