import { startHarness, createProjectFixture, bearer, Harness, ProjectFixture } from '../helpers/harness';
import { verifiedDomain, uniqueEmail } from '../helpers/fixtures';
import { workflowApi, equalsFilter } from '../helpers/workflows';
import { addStep } from '../../db/workflows';
import { filterTreeShapeErrors } from '../../api/schemas/workflows';
import { stepConfigProblems } from '../../services/stepChecks';

let h: Harness;
let p: ProjectFixture;
let other: ProjectFixture;
let api: ReturnType<typeof workflowApi>;

beforeAll(async () => {
  h = await startHarness();
  [p, other] = await Promise.all([createProjectFixture(h), createProjectFixture(h, 'other')]);
  await verifiedDomain(h, p.projectId, 'wf.example.com');
  await verifiedDomain(h, other.projectId, 'wf.example.com');
  api = workflowApi(h, p);
});
afterAll(() => h?.stop());

const template = async (fixture: ProjectFixture) => {
  const res = await h.http.post('/templates').set(bearer(fixture.secretKey)).send({ name: 't', subject: 'Hi', body: '<p>Hi</p>', from: 'a@wf.example.com' });
  expect(res.status).toBe(201);
  return res.body.id as string;
};

describe('workflow records', () => {
  it('creates disabled EVENT workflows with their TRIGGER step, from eventName or triggerConfig', async () => {
    const a = await api.create({ name: 'Onboarding', description: 'd', eventName: 'signup' });
    expect(a.status).toBe(201);
    expect(a.body).toMatchObject({
      name: 'Onboarding',
      description: 'd',
      enabled: false,
      allowReentry: false,
      triggerType: 'EVENT',
      triggerConfig: { eventName: 'signup' },
      transitions: [],
    });
    expect(a.body.steps).toEqual([
      {
        id: expect.any(String),
        workflowId: a.body.id,
        type: 'TRIGGER',
        name: 'Trigger',
        title: 'Trigger',
        summary: 'When “signup” happens',
        config: { eventName: 'signup' },
        position: null,
        branches: ['next'],
        requiredBranches: [],
      },
    ]);
    const b = await api.create({ name: 'B', triggerConfig: { eventName: 'segment.vip.entry' }, allowReentry: true });
    expect(b.status).toBe(201);
    expect(b.body).toMatchObject({ triggerConfig: { eventName: 'segment.vip.entry' }, allowReentry: true });
    const missing = await api.create({ name: 'C' });
    expect(missing.status).toBe(422);
    expect(missing.body.error.errors[0].field).toBe('eventName');
    expect((await api.create({ name: 'D', eventName: 'x', triggerType: 'SCHEDULE' })).status).toBe(422);
  });

  it('lists page by page with search and the enabled filter, and never shows another project', async () => {
    const tag = `list-${Date.now()}`;
    for (let i = 0; i < 3; i++) await api.create({ name: `${tag} ${i}`, eventName: 'e' });
    const page = await h.http.get(`/workflows?search=${tag}&pageSize=2&page=2`).set(bearer(p.secretKey));
    expect(page.status).toBe(200);
    expect(page.body).toMatchObject({ total: 3, page: 2, pageSize: 2, totalPages: 2 });
    expect(page.body.data).toHaveLength(1);
    expect(page.body.data[0].steps[0].type).toBe('TRIGGER');
    const enabled = await h.http.get(`/workflows?search=${tag}&enabled=true`).set(bearer(p.secretKey));
    expect(enabled.body.total).toBe(0);
    expect((await h.http.get('/workflows?enabled=maybe').set(bearer(p.secretKey))).status).toBe(400);
    const theirs = await h.http.get(`/workflows?search=${tag}`).set(bearer(other.secretKey));
    expect(theirs.body.total).toBe(0);
    const one = page.body.data[0].id;
    expect((await h.http.get(`/workflows/${one}`).set(bearer(other.secretKey))).status).toBe(404);
    expect((await h.http.patch(`/workflows/${one}`).set(bearer(other.secretKey)).send({ name: 'x' })).status).toBe(404);
    expect((await h.http.post(`/workflows/${one}/steps`).set(bearer(other.secretKey)).send({ type: 'EXIT' })).status).toBe(404);
  });

  it('keeps the trigger config and the TRIGGER step in step, whichever is changed', async () => {
    const wf = await api.build('one', {}, []);
    const moved = await api.patch(wf.id, { triggerConfig: { eventName: 'two' } });
    expect(moved.status).toBe(200);
    expect(moved.body.triggerConfig).toEqual({ eventName: 'two' });
    expect(moved.body.steps[0].config).toEqual({ eventName: 'two' });
    const viaStep = await api.patchStep(wf.id, wf.triggerStepId, { config: { eventName: 'three' } });
    expect(viaStep.status).toBe(200);
    expect((await api.get(wf.id)).body.triggerConfig).toEqual({ eventName: 'three' });
    expect((await api.delStep(wf.id, wf.triggerStepId)).status).toBe(409);
    expect((await api.patchStep(wf.id, wf.triggerStepId, { config: { eventName: '' } })).status).toBe(422);
  });

  it('listens for emitted names as written, never for a lookalike or a name with invisible characters', async () => {
    expect((await api.create({ name: 'Opened', eventName: 'email.opened' })).status).toBe(201);
    for (const eventName of ['\uff45mail.opened', 'campaign\u200b.sent', 'sign\u00adup']) {
      const created = await api.create({ name: 'Lookalike', eventName });
      expect(created.status).toBe(422);
      expect(created.body.error.errors).toEqual([expect.objectContaining({ field: 'eventName' })]);
      expect((await api.create({ name: 'Lookalike', triggerConfig: { eventName } })).status).toBe(422);
    }
    const wf = await api.build('plain', {}, []);
    expect((await api.patch(wf.id, { eventName: '\uff45mail.opened' })).status).toBe(422);
    const viaStep = await api.patchStep(wf.id, wf.triggerStepId, { config: { eventName: 'signup\u200b' } });
    expect(viaStep.status).toBe(422);
    expect(viaStep.body.error.errors.map((e: any) => e.field)).toContain('config.eventName');
    expect((await api.get(wf.id)).body.triggerConfig).toEqual({ eventName: 'plain' });
  });
});

describe('summaries in the request language', () => {
  it("says each node in the Accept-Language's words, English without it, and answers Vary: Accept-Language", async () => {
    const tpl = await h.http
      .post('/templates')
      .set(bearer(p.secretKey))
      .send({ name: 'Bienvenue', subject: 'Hi', body: '<p>Hi</p>', from: 'a@wf.example.com' });
    expect(tpl.status).toBe(201);
    const wf = await api.build(
      `inscription-${Date.now()}`,
      {
        wait: { type: 'DELAY', config: { amount: 2, unit: 'days' } },
        send: { type: 'SEND_EMAIL', config: { templateId: tpl.body.id } },
        check: { type: 'CONDITION', config: { condition: equalsFilter('data.plan', 'pro') } },
      },
      [],
    );
    const event = (await api.get(wf.id)).body.triggerConfig.eventName as string;
    const summaries = (body: { steps: { id: string; summary: string }[] }) => Object.fromEntries(body.steps.map((s) => [s.id, s.summary]));
    const ids = wf.steps;

    const english = await api.get(wf.id);
    expect(summaries(english.body)).toEqual({
      [ids.trigger]: `When “${event}” happens`,
      [ids.wait]: 'Wait 2 days',
      [ids.send]: 'Send “Bienvenue” (Bienvenue template)',
      [ids.check]: 'If plan is pro',
    });

    const french = await api.get(wf.id).set('Accept-Language', 'fr-FR,fr;q=0.9,en;q=0.5');
    expect(french.status).toBe(200);
    expect(french.headers.vary).toMatch(/Accept-Language/i);
    expect(summaries(french.body)).toEqual({
      [ids.trigger]: `Quand «\u00a0${event}\u00a0» se produit`,
      [ids.wait]: 'Attendre 2 jours',
      [ids.send]: 'Envoyer «\u00a0Bienvenue\u00a0» (modèle Bienvenue)',
      [ids.check]: 'Si plan est pro',
    });

    // The list, and a step's own answer, speak it too.
    const list = await h.http
      .get(`/workflows?search=${encodeURIComponent(event)}`)
      .set(bearer(p.secretKey))
      .set('Accept-Language', 'de');
    expect(list.headers.vary).toMatch(/Accept-Language/i);
    expect(summaries(list.body.data[0])[ids.wait]).toBe('2 Tage warten');
    const step = await api.patchStep(wf.id, ids.wait, { config: { amount: 1, unit: 'days' } }).set('Accept-Language', 'de');
    expect(step.status).toBe(200);
    expect(step.body.summary).toBe('1 Tag warten');
  });
});

describe('steps', () => {
  it('accepts a valid config of each of the seven types and stores it with defaults applied', async () => {
    const tpl = await template(p);
    const wf = await api.build('steps', {}, []);
    const configs: [string, Record<string, unknown>][] = [
      ['SEND_EMAIL', { templateId: tpl }],
      ['SEND_EMAIL', { subject: 'Hi {{ name }}', body: '<p>{{ event.data.plan }}</p>', from: 'team@wf.example.com' }],
      ['DELAY', { amount: 2, unit: 'days' }],
      ['WAIT_FOR_EVENT', { eventName: 'purchase', timeout: { amount: 1, unit: 'weeks' } }],
      ['CONDITION', { condition: equalsFilter('data.plan', 'pro') }],
      ['WEBHOOK', { url: 'https://hooks.example.com/x', body: '{"email": "{{ email }}"}' }],
      ['UPDATE_CONTACT', { data: { stage: 'trial' }, subscribed: true }],
      ['EXIT', {}],
    ];
    for (const [type, config] of configs) {
      const res = await api.addStep(wf.id, { type, config, name: `my ${type}` });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ workflowId: wf.id, type, name: `my ${type}` });
    }
    const steps = (await api.get(wf.id)).body.steps;
    expect(steps.find((s: any) => s.type === 'WEBHOOK').config.method).toBe('POST');
    expect(steps.find((s: any) => s.type === 'SEND_EMAIL' && s.config.subject).config.type).toBe('MARKETING');
  });

  it.each([
    ['TRIGGER is not addable', { type: 'TRIGGER', config: { eventName: 'x' } }, 'type'],
    ['unknown type', { type: 'SLEEP', config: {} }, 'type'],
    ['DELAY in years', { type: 'DELAY', config: { amount: 1, unit: 'years' } }, 'config.unit'],
    ['DELAY of no time', { type: 'DELAY', config: { amount: 0, unit: 'days' } }, 'config.amount'],
    ['WAIT_FOR_EVENT without a name', { type: 'WAIT_FOR_EVENT', config: {} }, 'config.eventName'],
    ['WAIT_FOR_EVENT on a lookalike of an emitted name', { type: 'WAIT_FOR_EVENT', config: { eventName: '\uff45mail.opened' } }, 'config.eventName'],
    ['WAIT_FOR_EVENT on a name with a zero-width space', { type: 'WAIT_FOR_EVENT', config: { eventName: 'purchase\u200b' } }, 'config.eventName'],
    [
      'CONDITION with an unknown operator',
      { type: 'CONDITION', config: { condition: { logic: 'AND', groups: [{ filters: [{ field: 'data.plan', operator: 'like', value: 1 }] }] } } },
      'config.condition.groups.0.filters.0.operator',
    ],
    ['CONDITION with a bad field', { type: 'CONDITION', config: { condition: equalsFilter('plan', 'x') } }, 'config.condition.groups.0.filters.0.field'],
    ['WEBHOOK to ftp', { type: 'WEBHOOK', config: { url: 'ftp://example.com/' } }, 'config.url'],
    ['WEBHOOK smuggling a Host header', { type: 'WEBHOOK', config: { url: 'https://example.com/', headers: { Host: 'internal' } } }, 'config.headers.Host'],
    ['WEBHOOK with broken Liquid', { type: 'WEBHOOK', config: { url: 'https://example.com/', body: '{% if %}' } }, 'config.body'],
    ['SEND_EMAIL with broken Liquid', { type: 'SEND_EMAIL', config: { subject: 'x', body: '{{ a', from: 'a@wf.example.com' } }, 'config.body'],
    ['UPDATE_CONTACT with a dotted key', { type: 'UPDATE_CONTACT', config: { data: { 'a.b': 1 } } }, 'config.data.a.b'],
    ['UPDATE_CONTACT with nothing', { type: 'UPDATE_CONTACT', config: {} }, 'config'],
    ['EXIT with a stray field', { type: 'EXIT', config: { why: 1 } }, 'config'],
  ])('refuses %s with 422 naming the field', async (_name, body, field) => {
    const wf = await api.build('bad', {}, []);
    const res = await api.addStep(wf.id, body as any);
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
    expect(res.body.error.errors.map((e: any) => e.field)).toContain(field);
  });

  // Bodies nested past 64 levels are refused by the router for every route (middleware.test.ts);
  // ~40 levels gets through to this schema's own limit, which names the field.
  it('refuses deep nesting in a filter tree or a context with 422 naming the field', async () => {
    const wf = await api.build('deep', { x: { type: 'EXIT' } }, [['trigger', 'x']]);
    const leaf = '{"logic":"AND","groups":[{"filters":[{"field":"email","operator":"exists"}]}]}';
    const tree = '{"logic":"AND","groups":[{"filters":[],"conditions":'.repeat(12) + leaf + '}]}'.repeat(12);
    const raw = (path: string, body: string) => h.http.post(path).set(bearer(p.secretKey)).set('Content-Type', 'application/json').send(body);
    const step = await raw(`/workflows/${wf.id}/steps`, `{"type":"CONDITION","config":{"condition":${tree}}}`);
    expect(step.status).toBe(422);
    expect(step.body.error.errors[0].field).toBe('config.condition');
    const contact = (await api.track(uniqueEmail(), 'x')).body.data.contact;
    const context = `${'{"a":'.repeat(40)}1${'}'.repeat(40)}`;
    const started = await raw(`/workflows/${wf.id}/executions`, `{"contactId":"${contact}","context":${context}}`);
    expect(started.status).toBe(422);
    expect(started.body.error.errors[0].field).toBe('context');
  });

  it("refuses a template of another project, and an inline sender on an unverified domain with the sender rule's 403", async () => {
    const theirs = await template(other);
    const wf = await api.build('refs', {}, []);
    const res = await api.addStep(wf.id, { type: 'SEND_EMAIL', config: { templateId: theirs } });
    expect(res.status).toBe(422);
    expect(res.body.error.errors[0]).toMatchObject({ field: 'config.templateId', message: 'template not found in this project' });
    const unverified = await api.addStep(wf.id, { type: 'SEND_EMAIL', config: { subject: 's', body: 'b', from: 'x@nope.example.net' } });
    expect(unverified.status).toBe(403);
    const step = await api.addStep(wf.id, { type: 'DELAY', config: { amount: 1, unit: 'hours' } });
    const patched = await api.patchStep(wf.id, step.body.id, { config: { amount: 3, unit: 'fortnights' } });
    expect(patched.status).toBe(422);
    expect(patched.body.error.errors[0].field).toBe('config.unit');
    const renamed = await api.patchStep(wf.id, step.body.id, { name: 'Wait a bit', position: { x: 10, y: 20 } });
    expect(renamed.body).toMatchObject({ name: 'Wait a bit', position: { x: 10, y: 20 }, config: { amount: 1, unit: 'hours' } });
  });
});

describe('transitions', () => {
  it('enforces branches per step type, one transition per (step, branch), and steps of the same workflow', async () => {
    const wf = await api.build(
      'edges',
      {
        cond: { type: 'CONDITION', config: { condition: equalsFilter('data.plan', 'pro') } },
        wait: { type: 'WAIT_FOR_EVENT', config: { eventName: 'x' } },
        a: { type: 'DELAY', config: { amount: 1, unit: 'minutes' } },
        end: { type: 'EXIT' },
      },
      [],
    );
    const s = wf.steps;
    const first = await api.connect(wf.id, s.trigger, s.cond);
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({ workflowId: wf.id, fromStepId: s.trigger, toStepId: s.cond, branch: 'next' });
    expect((await api.connect(wf.id, s.cond, s.a)).status).toBe(422);
    expect((await api.connect(wf.id, s.cond, s.a, 'yes')).status).toBe(201);
    expect((await api.connect(wf.id, s.cond, s.end, 'yes')).status).toBe(409);
    expect((await api.connect(wf.id, s.wait, s.end, 'timeout')).status).toBe(201);
    expect((await api.connect(wf.id, s.a, s.end, 'timeout')).status).toBe(422);
    expect((await api.connect(wf.id, s.end, s.a)).status).toBe(422);
    expect((await api.connect(wf.id, s.a, s.trigger)).status).toBe(422);
    expect((await api.connect(wf.id, s.a, s.a)).status).toBe(422);
    expect((await api.connect(wf.id, s.a, s.end, 'sideways')).status).toBe(422);
    const elsewhere = await api.build('elsewhere', { x: { type: 'EXIT' } }, []);
    const cross = await api.connect(wf.id, s.a, elsewhere.steps.x);
    expect(cross.status).toBe(422);
    expect(cross.body.error.errors[0].field).toBe('toStepId');
    const t = (await api.get(wf.id)).body.transitions.find((x: any) => x.branch === 'timeout');
    expect((await h.http.delete(`/workflows/${wf.id}/transitions/${t.id}`).set(bearer(p.secretKey))).status).toBe(204);
    expect((await h.http.delete(`/workflows/${wf.id}/transitions/${t.id}`).set(bearer(p.secretKey))).status).toBe(404);
  });

  it('deletes a step with splice=true by reconnecting its incoming transitions to its next successor', async () => {
    const steps = {
      a: { type: 'DELAY', config: { amount: 1, unit: 'minutes' } },
      x: { type: 'DELAY', config: { amount: 2, unit: 'minutes' } },
      b: { type: 'EXIT' },
    };
    const wf = await api.build('splice', steps, [
      ['trigger', 'a'],
      ['a', 'x'],
      ['x', 'b'],
    ]);
    expect((await api.delStep(wf.id, wf.steps.x, true)).status).toBe(204);
    const spliced = (await api.get(wf.id)).body;
    expect(spliced.steps.map((s: any) => s.id)).not.toContain(wf.steps.x);
    expect(spliced.transitions.map((t: any) => [t.fromStepId, t.toStepId, t.branch])).toEqual([
      [wf.triggerStepId, wf.steps.a, 'next'],
      [wf.steps.a, wf.steps.b, 'next'],
    ]);
    const plain = await api.build('nosplice', steps, [
      ['trigger', 'a'],
      ['a', 'x'],
      ['x', 'b'],
    ]);
    expect((await api.delStep(plain.id, plain.steps.x)).status).toBe(204);
    expect((await api.get(plain.id)).body.transitions.map((t: any) => [t.fromStepId, t.toStepId])).toEqual([[plain.triggerStepId, plain.steps.a]]);
  });
});

describe('enabling', () => {
  it('refuses a graph that cannot run with 422 naming the offending step', async () => {
    const empty = await api.build('empty', {}, []);
    const none = await api.patch(empty.id, { enabled: true });
    expect(none.status).toBe(422);
    expect(none.body.error.details.stepIds).toEqual([empty.triggerStepId]);
    expect(none.body.error.message).toMatch(/Trigger: add a first step/);

    const cond = { type: 'CONDITION', config: { condition: equalsFilter('data.plan', 'pro') }, name: 'Is pro?' };
    const dangling = await api.build('dangling', { c: cond, e: { type: 'EXIT' } }, [
      ['trigger', 'c'],
      ['c', 'e', 'yes'],
    ]);
    // A branch left open ends the execution there (docs/workflows.md): no problem.
    const res = await api.patch(dangling.id, { enabled: true });
    expect(res.status).toBe(200);

    const tpl = await template(p);
    const gone = await api.build('gone', { send: { type: 'SEND_EMAIL', config: { templateId: tpl }, name: 'Welcome' } }, [['trigger', 'send']]);
    // The API refuses to delete a template a step sends; a row removed underneath it (e.g. by a
    // project reset) must still stop the workflow from being enabled.
    expect((await h.http.delete(`/templates/${tpl}`).set(bearer(p.secretKey))).status).toBe(409);
    await h.deps.knex('templates').where({ id: tpl }).del();
    const invalid = await api.patch(gone.id, { enabled: true });
    expect(invalid.status).toBe(422);
    expect(invalid.body.error.errors[0]).toMatchObject({ field: `steps.${gone.steps.send}.config.templateId` });
    expect((await api.get(gone.id)).body.enabled).toBe(false);

    const ok = await api.build('ok', { c: cond, y: { type: 'EXIT' }, n: { type: 'EXIT' } }, [
      ['trigger', 'c'],
      ['c', 'y', 'yes'],
      ['c', 'n', 'no'],
    ]);
    const enabled = await api.patch(ok.id, { enabled: true });
    expect(enabled.status).toBe(200);
    expect(enabled.body.enabled).toBe(true);
    expect((await api.patch(ok.id, { enabled: false })).body.enabled).toBe(false);
  });
});

describe('templates in use', () => {
  it('refuses the delete that races a step write naming the template, once that write commits', async () => {
    const tpl = await template(p);
    const wf = (await api.create({ name: 'raced', eventName: 'signup' })).body;
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let checked!: () => void;
    const validated = new Promise<void>((r) => (checked = r));
    // The route's check, inside the step write's transaction, held open until released.
    const adding = addStep(h.deps.knex, p.projectId, wf.id, { type: 'SEND_EMAIL', config: { templateId: tpl } }, async (trx) => {
      expect(await stepConfigProblems(trx, p.projectId, 'SEND_EMAIL', { templateId: tpl }, 'save', { filterShape: filterTreeShapeErrors })).toEqual([]);
      checked();
      await gate;
    });
    await validated;
    const deleting = h.http
      .delete(`/templates/${tpl}`)
      .set(bearer(p.secretKey))
      .then((r) => r);
    await new Promise((r) => setTimeout(r, 300));
    release();
    await adding;
    const res = await deleting;
    expect(res.status).toBe(409);
    expect(res.body.error.details.workflows).toEqual([expect.objectContaining({ id: wf.id })]);
    expect(await h.deps.knex('templates').where({ id: tpl }).first()).toBeDefined();
  });
});

describe('GET /workflows/fields', () => {
  it('lists contact fields and the data keys seen on events the workflows start on or wait for', async () => {
    const event = `fields-${Date.now()}`;
    const wf = await api.build(event, { w: { type: 'WAIT_FOR_EVENT', config: { eventName: `${event}-later` } } }, [['trigger', 'w']]);
    const email = uniqueEmail();
    await api.track(email, event, { plan: 'pro', seats: 3, since: '2024-01-02' });
    await api.track(email, `${event}-later`, { reason: 'x' });
    await api.track(email, 'unrelated-event', { secret: 1 });
    const res = await h.http.get(`/workflows/fields?workflowId=${wf.id}`).set(bearer(p.secretKey));
    expect(res.status).toBe(200);
    expect(res.body.contactFields).toEqual(
      expect.arrayContaining([
        { field: 'email', type: 'string', isCustom: false, coverage: 1 },
        expect.objectContaining({ field: 'data.plan', type: 'string', isCustom: true }),
      ]),
    );
    expect(res.body.eventFields).toEqual([
      {
        eventName: event,
        field: `event.${event}`,
        data: [
          { key: 'plan', field: 'event.data.plan', type: 'string' },
          { key: 'seats', field: 'event.data.seats', type: 'number' },
          { key: 'since', field: 'event.data.since', type: 'date' },
        ],
      },
      { eventName: `${event}-later`, field: `event.${event}-later`, data: [{ key: 'reason', field: 'event.data.reason', type: 'string' }] },
    ]);
    const theirs = await h.http.get(`/workflows/fields?workflowId=${wf.id}`).set(bearer(other.secretKey));
    expect(theirs.status).toBe(404);
  });
});
