import { startHarness, createProjectFixture, bearer, Harness, ProjectFixture } from '../helpers/harness';
import { upsertContact } from '../../db/contactWriters';

/** Retention (docs/privacy.md): a project keeps everything until it says otherwise. */
const KEEP = { emailBodiesDays: null, eventsDays: null, inboundDays: null };

let h: Harness;
let p: ProjectFixture;

beforeAll(async () => {
  h = await startHarness();
  p = await createProjectFixture(h);
});
afterAll(async () => h?.stop());

// First-party tracking's defaults (docs/tracking.md); tracking.test.ts covers changing them.
const DEFAULT_TRACKING = { MARKETING: { opens: true, clicks: true }, TRANSACTIONAL: { opens: false, clicks: false } };
const get = () => h.http.get('/settings').set(bearer(p.secretKey));
const patch = (body: unknown) =>
  h.http
    .patch('/settings')
    .set(bearer(p.secretKey))
    .send(body as object);

describe('sending policy (GET/PATCH /settings)', () => {
  it('a new project has UTC, no quiet hours, no cap, the default send rate', async () => {
    const res = await get();
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      timezone: 'UTC',
      quietHours: null,
      frequencyCap: null,
      sendRatePerSecond: null,
      tracking: DEFAULT_TRACKING,
      doubleOptIn: null,
      retention: KEEP,
    });
  });

  it('PATCH changes only the keys sent, and null turns a control off', async () => {
    expect((await patch({ timezone: 'Europe/Paris' })).body).toEqual({
      timezone: 'Europe/Paris',
      quietHours: null,
      frequencyCap: null,
      sendRatePerSecond: null,
      tracking: DEFAULT_TRACKING,
      doubleOptIn: null,
      retention: KEEP,
    });
    expect((await patch({ quietHours: { start: '21:00', end: '08:00' } })).body).toEqual({
      timezone: 'Europe/Paris',
      quietHours: { start: '21:00', end: '08:00' },
      frequencyCap: null,
      sendRatePerSecond: null,
      tracking: DEFAULT_TRACKING,
      doubleOptIn: null,
      retention: KEEP,
    });
    const capped = await patch({ frequencyCap: { max: 3, per: 'day' } });
    expect(capped.body).toEqual({
      timezone: 'Europe/Paris',
      quietHours: { start: '21:00', end: '08:00' },
      frequencyCap: { max: 3, per: 'day' },
      sendRatePerSecond: null,
      tracking: DEFAULT_TRACKING,
      doubleOptIn: null,
      retention: KEEP,
    });
    expect((await get()).body).toEqual(capped.body);
    expect((await patch({ quietHours: null })).body).toEqual({
      timezone: 'Europe/Paris',
      quietHours: null,
      frequencyCap: { max: 3, per: 'day' },
      sendRatePerSecond: null,
      tracking: DEFAULT_TRACKING,
      doubleOptIn: null,
      retention: KEEP,
    });
  });

  it('sendRatePerSecond is set, kept alongside the rest, and null puts it back to the default', async () => {
    const before = (await get()).body;
    expect((await patch({ sendRatePerSecond: 12.5 })).body).toEqual({ ...before, sendRatePerSecond: 12.5 });
    expect((await get()).body.sendRatePerSecond).toBe(12.5);
    expect((await patch({ timezone: before.timezone })).body.sendRatePerSecond).toBe(12.5);
    expect((await patch({ sendRatePerSecond: null })).body).toEqual({ ...before, sendRatePerSecond: null });
  });

  it.each([
    [{ timezone: 'Mars/Olympus' }, 'timezone'],
    [{ timezone: 5 }, 'timezone'],
    [{ quietHours: { start: '25:00', end: '08:00' } }, 'quietHours.start'],
    [{ quietHours: { start: '9:00', end: '08:00' } }, 'quietHours.start'],
    [{ quietHours: { start: '21:00', end: '08:60' } }, 'quietHours.end'],
    [{ frequencyCap: { max: 0, per: 'day' } }, 'frequencyCap.max'],
    [{ frequencyCap: { max: 1.5, per: 'day' } }, 'frequencyCap.max'],
    [{ frequencyCap: { max: 2, per: 'month' } }, 'frequencyCap.per'],
    [{ sendRatePerSecond: 0 }, 'sendRatePerSecond'],
    [{ sendRatePerSecond: -5 }, 'sendRatePerSecond'],
    [{ sendRatePerSecond: '50' }, 'sendRatePerSecond'],
    [{ sendRatePerSecond: 1e9 }, 'sendRatePerSecond'],
  ])('refuses %j with 422 naming %s, changing nothing', async (body, field) => {
    const before = (await get()).body;
    const res = await patch(body);
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
    expect(res.body.error.errors.map((d: any) => d.field)).toContain(field);
    expect((await get()).body).toEqual(before);
  });

  it('the public key gets 401', async () => {
    const res = await h.http.get('/settings').set(bearer(p.publicKey));
    expect(res.status).toBe(401);
    expect((await h.http.patch('/settings').set(bearer(p.publicKey)).send({ timezone: 'UTC' })).status).toBe(401);
  });

  it('the dashboard sets the same policy under `settings` of PATCH /users/@me/projects/:id', async () => {
    const res = await h.http
      .patch(`/users/@me/projects/${p.projectId}`)
      .set('Cookie', p.cookie)
      .send({ settings: { timezone: 'Asia/Tokyo', frequencyCap: null, sendRatePerSecond: 20 } });
    expect(res.status).toBe(200);
    expect(res.body.settings).toEqual({ timezone: 'Asia/Tokyo', quietHours: null, frequencyCap: null, sendRatePerSecond: 20 });
    expect((await get()).body.timezone).toBe('Asia/Tokyo');
    expect((await get()).body.sendRatePerSecond).toBe(20);
    const zero = await h.http
      .patch(`/users/@me/projects/${p.projectId}`)
      .set('Cookie', p.cookie)
      .send({ settings: { sendRatePerSecond: 0 } });
    expect(zero.status).toBe(422);
    expect(zero.body.error.errors.map((d: any) => d.field)).toContain('settings.sendRatePerSecond');
    const bad = await h.http
      .patch(`/users/@me/projects/${p.projectId}`)
      .set('Cookie', p.cookie)
      .send({ settings: { quietHours: { start: 'x', end: '08:00' } } });
    expect(bad.status).toBe(422);
    expect(bad.body.error.errors.map((d: any) => d.field)).toContain('settings.quietHours.start');
  });

  it("another project's policy is its own", async () => {
    const other = await createProjectFixture(h, 'other');
    expect((await h.http.get('/settings').set(bearer(other.secretKey))).body.timezone).toBe('UTC');
  });
});

describe('contact time zone coverage', () => {
  it('GET /contacts/fields counts only data.timezone values that name a zone', async () => {
    const q = await createProjectFixture(h, 'tz');
    for (const [email, timezone] of [
      ['a@x.test', 'Asia/Tokyo'],
      ['b@x.test', 'America/New_York'],
      ['c@x.test', 'Not/AZone'],
      ['d@x.test', undefined],
    ] as const) {
      await upsertContact(h.deps.knex, { projectId: q.projectId, email, data: timezone ? { timezone } : { other: 1 }, defaultSubscribed: true });
    }
    const res = await h.http.get('/contacts/fields').set(bearer(q.secretKey));
    expect(res.status).toBe(200);
    const fields = (res.body.fields ?? res.body) as any[];
    expect(fields.find((f) => f.field === 'data.timezone').coverage).toBe(0.5);
    expect(fields.find((f) => f.field === 'data.other').coverage).toBe(0.25);
  });
});
