import path from 'node:path';
import request from 'supertest';
import { startHarness, createProjectFixture, bearer, eventually, Harness, ProjectFixture } from '../helpers/harness';
import { verifiedDomain, uniqueEmail } from '../helpers/fixtures';
import { workflowApi } from '../helpers/workflows';
import { buildApp } from '../../api/app';
import { TEST_REGISTRY } from '../fixtures/steps/registry';
import { stampActivities, Stamp } from '../fixtures/steps/stamp.activities';

/**
 * Two step types that live only in test/fixtures/steps (one with branches derived from its config,
 * one with an activity beside it and a template reference), injected into the app and the worker:
 * the API validates them, the usage lists and delete guards see them, and a real execution runs them.
 */

const stamps: Stamp[] = [];
let h: Harness;
let p: ProjectFixture;
let api: ReturnType<typeof workflowApi>;

beforeAll(async () => {
  h = await startHarness({
    worker: true,
    steps: { registry: TEST_REGISTRY, workflowsPath: path.join(__dirname, '..', 'fixtures', 'steps', 'workflows.ts'), activities: stampActivities(stamps) },
  });
  p = await createProjectFixture(h);
  await verifiedDomain(h, p.projectId, 'plugins.example.com');
  api = workflowApi(h, p);
}, 120_000);
afterAll(async () => {
  await h?.stop();
});

const split = (weights: Record<string, number>) => ({
  type: 'WEIGHTED_SPLIT',
  config: { branches: Object.entries(weights).map(([name, weight]) => ({ name, weight })) },
});

describe('a step type added through an injected registry', () => {
  it('is validated by its own schema, and an app without it refuses it', async () => {
    const wf = await api.build(`plug-${Date.now()}`, {}, []);
    const bad = await api.addStep(wf.id, split({ only: 1 }));
    expect(bad.status).toBe(422);
    expect(bad.body.error.errors[0].field).toBe('config.branches');
    expect((await api.addStep(wf.id, split({ a: 1, b: 0 }))).status).toBe(201);

    const plain = buildApp({ ...h.deps, steps: undefined });
    const refused = await request(plain.app.callback())
      .post(`/workflows/${wf.id}/steps`)
      .set(bearer(p.secretKey))
      .send(split({ a: 1, b: 0 }));
    expect(refused.status).toBe(422);
    expect(refused.body.error.errors[0].field).toBe('type');
  });

  it('takes transitions only on the branches its config names, and needs them all connected to enable', async () => {
    const wf = await api.build(
      `split-${Date.now()}`,
      { split: split({ gold: 1, grey: 0 }), gold: { type: 'STAMP', config: { label: 'gold' } }, grey: { type: 'STAMP', config: { label: 'grey' } } },
      [['trigger', 'split']],
    );
    const s = wf.steps;
    const wrong = await api.connect(wf.id, s.split, s.gold, 'purple');
    expect(wrong.status).toBe(422);
    expect(wrong.body.error.errors[0]).toMatchObject({ field: 'branch', message: expect.stringMatching(/gold, grey/) });
    expect((await api.connect(wf.id, s.split, s.gold)).status).toBe(422);
    expect((await api.connect(wf.id, s.split, s.gold, 'gold')).status).toBe(201);

    const early = await api.patch(wf.id, { enabled: true });
    expect(early.status).toBe(422);
    expect(early.body.error.errors.map((e: any) => e.field)).toEqual([`steps.${s.split}.branches.grey`]);

    expect((await api.connect(wf.id, s.split, s.grey, 'grey')).status).toBe(201);
    expect((await api.patch(wf.id, { enabled: true })).status).toBe(200);
  });

  it('runs on the real worker: the split follows its only weighted branch and the stamp activity runs beside its step', async () => {
    const event = `run-${Date.now()}`;
    const wf = await api.build(
      event,
      { split: split({ gold: 1, grey: 0 }), gold: { type: 'STAMP', config: { label: 'gold' } }, grey: { type: 'STAMP', config: { label: 'grey' } } },
      [
        ['trigger', 'split'],
        ['split', 'gold', 'gold'],
        ['split', 'grey', 'grey'],
      ],
      { enabled: true },
    );
    const email = uniqueEmail('plug');
    expect((await api.track(email, event)).status).toBe(200);
    const row = await eventually(async () => (await api.rows(wf.id))[0]);
    const done = await api.until(wf.id, row.id, ['COMPLETED', 'FAILED']);
    expect(done.status).toBe('COMPLETED');
    expect(done.steps.map((x: any) => [x.type, x.output])).toEqual([
      ['TRIGGER', null],
      ['WEIGHTED_SPLIT', { branch: 'gold' }],
      ['STAMP', { stamped: 'gold' }],
    ]);
    expect(stamps.filter((x) => x.executionId === row.id)).toEqual([{ executionId: row.id, contactId: row.contact_id, label: 'gold' }]);
  });

  it("counts the new type's template reference in the usage list and the delete guard", async () => {
    const tpl = await h.http.post('/templates').set(bearer(p.secretKey)).send({ name: 'plug', subject: 's', body: 'b', from: 'a@plugins.example.com' });
    expect(tpl.status).toBe(201);
    const wf = await api.build(`tpl-${Date.now()}`, { stamp: { type: 'STAMP', config: { label: 'x', templateId: tpl.body.id } } }, [['trigger', 'stamp']], {
      name: 'stamps',
    });
    const usage = await h.http.get(`/templates/${tpl.body.id}/usage`).set(bearer(p.secretKey));
    expect(usage.body).toEqual({ campaigns: [], workflows: [{ id: wf.id, name: 'stamps', stepId: wf.steps.stamp }] });
    expect((await h.http.delete(`/templates/${tpl.body.id}`).set(bearer(p.secretKey))).status).toBe(409);
  });
});

describe('GET /workflows/step-types', () => {
  it("lists the app's registry, the injected types included, with branch lists and JSON Schemas", async () => {
    const res = await h.http.get('/workflows/step-types').set(bearer(p.secretKey));
    expect(res.status).toBe(200);
    expect(res.body.map((t: any) => t.type)).toEqual(TEST_REGISTRY.map((d) => d.type));
    const byType = Object.fromEntries(res.body.map((t: any) => [t.type, t]));
    expect(byType.WEIGHTED_SPLIT).toMatchObject({
      internal: false,
      branches: { derived: true, names: [] },
      requiredBranches: { derived: true, names: [] },
      docs: null,
    });
    expect(byType.WEIGHTED_SPLIT.configSchema).toMatchObject({
      type: 'object',
      required: ['branches'],
      properties: { branches: { type: 'array', minItems: 2, maxItems: 10 } },
    });
    expect(byType.STAMP.configSchema.properties.templateId).toMatchObject({ type: 'string', format: 'template-id' });
    expect(byType.CONDITION).toMatchObject({ branches: { derived: false, names: ['yes', 'no'] }, requiredBranches: { derived: false, names: [] } });
    expect(byType.TRIGGER.internal).toBe(true);
    expect(byType.SEND_EMAIL.docs.config).toContain('templateId');

    // The product's app has no test types; cookie access (the dashboard's) answers the same list.
    const plain = await request(buildApp({ ...h.deps, steps: undefined }).app.callback())
      .get('/workflows/step-types')
      .set(bearer(p.secretKey));
    expect(plain.body.map((t: any) => t.type)).not.toContain('WEIGHTED_SPLIT');
    expect((await h.http.get('/workflows/step-types').set({ Cookie: p.cookie, 'X-Project-Id': p.projectId })).status).toBe(200);
    expect((await h.http.get('/workflows/step-types')).status).toBe(401);
  });

  it("gives each step its own branches: a split's are named by its config", async () => {
    const wf = await api.build(`names-${Date.now()}`, { split: split({ left: 1, right: 2 }) }, [['trigger', 'split']]);
    const got = await api.get(wf.id);
    const step = got.body.steps.find((x: any) => x.id === wf.steps.split);
    expect(step).toMatchObject({ branches: ['left', 'right'], requiredBranches: ['left', 'right'] });
    expect(got.body.steps.find((x: any) => x.type === 'TRIGGER')).toMatchObject({ branches: ['next'], requiredBranches: [] });
    const renamed = await api.patchStep(wf.id, wf.steps.split, { config: split({ up: 1, down: 1, flat: 1 }).config });
    expect(renamed.body.branches).toEqual(['up', 'down', 'flat']);
  });

  it('is in the OpenAPI document', async () => {
    const doc = await h.http.get('/openapi.json');
    expect(doc.body.paths['/workflows/step-types'].get.responses['200']).toBeDefined();
    expect(doc.body.paths['/workflows/{id}']).toBeDefined();
  });
});
